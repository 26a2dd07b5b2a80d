package kernels

import (
	"math"
	"math/bits"

	"github.com/zarr-dt64/dt64/dtype"
)

// Calendar conversions: datetime64 with Y or M on either side, proleptic
// Gregorian (year 0 exists and is leap). Days and dates convert with Howard
// Hinnant's closed-form days_from_civil / civil_from_days: no loops, no
// tables. Y/M to Y/M is linear in months and compiles to a linear op;
// the two remaining shapes have an int64 fast loop each and an exact int128
// path for everything outside the fast range.

// calParams describes a calendar conversion.
type calParams struct {
	src, dst dtype.Unit
	s1, s2   int64

	// src side, for a linear source unit: x = v*s1 (in source units);
	// days = floor(x*srcDPU / (srcP1*srcP2)).
	srcDPU       int64  // 7 for W, else 1
	srcP1, srcP2 uint64 // units per day = srcP1 * srcP2 (each fits)
	// src side, for Y/M: months = v*s1*srcMPU.
	srcMPU int64
	// dst side, for a linear destination: value = days*dstP1*dstP2 (or
	// days for W), then floor-divided by dstDiv = s2 (7*s2 for W).
	dstP1, dstP2 uint64
	dstDiv       uint64

	// fast loop parameters
	vlim   int64   // fast path when |v| <= vlim
	srcDv  divisor // floor(x / units per day), when that is >= 2
	srcDiv bool
	outDv  divisor // floor(val / dstDiv or s2)
	outDiv bool
	dayLim int64 // to-linear: days*upd fits when |days| <= dayLim
	upd    int64 // to-linear: units per day (1 for W and D)

	// The 32-bit loops (calendar32.go) take |v| <= vlim32, which keeps
	// |days| <= fastDays (to Y/M) or |months| <= fastMonths (from Y/M).
	vlim32 int64
	// To Y/M, the 32-bit loop's dividend: u = (v+vlim32)*s1*srcDPU + off32
	// = x + k*upd with k*upd >= vlim32*s1*srcDPU, never negative, so that
	// floor(x/upd) = floor(u/upd) - k needs no sign fold; dayBias32 is
	// 4*(fastDayOffset-k)+3 mod 2^32, what turns floor(u/upd) into the
	// loop's 4N+3.
	off32     uint64
	dayBias32 uint32
}

// unitsPerDay splits the units-per-day of a linear unit D..as into two
// factors that each fit in a uint64 (as: 86400 * 10^18).
func unitsPerDay(u dtype.Unit) (p1, p2 uint64) {
	switch u {
	case dtype.Week, dtype.Day:
		return 1, 1
	case dtype.Hour:
		return 24, 1
	case dtype.Minute:
		return 1440, 1
	}
	p2 = 1
	for k := dtype.Second; k < u; k++ {
		p2 *= 1000
	}
	return 86400, p2
}

func compileCalendar(from, to dtype.DataType) calParams {
	c := calParams{src: from.Unit, dst: to.Unit, s1: from.Scale, s2: to.Scale}
	if from.Unit.IsCalendar() {
		c.srcMPU = 1
		if from.Unit == dtype.Year {
			c.srcMPU = 12
		}
		c.dstP1, c.dstP2 = unitsPerDay(to.Unit)
		c.dstDiv = uint64(to.Scale)
		if to.Unit == dtype.Week {
			c.dstDiv *= 7
		}
		// Fast range: |months| <= 2^36 (±5.7e9 years).
		c.vlim = (1 << 36) / (c.srcMPU * c.s1)
		if hi, lo := bits.Mul64(c.dstP1, c.dstP2); hi == 0 && lo <= math.MaxInt64 {
			c.upd = int64(lo)
			c.dayLim = math.MaxInt64 / c.upd
		} else {
			c.upd, c.dayLim = 1, 0 // fs/as from Y/M: only day 0 is fast
		}
		if c.dstDiv >= 2 {
			c.outDv, c.outDiv = newDivisor(c.dstDiv), true
		}
		c.vlim32 = min(c.vlim, fastMonths/(c.srcMPU*c.s1))
		return c
	}
	c.srcDPU = 1
	if from.Unit == dtype.Week {
		c.srcDPU = 7
	}
	c.srcP1, c.srcP2 = unitsPerDay(from.Unit)
	if hi, p := bits.Mul64(c.srcP1, c.srcP2); hi == 0 && p < 1<<62 {
		// Fast range: |x*dpu| <= min(2^62, 2^40 days).
		lim := uint64(1) << 62
		if p <= 1<<22 {
			lim = p << 40
		}
		c.vlim = int64(lim / uint64(c.s1*c.srcDPU))
		if p >= 2 {
			c.srcDv, c.srcDiv = newDivisor(p), true
		}
	} // fs, as: exact path only (vlim 0; 0 itself is handled either way)
	if c.s2 >= 2 {
		c.outDv, c.outDiv = newDivisor(uint64(c.s2)), true
	}
	// |x| <= fastDays*upd keeps |floor(x/upd)| <= fastDays.
	upd := uint64(1)
	if c.srcDiv {
		upd = c.srcDv.d
	}
	if hi, lo := bits.Mul64(fastDays, upd); hi == 0 {
		c.vlim32 = min(c.vlim, int64(lo/uint64(c.s1*c.srcDPU)))
	} else {
		c.vlim32 = c.vlim
	}
	c.offsetDays32()
	return c
}

// offsetDays32 sets off32 and dayBias32 for vlim32. |x| <= vlim32*s1*srcDPU
// <= vlim <= 2^62, so u < 2^63 + upd, which every units-per-day divisor
// divides exactly (exactTo); if one did not, the 32-bit loop would take
// only 0 and leave the rest to the wide loop.
func (c *calParams) offsetDays32() {
	xlim := uint64(c.vlim32) * uint64(c.s1*c.srcDPU)
	k := xlim
	if c.srcDiv {
		k = (xlim + c.srcDv.d - 1) / c.srcDv.d
		c.off32 = k*c.srcDv.d - xlim
		if !c.srcDv.exactTo(xlim + k*c.srcDv.d) {
			c.vlim32 = 0
			c.offsetDays32()
			return
		}
	}
	c.dayBias32 = uint32(4*(fastDayOffset-k) + 3)
}

// civilFromDays128 returns the proleptic Gregorian date of a day count.
func civilFromDays128(days int128) (y int128, m, d uint64) {
	era, doe := days.add(i128(719468)).divModU64(146097)
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if mp >= 10 {
		m = mp - 9
	}
	y, _ = era.mulI64(400)
	y = y.add(u128(yoe))
	if m <= 2 {
		y = y.add(u128(1))
	}
	return y, m, d
}

// daysFromCivil128 returns the day count of the first day of month m of
// year y.
func daysFromCivil128(y int128, m uint64) int128 {
	if m <= 2 {
		y = y.sub(u128(1))
	}
	era, yoe := y.divModU64(400)
	mp := (m + 9) % 12
	doy := (153*mp + 2) / 5
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	e, _ := era.mulI64(146097)
	return e.add(u128(doe)).sub(i128(719468))
}

// huge is a value that fits no int64 with the sign of neg: what an exact
// calendar result beyond 128 bits is reported as.
func huge(neg bool) int128 {
	if neg {
		return int128{hi: 1 << 63}
	}
	return int128{hi: 1<<63 - 1, lo: math.MaxUint64}
}

// exact returns the exact calendar result and whether it is lossy (does not
// represent the source instant). v must not be NaT.
func (c *calParams) exact(v int64) (int128, bool) {
	x, _ := i128(v).mulI64(c.s1) // |x| < 2^94
	if c.srcMPU != 0 {
		months, _ := x.mulI64(c.srcMPU)
		yq, mo := months.divModU64(12)
		days := daysFromCivil128(yq.add(i128(1970)), mo+1)
		var val int128
		var ok bool
		if c.dst == dtype.Week {
			val = days
		} else {
			val, ok = days.mulI64(int64(c.dstP1))
			if ok {
				if c.dstP2 > math.MaxInt64 {
					ok = false
				} else {
					val, ok = val.mulI64(int64(c.dstP2))
				}
			}
			if !ok {
				return huge(days.neg()), false
			}
		}
		q, r := val.divModU64(c.dstDiv)
		return q, r != 0
	}
	if c.srcDPU != 1 {
		x, _ = x.mulI64(c.srcDPU)
	}
	d1, r1 := x.divModU64(c.srcP2)
	days, r2 := d1.divModU64(c.srcP1)
	y, m, d := civilFromDays128(days)
	lossy := r1 != 0 || r2 != 0 || d != 1
	val := y.sub(i128(1970))
	if c.dst == dtype.Month {
		val, _ = val.mulI64(12)
		val = val.add(u128(m - 1))
	} else {
		lossy = lossy || m != 1
	}
	q, r := val.divModU64(uint64(c.s2))
	return q, lossy || r != 0
}

// Offsets that make the fast loops' dividends non-negative, so that floor
// division by the constants 146097, 12 and 400 is plain unsigned division
// (which the compiler turns into a multiply).
const (
	eraOffset   = 8_000_000                 // eras: > 2^40 days / 146097
	monthOffset = 12 << 37                  // months, > 2^36
	yearOffset  = 400 << 25                 // years, > 2^36/12 + 1970
	dayOffset   = eraOffset*146097 + 719468 // days shifted into [0, 2^42)
)

// toCalendarWide: linear source unit (W, D, h .. ps) to Y or M, over the
// whole 64-bit fast range.
func toCalendarWide(dst, src []uint64, c *calParams, swapIn, swapOut bool) (n, nat, lossy int) {
	dst = dst[:len(src)]
	vlim, mul := c.vlim, c.s1*c.srcDPU
	toMonth := c.dst == dtype.Month
	for i, w := range src {
		if swapIn {
			w = bits.ReverseBytes64(w)
		}
		v := int64(w)
		if v < -vlim || v > vlim {
			if v != math.MinInt64 {
				return i, nat, lossy
			}
			nat++
			r := uint64(natBits)
			if swapOut {
				r = bits.ReverseBytes64(r)
			}
			dst[i] = r
			continue
		}
		days, rem := v*mul, uint64(0)
		if c.srcDiv {
			days, rem = c.srcDv.floorDiv(days)
		}
		// Neri & Schneider's civil-from-days ("Euclidean affine functions",
		// 2021): a computational year starting in March, only multiplies
		// and shifts, against Hinnant's five divisions.
		nn := 4*uint64(days+dayOffset) + 3
		cent := nn / 146097
		n1 := (nn % 146097) | 3
		p2 := 2939745 * n1
		z := p2 >> 32
		ny := (p2 & 0xffffffff) / 11758980 // day of the computational year
		n2 := 2141*ny + 197913
		m := n2 >> 16 // month 3..14 of the computational year
		y := int64(100*cent+z) - eraOffset*400 - 1970
		miss := rem | (n2&0xffff)/2141 // non-zero unless the 1st of a month
		var val int64
		if toMonth {
			// January and February (13, 14) belong to the next Gregorian
			// year, which the month count already says: 12*(y+1) + m-12 - 1.
			val = 12*y + int64(m) - 1
		} else {
			val = y + int64(b2i(m >= 13))
			miss |= m - 13
		}
		if c.outDiv {
			var r2 uint64
			val, r2 = c.outDv.floorDiv(val)
			miss |= r2
		}
		lossy += b2i(miss != 0)
		r := uint64(val)
		if swapOut {
			r = bits.ReverseBytes64(r)
		}
		dst[i] = r
	}
	return len(src), nat, lossy
}

// fromCalendarWide: Y or M to a linear destination unit, over the whole
// 64-bit fast range.
func fromCalendarWide(dst, src []uint64, c *calParams, swapIn, swapOut bool) (n, nat, lossy int) {
	dst = dst[:len(src)]
	vlim, mul, dayLim, upd := c.vlim, c.s1*c.srcMPU, c.dayLim, c.upd
	for i, w := range src {
		if swapIn {
			w = bits.ReverseBytes64(w)
		}
		v := int64(w)
		if v < -vlim || v > vlim {
			if v != math.MinInt64 {
				return i, nat, lossy
			}
			nat++
			r := uint64(natBits)
			if swapOut {
				r = bits.ReverseBytes64(r)
			}
			dst[i] = r
			continue
		}
		months := v * mul
		yq := int64(uint64(months+monthOffset)/12) - monthOffset/12
		m := uint64(months - 12*yq + 1)
		y := yq + 1970 - int64(b2i(m <= 2))
		era := int64(uint64(y+yearOffset)/400) - yearOffset/400
		yoe := uint64(y - era*400)
		mp := m + 9
		if m > 2 {
			mp = m - 3
		}
		doy := (153*mp + 2) / 5
		doe := yoe*365 + yoe/4 - yoe/100 + doy
		days := era*146097 + int64(doe) - 719468
		if days < -dayLim || days > dayLim {
			return i, nat, lossy
		}
		val := days * upd
		if c.outDiv {
			var r uint64
			val, r = c.outDv.floorDiv(val)
			lossy += b2i(r != 0)
		}
		r := uint64(val)
		if swapOut {
			r = bits.ReverseBytes64(r)
		}
		dst[i] = r
	}
	return len(src), nat, lossy
}
