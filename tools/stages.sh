#!/usr/bin/env bash
# stages.sh runs make test's stages and prints each one's duration, so that
# CI time is seen where it goes.
#
#   tools/stages.sh "FIRST STAGES" "LANE 1 STAGES" "LANE 2 STAGES" ...
#
# The first argument's stages run one after another, their output streamed
# (the quick checks: a formatting error should not wait for the tests).
# Then the lanes run at the same time, each its stages in order. Most test
# stages end in one long test binary (kernels, cmd/dt64, a qemu run) that
# keeps one core of two busy; two lanes keep both busy. A stage's output
# is kept in a file and printed whole when the stage ends, so that lanes
# never interleave. A failed stage stops its lane; the other lanes finish,
# and the run fails naming every failed stage.
set -u

make=${MAKE:-make}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
trap 'trap - INT TERM; kill 0; exit 130' INT TERM
total=$(date +%s)

# timed FILE CMD...: run CMD; the CPU seconds (user + system) it and its
# children used go into FILE. On a fresh CI machine most of a stage is
# compiling (an empty build cache), and two lanes share two cores, so a
# stage's wall time says little about what it costs: its CPU time does.
timed() {
	local f=$1 TIMEFORMAT='%U %S'
	shift
	{ time "$@" 2>&3; } 3>&2 2>"$f"
}

# cpu FILE: the CPU seconds in FILE, rounded.
cpu() {
	awk '{ printf "%d", $1 + $2 + 0.5 }' "$1" 2>/dev/null
}

# run STAGE: make it, its output to the terminal; 1 when it failed.
run() {
	local start
	start=$(date +%s)
	if ! timed "$logs/$1.time" $make --no-print-directory "$1"; then
		echo "make test: stage $1 FAILED after $(($(date +%s) - start)) s"
		return 1
	fi
	echo "make test: stage $1 took $(($(date +%s) - start)) s, CPU $(cpu "$logs/$1.time") s"
}

# lane N STAGE...: make each stage in turn, its output to a file printed
# when it ends (under a lock, whole); stops at a failure.
lane() {
	local n=$1 s start rc
	shift
	for s in "$@"; do
		start=$(date +%s)
		timed "$logs/$s.time" $make --no-print-directory "$s" >"$logs/$s.log" 2>&1
		rc=$?
		{
			flock 9
			echo "==== lane $n: stage $s ===="
			cat "$logs/$s.log"
			if [ $rc -ne 0 ]; then
				echo "make test: stage $s FAILED after $(($(date +%s) - start)) s (lane $n)"
				echo "$s" >>"$logs/failed"
			else
				echo "make test: stage $s took $(($(date +%s) - start)) s, CPU $(cpu "$logs/$s.time") s (lane $n)"
			fi
		} 9>"$logs/lock"
		[ $rc -eq 0 ] || return 1
	done
}

for s in $1; do
	run "$s" || exit 1
done
shift

n=0
pids=()
for stages in "$@"; do
	n=$((n + 1))
	# shellcheck disable=SC2086 # the stages are words
	lane "$n" $stages &
	pids+=($!)
done
wait "${pids[@]}"

if [ -s "$logs/failed" ]; then
	echo "make test: FAILED: $(tr '\n' ' ' <"$logs/failed")(after $(($(date +%s) - total)) s)"
	exit 1
fi
echo "make test: all stages passed in $(($(date +%s) - total)) s"
