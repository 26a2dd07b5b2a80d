#!/usr/bin/python3
"""CF durations (timedelta64 variables) written by xarray, for dt64's tests.

Usage: cf_durations.py OUTDIR

Writes, with Debian's python3-xarray (2023.01) on zarr 2.13, one Zarr v2
dataset per case, OUTDIR/NAME.zarr with a variable "step" (dimension
"step") encoded as xarray encodes a timedelta64 variable (or as the
case's encoding asks), and OUTDIR/NAME.values.json:
{"units", "dtype", "attrs", "stored", "written", "values"}: the stored
numbers (NaN as null), the durations written and the durations xarray
decodes them to (decode_cf_timedelta through open_zarr), both int64
nanoseconds (null for NaT). A case xarray does not decode as a duration
has "decoded": the dtype it reads instead, and no "values".
Also OUTDIR/era5_group.zarr, a dataset as ERA5 forecasts store it: a
CF time "time" (int64 hours since), a CF duration "step" (int64 hours)
and a float32 "t2m" over both, with consolidated metadata.
Deterministic.
"""
import json
import os
import shutil
import sys
import warnings

import numpy as np
import xarray as xr

NAT = np.timedelta64("NaT")
H = np.timedelta64(1, "h")


def steps(start, step, n=48):
    return (np.arange(n) * step + start).astype("timedelta64[ns]")


def with_nat(v, *idx):
    v = v.copy()
    for i in idx:
        v[i] = NAT
    return v


CASES = {
    # xarray's own choice for whole hours: int64 "hours" (ERA5's step).
    "hours_int": (steps(np.timedelta64(0, "h"), H), {}),
    # Hourly with NaT as float64 days (NaN): xarray decodes 1/24 day as
    # 01:00:00.0000288 (pandas rounds the fraction to 1e-9 day).
    "days_float_nat": (with_nat(steps(-5 * H, H), 3, 17), {"units": "days"}),
    # int16 minutes with a _FillValue (xarray masks through float32).
    "minutes_int16_fill": (with_nat(steps(np.timedelta64(-30, "m"), np.timedelta64(7, "m")), 0, 47),
                           {"units": "minutes", "dtype": "int16", "_FillValue": -32768}),
    # Milliseconds as float64 seconds, one NaT.
    "seconds_float_ms": (with_nat(steps(np.timedelta64(1025, "ms"), np.timedelta64(2, "ms")), 5), {"units": "seconds"}),
    # Nanoseconds in int64 with a _FillValue of MinInt64 and NaT.
    "ns_int_fill": (with_nat(steps(np.timedelta64(123456789, "ns"), H), 1),
                    {"units": "nanoseconds", "dtype": "int64", "_FillValue": np.iinfo(np.int64).min}),
    # int64 hours with NaT and no _FillValue: xarray writes NaT as -2**63
    # (datetime64's NaT bits), declares nothing, and reads it back as NaT.
    "hours_int_nat": (with_nat(steps(-5 * H, H), 3, 17), {"units": "hours", "dtype": "int64"}),
    # Quarter hours as float32 hours.
    "hours_float32": (steps(-5 * H, np.timedelta64(15, "m")), {"units": "hours", "dtype": "float32"}),
    # Packing: half hours as int16 hours × 0.5, a NaT through _FillValue.
    "packed_int16_half_hours": (with_nat(steps(-3 * H, np.timedelta64(30, "m")), 2),
                                {"units": "hours", "dtype": "int16", "scale_factor": 0.5, "_FillValue": -32768}),
}

# Numbers whose units xarray does not read as a duration ("hour" is not
# one of its words): they stay numbers.
NOT_DURATIONS = {
    "not_duration_hour": {"units": "hour"},
    "not_duration_weeks": {"units": "weeks"},
}


def dump(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def ns_list(v):
    return [None if np.isnat(d) else int(i) for d, i in zip(v, v.astype("timedelta64[ns]").astype("int64"))]


def stored_list(path):
    a = xr.open_zarr(path, consolidated=False, decode_timedelta=False, mask_and_scale=False).step.values
    return [None if (a.dtype.kind == "f" and np.isnan(x)) else x.item() for x in a]


def era5_group(out):
    path = os.path.join(out, "era5_group.zarr")
    shutil.rmtree(path, ignore_errors=True)
    time = np.arange(8).astype("timedelta64[h]") * 12 + np.datetime64("2020-01-01T00", "ns")
    ds = xr.Dataset({"t2m": (("time", "step"), np.arange(8 * 6, dtype="float32").reshape(8, 6) + 273)},
                    coords={"time": time, "step": steps(np.timedelta64(0, "h"), H, 6)})
    ds.to_zarr(path, encoding={"time": {"units": "hours since 1900-01-01"}}, consolidated=True)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    warnings.simplefilter("ignore")
    for name, (values, encoding) in CASES.items():
        path = os.path.join(out, name + ".zarr")
        shutil.rmtree(path, ignore_errors=True)
        ds = xr.Dataset({"step": ("step", values)})
        # Chunks of 20: several chunks, the last one partial.
        ds.to_zarr(path, encoding={"step": {**encoding, "chunks": (20,)}}, consolidated=False)
        attrs = json.load(open(os.path.join(path, "step", ".zattrs")))
        zarray = json.load(open(os.path.join(path, "step", ".zarray")))
        decoded = xr.open_zarr(path, consolidated=False).step.values
        if decoded.dtype.kind != "m":
            raise TypeError(f"{name}: decoded as {decoded.dtype}")
        dump(os.path.join(out, name + ".values.json"), {
            "units": attrs["units"], "dtype": zarray["dtype"], "attrs": attrs,
            "stored": stored_list(path), "written": ns_list(values), "values": ns_list(decoded)})
    for name, attrs in NOT_DURATIONS.items():
        path = os.path.join(out, name + ".zarr")
        shutil.rmtree(path, ignore_errors=True)
        ds = xr.Dataset({"step": ("step", np.arange(48, dtype="float64") / 4, attrs)})
        ds.to_zarr(path, encoding={"step": {"chunks": (20,)}}, consolidated=False)
        decoded = xr.open_zarr(path, consolidated=False).step.values
        if decoded.dtype.kind == "m":
            raise TypeError(f"{name}: xarray decodes it as {decoded.dtype}")
        dump(os.path.join(out, name + ".values.json"), {"units": attrs["units"], "decoded": str(decoded.dtype)})
    era5_group(out)


if __name__ == "__main__":
    main()
