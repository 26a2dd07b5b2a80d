#!/usr/bin/python3
"""Write Zarr v2 datetime64/timedelta64 arrays with zarr-python 2 for dt64's
interop tests.

Usage: write_v2.py OUTDIR

Creates OUTDIR/NAME.zarr for each case below and OUTDIR/expected.json:
{NAME: {"dtype": str, "shape": [...], "fill_null": bool, "values": [int...]}}
where values are what zarr-python reads back, flattened in C order, as raw
int64 (NaT = -9223372036854775808). Arrays whose fill_value is null are
written completely: zarr-python leaves missing chunks of such arrays
uninitialized, so there is nothing to compare them with.
"""
import json
import os
import sys

import numcodecs
import numpy as np
import zarr

NAT = np.iinfo(np.int64).min


def values(n, seed):
    rng = np.random.default_rng(seed)
    v = rng.integers(-(1 << 50), 1 << 50, size=n, dtype=np.int64)
    v[rng.random(n) < 0.15] = NAT
    return v


def case(out, name, dtype, shape, chunks, compressor, fill, write, sep="."):
    path = os.path.join(out, name + ".zarr")
    z = zarr.open(path, mode="w", shape=shape, chunks=chunks, dtype=dtype,
                  compressor=compressor, fill_value=fill,
                  dimension_separator=sep)
    n = int(np.prod(shape, dtype=np.int64))
    data = values(n, len(name)).reshape(shape).view(np.dtype(dtype).newbyteorder("="))
    write(z, data.astype(dtype))
    back = z[...]
    return {
        "dtype": dtype,
        "shape": list(shape),
        "fill_null": fill is None,
        "values": back.astype(back.dtype.newbyteorder("=")).view("i8").ravel().tolist(),
    }


def whole(z, data):
    z[...] = data


def head(z, data):
    # Only the first 10 elements: later chunks stay missing and read as fill.
    z[0:10] = data[0:10]


def corner(z, data):
    # A 4x5 corner of a 2-D array: touches chunks (0..1, 0..1) partially;
    # the rest stay missing and read as fill.
    z[0:4, 0:5] = data[0:4, 0:5]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    nat = np.datetime64("NaT")
    tnat = np.timedelta64("NaT")
    zstd = numcodecs.Zstd(level=3)
    exp = {
        # 23 elements in chunks of 5: a partial edge chunk; chunks 2..4 missing.
        "ns_le_zstd_missing": case(out, "ns_le_zstd_missing", "<M8[ns]", (23,), (5,), zstd, nat, head),
        "10us_be_zlib": case(out, "10us_be_zlib", ">M8[10us]", (23,), (5,), numcodecs.Zlib(level=5), 0, whole),
        "25h_le_gzip": case(out, "25h_le_gzip", "<m8[25h]", (17,), (4,), numcodecs.GZip(level=6), tnat, whole),
        "ms_be_none": case(out, "ms_be_none", ">m8[ms]", (12,), (5,), None, -1, head),
        "s_le_zstd_2d_slash": case(out, "s_le_zstd_2d_slash", "<M8[s]", (7, 9), (3, 4), zstd, nat, whole, sep="/"),
        "D_be_zlib_2d_dot": case(out, "D_be_zlib_2d_dot", ">M8[D]", (7, 9), (3, 4), numcodecs.Zlib(level=1), nat, corner),
        "M_le_fillnull": case(out, "M_le_fillnull", "<M8[M]", (10,), (4,), zstd, None, whole),
        "us_le_0d": case(out, "us_le_0d", "<M8[us]", (), (), zstd, nat, whole),
    }
    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(exp, f)


if __name__ == "__main__":
    main()
