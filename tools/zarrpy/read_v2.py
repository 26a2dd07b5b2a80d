#!/usr/bin/python3
"""Read Zarr v2 datetime64/timedelta64 arrays with zarr-python 2 and print
them as JSON, for dt64's interop tests.

Usage: read_v2.py ARRAY.zarr [ARRAY.zarr ...]

Prints {PATH: {"dtype": str, "shape": [...], "fill_value": int|null,
"attrs": {...}, "values": [int...]}} with values flattened in C order as raw
int64 (NaT = -9223372036854775808).
"""
import json
import sys

import numpy as np
import zarr


def main():
    out = {}
    for path in sys.argv[1:]:
        z = zarr.open(path, mode="r")
        back = z[...]
        fill = z.fill_value
        if fill is not None:
            fill = int(np.asarray(fill).astype(z.dtype.newbyteorder("=")).view("i8"))
        out[path] = {
            "dtype": z.dtype.str,
            "shape": list(z.shape),
            "fill_value": fill,
            "attrs": z.attrs.asdict(),
            "values": back.astype(back.dtype.newbyteorder("=")).view("i8").ravel().tolist(),
        }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
