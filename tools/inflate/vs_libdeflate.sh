#!/bin/sh
# vs_libdeflate.sh times dt64's inflate (the assembly loop where the CPU
# has BMI2, and the Go loop), klauspost's and libdeflate's on the same
# gzip chunks: the benchmark's (written by klauspost, as dt64 writes
# them) and the same data written by C zlib (as numcodecs wrote legacy
# stores; tools/inflate/zlib_chunks.py). Each figure is TestTime's or
# libdeflate_time's (thread CPU, 100 decodes: best and median MB/s);
# decoders alternate within each round, ROUNDS rounds (default 3), and
# the table gives the median over the rounds.
#   apt-get install libdeflate-dev python3-numpy
#   tools/inflate/vs_libdeflate.sh ['e2e-ns.5 text-zlib.5 ...']
set -eu
cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go test -c -o "$dir/inflate.test" ./internal/inflate/
cc -O2 -o "$dir/libdeflate_time" tools/inflate/libdeflate_time.c -ldeflate
mkdir "$dir/gz"
INFLATE_DUMP="$dir/gz" "$dir/inflate.test" -test.run '^TestDumpBench$' >/dev/null
/usr/bin/python3 tools/inflate/zlib_chunks.py "$dir/gz"
chunks=${1:-"e2e-ns.5 jitter-ns.5 hourly-us.5 text.5 e2e-ns-zlib.5 jitter-ns-zlib.5 hourly-us-zlib.5 text-zlib.5 f4-field-zlib.5"}
for r in $(seq "$ROUNDS"); do
	for c in $chunks; do
		f="$dir/gz/$c.gz"
		"$dir/libdeflate_time" "$f" 100 | awk -v c="$c" '{print c, "libdeflate", $4, $8}'
		for dec in asm go klauspost; do
			case $dec in
			asm) env="" d=dt64 ;;
			go) env="DT64_DISABLE=bmi2" d=dt64 ;;
			klauspost) env="" d=klauspost ;;
			esac
			env $env INFLATE_TIME="x/0/$d/100" INFLATE_TIME_GZ="$f" "$dir/inflate.test" -test.run '^TestTime$' |
				awk -v c="$c" -v d="$dec" '/^time/ {print c, d, $5, $9}'
		done
	done
done >"$dir/out"
awk 'function median(s,   n, a, i, j, t) {
		n = split(s, a, " ")
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{ k = $1 " " $2; best[k] = best[k] " " $3; med[k] = med[k] " " $4; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
END {
	print "| chunk | dt64 asm | dt64 Go | klauspost | libdeflate | asm / libdeflate |"
	print "|---|---:|---:|---:|---:|---:|"
	for (i = 1; i <= n; i++) {
		c = order[i]
		printf "| %s", c
		for (j = 1; j <= 4; j++) {
			d = (j == 1) ? "asm" : (j == 2) ? "go" : (j == 3) ? "klauspost" : "libdeflate"
			printf " | %.0f / %.0f", median(best[c " " d]), median(med[c " " d])
		}
		printf " | %.2f |\n", median(best[c " asm"]) / median(best[c " libdeflate"])
	}
}' "$dir/out"
