#!/usr/bin/python3
"""Numeric variables as xarray decodes them: the oracle of dt64's
--mask-and-scale (zarrow.Options.MaskAndScale).

Usage: mask_and_scale.py OUT.zarr

Writes a Zarr v2 group of 1-D variables along "time" (chunks of 5, so
the last chunk is partial, and where a fill value is set one chunk
is never written): some packed by
xarray's own encoding (int16 and uint8 with scale_factor and add_offset
and a _FillValue, float32 packing), some written by zarr 2.13 directly
(a fill value of 0 and of -1, _Unsigned, missing_value, xarray's bool
encoding, NaN). Prints, as JSON, for each variable what
xarray.open_zarr(OUT) (Debian's xarray 2023.01, mask_and_scale=True)
gives: its dtype and its values, floats as the hex of their bits, NaN as
null, bools and integers as numbers.
"""
import sys, json, warnings, numpy as np, pandas as pd, xarray as xr, zarr

warnings.simplefilter("ignore")  # "multiple fill values": xarray masks both, as tested

out = sys.argv[1]
n = 23
rng = np.random.default_rng(11)
times = pd.date_range("2024-01-01", periods=n, freq="h")
kelvin = (rng.random(n) * 60 + 240).astype("f8")
kelvin[3] = np.nan
frac = rng.random(n).astype("f4")
frac[5] = np.nan
ds = xr.Dataset(
    {"t2m": ("time", kelvin), "t2m_nooffset": ("time", kelvin - 240), "cover": ("time", rng.random(n)),
     "frac": ("time", frac), "wide": ("time", kelvin)},
    coords={"time": times})
enc = {
    # xarray's own packing, as ERA5 and CMIP files are packed.
    "t2m": {"dtype": "int16", "scale_factor": 0.0021, "add_offset": 270.5, "_FillValue": -32767, "chunks": 5},
    "t2m_nooffset": {"dtype": "int16", "scale_factor": 0.01, "_FillValue": -32767, "chunks": 5},
    "cover": {"dtype": "uint8", "scale_factor": 1 / 254, "_FillValue": 255, "chunks": 5},
    "frac": {"dtype": "float32", "scale_factor": 0.5, "add_offset": -1.25, "chunks": 5},
    "wide": {"dtype": "int32", "scale_factor": 1e-6, "add_offset": 200, "_FillValue": -2147483647, "chunks": 5},
}
ds.to_zarr(out, mode="w", encoding=enc, consolidated=False)

# Variables written by zarr 2.13 directly, with encodings xarray acts on.
g = zarr.open_group(out, mode="a")


def var(name, typ, values, fill, **attrs):
    a = g.create(name, shape=(n,), chunks=(5,), dtype=typ, fill_value=fill)
    if fill is None:
        a[:] = values  # a missing chunk of a null fill value reads as anything
    else:
        a[:15] = values[:15]  # chunk 3 (15..19) stays unwritten: the fill value
        a[20:] = values[20:]
    a.attrs.update({"_ARRAY_DIMENSIONS": ["time"], **attrs})


counts = rng.integers(-3, 4, n).astype("i2")
var("counts", "i2", counts, 0)                              # zarr's default fill 0 masks zeros in xarray
var("packed_fill", "i2", rng.integers(-5, 100, n).astype("i2"), -1, scale_factor=0.1, add_offset=5)
var("packed_null", "i2", rng.integers(-5, 100, n).astype("i2"), None, scale_factor=0.1, add_offset=5)
var("ubyte", "i1", rng.integers(-128, 128, n).astype("i1"), None, _Unsigned="true", _FillValue=255)
var("missing", "i4", rng.integers(-2, 3, n).astype("i4") * 1000, None, missing_value=[-2000, 2000])
var("land", "i1", rng.integers(0, 2, n).astype("i1"), None, dtype="bool")
nan = rng.random(n).astype("f8")
nan[[2, 7]] = np.nan
nan[9] = -0.0
var("nanfill", "f8", nan, np.nan)
var("zerofill", "f4", nan.astype("f4"), 0.0)               # -0.0 == 0.0: masked as well
var("plain", "u2", rng.integers(0, 60000, n).astype("u2"), None)
zarr.consolidate_metadata(out)

dec = xr.open_zarr(out)
res = {}
for name in dec.data_vars:
    v = dec[name].values
    if v.dtype.kind == "f":
        width = {2: "<u2", 4: "<u4", 8: "<u8"}[v.dtype.itemsize]
        vals = [None if np.isnan(x) else format(int(np.array(x).view(width)), "x") for x in v]
    elif v.dtype.kind == "b":
        vals = [bool(x) for x in v]
    else:
        vals = [int(x) for x in v]
    res[name] = {"dtype": str(v.dtype), "values": vals}
json.dump(res, sys.stdout)
