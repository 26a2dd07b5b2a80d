# model.py -- pure-Python model of NumPy's datetime64/timedelta64 casting.
#
# Copied verbatim (below the dashed line) from the dt64 project's shared
# research material, shared/oracle/model.py, written alongside the research
# note "NumPy datetime64 / timedelta64 semantics" (shared/research/
# numpy-semantics.md).  That note verified this model against
# Debian python3-numpy 1.24.2 on every cast and can_cast result in its oracle
# vectors.  It is vendored here so that tools/oracle/gen.py runs without the
# shared/ directory; do not edit it here, and keep it in sync with the
# original if that ever changes.
# ---------------------------------------------------------------------------
"""Pure-Python model of NumPy 1.24 .. 2.3 datetime64/timedelta64 unit casting.

No numpy import.  Two things live here:

  * ``numpy_cast(kind, src, dst, v)`` -- a bit-exact emulation of what
    ``arr.astype(dst)`` does in NumPy 1.24.2 (and, by source comparison,
    2.0 .. 2.3; see ../research/numpy-semantics.md), including its silent
    int64 wrap-around.  It mirrors the C code in
    numpy/_core/src/multiarray/datetime.c  (get_datetime_conversion_factor,
    get_datetime_units_factor, NpyDatetime_ConvertDatetime64ToDatetimeStruct
    [1.x: convert_datetime_to_datetimestruct],
    NpyDatetime_ConvertDatetimeStructToDatetime64
    [1.x: convert_datetimestruct_to_datetime], get_datetimestruct_days,
    days_to_yearsdays, set_datetimestruct_days) and
    numpy/_core/src/multiarray/dtype_transfer.c
    (get_nbo_cast_datetime_transfer_function,
    _strided_to_strided_datetime_cast,
    _strided_to_strided_datetime_general_cast).

  * ``exact_cast(kind, src, dst, v)`` -- the mathematically exact result
    with Python big ints (floor rounding, proleptic Gregorian calendar for
    datetime Y/M, NumPy's 400-year average year/month for timedelta Y/M),
    computed independently of the C algorithm.

Units are strings: Y M W D h m s ms us ns ps fs as generic.
A dtype "meta" is a tuple (unit, scale).
"""

from fractions import Fraction

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
NAT = INT64_MIN
U64 = (1 << 64) - 1

UNITS = ['Y', 'M', 'W', 'D', 'h', 'm', 's', 'ms', 'us', 'ns', 'ps', 'fs', 'as']
ALL_UNITS = UNITS + ['generic']
# NumPy's NPY_DATETIMEUNIT enum values (3 is the removed business-day unit)
ENUM = {'Y': 0, 'M': 1, 'W': 2, 'D': 4, 'h': 5, 'm': 6, 's': 7, 'ms': 8,
        'us': 9, 'ns': 10, 'ps': 11, 'fs': 12, 'as': 13, 'generic': 14}
BY_ENUM = {v: k for k, v in ENUM.items()}
# _datetime_factors[] indexed by enum: factor from unit i to unit i+1
_FACTORS = [1, 1, 7, 1, 24, 60, 60, 1000, 1000, 1000, 1000, 1000, 1000, 1, 0]

# Length of each linear unit in attoseconds.
AS_PER = {'W': 7 * 86400 * 10**18, 'D': 86400 * 10**18, 'h': 3600 * 10**18,
          'm': 60 * 10**18, 's': 10**18, 'ms': 10**15, 'us': 10**12,
          'ns': 10**9, 'ps': 10**6, 'fs': 10**3, 'as': 1}
DAY_AS = AS_PER['D']
# NumPy's averaged lengths (only used for timedelta Y/M), in days
AVG_DAYS = {'Y': Fraction(146097, 400), 'M': Fraction(146097, 4800)}


class CastError(Exception):
    """NumPy raises (etype is the Python exception class name)."""

    def __init__(self, etype, message):
        super().__init__(message)
        self.etype = etype
        self.message = message


class CastCrash(Exception):
    """NumPy 1.24 crashes (SIGSEGV) on this input."""


# ---------------------------------------------------------------- int64 helpers
def w(x):
    """Wrap a Python int to int64 (two's complement)."""
    x &= U64
    return x - (1 << 64) if x >> 63 else x


def cdiv(a, b):
    """C99 int64 division (truncation toward zero)."""
    if b == 0:
        raise ZeroDivisionError
    if a == INT64_MIN and b == -1:
        raise CastCrash('SIGFPE: INT64_MIN / -1')
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def cmod(a, b):
    return a - cdiv(a, b) * b


def extract_unit(d, unit):
    """datetime.c extract_unit_64: python divmod (floor)."""
    return d // unit, d % unit


# ---------------------------------------------------------------- factors
def units_factor(big, little):
    """get_datetime_units_factor(bigbase, littlebase); 0 means overflow."""
    factor = 1
    unit = ENUM[big]
    while unit < ENUM[little]:
        factor = (factor * _FACTORS[unit]) & U64
        if factor & 0xff00000000000000:
            return 0
        unit += 1
    return factor


def _u64_gcd(x, y):
    if x > y:
        x, y = y, x
    while x != y and y != 0:
        x, y = y, x % y
    return x


def conversion_factor(src, dst):
    """get_datetime_conversion_factor -> (num, denom) as int64.

    Raises CastError like NumPy."""
    (su, sn), (du, dn) = src, dst
    if su == 'generic':
        return 1, 1
    if du == 'generic':
        raise CastError('ValueError', 'Cannot convert from specific units to '
                        'generic units in NumPy datetimes or timedeltas')
    swapped = ENUM[su] > ENUM[du]
    lo, hi = (du, su) if swapped else (su, du)
    num = denom = 1
    if lo != hi:
        if lo == 'Y':
            if hi == 'M':
                num *= 12
            elif hi == 'W':
                num *= 97 + 400 * 365
                denom *= 400 * 7
            else:
                num *= 97 + 400 * 365
                denom *= 400
                num = (num * units_factor('D', hi)) & U64
        elif lo == 'M':
            if hi == 'W':
                num *= 97 + 400 * 365
                denom *= 400 * 12 * 7
            else:
                num *= 97 + 400 * 365
                denom *= 400 * 12
                num = (num * units_factor('D', hi)) & U64
        else:
            num = (num * units_factor(lo, hi)) & U64
    if num == 0:
        raise CastError('OverflowError', 'Integer overflow while computing the '
                        'conversion factor between NumPy datetime units %s and %s'
                        % (lo, hi))
    if swapped:
        num, denom = denom, num
    num = (num * sn) & U64
    denom = (denom * dn) & U64
    g = _u64_gcd(num, denom)
    if g == 0:
        raise CastCrash('SIGFPE: gcd 0 (scale factor 0)')
    return w(num // g), w(denom // g)


def cast_path(kind, src, dst):
    """Which NumPy inner loop astype uses: 'copy', 'linear' or 'calendar'."""
    if src == dst:
        return 'copy'
    if kind == 'M' and (src[0] in ('Y', 'M') or dst[0] in ('Y', 'M')):
        return 'calendar'
    return 'linear'


# ---------------------------------------------------------------- calendar (C emulation)
_DPM = [[31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31],
        [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]]


def is_leapyear(year):
    return (year & 3) == 0 and (cmod(year, 100) != 0 or cmod(year, 400) == 0)


def days_to_yearsdays(days):
    """Returns (year, day_of_year). Mirrors days_to_yearsdays (int64 wrap)."""
    days = w(days - (365 * 30 + 7))
    q, days = extract_unit(days, 400 * 365 + 100 - 4 + 1)
    year = w(400 * q)
    if days >= 366:
        year += 100 * ((days - 1) // (100 * 365 + 25 - 1))
        days = (days - 1) % (100 * 365 + 25 - 1)
        if days >= 365:
            year += 4 * ((days + 1) // (4 * 365 + 1))
            days = (days + 1) % (4 * 365 + 1)
            if days >= 366:
                year += (days - 1) // 365
                days = (days - 1) % 365
    return w(year + 2000), days


def set_days(days, dts):
    year, days = days_to_yearsdays(days)
    dts['year'] = year
    ml = _DPM[is_leapyear(year)]
    for i in range(12):
        if days < ml[i]:
            dts['month'] = i + 1
            dts['day'] = days + 1
            return
        days -= ml[i]


def to_struct(meta, dt):
    """NpyDatetime_ConvertDatetime64ToDatetimeStruct."""
    unit, num = meta
    dts = dict(year=1970, month=1, day=1, hour=0, min=0, sec=0, us=0, ps=0, as_=0)
    if dt == NAT:
        dts['year'] = NAT
        return dts
    if unit == 'generic':
        raise CastCrash('ValueError inside GIL-released loop: Cannot convert a '
                        'NumPy datetime value other than NaT with generic units')
    dt = w(dt * num)
    if unit == 'Y':
        dts['year'] = w(1970 + dt)
    elif unit == 'M':
        q, r = extract_unit(dt, 12)
        dts['year'] = 1970 + q
        dts['month'] = r + 1
    elif unit == 'W':
        set_days(w(dt * 7), dts)
    elif unit == 'D':
        set_days(dt, dts)
    elif unit in ('h', 'm', 's', 'ms', 'us', 'ns', 'ps'):
        per_day = DAY_AS // AS_PER[unit]
        days, dt = extract_unit(dt, per_day)
        set_days(days, dts)
        u = AS_PER[unit]
        # remaining fields from the within-day remainder (all non-negative)
        rem_as = dt * u
        dts['hour'], rem_as = divmod(rem_as, 3600 * 10**18)
        dts['min'], rem_as = divmod(rem_as, 60 * 10**18)
        dts['sec'], rem_as = divmod(rem_as, 10**18)
        dts['us'], rem_as = divmod(rem_as, 10**12)
        dts['ps'], dts['as_'] = divmod(rem_as, 10**6)
    elif unit == 'fs':
        hour, dt = extract_unit(dt, 1000**5 * 3600)
        if hour < 0:
            dts['year'], dts['month'], dts['day'] = 1969, 12, 31
            hour += 24
        dts['hour'] = hour
        dts['min'], dt = extract_unit(dt, 1000**5 * 60)
        dts['sec'], dt = extract_unit(dt, 1000**5)
        dts['us'], dt = extract_unit(dt, 1000**3)
        dts['ps'], dt = extract_unit(dt, 1000)
        dts['as_'] = dt * 1000
    elif unit == 'as':
        sec, dt = extract_unit(dt, 1000**6)
        if sec < 0:
            dts['year'], dts['month'], dts['day'] = 1969, 12, 31
            dts['hour'], dts['min'] = 23, 59
            sec += 60
        dts['sec'] = sec
        dts['us'], dt = extract_unit(dt, 1000**4)
        dts['ps'], dt = extract_unit(dt, 1000**2)
        dts['as_'] = dt
    return dts


def struct_days(dts):
    """get_datetimestruct_days (int64 wrap, C division)."""
    year = w(dts['year'] - 1970)
    days = w(year * 365)
    if days >= 0:
        year = w(year + 1)
        days = w(days + cdiv(year, 4))
        year = w(year + 68)
        days = w(days - cdiv(year, 100))
        year = w(year + 300)
        days = w(days + cdiv(year, 400))
    else:
        year = w(year - 2)
        days = w(days + cdiv(year, 4))
        year = w(year - 28)
        days = w(days - cdiv(year, 100))
        days = w(days + cdiv(year, 400))
    ml = _DPM[is_leapyear(dts['year'])]
    for i in range(dts['month'] - 1):
        days = w(days + ml[i])
    return w(days + dts['day'] - 1)


def from_struct(meta, dts):
    """NpyDatetime_ConvertDatetimeStructToDatetime64."""
    unit, num = meta
    if dts['year'] == NAT:
        return NAT
    if unit == 'generic':
        raise CastCrash('ValueError inside GIL-released loop: Cannot create a '
                        'NumPy datetime other than NaT with generic units')
    if unit == 'Y':
        ret = w(dts['year'] - 1970)
    elif unit == 'M':
        ret = w(w(12 * w(dts['year'] - 1970)) + (dts['month'] - 1))
    else:
        days = struct_days(dts)
        if unit == 'W':
            ret = cdiv(days, 7) if days >= 0 else cdiv(w(days - 6), 7)
        elif unit == 'D':
            ret = days
        else:
            ret = w(w(days * 24) + dts['hour'])
            if unit != 'h':
                ret = w(w(ret * 60) + dts['min'])
            if unit not in ('h', 'm'):
                ret = w(w(ret * 60) + dts['sec'])
            if unit == 'ms':
                ret = w(w(ret * 1000) + dts['us'] // 1000)
            elif unit in ('us', 'ns', 'ps', 'fs', 'as'):
                ret = w(w(ret * 1000000) + dts['us'])
                if unit == 'ns':
                    ret = w(w(ret * 1000) + dts['ps'] // 1000)
                elif unit in ('ps', 'fs', 'as'):
                    ret = w(w(ret * 1000000) + dts['ps'])
                    if unit == 'fs':
                        ret = w(w(ret * 1000) + dts['as_'] // 1000)
                    elif unit == 'as':
                        ret = w(w(ret * 1000000) + dts['as_'])
    if num > 1:
        if ret >= 0:
            ret = cdiv(ret, num)
        else:
            ret = cdiv(w(ret - num + 1), num)
    return ret


# ---------------------------------------------------------------- the cast
def linear_scale(dt, num, denom):
    """_strided_to_strided_datetime_cast inner statement."""
    if dt == NAT:
        return NAT
    if dt < 0:
        return cdiv(w(w(dt * num) - w(denom - 1)), denom)
    return cdiv(w(dt * num), denom)


def prepare(kind, src, dst):
    """Everything NumPy does before the loop (may raise CastError).

    Returns (path, num, denom)."""
    path = cast_path(kind, src, dst)
    if path == 'copy':
        return path, 1, 1
    num, denom = conversion_factor(src, dst)
    return path, num, denom


def numpy_cast(kind, src, dst, dt, prepared=None):
    """Result of np.array([dt], f'{kind}8[..src]').astype(dst)[0] as int64."""
    path, num, denom = prepared or prepare(kind, src, dst)
    if path == 'copy':
        return dt
    if path == 'linear':
        return linear_scale(dt, num, denom)
    return from_struct(dst, to_struct(src, dt))


# ---------------------------------------------------------------- exact reference
def days_from_civil(y, m, d):
    """Days since 1970-01-01 of a proleptic Gregorian date (any big int year)."""
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    mp = (m + 9) % 12
    doy = (153 * mp + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def civil_from_days(z):
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return y + (m <= 2), m, d


def exact_cast(kind, src, dst, v):
    """Mathematically exact result (Python int, may be out of int64 range).

    NaT maps to NaT.  Rounding is floor (toward -inf) everywhere."""
    if v == NAT:
        return NAT
    (su, sn), (du, dn) = src, dst
    if su == 'generic':
        return v
    if du == 'generic':
        raise ValueError('no exact result for specific -> generic')
    if kind == 'm':
        def length(u):  # in days, as Fraction
            if u in AVG_DAYS:
                return AVG_DAYS[u]
            return Fraction(AS_PER[u], DAY_AS)
        q = Fraction(v * sn) * length(su) / (length(du) * dn)
        return q.numerator // q.denominator
    # datetime: build the exact instant in attoseconds since the epoch
    x = v * sn
    if su == 'Y':
        inst = days_from_civil(1970 + x, 1, 1) * DAY_AS
    elif su == 'M':
        inst = days_from_civil(1970 + x // 12, x % 12 + 1, 1) * DAY_AS
    else:
        inst = x * AS_PER[su]
    if du in ('Y', 'M'):
        y, m, _ = civil_from_days(inst // DAY_AS)
        r = y - 1970 if du == 'Y' else 12 * (y - 1970) + (m - 1)
        return r // dn
    return inst // (AS_PER[du] * dn)


def fits(x):
    """True if x is a valid non-NaT int64 value."""
    return INT64_MIN < x <= INT64_MAX


# ---------------------------------------------------------------- can_cast model
CASTINGS = ['no', 'equiv', 'safe', 'same_kind', 'unsafe']


def _metadata_divides(dividend, divisor, strict):
    """datetime_metadata_divides."""
    (u1, n1), (u2, n2) = dividend, divisor
    if u1 == 'generic':
        return True
    if u2 == 'generic':
        return False
    num1, num2 = n1, n2
    if u1 != u2:
        if u1 == 'Y':
            if u2 == 'M':
                num1 *= 12
            else:
                return not strict
        elif u2 == 'Y':
            if u1 == 'M':
                num2 *= 12
            else:
                return not strict
        elif u1 == 'M' or u2 == 'M':
            return not strict
        if u1 != 'Y' and u2 != 'Y':
            if ENUM[u1] > ENUM[u2]:
                f = units_factor(u2, u1)
                num2 = (num2 * f) & U64
                if num2 == 0:
                    return False
            else:
                f = units_factor(u1, u2)
                num1 = (num1 * f) & U64
                if num1 == 0:
                    return False
    if num1 & 0xff00000000000000 or num2 & 0xff00000000000000:
        return False
    return num1 % num2 == 0


def cast_safety(kind, src, dst):
    """time_to_time_resolve_descriptors: returns the casting level NumPy
    assigns to src->dst (native byte order).  np.can_cast(src, dst, rule)
    is True iff level <= rule in CASTINGS order."""
    (u1, n1), (u2, n2) = src, dst
    e1, e2 = ENUM[u1], ENUM[u2]
    if (u1 == u2 and n1 == n2) or (
            e2 >= 7 and n2 != 0 and (
                (e1 - e2 == 1 and n1 // n2 == 1000) or
                (e1 - e2 == 2 and n1 // n2 == 1000000) or
                (e1 - e2 == 3 and n1 // n2 == 1000000000))):
        return 'no'
    if u1 == 'generic':
        return 'safe'
    if u2 == 'generic':
        return 'unsafe'
    if kind == 'm' and ((e1 <= 1 < e2) or (e2 <= 1 < e1)):
        return 'unsafe'
    if e1 <= e2:
        return 'safe' if _metadata_divides(src, dst, kind == 'm') else 'same_kind'
    return 'same_kind'


def can_cast(kind, src, dst, rule):
    return CASTINGS.index(cast_safety(kind, src, dst)) <= CASTINGS.index(rule)
