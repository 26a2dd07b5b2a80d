#!/usr/bin/python3
"""Decode a timedelta variable of Zarr v2 groups with xarray, for dt64's tests.

Usage: decode_durations.py VAR GROUP...

Prints one JSON object: for each GROUP, {"dtype": the decoded dtype,
"values": int64 nanoseconds (null for NaT)}, or {"error"} when xarray does
not decode VAR to timedelta64. Uses Debian's python3-xarray (2023.01) on
zarr 2.13, as a reader of dt64's --cf output (CF durations).
"""
import json
import sys
import warnings

import numpy as np
import xarray as xr


def main():
    warnings.simplefilter("ignore")
    var, out = sys.argv[1], {}
    for path in sys.argv[2:]:
        try:
            decoded = xr.open_zarr(path, consolidated=False)[var].values
            if decoded.dtype.kind != "m":
                raise TypeError(f"decoded as {decoded.dtype}")
            ints = decoded.astype("timedelta64[ns]").astype("int64")
            out[path] = {"dtype": str(decoded.dtype), "values": [None if np.isnat(d) else int(i) for d, i in zip(decoded, ints)]}
        except Exception as e:  # noqa: BLE001 - reported to the test
            out[path] = {"error": f"{type(e).__name__}: {e}"}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
