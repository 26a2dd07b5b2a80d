#!/usr/bin/python3
"""xarray datasets for dt64's whole-store transcode tests.

Usage:
  stores.py write STORE      xarray 2023.01 (Debian) on zarr 2.13 writes a
                             dataset with to_zarr(consolidated=True): a CF
                             time coordinate (int64 "hours since ..."),
                             float32, float64, int16 and bool variables, a
                             2-D variable, attributes, and a subgroup "sub"
                             with a float64 variable; then zarr 2.13 adds
                             sub/stamp, a native <M8[ms] array (NaT included,
                             _ARRAY_DIMENSIONS set) and consolidates again.
                             Deterministic.
  stores.py compare A B      opens A and B with zarr.open_consolidated and
                             xarray.open_zarr(consolidated=True) (the root
                             and "sub") and prints one JSON document:
                             {"zarr_nodes": [paths of B], "problems": [...]}
                             where problems lists every difference of B
                             from A: nodes, attributes, dimensions, values
                             (datetimes compared as instants, so a changed
                             unit or encoding of time is no difference: a
                             CF time array and its datetime64 conversion
                             differ only in their encoding attributes).
  stores.py compare A B [--raw] [--json-floats]
                             the same with xarray.open_zarr(mask_and_scale=False)
                             and _FillValue attributes left out: a v2 fill_value
                             is xarray's _FillValue, so an integer or bool array
                             whose fill changed from null to 0 (v2 -> v3 -> v2)
                             masks its zeros when decoded; the stored values
                             must still be equal. With --json-floats a float
                             NaN or ±Infinity attribute equals the string v3
                             documents hold for it ("NaN"): v2 -> v3 -> v2
                             brings such attributes back as strings.
  stores.py values STORE FIXTURE.values.json
                             reads STORE (v2) with zarr.open_consolidated and
                             xarray.open_zarr(consolidated=True,
                             mask_and_scale=False) and compares every array
                             with what zarr-python 3.1.3 read from the v3
                             fixture (testdata/zarr/groups/README.md): values,
                             shape, attributes and dimension names (a CF
                             integer time array the fixture holds may be native
                             datetime64 in STORE: compared as instants).
                             Prints {"arrays": [paths], "problems": [...]}.
Both fail when a store has no .zmetadata.
"""
import json
import math
import sys

import numpy as np
import pandas as pd
import xarray as xr
import zarr


def write(store):
    time = pd.date_range("2022-06-01", periods=40, freq="3H")
    lat = np.array([-10.0, 0.0, 10.0, 20.0], "f8")
    rng = np.random.default_rng(7)
    temp = rng.normal(280, 5, (40, 4)).astype("f4")
    temp[3, 2] = np.nan
    ds = xr.Dataset(
        {
            "temp": (("time", "lat"), temp, {"units": "K", "long_name": "air temperature"}),
            # Python's json writes these attributes as bare NaN and
            # -Infinity tokens, which are not JSON: dt64 must keep them.
            "pressure": ("time", rng.normal(1000, 10, 40).astype("f8"),
                         {"units": "hPa", "valid_max": float("nan"), "valid_min": float("-inf")}),
            "count": ("time", (np.arange(40) % 7).astype("i2")),
            "valid": ("time", np.arange(40) % 3 != 0),
        },
        coords={"time": ("time", time), "lat": ("lat", lat, {"units": "degrees_north"})},
        attrs={"title": "dt64 store test", "Conventions": "CF-1.8", "history": "written by xarray 2023.01"},
    )
    ds.time.encoding.update({"chunks": (16,), "units": "hours since 2022-01-01", "dtype": "int64"})
    ds.temp.encoding["chunks"] = (16, 2)
    ds.to_zarr(store, mode="w", consolidated=True)
    sub = xr.Dataset({"depth": ("obs", np.array([1.5, 2.5, np.nan, 4.0]), {"units": "m"})},
                     attrs={"platform": "float 6903"})
    sub.to_zarr(store, group="sub", mode="a", consolidated=True)
    g = zarr.open_group(store, mode="a")
    stamp = np.array(["2022-01-01T00:00:00.250", "NaT", "2022-01-02T12:00:00", "2022-01-03"], dtype="M8[ms]")
    a = g["sub"].create_dataset("stamp", data=stamp, chunks=(3,), compressor=zarr.Zlib(level=2))
    a.attrs["_ARRAY_DIMENSIONS"] = ["obs"]
    a.attrs["long_name"] = "event time"
    a.attrs["calibration"] = float("nan")  # a time array's own bare NaN attribute
    zarr.consolidate_metadata(store)


def instants(v):
    a = np.asarray(v)
    if a.dtype.kind == "M":
        return a.astype("M8[ns]").view("i8")
    return a


CF_ENCODING = ("units", "calendar", "_FillValue", "missing_value", "scale_factor", "add_offset", "dtype")


def is_cf(attrs):
    return " since " in str(attrs.get("units", ""))


def strip_cf(attrs):
    return {k: v for k, v in attrs.items() if k not in CF_ENCODING}


JSON_FLOATS = False  # compare --json-floats


def same(x, y):
    """Attribute dicts equal, NaN equal to NaN (json's text of them).

    With --json-floats a float NaN, Infinity or -Infinity also equals the
    string zarr-python 3 writes for it in a v3 document ("NaN"), as dt64
    does, since v3 metadata must be JSON: a v2 -> v3 -> v2 round trip
    brings such attributes back as those strings."""
    def norm(o):
        if JSON_FLOATS and isinstance(o, float) and not math.isfinite(o):
            return "NaN" if math.isnan(o) else ("Infinity" if o > 0 else "-Infinity")
        if isinstance(o, dict):
            return {k: norm(v) for k, v in o.items()}
        if isinstance(o, list):
            return [norm(v) for v in o]
        return o
    dump = lambda d: json.dumps(norm(d), sort_keys=True, default=lambda o: o.item() if hasattr(o, "item") else str(o))
    return dump(x) == dump(y)


def compare(a, b, raw=False):
    problems = []
    strip = (lambda d: {k: v for k, v in d.items() if k != "_FillValue"}) if raw else (lambda d: d)
    za, zb = zarr.open_consolidated(a, mode="r"), zarr.open_consolidated(b, mode="r")

    def nodes(g):
        out = {"": ("group", dict(g.attrs), None)}
        g.visititems(lambda p, o: out.__setitem__(p, ("array" if isinstance(o, zarr.Array) else "group", dict(o.attrs), o)))
        return out

    na, nb = nodes(za), nodes(zb)
    # What zarr-python reads from each node's own documents must be what
    # the consolidated metadata says (a reader may open either way).
    for p, (kind, attrs, _) in nodes(zarr.open_group(b, mode="r")).items():
        if p not in nb or nb[p][0] != kind or not same(nb[p][1], attrs):
            problems.append("zarr node %r: its own documents %s %s != the consolidated %s" % (p, kind, attrs, nb.get(p)))
    if sorted(na) != sorted(nb):
        problems.append("zarr nodes %s != %s" % (sorted(na), sorted(nb)))
    for p in sorted(set(na) & set(nb)):
        (ka, aa, oa), (kb, ab, ob) = na[p], nb[p]
        time_encoding = ka == "array" and kb == "array" and (
            is_cf(aa) or is_cf(ab)) and (oa.dtype.kind == "M" or ob.dtype.kind == "M")
        if time_encoding:
            # A CF time array converted to datetime64 (or back): its
            # encoding attributes and stored numbers differ by design;
            # xarray's decoded values are compared below.
            aa, ab = strip_cf(aa), strip_cf(ab)
        if ka != kb or not same(aa, ab):
            problems.append("zarr node %r: %s %s != %s %s" % (p, ka, aa, kb, ab))
        if ka == "array" and kb == "array" and not time_encoding:
            va, vb = instants(oa[...]), instants(ob[...])
            if va.shape != vb.shape or not np.array_equal(va, vb, equal_nan=va.dtype.kind in "fc"):
                problems.append("zarr array %r: values differ" % p)
    for group in (None, "sub"):
        xa = xr.open_zarr(a, group=group, consolidated=True, mask_and_scale=not raw)
        xb = xr.open_zarr(b, group=group, consolidated=True, mask_and_scale=not raw)
        if not same(xa.attrs, xb.attrs):
            problems.append("xarray %r attrs %s != %s" % (group, xa.attrs, xb.attrs))
        if sorted(xa.variables) != sorted(xb.variables):
            problems.append("xarray %r variables %s != %s" % (group, sorted(xa.variables), sorted(xb.variables)))
        for k in sorted(set(xa.variables) & set(xb.variables)):
            va, vb = xa.variables[k], xb.variables[k]
            attrs_a, attrs_b = strip(va.attrs), strip(vb.attrs)
            if va.dtype.kind == "M" or vb.dtype.kind == "M":
                attrs_a, attrs_b = strip_cf(attrs_a), strip_cf(attrs_b)
            if va.dims != vb.dims or not same(attrs_a, attrs_b):
                problems.append("xarray %r %s: dims/attrs %s %s != %s %s" % (group, k, va.dims, va.attrs, vb.dims, vb.attrs))
            x, y = instants(va.values), instants(vb.values)
            if x.dtype != y.dtype and not (x.dtype.kind == y.dtype.kind == "i"):
                problems.append("xarray %r %s: dtype %s != %s" % (group, k, x.dtype, y.dtype))
            if x.shape != y.shape or not np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"):
                problems.append("xarray %r %s: values differ" % (group, k))
    json.dump({"zarr_nodes": sorted(nb), "problems": problems}, sys.stdout, sort_keys=True)


def expected(a):
    """A fixture array's values as NumPy reads them (NaN for null floats)."""
    v = a["values"]
    dt = np.dtype(a["dtype"])
    if dt.kind in "fc":
        v = np.array(v, dtype=object)
        v[v == None] = np.nan  # noqa: E711 (elementwise)
    if dt.kind == "M":
        return np.array(v, dtype="i8").view(dt.newbyteorder("="))
    return np.array(v, dtype=dt.newbyteorder("="))


def as_instants(fixture, got):
    """The fixture's values and got's, comparable: a CF integer time array
    of the fixture converted to datetime64 is compared as instants."""
    want = expected(fixture)
    units = str(fixture["attributes"].get("units", ""))
    if got.dtype.kind == "M" and want.dtype.kind != "M" and " since " in units:
        want = xr.coding.times.decode_cf_datetime(want, units, fixture["attributes"].get("calendar"))
    return instants(want), instants(got)


def values(store, fixture_file):
    fixture = json.load(open(fixture_file))
    problems = []
    z = zarr.open_consolidated(store, mode="r")
    seen = []
    z.visititems(lambda p, o: seen.append(p) if isinstance(o, zarr.Array) else None)
    if sorted(seen) != sorted(fixture["arrays"]):
        problems.append("zarr arrays %s != %s" % (sorted(seen), sorted(fixture["arrays"])))
    for p, a in sorted(fixture["arrays"].items()):
        if p not in seen:
            continue
        got = z[p]
        want, have = as_instants(a, got[...])
        if list(got.shape) != a["shape"] or not np.array_equal(want, have, equal_nan=want.dtype.kind in "fc"):
            problems.append("zarr %r: values differ" % p)
        cf = got.dtype.kind == "M" and np.dtype(a["dtype"]).kind != "M"
        if not cf and np.dtype(a["dtype"]).newbyteorder("=") != got.dtype.newbyteorder("="):
            problems.append("zarr %r: dtype %s != %s" % (p, got.dtype, a["dtype"]))
        attrs = dict(got.attrs)
        if attrs.pop("_ARRAY_DIMENSIONS", None) != a["dimension_names"]:
            problems.append("zarr %r: _ARRAY_DIMENSIONS %s != %s" % (p, got.attrs.get("_ARRAY_DIMENSIONS"), a["dimension_names"]))
        if (strip_cf(attrs) if cf else attrs) != (strip_cf(a["attributes"]) if cf else a["attributes"]):
            problems.append("zarr %r: attributes %s != %s" % (p, attrs, a["attributes"]))
    for group, attrs in fixture["groups"].items():
        if dict(z[group].attrs if group else z.attrs) != attrs:
            problems.append("zarr group %r: attributes differ" % group)
        ds = xr.open_zarr(store, group=group or None, consolidated=True, mask_and_scale=False)
        prefix = group + "/" if group else ""
        mine = {p[len(prefix):]: a for p, a in fixture["arrays"].items() if p.startswith(prefix) and "/" not in p[len(prefix):]}
        if sorted(ds.variables) != sorted(mine):
            problems.append("xarray %r variables %s != %s" % (group, sorted(ds.variables), sorted(mine)))
        for k, a in sorted(mine.items()):
            if k not in ds.variables:
                continue
            var = ds.variables[k]
            want, have = as_instants(a, var.values)
            if list(var.dims) != a["dimension_names"] or not np.array_equal(want, have, equal_nan=want.dtype.kind in "fc"):
                problems.append("xarray %r %s: dims %s or values differ" % (group, k, var.dims))
    json.dump({"arrays": sorted(seen), "problems": problems}, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    elif sys.argv[1] == "values":
        values(sys.argv[2], sys.argv[3])
    else:
        JSON_FLOATS = "--json-floats" in sys.argv[4:]
        compare(sys.argv[2], sys.argv[3], raw="--raw" in sys.argv[4:])
