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
    # NaT in an int64 encoding without a _FillValue: xarray writes
    # datetime64's NaT bits, -2**63, declares nothing, and reads them back
    # as NaT.
    "ns_int_nat": (with_nat(hourly() + np.timedelta64(123456789, "ns"), 3, 17), {"units": "nanoseconds since 2000-01-01", "dtype": "int64"}),
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
    # Unsigned numbers in a signed type (netCDF's _Unsigned "true", which
    # xarray writes when the encoding asks): int8 bytes of 0..235 hours,
    # the NaT as _FillValue 255, stored as the array's fill value -1.
    "hours_int8_unsigned": (with_nat(pd.date_range("2000-01-01", periods=48, freq="5H").values, 5),
                            {"units": "hours since 2000-01-01", "dtype": "int8", "_Unsigned": "true", "_FillValue": 255}),
}


def signed_hours():
    v = (np.arange(48) * 3 - 71).astype("int16").view("uint16")
    v[7] = 65535
    return v


# Numbers written as they are, with CF attributes xarray's encoder does not
# write itself (it decodes them): NAME: (numbers, attributes, encoding).
RAW = {
    # _Unsigned "false" on uint16: the numbers are int16 (65465 is -71
    # hours); the fill value 65535 is -1 once xarray converts it.
    "hours_uint16_signed": (signed_hours(), {"units": "hours since 2000-01-01", "calendar": "standard", "_Unsigned": "false"}, {"_FillValue": 65535}),
}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    warnings.simplefilter("ignore")
    cases = {name: (xr.Dataset(coords={"time": ("time", values)}), encoding) for name, (values, encoding) in CASES.items()}
    for name, (numbers, attrs, encoding) in RAW.items():
        cases[name] = (xr.Dataset(coords={"time": ("time", numbers, attrs)}), encoding)
    for name, (ds, encoding) in cases.items():
        path = os.path.join(out, name + ".zarr")
        shutil.rmtree(path, ignore_errors=True)
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
