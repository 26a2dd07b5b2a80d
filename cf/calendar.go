package cf

import (
	"fmt"
	"strings"
)

// Calendar is a CF calendar with real elapsed time.
type Calendar uint8

const (
	// Standard is the mixed Julian–Gregorian calendar ("standard",
	// "gregorian"): dates before 1582-10-15 are Julian, and
	// 1582-10-05..14 do not exist.
	Standard Calendar = iota
	// ProlepticGregorian is the Gregorian calendar extended backwards,
	// NumPy's calendar (year 0 exists and is a leap year).
	ProlepticGregorian
	// Julian is the Julian calendar throughout.
	Julian
	// NoLeap ("noleap", "365_day"), AllLeap ("all_leap", "366_day") and
	// Day360 ("360_day") are model calendars: every year has 365, 366 or
	// 360 days (twelve months of 30). Their dates have no instants in
	// datetime64's calendar; converting them is a CalendarConversion.
	// Year 0 exists in them, as in cftime.
	NoLeap
	AllLeap
	Day360
)

func (c Calendar) String() string {
	return [...]string{"standard", "proleptic_gregorian", "julian", "noleap", "all_leap", "360_day"}[c]
}

// IsModel reports whether c is a model calendar (noleap, all_leap,
// 360_day): its counts are not elapsed time in any real calendar.
func (c Calendar) IsModel() bool { return c >= NoLeap }

// ParseCalendar parses a CF calendar attribute (case-insensitive, with
// surrounding spaces); "" (no attribute) is Standard.
func ParseCalendar(text string) (Calendar, error) {
	switch strings.ToLower(text) {
	case "", "standard", "gregorian":
		return Standard, nil
	case "proleptic_gregorian":
		return ProlepticGregorian, nil
	case "julian":
		return Julian, nil
	case "noleap", "365_day":
		return NoLeap, nil
	case "all_leap", "366_day":
		return AllLeap, nil
	case "360_day":
		return Day360, nil
	case "none":
		return 0, &AttributeError{Attribute: "calendar", Text: text,
			Reason: "CF's calendar none has no dates at all, so no conversion to datetime64 exists; dt64 refuses it"}
	}
	if t := strings.TrimSpace(text); t != text {
		if _, err := ParseCalendar(t); err == nil && t != "" {
			return 0, &AttributeError{Attribute: "calendar", Text: text, Reason: "spaces around the calendar's name, which xarray refuses"}
		}
	}
	return 0, &AttributeError{Attribute: "calendar", Text: text,
		Reason: "unknown calendar; want standard, gregorian, proleptic_gregorian, julian, noleap, 365_day, all_leap, 366_day or 360_day (none is refused)"}
}

// gregorianStart is 1582-10-15, the first Gregorian day of the standard
// calendar, in days since 1970-01-01.
var gregorianStart = gregorianDays(1582, 10, 15)

// daysFromCivil returns the date's day number (days since 1970-01-01 in
// the proleptic Gregorian calendar), checking that the date exists in c.
func (c Calendar) daysFromCivil(y, m, d int64) (int64, error) {
	if m < 1 || m > 12 {
		return 0, fmt.Errorf("month %d is out of range (1-12)", m)
	}
	if c.IsModel() {
		return c.modelDays(y, m, d)
	}
	if c != ProlepticGregorian {
		// As in cftime and CF: the standard and Julian calendars have no
		// year 0; year -1 is 1 BC, astronomical year 0.
		if y == 0 {
			return 0, fmt.Errorf("year 0 does not exist in the %s calendar (1 BC is year -1)", c)
		}
		if y < 0 {
			y++
		}
	}
	julian := c == Julian || c == Standard && (y < 1582 || y == 1582 && (m < 10 || m == 10 && d < 15))
	leap := y%4 == 0
	if !julian {
		leap = leap && (y%100 != 0 || y%400 == 0)
	}
	n := [...]int64{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && leap {
		n = 29
	}
	if d < 1 || d > n {
		return 0, fmt.Errorf("day %d is out of range for %04d-%02d in the %s calendar (1-%d)", d, y, m, c, n)
	}
	if c == Standard && y == 1582 && m == 10 && d > 4 && d < 15 {
		return 0, fmt.Errorf("1582-10-%02d does not exist in the standard calendar (the Julian 1582-10-04 is followed by the Gregorian 1582-10-15)", d)
	}
	if julian {
		return julianDays(y, m, d), nil
	}
	return gregorianDays(y, m, d), nil
}

// floorDiv is integer division rounding towards minus infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// gregorianDays is days since 1970-01-01 of a proleptic Gregorian date
// (closed form on years starting in March, after Hinnant).
func gregorianDays(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 400)
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// julianDays is days since 1970-01-01 (proleptic Gregorian) of a Julian
// calendar date: the same closed form on 4-year cycles of 1461 days.
func julianDays(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := floorDiv(y, 4)
	yoe := y - era*4
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + doy
	// Julian 0000-03-01 is proleptic Gregorian -0001-03-03: 719470 days
	// before the epoch.
	return era*1461 + doe - 719470
}

// civilFromDays is the inverse of gregorianDays.
func civilFromDays(z int64) (y, m, d int64) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}
