#!/usr/bin/python3
"""Write zstd frames as numcodecs (libzstd, what zarr-python and xarray
use) writes them, for the stored-frame tests in zarr/zstd_stored_test.go:

  random_l1.zst   130 000 random bytes at level 1: incompressible, so
                  libzstd keeps its blocks raw (the fast path reads them)
  jitter_l1.zst   16 000 datetime64[ns] values one minute apart with up to
                  a second of jitter, at level 1: libzstd compresses their
                  literals, so its blocks are compressed (the decoder's)

Run with Debian's python3-numcodecs:  /usr/bin/python3 tools/zstd/gen.py testdata/zstd
"""
import os
import sys

import numcodecs
import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(5)
random = rng.integers(0, 256, 130_000, dtype=np.uint8).tobytes()
n = 16_000
jitter = (1_600_000_000 * 10**9 + np.arange(n, dtype="<i8") * 60 * 10**9
          + rng.integers(0, 10**9, n)).astype("<i8").tobytes()
for name, data in (("random_l1.zst", random), ("jitter_l1.zst", jitter)):
    with open(os.path.join(out, name), "wb") as f:
        f.write(numcodecs.Zstd(level=1).encode(data))
