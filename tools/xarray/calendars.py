# Writes the model- and julian-calendar fixtures of issue #25 item 2 with
# xarray 2023.01 (run with /usr/bin/python3):
#
#   /usr/bin/python3 tools/xarray/calendars.py testdata/xarray/calendars
#
# One Zarr v2 group per calendar (noleap, all_leap, 360_day, julian) and
# encoding (int64 hours, int64 days, float64 days; the byte order
# alternates), each with time coordinates of 6-hourly, daily and
# month-end data across February and year ends (chunks of 100, so the
# last chunk is an edge chunk), and an index variable per coordinate.
# expected.json holds, per group and coordinate, xarray's
# convert_calendar(..., "proleptic_gregorian", align_on=..., use_cftime=False)
# element for element: ns since the epoch, or null where xarray drops the
# element; "dates" are the source dates as cftime prints them.
import sys, json, os, shutil, warnings
warnings.filterwarnings("ignore")
import numpy as np, xarray as xr

out = sys.argv[1]
os.makedirs(out, exist_ok=True)

def rng(start, periods, freq, cal):
    return xr.cftime_range(start, periods=periods, freq=freq, calendar=cal).values

def coords(cal, daily_only):
    y0 = 1899 if cal == "julian" else 2000  # julian: 1900-02-29 has no Gregorian date
    c = {
        "time_d": np.concatenate([rng(f"{y0}-12-01", 400, "D", cal), rng(f"{y0 + 4}-01-15", 100, "D", cal)]),
        "time_m": rng(f"{y0}-01-01", 30, "M", cal),
    }
    if not daily_only:
        c["time_6h"] = np.concatenate([rng(f"{y0 + 1}-02-25", 40, "6H", cal), rng(f"{y0 + 1}-12-29", 24, "6H", cal),
                                       rng(f"{y0 + 4}-02-25", 40, "6H", cal)])
    return c

expected = {}
for cal in ["noleap", "all_leap", "360_day", "julian"]:
    for enc, units, dt, daily_only in [("hours_i8", "hours since 2000-01-01", "i8", False),
                                       ("days_i8", "days since 1850-01-01", "i8", True),
                                       ("days_f8", "days since 2000-01-01 00:00:00", "f8", False)]:
        name = f"{cal}_{enc}"
        order = ">" if len(expected) % 2 else "<"
        cs = coords(cal, daily_only)
        ds = xr.Dataset({f"idx_{k[5:]}": ((k,), np.arange(len(v))) for k, v in cs.items()}, coords={k: (k, v) for k, v in cs.items()})
        encoding = {k: {"units": units, "dtype": order + dt, "chunks": (100,)} for k in cs}
        path = f"{out}/{name}.zarr"
        shutil.rmtree(path, ignore_errors=True)
        ds.to_zarr(path, mode="w", encoding=encoding, consolidated=True)
        back = xr.open_zarr(path, use_cftime=True)
        res = {}
        for k in cs:
            n = len(cs[k])
            for align in (["date", "year"] if cal == "360_day" else [None]):
                v = back[[f"idx_{k[5:]}"]]
                conv = xr.coding.calendar_ops.convert_calendar(v, "proleptic_gregorian", dim=k, align_on=align, use_cftime=False)
                vals = [None] * n
                for i, t in zip(conv[f"idx_{k[5:]}"].values.tolist(), conv[k].values.astype("M8[ns]").astype("i8").tolist()):
                    vals[int(i)] = t
                res[f"{k}/{align or 'date'}"] = {"ns": vals, "dates": [str(t) for t in back[k].values]}
        expected[name] = {"calendar": cal, "units": units, "dtype": order + dt, "arrays": res}
with open(f"{out}/expected.json", "w") as f:
    json.dump(expected, f, indent=0, sort_keys=True)
print(f"{len(expected)} stores written to {out}")
