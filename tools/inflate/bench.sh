#!/bin/sh
# bench.sh runs BenchmarkInflate with the decoders alternating (one run of
# each sub-benchmark per round, ROUNDS rounds, default 5) and prints the
# median MB/s per sub-benchmark (wall clock, and per CPU second: cpuMB/s)
# and the dt64/klauspost ratios.
#   tools/inflate/bench.sh ['data=jitter-ns/level=5']
# The filter names both levels ('data=jitter-ns/level=.' for all three
# gzip levels). For steadier figures on a loaded machine see TestTime
# (best of single decodes by thread CPU) and icount.sh (instructions per
# byte); docs/inflate.md has the method and the figures.
set -eu
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-5}
filter=${1:-.}
bin=$(mktemp)
out=$(mktemp)
trap 'rm -f "$bin" "$out"' EXIT
go test -c -o "$bin" ./internal/inflate/
for r in $(seq "$ROUNDS"); do
	for dec in dt64 klauspost stdlib; do
		"$bin" -test.run '^$' -test.bench "BenchmarkInflate/$filter/dec=$dec\$" -test.benchtime "${BENCHTIME:-30x}" |
			grep '^BenchmarkInflate' >>"$out"
	done
done
awk 'function median(s,   n, a, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ sub(/-[0-9]+$/, "", $1); v[$1] = v[$1] " " $5; c[$1] = c[$1] " " $7 }
END {
	for (k in v) { med[k] = median(v[k]); cmed[k] = median(c[k]) }
	for (k in med) if (k ~ /dec=dt64$/) {
		b = k; sub(/dec=dt64$/, "", b); sub(/^BenchmarkInflate\//, "", b)
		K = "BenchmarkInflate/" b "dec=klauspost"; S = "BenchmarkInflate/" b "dec=stdlib"
		printf "%-28s MB/s dt64 %6.1f klauspost %6.1f stdlib %6.1f ratio %.2f | cpuMB/s dt64 %6.1f klauspost %6.1f stdlib %6.1f ratio %.2f\n", b, med[k], med[K], med[S], med[k] / med[K], cmed[k], cmed[K], cmed[S], cmed[k] / cmed[K]
	}
}' "$out" | sort
