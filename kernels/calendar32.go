package kernels

import (
	"math/bits"
	"unsafe"

	"github.com/zarr-dt64/dt64/dtype"
)

// The calendar loops every realistic value takes: the same closed forms as
// toCalendarWide and fromCalendarWide (Neri and Schneider, "Euclidean
// affine functions and their application to calendar algorithms", 2021),
// shifted by a whole number of 400-year eras so that every intermediate is
// a non-negative 32-bit integer. Division of a 32-bit value by a constant
// is a cheap multiply on any register (a 64-bit one needs MULQ and its two
// fixed registers), and the same arithmetic maps onto 32x32->64-bit vector
// multiplies (calendar_amd64.s). Values beyond the 32-bit range (a million
// years out) go to the wide loops one element at a time.

const (
	fastEras = 420 // eras of 400 years the 32-bit loops shift by

	// To Y/M: N = days + fastDayOffset counts days from 0000-03-01 minus
	// fastEras eras, in [0, 2^27) for |days| <= fastDays (±164000 years).
	fastDayOffset = fastEras*146097 + 719468
	fastDays      = 60_000_000

	// (4N+3)/146097 as a multiply and a shift: exact while
	// (4N+3)*(magic*146097 - 2^48) < 2^48, true below 2^30.
	centuryMagic = (1<<48 + 146097 - 1) / 146097

	// floor(x / 11758980) as x*yearDayMagic >> 54 for the low words of
	// 2939745*(4k+3), k < 36525, which is all the loop divides.
	yearDayMagic = (1<<54 + 11758980 - 1) / 11758980

	// From Y/M: t = months + fastMonthOffset counts months from March of
	// year -400*fastEras, in [0, 2^22) for |months| <= fastMonths.
	fastMonthOffset = 12*(1970+400*fastEras) - 2
	fastMonths      = 12 * 160_000
)

// calendarResume is how many elements the generic loop converts after a
// SIMD hook stopped, before handing back to the hook.
const calendarResume = 8

// toCalendarLoop converts a prefix of src from a linear unit to Y or M.
func toCalendarLoop(dst, src []uint64, c *calParams, swapIn, swapOut bool) (n, nat, lossy int) {
	return calendarTiers(dst, src, c, swapIn, swapOut, true)
}

// fromCalendarLoop is toCalendarLoop's counterpart from Y or M.
func fromCalendarLoop(dst, src []uint64, c *calParams, swapIn, swapOut bool) (n, nat, lossy int) {
	return calendarTiers(dst, src, c, swapIn, swapOut, false)
}

// calendarTiers runs the three tiers of one calendar direction (to Y/M when
// to is set) over a prefix of src: the SIMD hook, then the 32-bit loop,
// then the wide loop for a value beyond the 32-bit range; it stops before
// an element only the exact path can do. After a value the SIMD hook
// stopped at, the 32-bit loop takes calendarResume elements before handing
// back. The tiers are called directly, not through function values, so
// that the buffers do not escape.
func calendarTiers(dst, src []uint64, c *calParams, swapIn, swapOut, to bool) (n, nat, lossy int) {
	for n < len(src) {
		var k, nat1, lossy1 int
		if to {
			k, nat1, lossy1 = toCalendarSIMD(dst[n:], src[n:], c, swapIn, swapOut)
		} else {
			k, nat1, lossy1 = fromCalendarSIMD(dst[n:], src[n:], c, swapIn, swapOut)
		}
		n, nat, lossy = n+k, nat+nat1, lossy+lossy1
		end := len(src)
		if calendarSIMD() {
			end = min(end, n+calendarResume)
		}
		if to {
			k, nat1, lossy1 = toCalendar32(dst[n:end], src[n:end], c, swapIn, swapOut)
		} else {
			k, nat1, lossy1 = fromCalendar32(dst[n:end], src[n:end], c, swapIn, swapOut)
		}
		n, nat, lossy = n+k, nat+nat1, lossy+lossy1
		if n == len(src) {
			break
		}
		if n < end { // beyond the 32-bit range
			if to {
				k, nat1, lossy1 = toCalendarWide(dst[n:n+1], src[n:n+1], c, swapIn, swapOut)
			} else {
				k, nat1, lossy1 = fromCalendarWide(dst[n:n+1], src[n:n+1], c, swapIn, swapOut)
			}
			if k == 0 {
				break
			}
			n, nat, lossy = n+k, nat+nat1, lossy+lossy1
		}
	}
	return n, nat, lossy
}

func toCalendar32(dst, src []uint64, c *calParams, swapIn, swapOut bool) (n, nat, lossy int) {
	// Instants to months, the common case: see calDivide.
	if c.srcDiv && !c.outDiv && c.dst == dtype.Month && c.s1*c.srcDPU == 1 && c.srcDv.d < 1<<47 {
		switch {
		case !swapIn && !swapOut:
			return toCalendar32Of[orderNative, calDivide](dst, src, c)
		case !swapOut:
			return toCalendar32Of[orderSwapIn, calDivide](dst, src, c)
		case !swapIn:
			return toCalendar32Of[orderSwapOut, calDivide](dst, src, c)
		}
		return toCalendar32Of[orderSwapBoth, calDivide](dst, src, c)
	}
	switch {
	case !swapIn && !swapOut:
		return toCalendar32Of[orderNative, calAny](dst, src, c)
	case !swapOut:
		return toCalendar32Of[orderSwapIn, calAny](dst, src, c)
	case !swapIn:
		return toCalendar32Of[orderSwapOut, calAny](dst, src, c)
	}
	return toCalendar32Of[orderSwapBoth, calAny](dst, src, c)
}

// Shapes of toCalendar32Of, specialised like byteOrders: calDivide is a
// source finer than a day with scale 1 (h .. ns: fewer than 2^47 units per
// day, which its exact-month count needs) to months with no final division
// by the destination scale, its three flags and its multiplier constant
// (one register fewer in a loop that has none to spare); calAny reads them
// from calParams.
type (
	calDivide uint8
	calAny    uint16
)

type calShapes interface{ calDivide | calAny }

func fromCalendar32(dst, src []uint64, c *calParams, swapIn, swapOut bool) (n, nat, lossy int) {
	switch {
	case !swapIn && !swapOut:
		return fromCalendar32Of[orderNative](dst, src, c)
	case !swapOut:
		return fromCalendar32Of[orderSwapIn](dst, src, c)
	case !swapIn:
		return fromCalendar32Of[orderSwapOut](dst, src, c)
	}
	return fromCalendar32Of[orderSwapBoth](dst, src, c)
}

// toCalendar32Of converts while |v| <= vlim32 (NaT kept) and returns at the
// first other value. Its loop must fit in the registers MULQ and the
// variable shift leave free, or every element pays for spills: the NaT and
// lossy counts share one accumulator (NaT in the high half; callers pass a
// block, far below 2^32 elements); the range test v+vlim32 <= 2*vlim32
// (unsigned; NaT fails it) also makes the dividend non-negative, so the
// division by the units per day is one multiply-high with no sign fold
// (off32, dayBias32); and its remainder is only tested for zero.
func toCalendar32Of[O byteOrders, S calShapes](dst, src []uint64, c *calParams) (n, nat, lossy int) {
	dst = dst[:len(src)]
	swapIn, swapOut := orderSwaps[O]()
	vlim, mul := uint64(c.vlim32), uint64(c.s1*c.srcDPU)
	off, dayBias := c.off32, c.dayBias32
	srcDiv, outDiv, toYear := c.srcDiv, c.outDiv, c.dst != dtype.Month
	var shape S
	if unsafe.Sizeof(shape) == 1 {
		srcDiv, outDiv, toYear, mul = true, false, false, 1
	}
	// calDivide counts exact conversions in acc's low half, the others
	// lossy ones (see calCounts).
	exactCount := unsafe.Sizeof(shape) == 1
	sdv, odv := c.srcDv, c.outDv
	// What the shift by fastEras adds to a year and to a month count.
	yearBias := int64(400*fastEras + 1970)
	monthBias := 12*yearBias + 1
	acc := uint64(0)
	for i, w := range src {
		if swapIn {
			w = bits.ReverseBytes64(w)
		}
		t := w + vlim
		if t > vlim<<1 { // |v| > vlim, or NaT (recomputed: a register fewer)
			// NaT is the only value outside the range with w<<1 == 0,
			// and w>>31 is its 1<<32: no 64-bit constants, which the
			// register allocator would keep in registers across the loop.
			if w<<1 != 0 {
				nat, lossy = calCounts(acc, i, exactCount)
				return i, nat, lossy
			}
			acc += w >> 31
			if swapOut {
				w = bits.ReverseBytes64(w)
			}
			dst[i] = w
			continue
		}
		u := t*mul + off
		q, miss := u, uint64(0)
		if srcDiv {
			q = sdv.quo(u)
			miss = u - q*sdv.d // 0 iff x is a whole number of days
		}
		n1 := 4*uint32(q) + dayBias
		cent := uint32(uint64(n1) * centuryMagic >> 48)
		p2 := 2939745 * uint64(n1-cent*146097|3)
		// Day of the March-based year, uint32(p2) / 11758980: the
		// multiplier of the division as the compiler does it exceeds
		// 2^31 and takes a register; this smaller one is exact for the
		// 36525 values uint32(p2) takes (TestCalendarYearDayMagic).
		ny := uint32(uint64(uint32(p2)) * yearDayMagic >> 54)
		n3 := 2141*ny + 197913
		m := n3 >> 16 // month 3..14 of the March-based year
		y := 100*cent + uint32(p2>>32)
		if exactCount {
			// The 1st of a month has n3&0xffff < 2141: with miss < 2^47
			// shifted above it, one compare tells an exact month, and
			// the borrow of z-2141 counts it without a flag register.
			z := miss<<16 | uint64(n3&0xffff)
			acc += (z - 2141) >> 63
			dst[i] = toOrder(uint64(int64(12*y+m)-monthBias), swapOut)
			continue
		}
		miss |= uint64(b2i(n3&0xffff >= 2141)) // not the 1st of a month
		var val int64
		if toYear {
			// January and February (13, 14) belong to the next year.
			val = int64(y+uint32(b2i(m >= 13))) - yearBias
			miss |= uint64(m - 13)
		} else {
			// 12*y + m-3 months from March of year y, counted from January.
			val = int64(12*y+m) - monthBias
		}
		if outDiv {
			q := odv.floorQuo(val)
			miss |= uint64(val - q*int64(odv.d))
			val = q
		}
		acc += uint64(b2i(miss != 0))
		r := uint64(val)
		if swapOut {
			r = bits.ReverseBytes64(r)
		}
		dst[i] = r
	}
	nat, lossy = calCounts(acc, len(src), exactCount)
	return len(src), nat, lossy
}

// calCounts unpacks toCalendar32Of's accumulator after n elements: NaT
// count in the high half, and in the low half the lossy count, or with
// exact set the count of exact conversions.
func calCounts(acc uint64, n int, exact bool) (nat, lossy int) {
	nat, lossy = int(acc>>32), int(acc&(1<<32-1))
	if exact {
		lossy = n - nat - lossy
	}
	return nat, lossy
}

// toOrder returns r in the destination byte order.
func toOrder(r uint64, swap bool) uint64 {
	if swap {
		return bits.ReverseBytes64(r)
	}
	return r
}

// fromCalendar32Of converts while |v| <= vlim32 and the result's day count
// is within dayLim (NaT kept), and returns at the first other value.
func fromCalendar32Of[O byteOrders](dst, src []uint64, c *calParams) (n, nat, lossy int) {
	dst = dst[:len(src)]
	swapIn, swapOut := orderSwaps[O]()
	vlim, mul := uint64(c.vlim32), uint64(c.s1*c.srcMPU)
	dayLim, upd := uint64(c.dayLim), c.upd
	outDiv, odv := c.outDiv, c.outDv
	const dayBias = fastEras*146097 + 719468
	for i, w := range src {
		if swapIn {
			w = bits.ReverseBytes64(w)
		}
		if w+vlim > 2*vlim {
			if w != natBits {
				return i, nat, lossy
			}
			nat++
			if swapOut {
				w = bits.ReverseBytes64(w)
			}
			dst[i] = w
			continue
		}
		t := uint32(w*mul + fastMonthOffset) // months from a March
		y := t / 12                          // its March-based year
		mi := t - 12*y                       // 0 = March .. 11 = February
		cent := y / 100
		doy := (979*mi + 18) >> 5 // days from March 1st to the month
		days := int64((1461*y)>>2-cent+cent>>2+doy) - dayBias
		if uint64(days)+dayLim > 2*dayLim {
			return i, nat, lossy
		}
		val := days * upd
		if outDiv {
			var r uint64
			val, r = odv.floorDiv(val)
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
