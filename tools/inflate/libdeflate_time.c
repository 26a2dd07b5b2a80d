// libdeflate_time times libdeflate's gzip decoder on the chunks written by
// internal/inflate's TestDumpBench, the way TestTime times dt64's: each of N
// decodes by the thread's CPU clock, printing the best, the 25th
// percentile and the median as MB/s (10^6 bytes of decoded output).
//
//   apt-get install libdeflate-dev
//   cc -O2 -o /tmp/libdeflate_time tools/inflate/libdeflate_time.c -ldeflate
//   INFLATE_DUMP=/tmp/gz go test -run TestDumpBench ./internal/inflate/
//   /tmp/libdeflate_time /tmp/gz/e2e-ns.5.gz 100
//
// It is a measuring tool, not part of the build or the tests: it gives the
// figure dt64's decoder is compared with in docs/inflate.md.
#include <libdeflate.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: %s chunk.gz N\n", argv[0]);
		return 2;
	}
	FILE *f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *src = malloc(n);
	if (fread(src, 1, n, f) != (size_t)n) {
		perror("read");
		return 1;
	}
	fclose(f);
	// The gzip trailer's ISIZE is the decoded size (mod 2^32).
	size_t size = src[n - 4] | src[n - 3] << 8 | src[n - 2] << 16 | (size_t)src[n - 1] << 24;
	unsigned char *dst = malloc(size);
	int rounds = atoi(argv[2]);
	if (rounds < 1) {
		fprintf(stderr, "N must be at least 1\n");
		return 2;
	}
	double *t = malloc(rounds * sizeof *t);
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	for (int i = 0; i < rounds; i++) {
		struct timespec a, b;
		size_t got;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
		enum libdeflate_result r = libdeflate_gzip_decompress(d, src, n, dst, size, &got);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
		if (r != LIBDEFLATE_SUCCESS || got != size) {
			fprintf(stderr, "%s: libdeflate result %d, %zu of %zu bytes\n", argv[1], r, got, size);
			return 1;
		}
		t[i] = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	}
	qsort(t, rounds, sizeof *t, cmp);
	double mb = size / 1e6;
	printf("libdeflate %s: best %.1f p25 %.1f median %.1f MB/s\n", argv[1], mb / t[0], mb / t[rounds / 4], mb / t[rounds / 2]);
	return 0;
}
