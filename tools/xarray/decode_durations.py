#!/usr/bin/python3
"""Decode a timedelta variable of Zarr v2 groups with xarray, for dt64's tests.

Usage: decode_durations.py VAR GROUP...

Prints one JSON object: for each GROUP, {"dtype": the decoded dtype,
"values": int64 nanoseconds (null for NaT)}, or {"error"} when xarray does
not decode VAR to timedelta64. Uses Debian's python3-xarray (2023.01) on
zarr 2.13, as a reader of dt64's --cf output (CF durations).
"""
import sys

from decode_times import decode

if __name__ == "__main__":
    decode(sys.argv[1], "m", sys.argv[2:])
