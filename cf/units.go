package cf

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/zarr-dt64/dt64/dtype"
)

// AttributeError is a CF attribute whose text dt64 cannot use.
type AttributeError struct {
	Attribute string // "units" or "calendar"
	Text      string
	Reason    string
	Err       error // the cause, when it is an error value (a *ZoneError)
}

func (e *AttributeError) Error() string {
	return fmt.Sprintf("CF time attribute %s %q: %s", e.Attribute, e.Text, e.Reason)
}

func (e *AttributeError) Unwrap() error { return e.Err }

// Units is a parsed CF time units attribute, "<unit> since <reference>".
type Units struct {
	// Unit is the length of one count: Week, Day, Hour, Minute, Second,
	// Millisecond, Microsecond or Nanosecond.
	Unit dtype.Unit
	// Reference is the reference instant in seconds since
	// 1970-01-01T00:00:00 UTC, proleptic Gregorian, exactly (a fraction
	// of a second may have any number of digits).
	Reference *big.Rat
	// Calendar is the calendar the reference date was read in.
	Calendar Calendar
	// Text is the attribute as given.
	Text string
	// Duration marks a CF duration (units without "since", ParseDuration):
	// lengths of time, decoded to timedelta64; Reference is then zero.
	Duration bool
}

// unitWords maps every accepted spelling (lower case) to its unit: CF's
// and UDUNITS' names, singular and plural, and cftime's abbreviations.
var unitWords = map[string]dtype.Unit{}

func init() {
	for u, words := range map[dtype.Unit][]string{
		dtype.Week:        {"week", "weeks"},
		dtype.Day:         {"day", "days", "d"},
		dtype.Hour:        {"hour", "hours", "hr", "hrs", "h"},
		dtype.Minute:      {"minute", "minutes", "min", "mins"},
		dtype.Second:      {"second", "seconds", "sec", "secs", "s"},
		dtype.Millisecond: {"millisecond", "milliseconds", "millisec", "millisecs", "msec", "msecs", "ms"},
		dtype.Microsecond: {"microsecond", "microseconds", "microsec", "microsecs", "usec", "usecs", "us"},
		dtype.Nanosecond:  {"nanosecond", "nanoseconds", "nanosec", "nanosecs", "nsec", "nsecs", "ns"},
	} {
		for _, w := range words {
			unitWords[w] = u
		}
	}
}

// calendarUnits are units whose length varies (or that UDUNITS defines
// as averages no calendar has): never elapsed time.
var calendarUnits = map[string]bool{
	"month": true, "months": true, "year": true, "years": true, "yr": true, "yrs": true,
	"common_year": true, "common_years": true, "a": true,
}

// ParseUnits parses a CF time units attribute, reading the reference date
// in calendar.
func ParseUnits(text string, calendar Calendar) (Units, error) {
	bad := func(format string, args ...any) (Units, error) {
		return Units{}, &AttributeError{Attribute: "units", Text: text, Reason: fmt.Sprintf(format, args...)}
	}
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return bad("empty; want \"<unit> since <date>\"")
	}
	word := strings.ToLower(fields[0])
	u, ok := unitWords[word]
	switch {
	case calendarUnits[word]:
		return bad("%q is not a fixed length of time (UDUNITS' months and years are averages no calendar has); want weeks, days, hours, minutes, seconds, milliseconds, microseconds or nanoseconds", fields[0])
	case !ok:
		return bad("unknown time unit %q; want weeks, days, hours, minutes, seconds, milliseconds, microseconds or nanoseconds", fields[0])
	case len(fields) == 1:
		return bad("no reference date: a CF time is \"%s since <date>\"", fields[0])
	case !strings.EqualFold(fields[1], "since"):
		return bad("%q where \"since\" belongs: a CF time is \"%s since <date>\"", fields[1], fields[0])
	case len(fields) == 2:
		return bad("no reference date after \"since\"")
	}
	// The reference is the rest, from the third field on.
	rest := strings.TrimSpace(text)
	rest = strings.TrimSpace(rest[len(fields[0]):])
	rest = strings.TrimSpace(rest[len(fields[1]):])
	ref, err := parseReference(rest, calendar)
	if err != nil {
		return Units{}, &AttributeError{Attribute: "units", Text: text, Reason: fmt.Sprintf("reference date %q: %v", rest, err), Err: err}
	}
	return Units{Unit: u, Reference: ref, Calendar: calendar, Text: text}, nil
}

// reader walks a reference date string.
type reader struct {
	s string
	i int
}

func (r *reader) done() bool { return r.i >= len(r.s) }

func (r *reader) peek() byte {
	if r.done() {
		return 0
	}
	return r.s[r.i]
}

// digits reads 1..max decimal digits (max 0: any number).
func (r *reader) digits(max int) (string, bool) {
	j := r.i
	for j < len(r.s) && r.s[j] >= '0' && r.s[j] <= '9' && (max == 0 || j-r.i < max) {
		j++
	}
	if j == r.i {
		return "", false
	}
	d := r.s[r.i:j]
	r.i = j
	return d, true
}

func (r *reader) number(max int, what string) (int64, error) {
	d, ok := r.digits(max)
	if !ok {
		return 0, fmt.Errorf("expected the %s at %q", what, r.s[r.i:])
	}
	v, _ := strconv.ParseInt(d, 10, 64)
	return v, nil
}

// maxYear bounds the reference year: far beyond any datetime64 (which
// spans ±2.9e11 years in seconds) yet small enough for exact int64 day
// arithmetic.
const maxYear = 1_000_000_000_000

// parseReference parses "Y-M-D[( |T)h:m[:s[.f]]][ ][zone]" and returns the
// instant in seconds since the epoch.
func parseReference(s string, cal Calendar) (*big.Rat, error) {
	r := &reader{s: s}
	neg := false
	switch r.peek() {
	case '-':
		neg = true
		r.i++
	case '+':
		r.i++
	}
	year, err := r.number(0, "year")
	if err != nil {
		return nil, err
	}
	if year > maxYear {
		return nil, fmt.Errorf("year %d is out of range (at most %d)", year, int64(maxYear))
	}
	if neg {
		year = -year
	}
	if r.peek() != '-' {
		if r.done() {
			// xarray (pandas) reads a bare year as its January 1st, cftime
			// refuses it: say which is meant rather than pick one.
			return nil, fmt.Errorf("a year without month and day (xarray reads %[1]s as %[1]s-01-01, cftime refuses it); write the whole date", s)
		}
		return nil, fmt.Errorf("expected \"-\" and the month after the year, at %q", s[r.i:])
	}
	r.i++
	month, err := r.number(2, "month")
	if err != nil {
		return nil, err
	}
	if r.peek() != '-' {
		if r.done() {
			return nil, fmt.Errorf("a month without its day (xarray reads %[1]s as %[1]s-01, cftime refuses it); write the whole date", s)
		}
		return nil, fmt.Errorf("expected \"-\" and the day after the month, at %q", s[r.i:])
	}
	r.i++
	day, err := r.number(2, "day")
	if err != nil {
		return nil, err
	}
	days, err := cal.daysFromCivil(year, month, day)
	if err != nil {
		return nil, err
	}
	secs := new(big.Rat).SetInt64(0)
	// Optional time of day after a space or "T".
	if c := r.peek(); c == ' ' || c == 'T' || c == 't' {
		save := r.i
		for r.peek() == ' ' {
			r.i++
		}
		if c == 'T' || c == 't' {
			r.i++
		}
		if d := r.peek(); d >= '0' && d <= '9' {
			t, err := r.timeOfDay()
			if err != nil {
				return nil, err
			}
			secs = t
		} else {
			r.i = save // a zone after the date
		}
	}
	// Optional zone, after optional spaces.
	for r.peek() == ' ' {
		r.i++
	}
	offset, err := r.zone()
	if err != nil {
		return nil, err
	}
	for r.peek() == ' ' {
		r.i++
	}
	if !r.done() {
		return nil, fmt.Errorf("unexpected %q after the date", s[r.i:])
	}
	total := new(big.Rat).SetInt(new(big.Int).Mul(big.NewInt(days), big.NewInt(86400)))
	total.Add(total, secs)
	return total.Sub(total, new(big.Rat).SetInt64(offset)), nil
}

// timeOfDay reads "h:m[:s[.fraction]]" (hours and minutes of one or two
// digits, as cftime accepts) and returns seconds since midnight.
func (r *reader) timeOfDay() (*big.Rat, error) {
	h, err := r.number(2, "hour")
	if err != nil {
		return nil, err
	}
	if r.peek() != ':' {
		// "2000-01-01 10": pandas (xarray) reads 10:00, cftime midnight.
		return nil, fmt.Errorf("expected \":\" and the minutes after the hour, at %q (an hour alone is read as that hour by xarray and as midnight by cftime: write hh:mm)", r.s[r.i:])
	}
	r.i++
	m, err := r.number(2, "minutes")
	if err != nil {
		return nil, err
	}
	var sec int64
	frac := ""
	if r.peek() == ':' {
		r.i++
		if sec, err = r.number(2, "seconds"); err != nil {
			return nil, err
		}
		if r.peek() == '.' {
			r.i++
			d, ok := r.digits(0)
			if !ok {
				return nil, fmt.Errorf("expected digits after the decimal point, at %q", r.s[r.i:])
			}
			frac = d
		}
	}
	switch {
	case h > 23:
		return nil, fmt.Errorf("hour %d is out of range (0-23)", h)
	case m > 59:
		return nil, fmt.Errorf("minute %d is out of range (0-59)", m)
	case sec > 59:
		return nil, fmt.Errorf("second %d is out of range (0-59; leap seconds are not elapsed time in CF)", sec)
	}
	t := new(big.Rat).SetInt64(h*3600 + m*60 + sec)
	if frac != "" {
		num, _ := new(big.Int).SetString(frac, 10)
		den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(len(frac))), nil)
		t.Add(t, new(big.Rat).SetFrac(num, den))
	}
	return t, nil
}

// zone reads an optional time zone: "Z", "UTC", "GMT", "+hh:mm", "-hhmm"
// or "+hh"; it returns the offset east of UTC in seconds. Spellings the
// reference readers read differently are refused (*ZoneError).
func (r *reader) zone() (int64, error) {
	start := r.i
	rest := r.s[r.i:]
	named := false
	switch {
	case rest == "":
		return 0, nil
	case rest[0] == 'Z' || rest[0] == 'z':
		r.i++
		return 0, nil
	case len(rest) >= 3 && (strings.EqualFold(rest[:3], "UTC") || strings.EqualFold(rest[:3], "GMT")):
		named = true
		r.i += 3
		if c := r.peek(); c != '+' && c != '-' {
			return 0, nil // "UTC" alone
		}
		rest = r.s[r.i:]
	}
	if rest[0] != '+' && rest[0] != '-' {
		return 0, nil // not a zone: parseReference reports what follows
	}
	sign := int64(1)
	if rest[0] == '-' {
		sign = -1
	}
	r.i++
	hd, ok := r.digits(4)
	if !ok {
		return 0, fmt.Errorf("expected the zone's hours after %q", rest[:1])
	}
	var h, m int64
	switch len(hd) {
	case 1, 2:
		h, _ = strconv.ParseInt(hd, 10, 64)
		if r.peek() == ':' {
			r.i++
			if m, ok = parseInt(r.digits(2)); !ok {
				return 0, fmt.Errorf("expected the zone's minutes after \":\", at %q", r.s[r.i:])
			}
		}
	case 4:
		h, _ = strconv.ParseInt(hd[:2], 10, 64)
		m, _ = strconv.ParseInt(hd[2:], 10, 64)
	default:
		return 0, fmt.Errorf("zone offset %q: want hh:mm, hhmm, hh or h", rest)
	}
	text := r.s[start:r.i]
	if h > 23 || m > 59 {
		return 0, fmt.Errorf("zone offset %q is out of range", text)
	}
	offset := sign * (h*3600 + m*60)
	if offset != 0 && (named || len(hd) == 1) {
		return 0, &ZoneError{Text: text, Offset: offset, Named: named}
	}
	return offset, nil
}

// ZoneError is a zone offset the reference readers read differently, so
// dt64 reads it no way and never writes it. xarray 2023.01 (pandas,
// through dateutil) reads "UTC+1" and "GMT+1" the POSIX way, one hour
// west of UTC (and ignores the offset in "utc+1"), while cftime ignores
// the offset; a one-digit hour ("+1")
// xarray reads as one hour east and cftime ignores. "+hh:mm", "+hhmm",
// "+hh" and "Z" read alike everywhere.
type ZoneError struct {
	Text   string // the zone as written, e.g. "UTC+1"
	Offset int64  // what ISO 8601 would make of it: seconds east of UTC
	Named  bool   // "UTC" or "GMT" with an offset (else a one-digit hour)
}

func (e *ZoneError) Error() string {
	east, west := isoOffset(e.Offset), isoOffset(-e.Offset)
	if e.Named {
		return fmt.Sprintf("zone %q is ambiguous: xarray (pandas/dateutil) reads it the POSIX way, as %s (in upper case; in other cases it ignores the offset), "+
			"cftime ignores the offset, and ISO 8601 would read %s; write %s or %s instead", e.Text, west, east, east, west)
	}
	return fmt.Sprintf("zone %q is ambiguous: xarray reads it as %s, cftime ignores a one-digit hour; write %s instead", e.Text, east, east)
}

// isoOffset writes seconds east of UTC as "+hh:mm".
func isoOffset(s int64) string {
	sign := "+"
	if s < 0 {
		sign, s = "-", -s
	}
	return fmt.Sprintf("%s%02d:%02d", sign, s/3600, s/60%60)
}

func parseInt(d string, ok bool) (int64, bool) {
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(d, 10, 64)
	return v, err == nil
}

// String describes the units with the reference as an ISO 8601 instant in
// the proleptic Gregorian calendar, e.g. "hours since 1900-01-01T00:00:00",
// or for a model calendar as its own date, "days since
// 2000-01-01T00:00:00 (noleap)".
func (u Units) String() string {
	if u.Duration {
		return unitName[u.Unit]
	}
	if u.Calendar.IsModel() {
		return fmt.Sprintf("%s since %s (%s)", unitName[u.Unit], u.Calendar.FormatDate(u.Reference), u.Calendar)
	}
	return fmt.Sprintf("%s since %s", unitName[u.Unit], FormatInstant(u.Reference))
}

var unitName = map[dtype.Unit]string{
	dtype.Week: "weeks", dtype.Day: "days", dtype.Hour: "hours", dtype.Minute: "minutes", dtype.Second: "seconds",
	dtype.Millisecond: "milliseconds", dtype.Microsecond: "microseconds", dtype.Nanosecond: "nanoseconds",
}

// FormatInstant writes seconds since the epoch as an ISO 8601 date and
// time in the proleptic Gregorian calendar, with as many fraction digits
// as the instant needs (and an ellipsis past nanoseconds when it has
// more).
func FormatInstant(secs *big.Rat) string {
	num, den := secs.Num(), secs.Denom()
	s := new(big.Int).Div(num, den) // floor division (Euclidean with den > 0)
	rem := new(big.Rat).Sub(secs, new(big.Rat).SetInt(s))
	days, sod := new(big.Int).DivMod(s, big.NewInt(86400), new(big.Int))
	y, m, d := civilFromDays(days.Int64())
	t := sod.Int64()
	out := fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02d", y, m, d, t/3600, t/60%60, t%60)
	if rem.Sign() != 0 {
		ns := new(big.Rat).Mul(rem, new(big.Rat).SetInt64(1_000_000_000))
		f := strings.TrimRight(fmt.Sprintf("%09d", new(big.Int).Quo(ns.Num(), ns.Denom()).Int64()), "0")
		if !ns.IsInt() {
			f = fmt.Sprintf("%09d", new(big.Int).Quo(ns.Num(), ns.Denom()).Int64()) + "..."
		}
		out += "." + f
	}
	return out
}
