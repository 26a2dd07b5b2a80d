#!/usr/bin/python3
"""Write numcodecs-encoded GZip and Zlib streams for internal/inflate's tests.

Run from the repository root: /usr/bin/python3 tools/inflate/gen.py
It writes internal/inflate/testdata/numcodecs/<data>.<codec>.<level> and
MANIFEST (name, decoded size, SHA-256 of the decoded bytes). The data is
deterministic: int64 timestamps (little endian, as numcodecs sees a
'<M8[ns]' array's buffer) and text.
"""
import hashlib
import os
import random

import numcodecs
import numpy as np

out = os.path.join("internal", "inflate", "testdata", "numcodecs")
os.makedirs(out, exist_ok=True)

rng = random.Random(28)
base = 1704067200 * 10**9
jitter = np.array([base + i * 10**9 + rng.randint(-5 * 10**8, 5 * 10**8) for i in range(8192)], dtype="<i8")
hourly = np.arange(8192, dtype="<i8") * 3600 * 10**6 + 1704067200 * 10**6
words = ["time", "station", "temperature", "NaN", "units", "since", "1970-01-01", "calendar", "\n"]
text = " ".join(rng.choice(words) + str(rng.randint(0, 99)) for _ in range(6000)).encode()

data = {"jitter-ns": jitter.tobytes(), "hourly-us": hourly.tobytes(), "text": text, "empty": b""}
lines = []
for name, raw in data.items():
    for codec in ("gzip", "zlib"):
        for level in (1, 5, 9):
            c = numcodecs.GZip(level) if codec == "gzip" else numcodecs.Zlib(level)
            enc = bytes(c.encode(raw))
            assert bytes(c.decode(enc)) == raw
            fname = f"{name}.{codec}.{level}"
            with open(os.path.join(out, fname), "wb") as f:
                f.write(enc)
            lines.append(f"{fname} {len(raw)} {hashlib.sha256(raw).hexdigest()}\n")
with open(os.path.join(out, "MANIFEST"), "w") as f:
    f.write(f"# numcodecs {numcodecs.__version__}: file, decoded size, SHA-256 of the decoded bytes\n")
    f.writelines(lines)
