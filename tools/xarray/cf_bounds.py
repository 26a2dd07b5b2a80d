#!/usr/bin/python3
"""CF time bounds without units of their own, as CMOR writes them.

Usage: cf_bounds.py OUTDIR

Writes, with Debian's python3-xarray (2023.01) on zarr 2.13, the dataset
OUTDIR/bounds.zarr and OUTDIR/bounds.values.json. Its time coordinate is
float64 "days since 1850-01-01" (calendar standard, bounds "time_bnds")
at mid-month, and time_bnds, (time, bnds), the month's first and last
day, carries no units or calendar: CF 7.1 gives bounds their
coordinate's, CMOR (CMIP data) writes them so, and xarray writes them so
when it writes a dataset it opened with decode_times=False. A second
time-like variable, other_bnds, has its own units: a bounds variable
that says its units keeps them.
A second coordinate, jtime, int64 "days since 2000-01-01" in the julian
calendar, has bounds jtime_bnds with units of their own and no calendar:
xarray gives bounds each of units and calendar they lack
(conventions._update_bounds_attributes, setdefault), so they are julian
dates too.

The JSON has what xarray 2023.01 decodes from the store (open_zarr,
default decoding), as int64 nanoseconds since the epoch per array,
flattened in C order; julian dates, which xarray decodes to cftime
objects, as the instants they stand for (their Julian day number, the
same in every calendar, less 1970-01-01's). Deterministic.
"""
import json
import os
import shutil
import sys
import warnings

import numpy as np
import xarray as xr


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    warnings.simplefilter("ignore")
    path = os.path.join(out, "bounds.zarr")
    shutil.rmtree(path, ignore_errors=True)
    start = np.array([0, 31, 59, 90, 120, 151], dtype="f8")  # 1850's months
    end = np.array([31, 59, 90, 120, 151, 181], dtype="f8")
    mid = (start + end) / 2
    ds = xr.Dataset(
        {
            "tas": ("time", np.linspace(280, 285, 6)),
            "time_bnds": (("time", "bnds"), np.stack([start, end], 1)),
            "other_bnds": (("time", "bnds"), np.stack([start, end], 1) * 24,
                           {"units": "hours since 1850-01-01", "calendar": "standard"}),
        },
        coords={"time": ("time", mid, {"units": "days since 1850-01-01", "calendar": "standard", "bounds": "time_bnds"})},
    )
    jstart = np.array([0, 31, 60, 91], dtype="i8")  # 2000's months, julian
    jend = np.array([31, 60, 91, 121], dtype="i8")
    ds["jtime_bnds"] = (("jtime", "bnds"), np.stack([jstart, jend], 1), {"units": "days since 2000-01-01"})
    ds = ds.assign_coords(jtime=("jtime", jstart + 14, {"units": "days since 2000-01-01", "calendar": "julian", "bounds": "jtime_bnds"}))
    ds.to_zarr(path, consolidated=True)
    back = xr.open_zarr(path)
    doc = {}
    for name in ("time", "time_bnds", "other_bnds"):
        v = back[name].values
        assert v.dtype == np.dtype("M8[ns]"), (name, v.dtype)
        doc[name] = [int(x) for x in v.ravel().astype("i8")]
    unix_jdn = 2440588  # 1970-01-01's Julian day number
    for name in ("jtime", "jtime_bnds"):
        v = back[name].values.ravel()
        assert all(type(d).__name__ == "DatetimeJulian" for d in v), (name, v)
        doc[name] = [(d.toordinal() - unix_jdn) * 86400 * 10**9 for d in v]
    with open(os.path.join(out, "bounds.values.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
