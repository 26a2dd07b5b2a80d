#!/usr/bin/python3
"""CF time arrays with a null fill value and chunks that are not stored.

Usage: null_fill.py OUTDIR

Writes, with Debian's python3-xarray (2023.01) on zarr 2.13, the dataset
OUTDIR/null_fill.zarr and OUTDIR/null_fill.values.json. Both of its CF
time arrays are int64 "hours since 2020-01-01" with "fill_value": null
(xarray's default for integers), and each misses chunks:

  time        the dimension coordinate, 48 hours in chunks of 16; chunk 1
              is deleted after writing (a lost or never-copied object).
  valid_time  a data variable along time (chunks of 10, 48 long); chunks
              1 and 3 are deleted. (Writing only some regions with
              to_zarr(region=...) would leave the same holes, but xarray
              2023.01 first decodes the existing variable from zarr's
              uninitialized memory, and fails.)

The JSON has, per array, the instants written (int64 nanoseconds since
the epoch), null where the chunk is now missing: what dt64 must read. zarr-python returns uninitialized memory
for a missing chunk of a null-fill array, so what xarray reads there is
not deterministic and is not recorded (see docs/cf-time.md).
Deterministic.
"""
import json
import os
import shutil
import sys
import warnings

import numpy as np
import pandas as pd
import xarray as xr

ENC = {"units": "hours since 2020-01-01", "dtype": "int64"}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    warnings.simplefilter("ignore")
    path = os.path.join(out, "null_fill.zarr")
    shutil.rmtree(path, ignore_errors=True)
    hours = pd.date_range("2020-01-01", periods=48, freq="H").values
    valid = hours + np.timedelta64(6, "h")
    ds = xr.Dataset({"valid_time": ("time", valid)}, coords={"time": ("time", hours)})
    ds.to_zarr(path, encoding={"time": {**ENC, "chunks": (16,)}, "valid_time": {**ENC, "chunks": (10,)}}, consolidated=True)
    for key in ("time/1", "valid_time/1", "valid_time/3"):
        os.remove(os.path.join(path, key))
    doc = {}
    for name, arr, missing in (("time", hours, [1]), ("valid_time", valid, [1, 3])):
        zarray = json.load(open(os.path.join(path, name, ".zarray")))
        assert zarray["fill_value"] is None, zarray
        chunk = zarray["chunks"][0]
        ns = arr.astype("datetime64[ns]").astype("int64")
        doc[name] = {"missing_chunks": missing,
                     "values": [None if i // chunk in missing else int(v) for i, v in enumerate(ns)]}
    with open(os.path.join(out, "null_fill.values.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
