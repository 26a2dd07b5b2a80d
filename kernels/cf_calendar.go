package kernels

import (
	"math"
	"math/bits"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
)

// Calendar conversion of decoded CF times (cf.CalendarConversion): a
// second pass over each block a CFDecoder has just decoded, still in L1
// cache, turning counts of the source calendar's time into the
// datetime64 counts of the dates the conversion gives them.
//
// A conversion adds one shift to every count of a run of days: a month
// (by date: the days that exist in both calendars), or a day (360_day by
// year). The loop keeps the last such segment, as a range of counts and
// its shift, so that sorted data (every time coordinate) costs one
// compare and one add an element; an element outside it computes its
// segment with the closed-form civil-date arithmetic of calendar.go, in
// 128 bits. The reference is cf.Decoder.ConvertCalendar, element by
// element, with cf's own date arithmetic.

// cfCalendar is a CFDecoder's calendar conversion.
type cfCalendar struct {
	on       bool
	cal      cf.Calendar
	conv     cf.CalendarConversion
	perDay   int64
	nat      bool    // cf.MissingNaT
	cycle    int64   // days in 400 years of cal
	base     int64   // the reduction window [base, base+cycle) of day numbers
	gregDay  int64   // the standard calendar's first Gregorian day
	safeDay  int64   // |day| below it: segments in int64 arithmetic
	dayDiv   divisor // perDay (when > 1) and cycle, by multiplication
	cycleDiv divisor
}

// calSegment is a run of source counts [lo, lo+width) that convert by
// adding shift (kind segShift), have no date (segNoDate), or must each be
// checked for overflow (segExact).
type calSegment struct {
	lo, shift int64
	width     uint64 // segShift only; 0 otherwise, so the fast check fails
	kind      uint8
	exactSh   int128 // segExact: the shift, exactly
}

const (
	segShift uint8 = iota
	segNoDate
	segExact
)

// gregorianStart is 1582-10-15, the standard calendar's first Gregorian
// day, in days since 1970-01-01.
const gregorianStart = -141427

func newCFCalendar(d *cf.Decoder, missing cf.MissingDate, cal cf.Calendar) cfCalendar {
	conv, perDay := d.Conversion()
	if conv == cf.ConvertNone {
		return cfCalendar{}
	}
	c := cfCalendar{on: true, cal: cal, conv: conv, perDay: perDay, nat: missing == cf.MissingNaT, gregDay: gregorianStart}
	c.cycle = map[cf.Calendar]int64{cf.Standard: 146100, cf.Julian: 146100, cf.NoLeap: 146000, cf.AllLeap: 146400, cf.Day360: 144000}[cal]
	if cal == cf.Standard {
		c.base = gregorianStart - c.cycle
	}
	// Days whose segments (at most a month, and a window of 400 years
	// around them) and shifts (at most 3% of the days from 1970, plus a
	// month) stay a quarter of the int64 range from its ends.
	c.safeDay = math.MaxInt64/4/perDay - 2*c.cycle
	if perDay > 1 {
		c.dayDiv = newDivisor(uint64(perDay))
	}
	c.cycleDiv = newDivisor(uint64(c.cycle))
	return c
}

// run converts the decoded counts of dst (byte order swap) in place;
// base is dst[0]'s index for errors. Under Options.Reference every
// element goes through the cf reference.
func (k *cfKernel) runCalendar(dst []uint64, base int, swap bool, acc *accumulator) error {
	c := &k.cal
	var seg calSegment
	for i := 0; i < len(dst); i++ {
		w := dst[i]
		if swap {
			w = bits.ReverseBytes64(w)
		}
		v := int64(w)
		if uint64(v)-uint64(seg.lo) < seg.width {
			o := uint64(v + seg.shift)
			if swap {
				o = bits.ReverseBytes64(o)
			}
			dst[i] = o
			continue
		}
		if v == math.MinInt64 || k.opts.Overflow == dtype.OverflowClamp && (v == maxValue || v == minValue) {
			continue // NaT, counted by the decoding loop, or a clamped count (cf.Decoder keeps it too)
		}
		var out int64
		var res cf.Result
		var negative bool
		simd := 0 // elements after this one the SIMD kernel converted
		if k.opts.Reference {
			out, res, negative = k.dec.ConvertCalendar(v)
		} else {
			seg = c.segment(v)
			switch seg.kind {
			case segShift:
				out, res = v+seg.shift, cf.Exact
				// A new run: the whole vectors that follow in it in SIMD,
				// where there is a kernel (host order only).
				if !swap && len(dst)-i > 8 {
					simd = calendarShiftSIMD(dst[i+1:], seg.lo, seg.width, seg.shift)
				}
			case segNoDate:
				res = cf.NoDate
			default:
				x := i128(v).add(seg.exactSh)
				out, res, negative = int64(x.lo), cf.Exact, x.neg()
				if !x.fitsValue() {
					res = cf.Overflow
				}
			}
		}
		switch res {
		case cf.NoDate:
			if !c.nat {
				return &dtype.ElementError{Reason: dtype.ReasonNoDate, Index: base + i, To: k.to, Source: k.source, Date: k.dec.DateText(v)}
			}
			out = math.MinInt64
			acc.nat++
			acc.noDate++
		case cf.Overflow:
			var ok bool
			if out, ok = k.overflowed(negative, acc); !ok {
				return &dtype.ElementError{Reason: dtype.ReasonOverflow, Index: base + i, To: k.to, Source: k.source, Text: k.dec.DateText(v)}
			}
		}
		o := uint64(out)
		if swap {
			o = bits.ReverseBytes64(o)
		}
		dst[i] = o
		i += simd
	}
	return nil
}

// segment returns the segment of count v (not NaT).
func (c *cfCalendar) segment(v int64) calSegment {
	day := v
	if c.perDay > 1 {
		day = c.dayDiv.floorQuo(v)
	}
	if c.cal == cf.Standard && day >= c.gregDay {
		lo := mulSat(c.gregDay, c.perDay)
		return calSegment{lo: lo, width: uint64(math.MaxInt64) - uint64(lo)}
	}
	// Whole 400-year cycles: the conversion repeats with them, 146097
	// Gregorian days later.
	q := c.cycleDiv.floorQuo(day - c.base)
	r := day - q*c.cycle
	first, hi, g, ok := c.daySegment(r)
	shiftDays := g - first // the segment's one shift, before clipping it to the window
	lo, hi := max(first, c.base), min(hi, c.base+c.cycle)
	if day > -c.safeDay && day < c.safeDay {
		// Every count of the segment and its result fit in int64 far
		// from the ends (safeDay): no 128-bit arithmetic.
		start := q * c.cycle
		if !ok {
			return calSegment{lo: (start + lo) * c.perDay, kind: segNoDate}
		}
		l := (start + lo) * c.perDay
		return calSegment{lo: l, shift: (q*(146097-c.cycle) + shiftDays) * c.perDay, width: uint64((hi - lo) * c.perDay)}
	}
	start, _ := i128(q).mulI64(c.cycle)
	loU, _ := start.add(i128(lo)).mulI64(c.perDay)
	hiU, _ := start.add(i128(hi)).mulI64(c.perDay)
	if !ok {
		l := loU.int64Sat()
		return calSegment{lo: l, kind: segNoDate}
	}
	cycles, _ := i128(q).mulI64(146097 - c.cycle)
	shift, _ := cycles.add(i128(shiftDays)).mulI64(c.perDay)
	// The counts inside int64 (NaT aside) and their results.
	l, h := loU, hiU.sub(i128(1))
	if l.cmp(i128(math.MinInt64+1)) < 0 {
		l = i128(math.MinInt64 + 1)
	}
	if h.cmp(i128(math.MaxInt64)) > 0 {
		h = i128(math.MaxInt64)
	}
	if l.add(shift).fitsValue() && h.add(shift).fitsValue() && shift.fitsValue() {
		return calSegment{lo: int64(l.lo), shift: int64(shift.lo), width: uint64(int64(h.lo)-int64(l.lo)) + 1}
	}
	// Near the ends of the range: each element's result is checked. A
	// one-element segment, not cached by the fast check.
	return calSegment{kind: segExact, exactSh: shift}
}

// daySegment returns the days [lo, hi) around day r (inside the
// reduction window) that convert by one shift, and the Gregorian day g of
// lo; ok is false when they have no Gregorian date.
func (c *cfCalendar) daySegment(r int64) (lo, hi, g int64, ok bool) {
	if c.conv == cf.ConvertYear { // 360_day by position in the year
		y := 1970 + floorDivI64(r, 360)
		doy := r - (y-1970)*360 + 1
		diy := int64(365)
		if isLeap(y) {
			diy = 366
		}
		// Day n of the year becomes day round(n × diy / 360), half to
		// even; the shift grows by one every 60 to 73 days, so the run
		// goes on to the next day whose shift differs (a forward scan:
		// sorted data meets each run at its start).
		day := func(n int64) int64 {
			q, rem := n*diy/360, n*diy%360
			if 2*rem > 360 || 2*rem == 360 && q%2 == 1 {
				q++
			}
			return q
		}
		nd := day(doy)
		end := doy + 1
		for end <= 360 && day(end)-end == nd-doy {
			end++
		}
		return r, r + end - doy, gregorianDay(y, 1) + nd - 1, true
	}
	y, m, first, length := c.month(r)
	glen := gregorianMonthLength(y, m)
	n := min(length, glen)
	if r-first >= n {
		return first + n, first + length, 0, false
	}
	return first, first + n, gregorianDay(y, m), true
}

// month returns the month of calendar c holding day r: its year and
// month, its first day and its length in days.
func (c *cfCalendar) month(r int64) (y, m, first, length int64) {
	switch c.cal {
	case cf.Day360:
		y = 1970 + floorDivI64(r, 360)
		doy := r - (y-1970)*360
		return y, doy/30 + 1, r - doy%30, 30
	case cf.NoLeap, cf.AllLeap:
		var doy int64
		starts := &monthStarts365
		if c.cal == cf.AllLeap { // constant divisors: no division instruction
			starts = &monthStarts366
			y = 1970 + floorDivI64(r, 366)
			doy = r - (y-1970)*366
		} else {
			y = 1970 + floorDivI64(r, 365)
			doy = r - (y-1970)*365
		}
		i := doy / 31 // at most the month's index: no month is longer
		for doy >= starts[i+1] {
			i++
		}
		return y, i + 1, r - doy + starts[i], starts[i+1] - starts[i]
	}
	// Julian (and the standard calendar before 1582-10-15).
	z := r + 719470 // days since Julian 0000-03-01
	era := floorDivI64(z, 1461)
	doe := z - era*1461
	yoe := (doe - doe/1460) / 365
	doy := doe - 365*yoe
	mi := (5*doy + 2) / 153
	d := doy - (153*mi+2)/5
	m = mi + 3
	length = (153*(mi+1)+2)/5 - (153*mi+2)/5
	y = era*4 + yoe
	if m > 12 {
		m -= 12
		y++
	}
	if m == 2 {
		length = 28
		if y%4 == 0 {
			length = 29
		}
	}
	return y, m, r - d, length
}

var (
	monthStarts365 = [13]int64{0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365}
	monthStarts366 = [13]int64{0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366}
)

func isLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// gregorianDay is the day number of the first day of month m of year y,
// proleptic Gregorian: calendar.go's closed form (daysFromCivil128) in
// int64, for the years of the reduction window.
func gregorianDay(y, m int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDivI64(y, 400)
	yoe := y - era*400
	doy := (153*((m+9)%12) + 2) / 5
	return era*146097 + yoe*365 + yoe/4 - yoe/100 + doy - 719468
}

func gregorianMonthLength(y, m int64) int64 {
	if m == 2 {
		if isLeap(y) {
			return 29
		}
		return 28
	}
	return (153*((m+9)%12+1)+2)/5 - (153*((m+9)%12)+2)/5
}

func floorDivI64(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// mulSat is a×b saturated to [MinInt64+1, MaxInt64].
func mulSat(a, b int64) int64 {
	x, _ := i128(a).mulI64(b)
	s := x.int64Sat()
	if s == math.MinInt64 {
		s++
	}
	return s
}
