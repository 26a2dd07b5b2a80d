#!/bin/sh
# bench.sh runs BenchmarkInflate with the decoders alternating (one run of
# each sub-benchmark per round, ROUNDS rounds, default 5) and prints the
# median MB/s per sub-benchmark and the dt64/klauspost ratio.
#   tools/inflate/bench.sh ['data=jitter-ns/level=5']
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
awk '{ sub(/-[0-9]+$/, "", $1); v[$1] = v[$1] " " $5 }
END {
	for (k in v) {
		n = split(v[k], a, " "); 
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		med[k] = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	for (k in med) if (k ~ /dec=dt64$/) {
		base = k; sub(/dec=dt64$/, "", base)
		printf "%-45s dt64 %7.1f  klauspost %7.1f  stdlib %7.1f MB/s  dt64/klauspost %.2f\n", base, med[k], med[base "dec=klauspost"], med[base "dec=stdlib"], med[k] / med[base "dec=klauspost"]
	}
}' "$out" | sort
