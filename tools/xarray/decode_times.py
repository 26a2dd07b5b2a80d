#!/usr/bin/python3
"""Decode the "time" variable of Zarr v2 groups with xarray, for dt64's tests.

Usage: decode_times.py GROUP...

Prints one JSON object: for each GROUP, {"dtype": the decoded dtype,
"values": int64 nanoseconds since the epoch (null for NaT)}, or {"error"}
when xarray refuses to decode it. Uses Debian's python3-xarray (2023.01)
on zarr 2.13, as a reader of dt64's --cf output.
"""
import json
import sys
import warnings

import numpy as np
import xarray as xr


def decode(var, kind, paths):
    """Prints the JSON object for variable var of each group in paths,
    which xarray must decode to NumPy kind ("M" or "m")."""
    warnings.simplefilter("ignore")
    out = {}
    for path in paths:
        try:
            decoded = xr.open_zarr(path, consolidated=False)[var].values
            if decoded.dtype.kind != kind:
                raise TypeError(f"decoded as {decoded.dtype}")
            ints = decoded.astype(decoded.dtype.str[:3] + "[ns]").astype("int64")
            out[path] = {"dtype": str(decoded.dtype), "values": [None if np.isnat(d) else int(i) for d, i in zip(decoded, ints)]}
        except Exception as e:  # noqa: BLE001 - reported to the test
            out[path] = {"error": f"{type(e).__name__}: {e}"}
    json.dump(out, sys.stdout)


def main():
    decode("time", "M", sys.argv[1:])


if __name__ == "__main__":
    main()
