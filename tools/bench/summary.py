#!/usr/bin/env python3
"""Copy a short table from docs/performance.md into README.md.

make bench-report runs this after `dt64 bench --markdown` has written
docs/performance.md: the README quotes the generated figures (the largest
size, a few kernels) between its bench-report markers, so no figure in it
is typed by hand.
"""
import re
import sys

KERNELS = ("ByteSwap", "Validity", "MinMax", "Multiply", "FloorDivide", "Fused", "Calendar", "CF")
COLUMNS = ("generic", "avx2", "avx512", "neon")


def tables(page):
    """{size: (header, rows)} from the page's '## SIZE' tables."""
    out = {}
    for m in re.finditer(r"^## (\S+)\n\n(\|.*\|)\n\|[-|]+\n((?:\|.*\|\n)+)", page, re.M):
        header = [c.strip() for c in m.group(2).strip("|").split("|")]
        rows = [[c.strip() for c in r.strip("|").split("|")] for r in m.group(3).strip().split("\n")]
        out[m.group(1)] = (header, rows)
    return out


def main(page_path, readme_path):
    page = open(page_path).read()
    ts = tables(page)
    if not ts:
        sys.exit(f"{page_path}: no table found")
    size = list(ts)[-1]
    header, rows = ts[size]
    cols = [c for c in COLUMNS if c in header]
    lines = [f"| kernel, {size} | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)]
    for r in rows:
        if r[0].split("(")[0].split(" ")[0].startswith(KERNELS):
            lines.append(f"| {r[0]} | " + " | ".join(r[header.index(c)] for c in cols) + " |")
    machine = re.search(r"^\| machine \| (.*) \|$", page, re.M)
    date = re.search(r"^\| date \| (.*) \|$", page, re.M)
    block = "\n".join(lines) + f"\n\n{machine.group(1) if machine else ''}, {date.group(1) if date else ''}.\n"
    readme = open(readme_path).read()
    new, n = re.subn(r"(<!-- bench-report:summary -->\n).*?(<!-- /bench-report:summary -->)",
                     lambda m: m.group(1) + block + m.group(2), readme, flags=re.S)
    if n != 1:
        sys.exit(f"{readme_path}: no bench-report markers")
    open(readme_path, "w").write(new)


if __name__ == "__main__":
    main(*sys.argv[1:3])
