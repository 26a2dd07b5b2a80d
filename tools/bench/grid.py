#!/usr/bin/python3
"""A gridded dataset for make bench-engines' long-layout row.

Usage: grid.py OUT.zarr [TIME_STEPS]

Writes, with Debian's python3-xarray on zarr 2.13, an ERA5-like Zarr v2
dataset: a float32 t2m(time, lat, lon) on a 0.5-degree global grid
(361 x 720), TIME_STEPS hours (default 48) from 2024-01-01, chunked 24
steps at a time, zstd level 1; time CF-encoded as xarray does (int64
hours since the first step), lat and lon float64. The values are a smooth
field plus noise, rounded to 0.01 K as a 2-byte packing would leave them.
"""
import sys
import numpy as np, pandas as pd, xarray as xr
from numcodecs import Zstd

out = sys.argv[1]
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 48
times = pd.date_range("2024-01-01", periods=steps, freq="h")
lat = np.linspace(90, -90, 361)
lon = np.arange(720) * 0.5
rng = np.random.default_rng(1)
base = 273.15 + 30 * np.cos(np.radians(lat))[:, None] - 15 + 5 * np.sin(np.radians(lon))[None, :]
t2m = np.empty((steps, lat.size, lon.size), "f4")
for k in range(steps):
    day = 3 * np.sin(2 * np.pi * k / 24)
    t2m[k] = np.round(base + day + rng.normal(0, 0.5, base.shape), 2)
ds = xr.Dataset({"t2m": (("time", "lat", "lon"), t2m)}, coords={"time": times, "lat": lat, "lon": lon})
enc = {"t2m": {"chunks": (24, 361, 720), "compressor": Zstd(level=1)},
       "time": {"units": "hours since 2024-01-01", "dtype": "int64"}}
ds.to_zarr(out, mode="w", encoding=enc, consolidated=True)
