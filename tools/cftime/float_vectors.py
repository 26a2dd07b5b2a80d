"""Write testdata/cf/float_cftime.jsonl: CF float times as model writers
store them (hourly, 15-minute and minute data, and random instants with
seconds, in days, hours and minutes since several references; float64 and
float32), each with cftime.num2date's answer in whole microseconds since
1970 (cftime rounds the float's exact value to the microsecond).

Run with the system python3, which has numpy and cftime:

    /usr/bin/python3 tools/cftime/float_vectors.py > testdata/cf/float_cftime.jsonl
"""
import datetime
import json
import random

import cftime
import numpy as np

EPOCH = datetime.datetime(1970, 1, 1)
UNITS = [
    ("days since 1850-01-01", 86400),
    ("days since 2000-01-01 00:00:00", 86400),
    ("hours since 1900-01-01 00:00:00", 3600),
    ("minutes since 2010-01-01 06:00", 60),
    ("days since 1970-01-01", 86400),
]


def main():
    r = random.Random(25)
    for units, unit_seconds in UNITS:
        for size in (8, 4):
            for i in range(80):
                kind = i % 4
                if kind == 0:
                    sec = 3600 * r.randrange(-200 * 8766, 250 * 8766)  # hourly
                elif kind == 1:
                    sec = 900 * r.randrange(-4 * 8766, 40 * 8766)  # 15 minutes
                elif kind == 2:
                    sec = 60 * r.randrange(-60 * 24 * 3000, 60 * 24 * 30000)  # minutes
                else:
                    sec = r.randrange(-10**9, 4 * 10**9)  # seconds
                x = sec / unit_seconds
                v = float(np.float32(x)) if size == 4 else float(x)
                d = cftime.num2date(v, units, "proleptic_gregorian", only_use_cftime_datetimes=False)
                e = d - EPOCH
                us = (e.days * 86400 + e.seconds) * 1000000 + e.microseconds
                print(json.dumps({"units": units, "size": size, "v": repr(v), "us": us}))


if __name__ == "__main__":
    main()
