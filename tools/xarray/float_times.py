# Writes xarray time coordinates as float64 and float32 CF times (little and
# big endian, several units, 1000 values in chunks of 300: an edge chunk)
# into the directory argv[1], and prints, per store, the instants written
# and what xarray decodes them to (ns since the epoch) as JSON. Used by
# transcode/cf_float_test.go.
import sys, json, warnings
warnings.filterwarnings("ignore")
import numpy as np, pandas as pd, xarray as xr
out = sys.argv[1]
res = {}
for name, dt, units, freq, start in [
        ("f8_days", "<f8", "days since 1970-01-01", "H", "2000-01-01"),
        ("f8_be_hours", ">f8", "hours since 1900-01-01", "15min", "2021-03-01"),
        ("f8_days_1850", "<f8", "days since 1850-01-01 00:00:00", "min", "2010-06-01 12:00"),
        ("f4_days", "<f4", "days since 2000-01-01", "H", "2000-01-01"),
        ("f4_be_minutes", ">f4", "minutes since 2000-01-01", "H", "2000-01-01")]:
    t = pd.date_range(start, periods=1000, freq=freq)
    ds = xr.Dataset(coords={"time": t})
    ds.to_zarr(f"{out}/{name}.zarr", mode="w", encoding={"time": {"dtype": dt, "units": units, "chunks": (300,)}})
    back = xr.open_zarr(f"{out}/{name}.zarr")["time"].values.astype("M8[ns]").astype("i8")
    res[name] = {"written": t.values.astype("M8[ns]").astype("i8").tolist(), "xarray": back.tolist()}
json.dump(res, sys.stdout)
