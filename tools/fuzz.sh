#!/bin/sh
# fuzz.sh runs every Go fuzz target in the module for a fixed budget each,
# one target per `go test -fuzz` invocation (Go allows only one).
#
#   tools/fuzz.sh                 every target, FUZZTIME (default 30s) each
#   tools/fuzz.sh -short          every target but zarrow's for 1s (internal/inflate's for 3s): the
#                                 smoke run `make test` uses (~4 s per target with build and start-up)
#   FUZZTIME=5m tools/fuzz.sh FuzzTranscoder FuzzChunkDecode   only those targets
#
# FUZZPARALLEL (default 1) is -parallel, the number of fuzzing workers.
# FUZZMINIMIZETIME (default 5s) bounds the minimization of each new
# interesting input; Go's default, 60s, can stall a short run for a minute.
# Targets are found by grepping 'func Fuzz' in *_test.go files; the seed
# corpora (f.Add and testdata/fuzz/<Name>/) already run in plain `go test`.
# A crash leaves the input in <pkg>/testdata/fuzz/<Name>/: commit it as a
# regression seed. The script stops at the first failing target.
set -eu

cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-30s}
FUZZPARALLEL=${FUZZPARALLEL:-1}
FUZZMINIMIZETIME=${FUZZMINIMIZETIME:-5s}
short=
if [ "${1:-}" = "-short" ]; then
	FUZZTIME=1s short=1
	shift
fi

# "dir name" pairs, one per line, sorted for a stable order. Directories
# without Go files of their own package (testdata) are skipped.
targets=$(grep -r --include='*_test.go' -o '^func Fuzz[A-Za-z0-9_]*' . |
	grep -v -e '/testdata/' -e '^./asm/' |
	sed 's|^\./||; s|/[^/]*_test\.go:func | |; s|^[^/]*_test\.go:func |. |' |
	sort -u)

# The smoke run leaves out zarrow's targets: each of their runs writes and
# reads a Parquet file (about 17 a second), so a second of fuzzing is a
# dozen inputs, while building arrow-go with the fuzzer's instrumentation
# took 150 s on a machine with an empty build cache. Their seeds run in
# plain `go test`; `make fuzz` fuzzes them.
if [ -n "$short" ] && [ "$#" -eq 0 ]; then
	targets=$(echo "$targets" | grep -v '^zarrow ')
fi

if [ "$#" -gt 0 ]; then
	want=" $* "
	targets=$(echo "$targets" | while read -r dir name; do
		case "$want" in *" $name "*) echo "$dir $name" ;; esac
	done)
fi
if [ -z "$targets" ]; then
	echo "fuzz.sh: no fuzz targets found" >&2
	exit 1
fi

# Go 1.26's fuzz coordinator can fail a target with a bare "context
# deadline exceeded" when -fuzztime runs out while a worker is mid-input
# (golang/go#75804, fixed in Go 1.27). That failure writes no input to
# testdata/fuzz/<Name>/; a real crash always does. So a failure with that
# message and no new input there is reported and ignored; any other stops.
log=$(mktemp)
trap 'rm -f "$log" "$log.rc"' EXIT
start=$(date +%s)
echo "$targets" | while read -r dir name; do
	fuzztime=$FUZZTIME
	# internal/inflate's differential targets check each input against two
	# reference decoders at several destination sizes; their 59-81 seeds
	# (streams of up to 20 kB) take about a second under the fuzzer's
	# instrumentation on a fresh machine, so in 1 s they would run their
	# seeds and not one mutated input.
	if [ -n "$short" ] && [ "$dir" = internal/inflate ]; then
		fuzztime=3s
	fi
	echo "== $name (./$dir, $fuzztime)"
	corpus="$dir/testdata/fuzz/$name"
	before=$(ls "$corpus" 2>/dev/null | wc -l)
	# Shown as it runs; the status goes through a file (sh has no pipefail).
	{
		rc=0
		$GO test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" \
			-fuzzminimizetime "$FUZZMINIMIZETIME" -parallel "$FUZZPARALLEL" "./$dir" 2>&1 || rc=$?
		echo "$rc" >"$log.rc"
	} | tee "$log"
	if [ "$(cat "$log.rc")" = 0 ]; then
		continue
	fi
	after=$(ls "$corpus" 2>/dev/null | wc -l)
	if [ "$after" = "$before" ] && grep -q '^    context deadline exceeded$' "$log"; then
		echo "fuzz.sh: $name: Go's fuzztime deadline race (golang/go#75804), no failing input: ignored"
		continue
	fi
	exit 1
done
echo "fuzz.sh: $(echo "$targets" | wc -l) targets, $(( $(date +%s) - start ))s"
