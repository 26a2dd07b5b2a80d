#!/usr/bin/python3
"""A gridded dataset and its long table, the oracle of dt64's long layout.

Usage: long_table.py OUT.zarr

Writes, with Debian's python3-xarray (2023.01) on zarr 2.13, a Zarr v2
dataset of 3 time steps x 4 lat x 5 lon: a float32 t2m (one NaN) and an
int16 tp, chunked (2, 3, 2) so that chunks have edges, a 1-D mean_t2m
along time and a 2-D land mask without it. Prints
Dataset[["t2m", "tp"]].to_dataframe().reset_index() as JSON: "columns",
then each column, time as int64 nanoseconds, floats as their bits.
"""
import sys, json, numpy as np, pandas as pd, xarray as xr
out = sys.argv[1]
times = pd.date_range("1969-12-31 22:00", periods=3, freq="90min")
lat = np.array([50.0, 49.75, 49.5, 49.25])
lon = np.arange(5, dtype="f8") * 0.25 - 0.5
rng = np.random.default_rng(7)
t2m = (rng.random((3, 4, 5)) * 40 + 250).astype("f4")
t2m[1, 2, 3] = np.nan
tp = rng.integers(-1000, 1000, size=(3, 4, 5)).astype("i2")
ds = xr.Dataset(
    {"t2m": (("time", "lat", "lon"), t2m), "tp": (("time", "lat", "lon"), tp),
     "mean_t2m": ("time", t2m.mean(axis=(1, 2))), "land": (("lat", "lon"), np.ones((4, 5), "u1"))},
    coords={"time": times, "lat": lat, "lon": lon})
enc = {v: {"chunks": (2, 3, 2)} for v in ("t2m", "tp")}
ds.to_zarr(out, mode="w", encoding=enc, consolidated=True)
df = xr.open_zarr(out)[["t2m", "tp"]].to_dataframe().reset_index()
json.dump({
    "columns": list(df.columns),
    "time": df["time"].values.astype("int64").tolist(),
    "lat": df["lat"].values.view("u8").tolist(),
    "lon": df["lon"].values.view("u8").tolist(),
    "t2m": df["t2m"].values.astype("f4").view("u4").tolist(),
    "tp": df["tp"].values.astype("i8").tolist(),
}, sys.stdout)
