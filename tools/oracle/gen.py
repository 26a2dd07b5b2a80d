#!/usr/bin/python3
"""Generate NumPy datetime64/timedelta64 oracle vectors for dt64.

Usage:  /usr/bin/python3 tools/oracle/gen.py testdata/oracle

Needs Debian bookworm's python3-numpy 1.24.2 (run with /usr/bin/python3).
Every numpy cast result is recomputed with model.py (a numpy-free emulation
of NumPy's C code, vendored beside this file) and the generator stops if
they disagree; can_cast levels are cross-checked the same way.  The exact
mathematical results come from model.exact_cast (Python big ints).

Output (JSON Lines, deterministic: fixed seeds, sorted iteration):
  casts_datetime64.jsonl, casts_timedelta64.jsonl, can_cast.jsonl,
  dtype_strings.jsonl, iso_strings.jsonl
See README.md beside this file for the format.
"""

import hashlib
import json
import os
import random
import sys
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model as M  # noqa: E402

import numpy as np  # noqa: E402

NUMPY_VERSION = '1.24.2'

INT64_MIN, INT64_MAX, NAT = M.INT64_MIN, M.INT64_MAX, M.NAT
UNITS = M.UNITS                  # 13 named units
ALL_UNITS = M.ALL_UNITS          # + generic
SCALES = [2, 3, 7, 10, 25, 1000, 2147483647]
SCALE_MAX = 2147483647
KINDS = [('datetime64', 'M'), ('timedelta64', 'm')]
CASTINGS = M.CASTINGS

YEAR_AS = 146097 * M.DAY_AS // 400       # average Gregorian year, attoseconds

# Random-value counts per cast pair (trimmed to keep testdata/oracle small).
N_RAND_FULL = 4      # uniform over the whole int64 range
N_RAND_LOG = 5       # log-uniform magnitude, random sign
N_RAND_10KY = 6      # instants uniform within +-10000 years of the epoch

# Calendar edge instants, as (year, month, day) or attoseconds since epoch.
EDGE_DATES = [
    (1970, 1, 1), (1969, 12, 31),
    (1900, 2, 28), (1900, 3, 1),
    (2000, 2, 28), (2000, 2, 29), (2000, 3, 1),
    (2100, 2, 28), (2100, 3, 1),
    (2024, 2, 29), (1600, 2, 29),
    (0, 1, 1), (0, 2, 29), (0, 3, 1),
    (-1, 1, 1), (-1, 12, 31),
    (9999, 12, 31), (10000, 1, 1),
    (1677, 9, 21), (2262, 4, 11),
]
EDGE_INSTANTS = sorted(
    [M.days_from_civil(y, m, d) * M.DAY_AS for (y, m, d) in EDGE_DATES] +
    # the ns range limits: 1677-09-21T00:12:43.145224193, 2262-04-11T23:47:16.854775807
    [(INT64_MIN + 1) * 10**9, INT64_MAX * 10**9])
# timedelta pairs get a smaller subset (no calendar there), without the +-1.
TD_EDGE_DATES = [(1970, 1, 1), (2000, 2, 29), (0, 1, 1), (10000, 1, 1),
                 (1677, 9, 21), (2262, 4, 11)]
TD_EDGE_INSTANTS = sorted(M.days_from_civil(y, m, d) * M.DAY_AS
                          for (y, m, d) in TD_EDGE_DATES)


def die(msg):
    sys.stderr.write('gen.py: ERROR: %s\n' % msg)
    sys.exit(1)


def seeded_rng(*key):
    h = hashlib.sha256('|'.join(str(k) for k in key).encode()).digest()
    return random.Random(int.from_bytes(h[:8], 'big'))


def clip(v):
    return max(INT64_MIN, min(INT64_MAX, v))


def dumps(obj):
    return json.dumps(obj, separators=(',', ':'))


def dtype_str(kc, meta, order='<'):
    unit, scale = meta
    if unit == 'generic':
        return '%s%s8' % (order, kc)
    return '%s%s8[%s%s]' % (order, kc, '' if scale == 1 else scale, unit)


_DTYPES = {}


def np_dtype(kc, meta, order='<'):
    key = (kc, meta, order)
    if key not in _DTYPES:
        s = dtype_str(kc, meta, order)
        d = np.dtype(s)
        if d.str != s or np.datetime_data(d) != meta:
            die('dtype string mismatch: %r -> %r %r' % (s, d.str, np.datetime_data(d)))
        _DTYPES[key] = d
    return _DTYPES[key]


def meta_key(meta):
    return (M.ENUM[meta[0]], meta[1])


# ============================================================== cast pairs
def rand_scale(rng):
    if rng.random() < 0.5:
        return rng.choice(SCALES)
    return max(2, int(2 ** rng.uniform(1, 31)))


def cast_pairs(kind):
    pairs = set()
    for su in ALL_UNITS:
        for du in ALL_UNITS:
            pairs.add(((su, 1), (du, 1)))
    for su in UNITS:
        for du in UNITS:
            for s in SCALES:
                pairs.add(((su, s), (du, 1)))
                pairs.add(((su, 1), (du, s)))
            rng = seeded_rng('pairs', kind, su, du)
            for _ in range(2):
                pairs.add(((su, rand_scale(rng)), (du, rand_scale(rng))))
    for du in UNITS:
        for s in SCALES:
            pairs.add((('generic', 1), (du, s)))
    return sorted(pairs, key=lambda p: (meta_key(p[0]), meta_key(p[1])))


# ============================================================== inputs
def length_days(kc, unit):
    """Unit length in days (Fraction); Y/M use NumPy's 400-year average."""
    if unit in M.AVG_DAYS:
        return M.AVG_DAYS[unit]
    return Fraction(M.AS_PER[unit], M.DAY_AS)


def exact_factor(kc, src, dst):
    """Exact reduced conversion factor (for datetime Y/M: the averaged one)."""
    if src[0] == 'generic':
        return Fraction(1)
    return (length_days(kc, src[0]) * src[1]) / (length_days(kc, dst[0]) * dst[1])


def inst_to_value(meta, inst):
    """Floor of an instant (attoseconds since the epoch) in unit meta."""
    u, s = meta
    if u in ('Y', 'M'):
        y, m, _ = M.civil_from_days(inst // M.DAY_AS)
        x = y - 1970 if u == 'Y' else 12 * (y - 1970) + (m - 1)
        return x // s
    return inst // (M.AS_PER[u] * s)


def solve_mul(target, mult, count=2):
    """int64 values v with v*mult == target (mod 2^64), nearest 0 first."""
    mult &= M.U64
    target &= M.U64
    if mult == 0:
        return []
    a = (mult & -mult).bit_length() - 1
    if target % (1 << a):
        return []
    mod = 1 << (64 - a)
    v0 = ((target >> a) * pow(mult >> a, -1, mod)) % mod
    out = []
    for k in range(count):
        out += [v0 + k * mod, v0 - (k + 1) * mod]
    return [v for v in out if INT64_MIN <= v <= INT64_MAX]


def exact_thresholds(kc, src, dst):
    """Largest v with exact(v) <= INT64_MAX and smallest v with
    exact(v) >= INT64_MIN+1 (exact_cast is monotonic non-decreasing)."""
    def f(v):
        return M.exact_cast(kc, src, dst, v)
    out = []
    lo, hi = INT64_MIN + 1, INT64_MAX
    if f(hi) <= INT64_MAX:
        out.append(hi)
    elif f(lo) > INT64_MAX:
        out.append(lo)
    else:                      # f(lo) <= MAX < f(hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if f(mid) <= INT64_MAX:
                lo = mid
            else:
                hi = mid
        out.append(lo)
    lo, hi = INT64_MIN + 1, INT64_MAX
    if f(lo) >= INT64_MIN + 1:
        out.append(lo)
    elif f(hi) < INT64_MIN + 1:
        out.append(hi)
    else:                      # f(lo) < MIN+1 <= f(hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if f(mid) >= INT64_MIN + 1:
                hi = mid
            else:
                lo = mid
        out.append(hi)
    return out


def pair_inputs(kc, src, dst, path, factor):
    """Sorted, deduplicated int64 inputs for one cast pair."""
    vals = {0, 1, -1, 2, -2, NAT, INT64_MIN + 1, INT64_MIN + 2,
            INT64_MAX, INT64_MAX - 1}

    def pm1(x):
        vals.update((x - 1, x, x + 1))

    # +-(denom-1, denom, denom+1, num-1, num, num+1): exact and numpy factors
    ef = exact_factor(kc, src, dst)
    facs = {(ef.numerator, ef.denominator)}
    if factor is not None:
        facs.add(factor)
    for num, den in facs:
        for x in (num, den):
            pm1(x)
            pm1(-x)
    # exact-result overflow thresholds, +-1
    for t in exact_thresholds(kc, src, dst):
        pm1(t)
    # numpy's raw int64 wrap thresholds
    if factor is not None and path == 'linear':
        num, den = factor
        if num > 0 and den > 0:
            pm1(INT64_MAX // num)                       # v*num <= INT64_MAX
            pm1(-((-(INT64_MIN + den - 1)) // num))     # v*num-(den-1) >= INT64_MIN
            if den == 1:                                # v*num wraps onto NaT
                for v in solve_mul(INT64_MIN, num):
                    pm1(v)
    if path == 'calendar' and src[0] != 'generic':
        mults = [src[1]] + ([7 * src[1]] if src[0] == 'W' else [])
        for mu in mults:
            pm1(INT64_MAX // mu)
            pm1(-((-INT64_MIN) // mu))
        if src[0] == 'Y':                               # 1970 + v*scale
            pm1((INT64_MAX - 1970) // src[1])
            for v in solve_mul(INT64_MIN - 1970, src[1]):
                pm1(v)
    # calendar edge dates in the src unit (generic: the dst unit)
    vmeta = dst if src[0] == 'generic' else src
    if vmeta[0] == 'generic':
        vmeta = ('D', 1)
    if kc == 'M':
        for inst in EDGE_INSTANTS:
            pm1(inst_to_value(vmeta, inst))
    else:
        for inst in TD_EDGE_INSTANTS:
            vals.add(inst_to_value(vmeta, inst))
    # random values
    rng = seeded_rng('inputs', kc, src, dst)
    for _ in range(N_RAND_FULL):
        vals.add(rng.randint(INT64_MIN + 1, INT64_MAX))
    for _ in range(N_RAND_LOG):
        vals.add(rng.choice((1, -1)) * int(2 ** rng.uniform(0, 63)))
    for _ in range(N_RAND_10KY):
        vals.add(inst_to_value(vmeta, rng.randint(-10000 * YEAR_AS, 10000 * YEAR_AS)))
    return sorted({clip(v) for v in vals})


# ============================================================== casts
def flags_for(v, out, ex):
    f = 0
    if v == NAT:
        return 1
    if not M.fits(ex):
        f |= 2
    if out is not None:
        if out != ex:
            f |= 4
        if out == NAT:
            f |= 8
    return f


def numpy_setup_error(kc, src, dst):
    """Run numpy on a 1-element array of 0 expecting a setup error."""
    a = np.zeros(1, '<i8').view(np_dtype(kc, src))
    try:
        if dst[0] == 'generic':
            np.copyto(np.empty(1, np_dtype(kc, dst)), a, casting='unsafe')
        else:
            a.astype(np_dtype(kc, dst))
    except Exception as e:      # noqa: BLE001
        return type(e).__name__, str(e)
    return None


def gen_cast_pair(kind, kc, src, dst, stats):
    path = M.cast_path(kc, src, dst)
    rec = {
        'kind': kind,
        'src_unit': src[0], 'src_scale': src[1],
        'dst_unit': dst[0], 'dst_scale': dst[1],
        'src_dtype': dtype_str(kc, src), 'dst_dtype': dtype_str(kc, dst),
        'path': path, 'num': None, 'denom': None, 'error': None,
        'in': [], 'out': None, 'flags': [], 'exact': [],
    }
    if src[1] == 0 or dst[1] == 0:
        die('scale 0 would crash numpy; not generated')
    try:
        path, num, denom = M.prepare(kc, src, dst)
        factor = (num, denom)
    except M.CastError as e:
        err = numpy_setup_error(kc, src, dst)
        if err != (e.etype, e.message):
            die('setup error mismatch %s %s %s: numpy %r model %r'
                % (kind, src, dst, err, (e.etype, e.message)))
        rec['error'] = {'type': e.etype, 'message': e.message}
        stats['pairs_' + e.etype] += 1
        if e.etype == 'ValueError':     # specific -> generic: no exact result
            return rec
        factor = None
    ins = pair_inputs(kc, src, dst, path, factor)
    exact = [M.exact_cast(kc, src, dst, v) for v in ins]
    rec['in'] = ins
    rec['exact'] = [str(x) for x in exact]
    if factor is None:                  # OverflowError at setup: exact only
        rec['flags'] = [flags_for(v, None, x) for v, x in zip(ins, exact)]
        stats['elements_exact_only'] += len(ins)
        return rec
    rec['num'], rec['denom'] = factor
    prepared = (path, factor[0], factor[1])
    model_out = []
    crash = None
    for v in ins:
        try:
            model_out.append(M.numpy_cast(kc, src, dst, v, prepared))
        except M.CastCrash as e:
            crash = str(e)
            break
    if crash is not None:               # never run numpy on this pair
        rec['error'] = {'type': 'crash', 'message': 'numpy 1.24 crashes: ' + crash}
        rec['flags'] = [flags_for(v, None, x) for v, x in zip(ins, exact)]
        stats['pairs_crash'] += 1
        stats['elements_exact_only'] += len(ins)
        return rec
    arr = np.array(ins, dtype='<i8').view(np_dtype(kc, src))
    if dst[0] == 'generic':             # astype('M8') would keep the src unit
        res = np.empty(len(ins), np_dtype(kc, dst))
        np.copyto(res, arr, casting='unsafe')
    else:
        res = arr.astype(np_dtype(kc, dst))
    if res.dtype != np_dtype(kc, dst):
        die('result dtype %s for %s %s %s' % (res.dtype, kind, src, dst))
    out = res.view('<i8').tolist()
    if out != model_out:
        bad = [(v, o, m) for v, o, m in zip(ins, out, model_out) if o != m]
        die('numpy/model disagree for %s %s -> %s: %r' % (kind, src, dst, bad[:5]))
    rec['out'] = out
    rec['flags'] = [flags_for(v, o, x) for v, o, x in zip(ins, out, exact)]
    stats['pairs_ok'] += 1
    stats['elements_numpy'] += len(ins)
    for f in rec['flags']:
        for b in (2, 4, 8):
            if f & b:
                stats['flag%d' % b] += 1
    return rec


def gen_casts(outdir, stats):
    for kind, kc in KINDS:
        st = stats.setdefault(kind, {k: 0 for k in (
            'pairs_ok', 'pairs_OverflowError', 'pairs_ValueError', 'pairs_crash',
            'elements_numpy', 'elements_exact_only', 'flag2', 'flag4', 'flag8')})
        with open(os.path.join(outdir, 'casts_%s.jsonl' % kind), 'w') as fh:
            for src, dst in cast_pairs(kind):
                fh.write(dumps(gen_cast_pair(kind, kc, src, dst, st)) + '\n')


# ============================================================== can_cast
def numpy_level(sd, dd):
    for rule in CASTINGS:
        if np.can_cast(sd, dd, casting=rule):
            return rule
    die('can_cast false for every rule: %s %s' % (sd, dd))


def model_level(kc, src, dst, so, do):
    lvl = M.cast_safety(kc, src, dst)
    if lvl == 'no' and so != do:
        lvl = 'equiv'
    return lvl


def can_cast_cases(kind):
    cases = set()
    for src, dst in cast_pairs(kind):
        cases.add((src, dst, '<', '<'))
    for u in UNITS:
        for s in SCALES:
            cases.add(((u, s), ('generic', 1), '<', '<'))
    # metric-prefix "view" rule: dst unit s or finer, src 1..3 steps finer,
    # src_scale // dst_scale == 1000**steps (C integer division)
    for i, du in enumerate(UNITS):
        if M.ENUM[du] < M.ENUM['s']:
            continue
        for steps in (1, 2, 3, 4):
            if i + steps >= len(UNITS):
                continue
            su = UNITS[i + steps]
            p = 1000 ** steps
            for k in (1, 2, 3, 7):
                for ss in (p * k - 1, p * k, p * k + 1, p * k + k - 1, p * k + k,
                           p * (k + 1) - 1, p * (k + 1)):
                    if 1 <= ss <= SCALE_MAX:
                        cases.add(((su, ss), (du, k), '<', '<'))
    # coarse neighbours that look similar but are not metric prefixes
    for su, ss, du, ds in (('s', 60, 'm', 1), ('m', 60, 'h', 1), ('h', 24, 'D', 1),
                           ('D', 7, 'W', 1), ('M', 12, 'Y', 1), ('ms', 1000, 's', 1),
                           ('us', 1000000, 's', 1), ('ns', 1000000000, 's', 1),
                           ('s', 1000, 'ms', 1), ('ms', 1000, 'us', 1)):
        cases.add(((su, ss), (du, ds), '<', '<'))
    # byte orders
    for src, dst in ((('ns', 1), ('ns', 1)), (('ns', 1), ('us', 1)),
                     (('us', 1), ('ns', 1)), (('ns', 1000), ('us', 1)),
                     (('ns', 2001), ('us', 2)), (('D', 1), ('Y', 1)),
                     (('Y', 1), ('D', 1)), (('generic', 1), ('ns', 1)),
                     (('ns', 1), ('generic', 1)), (('generic', 1), ('generic', 1)),
                     (('s', 10), ('s', 10))):
        for so, do in (('<', '>'), ('>', '<'), ('>', '>')):
            cases.add((src, dst, so, do))
    return sorted(cases, key=lambda c: (meta_key(c[0]), meta_key(c[1]), c[2], c[3]))


def gen_can_cast(outdir, stats):
    n = 0
    with open(os.path.join(outdir, 'can_cast.jsonl'), 'w') as fh:
        for kind, kc in KINDS:
            for src, dst, so, do in can_cast_cases(kind):
                lvl = numpy_level(np_dtype(kc, src, so), np_dtype(kc, dst, do))
                ml = model_level(kc, src, dst, so, do)
                if lvl != ml:
                    die('can_cast disagree %s %s%s -> %s%s: numpy %s model %s'
                        % (kind, so, src, do, dst, lvl, ml))
                fh.write(dumps({
                    'kind': kind, 'src_unit': src[0], 'src_scale': src[1],
                    'dst_unit': dst[0], 'dst_scale': dst[1],
                    'src_order': so, 'dst_order': do, 'level': lvl}) + '\n')
                n += 1
    stats['can_cast_lines'] = n


# ============================================================== dtype strings
# Inputs that kill numpy 1.24 in np.dtype(); recorded, never executed.
DTYPE_CRASH = {
    'M8[s/0]': 'crash: SIGFPE (integer division by zero in the divisor form)',
    'm8[s/0]': 'crash: SIGFPE (integer division by zero in the divisor form)',
}


def dtype_inputs():
    inputs = []

    def add(s):
        if s not in inputs:
            inputs.append(s)
    for base in ('M8', 'm8', 'datetime64', 'timedelta64'):
        add(base)
        for u in ALL_UNITS:
            add('%s[%s]' % (base, u))
        for u in UNITS:
            for s in (1, 7, 25, 1000, SCALE_MAX):
                add('%s[%d%s]' % (base, s, u))
    for prefix in ('<', '>', '=', '|'):
        for base in ('M8', 'm8', 'datetime64', 'timedelta64'):
            for suffix in ('', '[ns]', '[10us]', '[generic]', '[Y]', '[25h]'):
                add(prefix + base + suffix)
    for s in (
            'datetime64[ns]', 'timedelta64[25h]', 'M8[generic]', 'M8[2generic]',
            'M8[0generic]', 'M8[\u03bcs]', 'm8[\u03bcs]', 'M8[10\u03bcs]',
            '>M8[\u03bcs]', 'M8[\u00b5s]', 'm8[\u00b5s]',
            # divisor forms
            'M8[s/1]', 'M8[s/4]', 'm8[s/4]', 'M8[2s/4]', 'M8[3s/2]', 'M8[W/2]',
            'M8[D/24]', 'M8[D/1440]', 'M8[D/86400]', 'M8[h/60]', 'M8[h/7]',
            'M8[s/3]', 'M8[s/60]', 'M8[s/1000]', 'M8[s/1000000]',
            'M8[s/1000000000]', 'M8[ms/1000]', 'M8[us/1000]', 'M8[ns/1000]',
            'M8[as/2]', 'M8[Y/12]', 'M8[Y/4]', 'M8[M/2]', 'M8[generic/2]',
            'M8[s/-1]', 'm8[s/-2]', 'M8[s/2147483648]', 'M8[2147483647s/2]',
            'M8[s/0]', 'm8[s/0]',
            # scale spelling
            'M8[1Y]', 'M8[01s]', 'M8[007D]', 'M8[+1s]', 'M8[0s]', 'M8[-0s]',
            'm8[0s]', 'M8[2147483647s]', 'M8[2147483648s]', 'M8[4294967297s]',
            'M8[9999999999999999999s]', 'M8[-1s]', 'M8[1e3s]', 'M8[1_000s]',
            'M8[ 10s]', 'M8[10s ]', 'M8[10 us]', 'M8[ s]', 'M8[]', 'm8[]',
            # units
            'M8[B]', 'M8[US]', 'M8[S]', 'M8[NS]', 'M8[H]', 'M8[min]', 'M8[sec]',
            'M8[NaT]', 'M8[y]', 'M8[d]', 'M8[w]', 'M8[Generic]',
            # malformed
            'M8[ns', 'M8ns', 'M8[ns]x', 'M8[D]]', 'M8[[D]', 'M8()', 'M4', 'M16',
            'm16', 'Datetime64', 'datetime', 'datetime64[]', '<M8[ns] ',
            ' M8[ns]', 'M8 [ns]', 'M8[1/4]'):
        add(s)
    return inputs


def gen_dtype_strings(outdir, stats):
    n = 0
    with open(os.path.join(outdir, 'dtype_strings.jsonl'), 'w') as fh:
        for s in dtype_inputs():
            rec = {'input': s, 'str': None, 'dtype_str': None, 'name': None,
                   'repr': None, 'byteorder': None, 'unit': None, 'scale': None,
                   'error': None}
            if s in DTYPE_CRASH:
                rec['error'] = DTYPE_CRASH[s]
            else:
                try:
                    d = np.dtype(s)
                    unit, scale = np.datetime_data(d)
                    rec.update({'str': str(d), 'dtype_str': d.str, 'name': d.name,
                                'repr': repr(d), 'byteorder': d.byteorder,
                                'unit': unit, 'scale': scale})
                except Exception as e:      # noqa: BLE001
                    rec['error'] = '%s: %s' % (type(e).__name__, e)
            fh.write(dumps(rec) + '\n')
            n += 1
    stats['dtype_strings_lines'] = n


# ============================================================== ISO strings
def exact_struct(meta, v):
    """Exact proleptic-Gregorian fields of value v in meta (like to_struct)."""
    u, s = meta
    x = v * s
    dts = dict(year=1970, month=1, day=1, hour=0, min=0, sec=0, us=0, ps=0, as_=0)
    if u == 'Y':
        dts['year'] = 1970 + x
    elif u == 'M':
        dts['year'], dts['month'] = 1970 + x // 12, x % 12 + 1
    else:
        inst = x * M.AS_PER[u]
        days, rem = divmod(inst, M.DAY_AS)
        dts['year'], dts['month'], dts['day'] = M.civil_from_days(days)
        dts['hour'], rem = divmod(rem, 3600 * 10**18)
        dts['min'], rem = divmod(rem, 60 * 10**18)
        dts['sec'], rem = divmod(rem, 10**18)
        dts['us'], rem = divmod(rem, 10**12)
        dts['ps'], dts['as_'] = divmod(rem, 10**6)
    return dts


def iso_format(unit, d):
    """Independent formatter (numpy's make_iso_8601_datetime, naive)."""
    s = '%04d' % d['year']
    if unit == 'Y':
        return s
    s += '-%02d' % d['month']
    if unit == 'M':
        return s
    s += '-%02d' % d['day']
    if unit in ('W', 'D'):
        return s
    s += 'T%02d' % d['hour']
    if unit == 'h':
        return s
    s += ':%02d' % d['min']
    if unit == 'm':
        return s
    s += ':%02d' % d['sec']
    if unit == 's':
        return s
    frac = '%06d%06d%06d' % (d['us'], d['ps'], d['as_'])
    return s + '.' + frac[:{'ms': 3, 'us': 6, 'ns': 9, 'ps': 12, 'fs': 15, 'as': 18}[unit]]


def iso_inputs(meta):
    vals = {NAT, 0, 1, -1, 2, -2, INT64_MAX, INT64_MAX - 1, INT64_MIN + 1}
    for inst in EDGE_INSTANTS:
        x = inst_to_value(meta, inst)
        vals.update((x - 1, x, x + 1))
    rng = seeded_rng('iso', meta)
    for _ in range(6):
        vals.add(inst_to_value(meta, rng.randint(-10000 * YEAR_AS, 10000 * YEAR_AS)))
    for _ in range(3):
        vals.add(rng.randint(INT64_MIN + 1, INT64_MAX))
        vals.add(rng.choice((1, -1)) * int(2 ** rng.uniform(0, 63)))
    # keep only values numpy formats without int64 wrap-around
    keep = []
    for v in sorted({clip(x) for x in vals}):
        if v == NAT or M.to_struct(meta, v) == exact_struct(meta, v):
            keep.append(v)
    return keep


def gen_iso_strings(outdir, stats):
    n = 0
    with open(os.path.join(outdir, 'iso_strings.jsonl'), 'w') as fh:
        for u in UNITS:
            for s in (1, 3, 10):
                meta = (u, s)
                ins = iso_inputs(meta)
                arr = np.array(ins, dtype='<i8').view(np_dtype('M', meta))
                default = np.datetime_as_string(arr).tolist()
                strs = [str(x) for x in arr]
                for v, d, st in zip(ins, default, strs):
                    want = 'NaT' if v == NAT else iso_format(u, exact_struct(meta, v))
                    if d != want or st != want:
                        die('iso string mismatch %s %d: numpy %r/%r, expected %r'
                            % (meta, v, d, st, want))
                fh.write(dumps({'unit': u, 'scale': s, 'dtype': dtype_str('M', meta),
                                'in': ins, 'default': default, 'str': strs}) + '\n')
                n += 1
    stats['iso_strings_lines'] = n


# ============================================================== main
def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    if np.__version__ != NUMPY_VERSION:
        die('numpy %s found, the vectors are defined for numpy %s '
            '(Debian bookworm python3-numpy; run with /usr/bin/python3)'
            % (np.__version__, NUMPY_VERSION))
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    stats = {}
    gen_casts(outdir, stats)
    gen_can_cast(outdir, stats)
    gen_dtype_strings(outdir, stats)
    gen_iso_strings(outdir, stats)
    sys.stderr.write(json.dumps(stats, indent=1, sort_keys=True) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
