#!/usr/bin/python3
"""Write Zarr v2 datetime64/timedelta64 arrays compressed with numcodecs'
Blosc (every cname x shuffle) with zarr-python 2 for dt64's interop tests.

Usage: blosc_write_v2.py OUTDIR

Creates OUTDIR/NAME.zarr for each case and OUTDIR/expected.json in
write_v2.py's format: {NAME: {"dtype", "shape", "fill_null", "values"}}, the
values being what zarr-python reads back, flattened in C order, as raw int64
(NaT = -9223372036854775808).
"""
import json
import os
import sys

import numpy as np
import zarr
from numcodecs import Blosc

NAT = np.iinfo(np.int64).min


def timestamps(n, seed):
    # 1 s cadence in ns with up to +-5 ms jitter and 0.5% NaT, like `dt64 demo`.
    rng = np.random.default_rng(seed)
    v = np.int64(1704067200) * 10**9 + np.arange(n, dtype=np.int64) * 10**9 + rng.integers(-5_000_000, 5_000_001, n)
    v[rng.random(n) < 0.005] = NAT
    return v


def case(out, name, dtype, shape, chunks, compressor):
    path = os.path.join(out, name + ".zarr")
    z = zarr.open(path, mode="w", shape=shape, chunks=chunks, dtype=dtype,
                  compressor=compressor, fill_value=np.datetime64("NaT") if dtype[1] == "M" else np.timedelta64("NaT"))
    n = int(np.prod(shape, dtype=np.int64))
    data = timestamps(n, len(name)).reshape(shape).view(np.dtype(dtype).newbyteorder("="))
    z[...] = data.astype(dtype)
    back = z[...]
    return {
        "dtype": dtype,
        "shape": list(shape),
        "fill_null": False,
        "values": back.astype(back.dtype.newbyteorder("=")).view("i8").ravel().tolist(),
    }


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    exp = {}
    shuffles = {0: "noshuffle", 1: "shuffle", 2: "bitshuffle"}
    for cname in ["blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"]:
        for sh, shname in shuffles.items():
            name = "ns_le_%s_%s" % (cname, shname)
            # 7000 elements in chunks of 3000: two full chunks of 24000
            # bytes and a padded edge chunk.
            exp[name] = case(out, name, "<M8[ns]", (7000,), (3000,), Blosc(cname=cname, clevel=5, shuffle=sh))
    exp["us_be_zstd_auto"] = case(out, "us_be_zstd_auto", ">M8[us]", (5000,), (2000,), Blosc(cname="zstd", clevel=3, shuffle=Blosc.AUTOSHUFFLE))
    exp["ms_le_lz4_blocksize"] = case(out, "ms_le_lz4_blocksize", "<m8[ms]", (6000,), (6000,), Blosc(cname="lz4", clevel=9, shuffle=Blosc.BITSHUFFLE, blocksize=4096))
    exp["s_le_blosclz_2d"] = case(out, "s_le_blosclz_2d", "<M8[s]", (70, 90), (30, 40), Blosc(cname="blosclz", clevel=9, shuffle=Blosc.SHUFFLE))
    exp["ns_le_lz4_clevel0"] = case(out, "ns_le_lz4_clevel0", "<M8[ns]", (500,), (200,), Blosc(cname="lz4", clevel=0))
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(exp, f)


if __name__ == "__main__":
    main()
