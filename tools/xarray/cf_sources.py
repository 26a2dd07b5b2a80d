#!/usr/bin/python3
"""CF-encoded time arrays written by xarray, for dt64's CF tests.

Usage: cf_sources.py OUTDIR

Writes, with Debian's python3-xarray (2023.01) on zarr 2.13, one Zarr v2
dataset per case, OUTDIR/NAME.zarr with a "time" coordinate encoded as
xarray encodes it (or as the case's encoding asks), and
OUTDIR/NAME.values.json: {"units", "calendar", "dtype", "values"}, the
values as xarray decodes them, int64 nanoseconds since the epoch (null for
NaT), or {"error"} when xarray refuses to decode. Deterministic.
"""
import json
import os
import shutil
import sys
import warnings

import numpy as np
import pandas as pd
import xarray as xr

NAT = np.datetime64("NaT")


def hourly():
    return pd.date_range("2020-01-01", periods=48, freq="H").values


def milliseconds():
    return pd.date_range("2020-01-01 00:00:01.025", periods=48, freq="2ms").values


def with_nat(v, *idx):
    v = v.copy()
    for i in idx:
        v[i] = NAT
    return v


CASES = {
    # xarray's own choices: int64 hours, proleptic_gregorian.
    "hourly_int": (hourly(), {}),
    # A NaT and a fraction of a second: xarray picks float64 ns with NaN.
    "nat_float_ns": (with_nat(hourly() + np.timedelta64(123456789, "ns"), 3, 17), {}),
    # Days as float64 since a date before 1582 in the standard calendar.
    "days_float_standard_1500": (hourly(), {"units": "days since 1500-01-01", "calendar": "standard", "dtype": "float64"}),
    # A zone offset in the reference, int64 seconds.
    "seconds_int_zone": (hourly(), {"units": "seconds since 2000-01-01 12:00:00+01:00", "dtype": "int64"}),
    # int32 minutes since the epoch, standard calendar.
    "minutes_int32_standard": (hourly(), {"units": "minutes since 1970-01-01", "calendar": "standard", "dtype": "int32"}),
    # A NaT in an integer encoding, through _FillValue.
    "hours_int_fill": (with_nat(hourly(), 0, 47), {"units": "hours since 1900-01-01", "dtype": "int64", "_FillValue": -999}),
    # Float days with a fraction in the reference.
    "days_float_fraction": (hourly(), {"units": "days since 2019-12-31 23:59:59.5", "dtype": "float64"}),
    # Packing: int32 milliseconds as seconds × scale_factor 0.001 (which
    # float64 cannot hold exactly: xarray's float64 product falls 1 ns
    # short for many of these), with a NaT through _FillValue.
    "packed_int32_ms": (with_nat(milliseconds(), 5), {"units": "seconds since 2020-01-01", "dtype": "int32", "scale_factor": 0.001, "_FillValue": -2147483648}),
    # A model calendar: dt64 must refuse it.
    "noleap": (hourly(), {"units": "days since 2000-01-01", "calendar": "noleap"}),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    warnings.simplefilter("ignore")
    for name, (values, encoding) in CASES.items():
        path = os.path.join(out, name + ".zarr")
        shutil.rmtree(path, ignore_errors=True)
        ds = xr.Dataset(coords={"time": ("time", values)})
        # Chunks of 20: several chunks, the last one partial.
        ds.to_zarr(path, encoding={"time": {**encoding, "chunks": (20,)}}, consolidated=False)
        attrs = json.load(open(os.path.join(path, "time", ".zattrs")))
        zarray = json.load(open(os.path.join(path, "time", ".zarray")))
        doc = {"units": attrs.get("units"), "calendar": attrs.get("calendar"), "dtype": zarray["dtype"]}
        try:
            decoded = xr.open_zarr(path, consolidated=False).time.values
            if decoded.dtype.kind != "M":
                raise TypeError(f"decoded as {decoded.dtype}")
            ints = decoded.astype("datetime64[ns]").astype("int64")
            doc["values"] = [None if np.isnat(d) else int(i) for d, i in zip(decoded, ints)]
        except Exception as e:  # noqa: BLE001 - the refusal is the vector
            doc["error"] = f"{type(e).__name__}: {e}"
        with open(os.path.join(out, name + ".values.json"), "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
