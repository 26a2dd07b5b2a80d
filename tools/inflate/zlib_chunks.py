#!/usr/bin/python3
"""Write zlib-encoded versions of internal/inflate's benchmark chunks.

  INFLATE_DUMP=/tmp/gz go test -run TestDumpBench ./internal/inflate/
  /usr/bin/python3 tools/inflate/zlib_chunks.py /tmp/gz

Legacy Zarr stores were written by numcodecs, whose GZip and Zlib codecs
call C zlib; the benchmark's own chunks are written by klauspost's
encoder, which makes larger blocks and other matches. For each
<data>.5.gz in the directory this writes <data>-zlib.<level>.gz, the
same decoded bytes through Python's gzip module (C zlib) at levels 1, 5
and 9, and f4-field-zlib.<level>.gz, a float32 field (a smooth 512 x 512
grid around 280 with noise of 0.5, as a temperature variable), since
whole-store transcodes decode the data variables too.
"""
import gzip
import os
import sys

import numpy as np

d = sys.argv[1]
chunks = {}
for name in sorted(os.listdir(d)):
    if name.endswith(".5.gz") and "-zlib" not in name:
        with open(os.path.join(d, name), "rb") as f:
            chunks[name[: -len(".5.gz")]] = gzip.decompress(f.read())
rng = np.random.default_rng(1)
y, x = np.mgrid[0:512, 0:512]
field = 280 + 20 * np.sin(y / 60) + 10 * np.cos(x / 45) + rng.normal(0, 0.5, (512, 512))
chunks["f4-field"] = field.astype("<f4").tobytes()
for data, raw in chunks.items():
    for level in (1, 5, 9):
        with open(os.path.join(d, f"{data}-zlib.{level}.gz"), "wb") as f:
            f.write(gzip.compress(raw, level, mtime=0))
