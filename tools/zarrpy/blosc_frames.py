#!/usr/bin/python3
"""Write Blosc1 frames with numcodecs' Blosc (c-blosc 1.x) for dt64's blosc
decoder tests.

Usage: blosc_frames.py OUTDIR [--small]

For each case writes OUTDIR/NAME.blosc (the frame) and OUTDIR/NAME.raw (the
input bytes), and OUTDIR/manifest.json: [{"name", "cname", "clevel",
"shuffle", "typesize", "blocksize", "nbytes", "sha256"}]. --small keeps the
inputs short enough to commit as golden files and fuzz seeds.
"""
import hashlib
import json
import os
import sys

import numpy as np
from numcodecs import blosc

NAT = np.iinfo(np.int64).min
CNAMES = ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"]
SHUFFLES = {0: "noshuffle", 1: "shuffle", 2: "bitshuffle"}


def timestamps(n, seed):
    # 1 s cadence in ns with up to +-5 ms jitter and 0.5% NaT, like `dt64 demo`.
    rng = np.random.default_rng(seed)
    start = np.int64(1704067200) * 10**9
    v = start + np.arange(n, dtype=np.int64) * 10**9 + rng.integers(-5_000_000, 5_000_001, n)
    v[rng.random(n) < 0.005] = NAT
    return v.astype("<i8")


def compress(raw, typesize, cname, clevel, shuffle, blocksize):
    # numcodecs takes the typesize from the buffer's itemsize, so a buffer
    # that is not a whole number of elements goes through python-blosc
    # (same c-blosc library, no blocksize argument).
    if len(raw) % typesize:
        import blosc as pyblosc
        assert blocksize == 0
        return pyblosc.compress(raw, typesize=typesize, clevel=clevel, shuffle=shuffle, cname=cname)
    arr = np.frombuffer(raw, dtype="u1" if typesize == 1 else "V%d" % typesize)
    return blosc.compress(arr, cname.encode(), clevel, shuffle, blocksize)


def main():
    out = sys.argv[1]
    small = "--small" in sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    blosc.set_nthreads(1)
    try:
        import blosc as pyblosc
        pyblosc.set_nthreads(1)
    except ImportError:
        pass
    n = 600 if small else 40000
    ts = timestamps(n, 1).tobytes()
    rng = np.random.default_rng(7)
    noise = rng.integers(0, 256, 3000 if small else 50000, dtype=np.uint8).tobytes()
    # A 9000-byte random pattern repeated: matches 9000 bytes back, beyond
    # blosclz's 8191-byte near distance.
    # (An 8-letter alphabet: blosclz gives up on data that looks random.)
    pattern = rng.integers(0, 8, 9000, dtype=np.uint8).tobytes()
    far = (pattern * 3)[: 27000]
    runs = bytes(2000) + bytes(range(256)) * 4 + b"\x07" * 3000
    odd = ts[: 8 * 141]
    datasets = [
        # name, raw, typesize, blocksize
        ("ts", ts, 8, 0),
        ("ts_bs1024", odd, 8, 1024),  # leftover block of 13 elements
        ("ts_small", ts[:96], 8, 0),  # under 128 bytes: stored raw
        ("ts3", ts[: 3 * 333 + 2], 3, 0),  # bytes past the last element
        ("ts17", ts[: 17 * 100], 17, 0),  # typesize > 16: never split
        ("bytes1", runs, 1, 0),
        ("noise", noise, 8, 0),
        ("far", far, 1, 32768),
    ]
    manifest = []
    for dname, raw, typesize, blocksize in datasets:
        for cname in CNAMES:
            if small and dname == "far" and cname != "blosclz":
                continue
            for sh, shname in SHUFFLES.items():
                for clevel in {"ts": [0, 5], "far": [9]}.get(dname, [5]):
                    name = "%s_%s_%s_c%d" % (dname, cname, shname, clevel)
                    frame = compress(raw, typesize, cname, clevel, sh, blocksize)
                    back = blosc.decompress(frame)
                    assert bytes(back) == raw, name
                    with open(os.path.join(out, name + ".blosc"), "wb") as f:
                        f.write(frame)
                    if not small:
                        with open(os.path.join(out, name + ".raw"), "wb") as f:
                            f.write(raw)
                    manifest.append({
                        "name": name, "cname": cname, "clevel": clevel,
                        "shuffle": shname, "typesize": typesize,
                        "blocksize": blocksize, "nbytes": len(raw),
                        "sha256": hashlib.sha256(raw).hexdigest(),
                    })
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
