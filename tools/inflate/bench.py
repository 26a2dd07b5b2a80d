#!/usr/bin/python3
"""Time Python's C zlib on the gzip chunks of internal/inflate's benchmark.

  INFLATE_DUMP=/tmp/gz go test -run TestDumpBench ./internal/inflate/
  /usr/bin/python3 tools/inflate/bench.py /tmp/gz

Prints the median over ROUNDS (5) of wall-clock and CPU MB/s per chunk,
MB meaning 10^6 bytes of decoded output, as Go's benchmarks count.
"""
import os
import statistics
import sys
import time
import zlib

d = sys.argv[1]
rounds = int(os.environ.get("ROUNDS", "5"))
for name in sorted(os.listdir(d)):
    src = open(os.path.join(d, name), "rb").read()
    size = len(zlib.decompress(src, 31))
    n = 30
    wall, cpu = [], []
    for _ in range(rounds):
        w0, c0 = time.perf_counter(), time.process_time()
        for _ in range(n):
            zlib.decompress(src, 31)
        wall.append(size * n / 1e6 / (time.perf_counter() - w0))
        cpu.append(size * n / 1e6 / (time.process_time() - c0))
    print(f"{name:18} zlib {zlib.ZLIB_RUNTIME_VERSION}: MB/s {statistics.median(wall):7.1f}  cpuMB/s {statistics.median(cpu):7.1f}")
