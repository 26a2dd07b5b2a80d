#!/bin/sh
# icount.sh counts the instructions each decoder executes per decoded byte
# on the benchmark's gzip chunks, with valgrind's callgrind (deterministic,
# independent of machine load). Only countDecode and what it calls are
# counted (--toggle-collect), so test setup does not enter the figure.
#   tools/inflate/icount.sh [data ...]   (default jitter-ns)
# LEVELS (default "1 5 9"), DECODERS (default "dt64 klauspost"), N
# (decodes per count, default 3).
set -eu
cd "$(dirname "$0")/../.."
bin=$(mktemp)
cg=$(mktemp)
trap 'rm -f "$bin" "$cg"' EXIT
go test -c -o "$bin" ./internal/inflate/
N=${N:-3}
[ $# -gt 0 ] || set -- jitter-ns
for data in "$@"; do
	for level in ${LEVELS:-1 5 9}; do
		for dec in ${DECODERS:-dt64 klauspost}; do
			# asyncpreemptoff: callgrind mishandles Go's preemption signals;
			# GOGC=off keeps the collector out of the count.
			ir=$(cd internal/inflate && INFLATE_COUNT="$data/$level/$dec/$N" GODEBUG=asyncpreemptoff=1 GOGC=off GOMAXPROCS=1 \
				valgrind --tool=callgrind --callgrind-out-file="$cg" --toggle-collect='*countDecode' \
				"$bin" -test.run '^TestCount$' 2>&1 | sed -n 's/.*Collected : *//p')
			awk -v d="$data" -v l="$level" -v dec="$dec" -v ir="$ir" -v n="$N" \
				'BEGIN { printf "%-10s level=%d %-10s %6.2f instructions/byte\n", d, l, dec, ir / (n * 1048576) }'
		done
	done
done
