#!/usr/bin/python3
"""NumPy on the operations `dt64 bench` measures, as a ratio to NumPy's own
memory copy of the same bytes in the same run (np.copyto between two
preallocated arrays), so the README can show both side by side.

Run with Debian's python3-numpy:  /usr/bin/python3 tools/bench/numpy_bench.py [--rounds N] [--sizes 64KiB,8MiB,256MiB]

Each round times the copy and then every operation; an operation's figure is
the median over rounds of (its time / the copy's time). Casts write into a
preallocated destination with np.copyto(casting='unsafe'), NumPy's fastest
form (astype would also allocate).
"""
import argparse
import statistics
import time

import numpy as np

UNITS = {'s': 1, 'ns': 10**9}


def fill(n, unit, scale=1, rng=None):
    """Instants between 1900 and 2100 in the unit, 1% NaT (like dt64's bench.Fill)."""
    lo = np.datetime64('1900-01-01', unit).astype(np.int64) // scale
    hi = np.datetime64('2100-01-01', unit).astype(np.int64) // scale
    v = rng.integers(lo, hi, size=n, dtype=np.int64)
    v[rng.random(n) < 0.01] = np.iinfo(np.int64).min
    return v


def ops(n, rng):
    s = fill(n, 's', rng=rng)
    ns = fill(n, 'ns', rng=rng)
    h25 = fill(n, 'h', 25, rng=rng)
    mon = fill(n, 'M', rng=rng)
    out = np.empty(n, dtype=np.int64)

    def cast(src, src_dt, dst_dt):
        a = src.view(src_dt)
        o = out.view(dst_dt)
        return lambda: np.copyto(o, a, casting='unsafe')

    s_be = s.astype('>i8').view('>M8[s]')

    def fused():
        o = out.view('<M8[ns]')
        np.copyto(o, s_be, casting='unsafe')
        nat = np.isnat(o)
        np.packbits(~nat, bitorder='little')
        valid = o[~nat]
        if valid.size:
            valid.min(), valid.max()

    def validity():
        nat = np.isnat(s.view('M8[s]'))
        np.packbits(~nat, bitorder='little')
        int(nat.sum())

    def minmax():
        a = s.view('M8[s]')
        v = a[~np.isnat(a)]
        v.min(), v.max()

    return [
        ('ByteSwap', lambda: np.copyto(out, s.byteswap())),  # byteswap() allocates; NumPy has no out=
        ('Validity', validity),
        ('MinMax', minmax),
        ('Multiply(s->ns)', cast(s, 'M8[s]', 'M8[ns]')),
        ('FloorDivide(ns->s)', cast(ns, 'M8[ns]', 'M8[s]')),
        ('MulDiv(25h->D)', cast(h25, 'm8[25h]', 'm8[D]')),
        ('Fused(BE s->LE ns+validity+minmax)', fused),
        ('Calendar(ns->M)', cast(ns, 'M8[ns]', 'M8[M]')),
        ('Calendar(M->D)', cast(mon, 'M8[M]', 'M8[D]')),
    ], s, out


def parse_size(t):
    for suf, m in (('KiB', 1 << 10), ('MiB', 1 << 20), ('GiB', 1 << 30)):
        if t.endswith(suf):
            return int(t[:-len(suf)]) * m
    return int(t)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--sizes', default='64KiB,8MiB,256MiB')
    args = ap.parse_args()
    rng = np.random.default_rng(1)
    print(f'numpy {np.__version__}; medians of {args.rounds} rounds; ratio = time / np.copyto time of the same bytes')
    print(f'{"kernel":>36} {"size":>7} {"GB/s":>7} {"copy GB/s":>9} {"ratio":>6}')
    for label in args.sizes.split(','):
        size = parse_size(label)
        n = size // 8
        cases, src, dst = ops(n, rng)
        # Enough repetitions that each timing is at least ~2 ms.
        reps = 1
        while True:
            t0 = time.perf_counter()
            for _ in range(reps):
                np.copyto(dst, src)
            if time.perf_counter() - t0 > 2e-3:
                break
            reps *= 2
        ratios = {name: [] for name, _ in cases}
        times = {name: [] for name, _ in cases}
        copies = []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            for _ in range(reps):
                np.copyto(dst, src)
            ct = time.perf_counter() - t0
            copies.append(ct)
            for name, fn in cases:
                t0 = time.perf_counter()
                for _ in range(reps):
                    fn()
                kt = time.perf_counter() - t0
                ratios[name].append(kt / ct)
                times[name].append(kt)
        gb = size * reps / 1e9
        cgb = gb / statistics.median(copies)
        for name, _ in cases:
            print(f'{name:>36} {label:>7} {gb / statistics.median(times[name]):7.2f} {cgb:9.2f} {statistics.median(ratios[name]):6.2f}')


if __name__ == '__main__':
    main()
