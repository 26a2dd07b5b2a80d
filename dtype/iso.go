package dtype

import (
	"math/bits"
	"strconv"
)

// FormatISO returns np.datetime_as_string(np.array([v], dtype=d.NumPy(...)))
// in its default form for a datetime data type: an ISO 8601 string at the
// data type's base unit (a scaled unit prints at its base unit, so [10us]
// prints microseconds), naive (no time zone).
//
//	Y  2024               h   2024-02-29T13
//	M  2024-02            m   2024-02-29T13:45
//	W  2024-02-29 (date)  s   2024-02-29T13:45:07
//	D  2024-02-29         ms  .123, us 6 digits, ns 9, ps 12, fs 15, as 18
//
// The year is printed as C's printf("%04lld"): the width includes the sign,
// so years 5, 0, -1, -100000 and 10000 print as 0005, 0000, -001, -100000
// and 10000. Fields are floor-split, so negative values give an earlier date
// with positive fields (-1 s is 1969-12-31T23:59:59). NaT, and every value
// of the generic unit, is "NaT".
//
// Unlike NumPy, value × scale and the split into fields are computed exactly
// (128-bit), so the result is the true date for every int64 value and scale.
// NumPy computes value × scale in int64 and prints wrapped garbage where it
// overflows (scaled fs/as, huge values at large scales); there dt64 and NumPy
// differ.
//
// For a timedelta data type FormatISO returns FormatTimedelta's text (NumPy
// has no ISO form for durations; np.datetime_as_string refuses them). A data
// type that fails Validate prints v as a plain decimal integer.
func FormatISO(v int64, d DataType) string {
	var buf [64]byte
	return string(AppendISO(buf[:0], v, d))
}

// AppendISO appends FormatISO(v, d) to dst and returns the extended slice.
// It does not allocate when dst has room for the result (64 bytes are always
// enough).
func AppendISO(dst []byte, v int64, d DataType) []byte {
	if d.Validate() != nil {
		return strconv.AppendInt(dst, v, 10)
	}
	if d.Kind == Timedelta {
		return AppendTimedelta(dst, v, d)
	}
	if v == NaT || d.Unit == Generic {
		return append(dst, "NaT"...)
	}
	x := mul128(v, uint64(d.Scale)) // |x| < 2^94
	switch d.Unit {
	case Year:
		return appendYear(dst, x.addSmall(1970))
	case Month:
		q, r := x.floorDivMod(12)
		dst = appendYear(dst, q.addSmall(1970))
		return append2(append(dst, '-'), int(r)+1)
	case Week:
		return appendDate(dst, x.mulSmall(7))
	case Day:
		return appendDate(dst, x)
	}
	// Sub-day units: split into whole seconds since the epoch and a fraction
	// of frac decimal digits. 10^18 fits in a uint64, so every unit from ms to
	// as needs only one 128÷64 division here, and seconds ÷ 86400 one more.
	var secs int128
	var fraction uint64
	frac := 0
	switch d.Unit {
	case Hour:
		secs = x.mulSmall(3600)
	case Minute:
		secs = x.mulSmall(60)
	case Second:
		secs = x
	default: // Millisecond ... Attosecond: 3, 6, ..., 18 digits
		frac = 3 * int(d.Unit-Second)
		secs, fraction = x.floorDivMod(pow10[frac])
	}
	days, sod := secs.floorDivMod(86400)
	dst = appendDate(dst, days)
	dst = append2(append(dst, 'T'), int(sod/3600))
	if d.Unit == Hour {
		return dst
	}
	dst = append2(append(dst, ':'), int(sod/60%60))
	if d.Unit == Minute {
		return dst
	}
	dst = append2(append(dst, ':'), int(sod%60))
	if frac == 0 {
		return dst
	}
	return appendPadded(append(dst, '.'), fraction, frac)
}

// FormatTimedelta returns NumPy's str() of a timedelta64 scalar:
// "<value × scale> <unit>s", for example "50 microseconds" for 5 in [10us]
// and "1 seconds" (NumPy always uses the plural), "7 generic time units" for
// the generic unit, and "NaT". value × scale is exact here; NumPy wraps it
// around in int64. It formats datetime data types the same way (as counts
// of the base unit); use FormatISO for dates. A data type that fails
// Validate prints v as a plain decimal integer.
func FormatTimedelta(v int64, d DataType) string {
	var buf [64]byte
	return string(AppendTimedelta(buf[:0], v, d))
}

// AppendTimedelta appends FormatTimedelta(v, d) to dst and returns the
// extended slice, without allocating when dst has room (64 bytes suffice).
func AppendTimedelta(dst []byte, v int64, d DataType) []byte {
	if d.Validate() != nil {
		return strconv.AppendInt(dst, v, 10)
	}
	if v == NaT {
		return append(dst, "NaT"...)
	}
	dst = appendInt128(dst, mul128(v, uint64(d.Scale)), 0)
	dst = append(dst, ' ')
	return append(dst, verboseUnit[d.Unit]...)
}

// verboseUnit is NumPy's _datetime_verbose_strings, used by str() of a
// timedelta64 scalar.
var verboseUnit = [NumUnits]string{
	Year: "years", Month: "months", Week: "weeks", Day: "days",
	Hour: "hours", Minute: "minutes", Second: "seconds",
	Millisecond: "milliseconds", Microsecond: "microseconds",
	Nanosecond: "nanoseconds", Picosecond: "picoseconds",
	Femtosecond: "femtoseconds", Attosecond: "attoseconds",
	Generic: "generic time units",
}

var pow10 = [19]uint64{
	1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
}

// appendDate appends YYYY-MM-DD for a count of days since 1970-01-01,
// using Hinnant's civil_from_days over 400-year eras (146097 days each):
// the era is a 128-bit quotient, everything inside an era fits in int64.
func appendDate(dst []byte, days int128) []byte {
	// Shift the epoch to 0000-03-01 so that leap days end each year.
	era, r := days.addSmall(719468).floorDivMod(146097)
	doe := int64(r)                                        // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // [0, 365]
	mp := (5*doy + 2) / 153                                // [0, 11], March = 0
	day := doy - (153*mp+2)/5 + 1
	month := mp + 3
	if month > 12 {
		month -= 12
		yoe++ // January and February belong to the next civil year
	}
	dst = appendYear(dst, era.mulSmall(400).addSmall(yoe))
	dst = append2(append(dst, '-'), int(month))
	return append2(append(dst, '-'), int(day))
}

// appendYear appends a year as printf("%04lld") would: at least 4
// characters, the sign counted in the width.
func appendYear(dst []byte, y int128) []byte {
	return appendInt128(dst, y, 4)
}

// appendInt128 appends x in decimal, zero-padded after the sign to a total
// width of at least width characters (printf's "%0*lld").
func appendInt128(dst []byte, x int128, width int) []byte {
	neg := x.neg()
	mag := x
	if neg {
		mag = x.negate()
		dst = append(dst, '-')
		width--
	}
	// Digits of the magnitude, least significant first, in groups of 19.
	var digits [40]byte
	n := 0
	hi, lo := mag.hi, mag.lo
	for {
		var rem uint64
		hi, lo, rem = divMod128(hi, lo, 1e19)
		last := hi == 0 && lo == 0
		for k := 0; k < 19 && (rem != 0 || !last); k++ {
			digits[n] = byte('0' + rem%10)
			rem /= 10
			n++
		}
		if last {
			break
		}
	}
	if n == 0 {
		digits[0] = '0'
		n = 1
	}
	for ; width > n; width-- {
		dst = append(dst, '0')
	}
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, digits[i])
	}
	return dst
}

// append2 appends a two-digit field (0..99).
func append2(dst []byte, v int) []byte {
	return append(dst, byte('0'+v/10), byte('0'+v%10))
}

// appendPadded appends v as exactly n decimal digits (v < 10^n).
func appendPadded(dst []byte, v uint64, n int) []byte {
	var digits [19]byte
	for i := n - 1; i >= 0; i-- {
		digits[i] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, digits[:n]...)
}

// int128 is a two's complement 128-bit integer: enough for value × scale
// (< 2^94) times 3600 and for the years derived from it.
type int128 struct{ hi, lo uint64 }

func (x int128) neg() bool { return int64(x.hi) < 0 }

func (x int128) negate() int128 {
	lo, borrow := bits.Sub64(0, x.lo, 0)
	hi, _ := bits.Sub64(0, x.hi, borrow)
	return int128{hi, lo}
}

// mul128 returns v × k exactly.
func mul128(v int64, k uint64) int128 {
	if v >= 0 {
		hi, lo := bits.Mul64(uint64(v), k)
		return int128{hi, lo}
	}
	hi, lo := bits.Mul64(uint64(-v), k) // uint64(-MinInt64) is 2^63: still right
	return int128{hi, lo}.negate()
}

// mulSmall returns x × k for a small positive k; the magnitudes used here
// stay far below 2^127.
func (x int128) mulSmall(k uint64) int128 {
	neg := x.neg()
	if neg {
		x = x.negate()
	}
	hi, lo := bits.Mul64(x.lo, k)
	r := int128{hi + x.hi*k, lo}
	if neg {
		r = r.negate()
	}
	return r
}

// addSmall returns x + k.
func (x int128) addSmall(k int64) int128 {
	lo, carry := bits.Add64(x.lo, uint64(k), 0)
	hi, _ := bits.Add64(x.hi, uint64(k>>63), carry) // sign-extend k
	return int128{hi, lo}
}

// floorDivMod returns floor(x / d) and x - d × floor(x / d), in [0, d).
func (x int128) floorDivMod(d uint64) (int128, uint64) {
	if !x.neg() {
		hi, lo, r := divMod128(x.hi, x.lo, d)
		return int128{hi, lo}, r
	}
	m := x.negate()
	hi, lo, r := divMod128(m.hi, m.lo, d)
	q := int128{hi, lo}
	if r != 0 {
		q = q.addSmall(1)
		r = d - r
	}
	return q.negate(), r
}

// divMod128 divides the unsigned 128-bit hi:lo by d.
func divMod128(hi, lo, d uint64) (qhi, qlo, r uint64) {
	qhi, r = hi/d, hi%d
	qlo, r = bits.Div64(r, lo, d)
	return qhi, qlo, r
}
