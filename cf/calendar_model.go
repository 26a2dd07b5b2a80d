package cf

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/zarr-dt64/dt64/dtype"
)

// Model calendars and calendar conversion. A model calendar's counts are
// elapsed model time: its day numbers (days since the model's own
// 1970-01-01) are what the affine map of NewDecoding produces once the
// reference date is read in the model calendar. Converting such a count
// to datetime64 is a choice of date, as xarray's convert_calendar makes
// it; this file holds the scalar reference of that choice, and the
// kernels' fast loops are tested against it.

// CalendarConversion says how dates of a calendar other than NumPy's
// (proleptic Gregorian) become datetime64 values.
type CalendarConversion uint8

const (
	// ConvertNone decodes real calendars (standard, julian,
	// proleptic_gregorian) to their true instants and refuses model
	// calendars (ErrModelCalendar).
	ConvertNone CalendarConversion = iota
	// ConvertDate keeps each date's year, month, day and time of day,
	// for every calendar: xarray's convert_calendar(align_on=None), or
	// align_on="date" for 360_day. A julian or standard date keeps its
	// label too (1900-02-29 julian has none). Dates the proleptic
	// Gregorian calendar lacks follow a MissingDate policy.
	ConvertDate
	// ConvertYear, for 360_day, keeps each date's position in its year:
	// day of year n (1..360) becomes day round(n × D / 360) of the same
	// Gregorian year of D days (half to even, as NumPy rounds), with the
	// time of day kept: xarray's align_on="year". Every date has one. For
	// other calendars it is ConvertDate, as xarray ignores align_on there.
	ConvertYear
)

func (c CalendarConversion) String() string {
	return [...]string{"none", "date", "year"}[c]
}

// ParseCalendarConversion parses "none" (or ""), "date" or "year".
func ParseCalendarConversion(s string) (CalendarConversion, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "none":
		return ConvertNone, nil
	case "date":
		return ConvertDate, nil
	case "year":
		return ConvertYear, nil
	}
	return 0, fmt.Errorf("calendar conversion %q: want none, date or year", s)
}

// CalendarOptions are the choices for dates of a calendar other than
// NumPy's: how they convert, and what becomes of one the proleptic
// Gregorian calendar lacks. Every layer takes this one value: the CF
// decoder, the kernels, the engine, the Arrow bridge and the commands.
type CalendarOptions struct {
	Convert CalendarConversion
	Missing MissingDate
	// ModelTime decodes a model calendar's numbers to counts of its own
	// time (since its own 1970-01-01) without converting them: not
	// datetime64 values, but what Calendar.FormatCount writes as the
	// model's dates (inspect's range in the source calendar, validate's
	// check that every number decodes). It overrides Convert.
	ModelTime bool
}

// String says what the options do to calendar c, for plans and
// summaries: "" when nothing (proleptic_gregorian, or no conversion).
func (o CalendarOptions) String(c Calendar) string {
	switch o.Convert.Effective(c) {
	case ConvertNone:
		return ""
	case ConvertYear:
		return fmt.Sprintf("%s dates converted by their position in the year (xarray's convert_calendar align_on=\"year\")", c)
	}
	return fmt.Sprintf("%s dates converted by date (xarray's convert_calendar), dates the proleptic Gregorian calendar lacks: %s", c, o.Missing)
}

// MissingDate is what converting does with a date the proleptic Gregorian
// calendar does not have (Feb 29 of a common year from all_leap or
// julian, Feb 29 and 30 from 360_day): xarray's convert_calendar drops
// the element, which an array of fixed shape cannot.
type MissingDate uint8

const (
	// MissingError stops at the first such element with a
	// *dtype.ElementError of dtype.ReasonNoDate naming its date.
	MissingError MissingDate = iota
	// MissingNaT stores NaT and counts the element.
	MissingNaT
)

func (m MissingDate) String() string {
	if m == MissingNaT {
		return "nat"
	}
	return "error"
}

// ParseMissingDate parses "error" or "nat".
func ParseMissingDate(s string) (MissingDate, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "error":
		return MissingError, nil
	case "nat":
		return MissingNaT, nil
	}
	return 0, fmt.Errorf("missing-date policy %q: want error or nat", s)
}

// ErrModelCalendar is wrapped by the error decoding a model calendar
// without a CalendarConversion.
var ErrModelCalendar = errors.New("a model calendar: its dates have no instants in datetime64's proleptic Gregorian calendar, and converting them is a choice (by date, or for 360_day by position in the year)")

// Effective returns the conversion that applies to calendar c: none for
// proleptic_gregorian (NumPy's own) and when none was asked for, date
// for year on any calendar but 360_day.
func (conv CalendarConversion) Effective(c Calendar) CalendarConversion {
	switch {
	case c == ProlepticGregorian || conv == ConvertNone:
		return ConvertNone
	case conv == ConvertYear && c != Day360:
		return ConvertDate
	}
	return conv
}

var (
	monthStartNoLeap  = [13]int64{0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365}
	monthStartAllLeap = [13]int64{0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366}
)

// yearLength is the number of days of every year of a model calendar.
func (c Calendar) yearLength() int64 {
	return map[Calendar]int64{NoLeap: 365, AllLeap: 366, Day360: 360}[c]
}

// modelDays is the model day number (days since the model's 1970-01-01)
// of a date of a model calendar, checking that the date exists in it.
func (c Calendar) modelDays(y, m, d int64) (int64, error) {
	var first, n int64
	switch c {
	case Day360:
		first, n = (m-1)*30, 30
	case NoLeap:
		first, n = monthStartNoLeap[m-1], monthStartNoLeap[m]-monthStartNoLeap[m-1]
	default:
		first, n = monthStartAllLeap[m-1], monthStartAllLeap[m]-monthStartAllLeap[m-1]
	}
	if d < 1 || d > n {
		return 0, fmt.Errorf("day %d is out of range for %04d-%02d in the %s calendar (1-%d)", d, y, m, c, n)
	}
	return (y-1970)*c.yearLength() + first + d - 1, nil
}

// Civil returns the date of day number day in c: a model calendar's own
// day numbers (days since its 1970-01-01), or for the real calendars the
// proleptic Gregorian day numbers of true instants (days since
// 1970-01-01), read as a date of c. Years are astronomical (1 BC is year
// 0, as the standard and julian calendars' reference dates are read).
func (c Calendar) Civil(day int64) (y, m, d int64) {
	switch c {
	case ProlepticGregorian:
		return civilFromDays(day)
	case Standard:
		if day >= gregorianStart {
			return civilFromDays(day)
		}
		return julianCivil(day)
	case Julian:
		return julianCivil(day)
	}
	n := c.yearLength()
	y = 1970 + floorDiv(day, n)
	doy := day - (y-1970)*n
	if c == Day360 {
		return y, doy/30 + 1, doy%30 + 1
	}
	starts := monthStartNoLeap
	if c == AllLeap {
		starts = monthStartAllLeap
	}
	m = 1
	for doy >= starts[m] {
		m++
	}
	return y, m, doy - starts[m-1] + 1
}

// julianCivil is the inverse of julianDays.
func julianCivil(z int64) (y, m, d int64) {
	z += 719470 // days since Julian 0000-03-01
	era := floorDiv(z, 1461)
	doe := z - era*1461
	yoe := (doe - doe/1460) / 365
	doy := doe - 365*yoe
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	y = era*4 + yoe
	if m <= 2 {
		y++
	}
	return y, m, d
}

func isGregorianLeap(y int64) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// gregorianMonthDays is the length of month m of year y, proleptic
// Gregorian.
func gregorianMonthDays(y, m int64) int64 {
	if m == 2 && isGregorianLeap(y) {
		return 29
	}
	return monthStartNoLeap[m] - monthStartNoLeap[m-1]
}

// cycleDays is the length of 400 years of c: every conversion repeats
// with that period, shifted by 400 Gregorian years (146097 days).
func (c Calendar) cycleDays() int64 {
	return map[Calendar]int64{Standard: 146100, ProlepticGregorian: 146097, Julian: 146100, NoLeap: 146000, AllLeap: 146400, Day360: 144000}[c]
}

// convertDay maps day number day of calendar c (see Civil) to the
// proleptic Gregorian day number conv gives it (conv as Effective
// returns it, not ConvertNone); ok is false when the Gregorian calendar
// has no such date. day must be within a few hundred thousand years of
// 1970 (ConvertCalendar reduces it by 400-year cycles).
func (c Calendar) convertDay(day int64, conv CalendarConversion) (gday int64, ok bool) {
	y, m, d := c.Civil(day)
	if conv == ConvertYear {
		// xarray: round(days_in_year(y) × dayofyear / 360), NumPy's
		// half to even; then that day of the same year.
		diy := int64(365)
		if isGregorianLeap(y) {
			diy = 366
		}
		num := diy * ((m-1)*30 + d)
		q, r := num/360, num%360
		if 2*r > 360 || 2*r == 360 && q%2 == 1 {
			q++
		}
		return gregorianDays(y, 1, 1) + q - 1, true
	}
	if d > gregorianMonthDays(y, m) {
		return 0, false
	}
	return gregorianDays(y, m, d), true
}

// FormatDate writes seconds since the epoch of calendar c (a model
// calendar's own seconds, see Civil) as a date and time of c, as
// FormatInstant does for the proleptic Gregorian calendar.
func (c Calendar) FormatDate(secs *big.Rat) string {
	s := new(big.Int).Div(secs.Num(), secs.Denom())
	days := new(big.Int).Div(s, big.NewInt(86400))
	if !days.IsInt64() {
		return FormatInstant(secs) + " (out of range)"
	}
	out := FormatInstant(secs)
	y, m, d := c.Civil(days.Int64())
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d) + out[strings.LastIndexByte(out, 'T'):]
}

// planCalendar checks the calendar against the conversion and derives
// the conversion's constants.
func (d *Decoder) planCalendar() error {
	c := d.t.Calendar
	if c.IsModel() && d.conv == ConvertNone && !d.modelTime {
		return &AttributeError{Attribute: "calendar", Text: c.String(), Reason: ErrModelCalendar.Error(), Err: ErrModelCalendar}
	}
	if d.conv == ConvertNone {
		return nil
	}
	ds, err := unitSeconds(d.to)
	if err != nil {
		return err
	}
	per := new(big.Rat).Quo(big.NewRat(86400, 1), ds)
	if !per.IsInt() || !per.Num().IsInt64() {
		return fmt.Errorf("converting %s dates needs a destination unit that divides a day and is at least 1 ps (D, h, m, s, ms, us, ns or ps, with a scale dividing a day), not %s", c, d.to)
	}
	d.perDay, d.toSeconds = per.Num().Int64(), ds
	return nil
}

// Conversion returns the calendar conversion the decoder applies (none
// for proleptic_gregorian, and when none was asked for) and the
// destination units in a day (0 when none).
func (d *Decoder) Conversion() (CalendarConversion, int64) { return d.conv, d.perDay }

// ConvertCalendar converts v, a count of destination units decoded in
// the source calendar (DecodeInt, DecodeUint or DecodeFloat), to the
// datetime64 count of the date the decoder's conversion gives it: Exact,
// Overflow (negative says which side) or NoDate. Without a conversion it
// returns v.
func (d *Decoder) ConvertCalendar(v int64) (int64, Result, bool) {
	c := d.t.Calendar
	if d.conv == ConvertNone {
		return v, Exact, v < 0
	}
	day := floorDiv(v, d.perDay)
	tod := v - day*d.perDay
	if c == Standard && day >= gregorianStart {
		return v, Exact, v < 0 // Gregorian dates keep their label
	}
	// Reduce day by whole 400-year cycles into [base, base+P): every
	// date arithmetic below then stays small.
	p := c.cycleDays()
	base := int64(0)
	if c == Standard {
		base = gregorianStart - p
	}
	q := floorDiv(day-base, p)
	g, ok := c.convertDay(day-q*p, d.conv)
	if !ok {
		return 0, NoDate, false
	}
	if q <= 1<<40 && q >= -(1<<40) {
		g += q * 146097
		if g > math.MinInt64/d.perDay && g < math.MaxInt64/d.perDay {
			out := g*d.perDay + tod // inside int64, NaT's neighbour at worst
			if out != math.MinInt64 {
				return out, Exact, out < 0
			}
		}
		q = 0 // g holds the whole day: finish exactly
	}
	out := new(big.Int).Mul(big.NewInt(q), big.NewInt(146097))
	out.Add(out, big.NewInt(g)).Mul(out, big.NewInt(d.perDay)).Add(out, big.NewInt(tod))
	if out.Cmp(minValue) < 0 || out.Cmp(maxValue) > 0 {
		return 0, Overflow, out.Sign() < 0
	}
	return out.Int64(), Exact, out.Sign() < 0
}

// clampBound reports whether a decoded count is a bound OverflowClamp
// stores: the conversion keeps it as it is, since the kernels, which
// convert after decoding, cannot tell a clamped count from a decoded one
// (only a count decoded to exactly a bound differs, by not converting).
func (d *Decoder) clampBound(q int64) bool {
	return d.overflow == dtype.OverflowClamp && (q == math.MaxInt64 || q == math.MinInt64+1)
}

// FormatCount writes v, a count of datetime64 type to decoded in
// calendar c without conversion (a model calendar's own time, or a real
// calendar's true instant), as a date and time of c: "2001-02-30T06:00:00".
func (c Calendar) FormatCount(v int64, to dtype.DataType) string {
	secs := new(big.Rat).SetInt64(v)
	if ds, err := unitSeconds(to); err == nil {
		secs.Mul(secs, ds)
	}
	return c.FormatDate(secs)
}

// DateText writes v, a count of destination units decoded in the source
// calendar, as a date and time of that calendar with its name, for
// errors: "2001-02-30T00:00:00 (360_day)".
func (d *Decoder) DateText(v int64) string {
	secs := new(big.Rat).SetInt64(v)
	if d.toSeconds != nil {
		secs.Mul(secs, d.toSeconds)
	}
	return d.t.Calendar.FormatDate(secs) + " (" + d.t.Calendar.String() + ")"
}
