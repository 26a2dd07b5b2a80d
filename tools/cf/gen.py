#!/usr/bin/python3
"""Reference dates from cftime for dt64's CF calendar tests.

Usage: gen.py OUTDIR

Writes OUTDIR/dates.jsonl, one line per date: {"calendar", "y", "m", "d",
"days"}, where days is the date's day number (days since 1970-01-01 in
the proleptic Gregorian calendar) as cftime computes it, and
OUTDIR/units.jsonl: {"units", "calendar", "seconds"} with the reference
instant cftime reads from a units attribute, in seconds since the epoch
as an exact fraction "num/den" (cftime keeps microseconds), or
{"units", "calendar", "error"} where cftime refuses it.

Needs Debian's python3-cftime. The output is deterministic.
"""
import json
import os
import random
import sys
from fractions import Fraction

import cftime

CALENDARS = ["standard", "julian", "proleptic_gregorian"]


def day_number(date, calendar):
    # Days since 1970-01-01 proleptic Gregorian. In the standard and
    # proleptic Gregorian calendars 1970-01-01 is that day; the Julian
    # 1970-01-01 is 13 days later.
    n = cftime.date2num(date, "days since 1970-01-01", calendar)
    assert float(n).is_integer(), (date, n)
    return int(n) + (13 if calendar == "julian" else 0)


def instant(date, calendar):
    days = Fraction(day_number(date.replace(hour=0, minute=0, second=0, microsecond=0), calendar))
    return days * 86400 + date.hour * 3600 + date.minute * 60 + date.second + Fraction(date.microsecond, 10**6)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(1)
    with open(os.path.join(out, "dates.jsonl"), "w") as f:
        for cal in CALENDARS:
            dates = [(1582, 10, 4), (1582, 10, 15), (1582, 10, 16), (1, 1, 1), (-1, 12, 31), (1970, 1, 1),
                     (1900, 2, 28), (1900, 3, 1), (2000, 2, 29), (1600, 2, 29), (-4713, 1, 1), (9999, 12, 31)]
            if cal == "proleptic_gregorian":
                dates += [(0, 1, 1), (0, 2, 29), (-1, 1, 1)]
            if cal != "standard":
                dates += [(1582, 10, 10)]
            for _ in range(1000):
                y = rng.randint(-5000, 5000)
                m = rng.randint(1, 12)
                d = rng.randint(1, 31)
                dates.append((y, m, d))
            for y, m, d in dates:
                if y == 0 and cal != "proleptic_gregorian":
                    continue
                try:
                    date = cftime.datetime(y, m, d, calendar=cal)
                except ValueError:
                    continue  # no such day in this calendar
                f.write(json.dumps({"calendar": cal, "y": y, "m": m, "d": d, "days": day_number(date, cal)}) + "\n")
    units = [
        "hours since 1900-01-01", "days since 1800-1-1 00:00:00", "seconds since 2000-01-01 12:30:00.25 +01:00",
        "microseconds since 2020-01-01 00:00:00.123456", "days since 1582-10-04", "days since 1582-10-15",
        "days since 1-1-1", "days since -100-3-1", "days since 2000-1-1T5:6", "days since 2000-01-01 00:00:00 UTC",
        "hours since 2000-01-01 -05:30", "minutes since 1970-01-01T00:00:00Z", "msec since 1999-12-31 23:59:59",
        "days since 1582-10-10", "days since 2000-02-30", "days since 2000-01-01 24:00", "days since 0-1-1",
        "Days SINCE 2000-01-01", "  hours   since   2001-02-03 04:05:06  ", "microseconds since 1600-02-29 00:00:00",
    ]
    with open(os.path.join(out, "units.jsonl"), "w") as f:
        for u in units:
            for cal in CALENDARS:
                try:
                    date = cftime.num2date(0, u, cal, only_use_cftime_datetimes=True)
                except ValueError as e:
                    f.write(json.dumps({"units": u, "calendar": cal, "error": str(e)}) + "\n")
                    continue
                s = instant(date, cal)
                f.write(json.dumps({"units": u, "calendar": cal, "seconds": f"{s.numerator}/{s.denominator}"}) + "\n")


if __name__ == "__main__":
    main()
