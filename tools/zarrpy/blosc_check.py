#!/usr/bin/python3
"""Decode Blosc1 frames written by dt64 with numcodecs' Blosc (c-blosc 1.x)
and compare them with the inputs.

Usage: blosc_check.py DIR

DIR/manifest.json lists {"name": ...}; DIR/NAME.blosc is the frame and
DIR/NAME.raw the input. Prints a JSON object {NAME: "ok" | error message}
and also reports c-blosc's view of each header (cbuffer_sizes).
"""
import json
import os
import sys

from numcodecs import blosc


def main():
    d = sys.argv[1]
    with open(os.path.join(d, "manifest.json")) as f:
        manifest = json.load(f)
    res = {}
    for case in manifest:
        name = case["name"]
        with open(os.path.join(d, name + ".blosc"), "rb") as f:
            frame = f.read()
        with open(os.path.join(d, name + ".raw"), "rb") as f:
            raw = f.read()
        try:
            nbytes, cbytes, blocksize = blosc.cbuffer_sizes(frame)
            back = bytes(blosc.decompress(frame))
            if back != raw:
                diff = next(i for i in range(min(len(back), len(raw))) if back[i] != raw[i]) if len(back) == len(raw) else -1
                res[name] = "mismatch: %d bytes back, want %d; first difference at %d" % (len(back), len(raw), diff)
            elif nbytes != len(raw) or cbytes != len(frame):
                res[name] = "header sizes nbytes=%d cbytes=%d, frame %d raw %d" % (nbytes, cbytes, len(frame), len(raw))
            else:
                res[name] = "ok"
        except Exception as e:  # report every failure, not just the first
            res[name] = "%s: %s" % (type(e).__name__, e)
    json.dump(res, sys.stdout)


if __name__ == "__main__":
    main()
