#!/usr/bin/python3
"""A Zarr v2 hierarchy written by xarray with consolidated metadata, and a
reader that opens one through its consolidated metadata only, for dt64's
group tests.

Usage:
  groups_v2.py write STORE   xarray 2023.01 (Debian) on zarr 2.13 writes a
                             dataset with to_zarr(consolidated=True), then a
                             subgroup "sub" with to_zarr(group="sub",
                             mode="a", consolidated=True). Deterministic.
  groups_v2.py read STORE    prints one JSON document: {"zarr": {PATH:
                             {"kind", "attrs", "shape", "dtype"}}, as
                             zarr.open_consolidated sees the hierarchy, and
                             "xarray": {GROUP: {"attrs", "vars": {NAME:
                             {"dims", "attrs", "values"}}}} as
                             xarray.open_zarr(consolidated=True) decodes
                             the root and "sub" (datetimes as int64 ns).
Both fail when STORE has no .zmetadata: neither falls back to listing.
"""
import json
import sys

import numpy as np
import pandas as pd
import xarray as xr
import zarr


def write(store):
    time = pd.date_range("2021-03-01", periods=12, freq="6H").values
    root = xr.Dataset(
        {
            "temp": (("time", "lat"), np.arange(36, dtype="f4").reshape(12, 3),
                     {"units": "K", "long_name": "air temperature"}),
            "flag": ("time", np.arange(12, dtype="i2") % 3),
        },
        coords={"time": ("time", time), "lat": ("lat", np.array([10.0, 20.0, 30.0], "f4"), {"units": "degrees_north"})},
        attrs={"title": "dt64 v2 group fixture", "Conventions": "CF-1.8", "note": "caf\u00e9 \u2603"},
    )
    root.time.encoding["chunks"] = (5,)
    root.to_zarr(store, mode="w", consolidated=True)
    stamp = np.array(["2022-01-01T00:00:00.250", "NaT", "2022-01-02T12:00:00"], dtype="M8[ms]")
    sub = xr.Dataset(
        {"depth": ("obs", np.array([1.5, 2.5, np.nan]), {"units": "m"}),
         "stamp": ("obs", stamp)},
        attrs={"platform": "float 6903"},
    )
    sub.to_zarr(store, group="sub", mode="a", consolidated=True)


def jsonable(v):
    a = np.asarray(v)
    if a.dtype.kind == "M":
        a = a.astype("M8[ns]").view("i8")
    if a.dtype.kind == "f":
        return [None if np.isnan(x) else float(x) for x in a.ravel()]
    return a.ravel().tolist()


def read(store):
    g = zarr.open_consolidated(store, mode="r")
    nodes = {"": {"kind": "group", "attrs": dict(g.attrs)}}

    def visit(path, obj):
        if isinstance(obj, zarr.Array):
            nodes[path] = {"kind": "array", "attrs": dict(obj.attrs), "shape": list(obj.shape), "dtype": obj.dtype.str}
        else:
            nodes[path] = {"kind": "group", "attrs": dict(obj.attrs)}

    g.visititems(visit)
    out = {"zarr": nodes, "xarray": {}}
    for group in ("", "sub"):
        ds = xr.open_zarr(store, group=group or None, consolidated=True)
        out["xarray"][group] = {
            "attrs": dict(ds.attrs),
            "vars": {str(k): {"dims": list(v.dims), "values": jsonable(v.values)} for k, v in ds.variables.items()},
        }
    json.dump(out, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    {"write": write, "read": read}[sys.argv[1]](sys.argv[2])
