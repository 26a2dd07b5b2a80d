package cf

import (
	"bufio"
	"encoding/json"
	"errors"
	"math/big"
	"os"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
)

// readJSONL decodes every line of a file in testdata/cf (written by
// tools/cf/gen.py from cftime).
func readJSONL[T any](t *testing.T, name string) []T {
	t.Helper()
	f, err := os.Open("../testdata/cf/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no vectors", name)
	}
	return out
}

func mustCalendar(t *testing.T, s string) Calendar {
	t.Helper()
	c, err := ParseCalendar(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Day numbers of dates in all three calendars equal cftime's.
func TestDatesMatchCftime(t *testing.T) {
	type vec struct {
		Calendar string
		Y, M, D  int64
		Days     int64
	}
	vs := readJSONL[vec](t, "dates.jsonl")
	for _, v := range vs {
		got, err := mustCalendar(t, v.Calendar).daysFromCivil(v.Y, v.M, v.D)
		if err != nil || got != v.Days {
			t.Errorf("%s %d-%02d-%02d: day %d, %v; cftime says %d", v.Calendar, v.Y, v.M, v.D, got, err, v.Days)
		}
	}
	t.Logf("%d dates equal cftime's", len(vs))
}

// Reference instants of units attributes equal cftime's, and so do the
// refusals (cftime keeps microseconds: every vector has at most six
// fraction digits).
func TestUnitsMatchCftime(t *testing.T) {
	type vec struct {
		Units, Calendar, Seconds, Error string
	}
	for _, v := range readJSONL[vec](t, "units.jsonl") {
		u, err := ParseUnits(v.Units, mustCalendar(t, v.Calendar))
		if v.Error != "" {
			if err == nil {
				t.Errorf("%q (%s): accepted (%s); cftime refuses it: %s", v.Units, v.Calendar, u, v.Error)
			}
			continue
		}
		want, ok := new(big.Rat).SetString(v.Seconds)
		if !ok {
			t.Fatalf("bad vector %q", v.Seconds)
		}
		if err != nil || u.Reference.Cmp(want) != 0 {
			t.Errorf("%q (%s): %v, %v; cftime says %s (%s)", v.Units, v.Calendar, u.Reference, err, want, FormatInstant(want))
		}
	}
}

func TestParseUnits(t *testing.T) {
	ok := []struct {
		text string
		unit dtype.Unit
		ref  string // FormatInstant of the reference
	}{
		{"days since 1970-01-01", dtype.Day, "1970-01-01T00:00:00"},
		{"day since 1970-01-01", dtype.Day, "1970-01-01T00:00:00"},
		{"d since 1970-01-01", dtype.Day, "1970-01-01T00:00:00"},
		{"DAYS SINCE 1970-01-01", dtype.Day, "1970-01-01T00:00:00"},
		{"hours since 1900-01-01", dtype.Hour, "1900-01-01T00:00:00"},
		{"hour since 1900-01-01", dtype.Hour, "1900-01-01T00:00:00"},
		{"hr since 1900-01-01", dtype.Hour, "1900-01-01T00:00:00"},
		{"hrs since 1900-01-01", dtype.Hour, "1900-01-01T00:00:00"},
		{"h since 1900-01-01", dtype.Hour, "1900-01-01T00:00:00"},
		{"minutes since 2000-01-01", dtype.Minute, "2000-01-01T00:00:00"},
		{"minute since 2000-01-01", dtype.Minute, "2000-01-01T00:00:00"},
		{"min since 2000-01-01", dtype.Minute, "2000-01-01T00:00:00"},
		{"mins since 2000-01-01", dtype.Minute, "2000-01-01T00:00:00"},
		{"seconds since 2000-01-01", dtype.Second, "2000-01-01T00:00:00"},
		{"second since 2000-01-01", dtype.Second, "2000-01-01T00:00:00"},
		{"sec since 2000-01-01", dtype.Second, "2000-01-01T00:00:00"},
		{"secs since 2000-01-01", dtype.Second, "2000-01-01T00:00:00"},
		{"s since 2000-01-01", dtype.Second, "2000-01-01T00:00:00"},
		{"milliseconds since 2000-01-01", dtype.Millisecond, "2000-01-01T00:00:00"},
		{"millisecond since 2000-01-01", dtype.Millisecond, "2000-01-01T00:00:00"},
		{"msec since 2000-01-01", dtype.Millisecond, "2000-01-01T00:00:00"},
		{"ms since 2000-01-01", dtype.Millisecond, "2000-01-01T00:00:00"},
		{"microseconds since 2000-01-01", dtype.Microsecond, "2000-01-01T00:00:00"},
		{"microsecond since 2000-01-01", dtype.Microsecond, "2000-01-01T00:00:00"},
		{"usec since 2000-01-01", dtype.Microsecond, "2000-01-01T00:00:00"},
		{"us since 2000-01-01", dtype.Microsecond, "2000-01-01T00:00:00"},
		{"nanoseconds since 2000-01-01", dtype.Nanosecond, "2000-01-01T00:00:00"},
		{"nanosecond since 2000-01-01", dtype.Nanosecond, "2000-01-01T00:00:00"},
		{"nsec since 2000-01-01", dtype.Nanosecond, "2000-01-01T00:00:00"},
		{"ns since 2000-01-01", dtype.Nanosecond, "2000-01-01T00:00:00"},
		{"weeks since 2000-01-01", dtype.Week, "2000-01-01T00:00:00"},
		{"week since 2000-01-01", dtype.Week, "2000-01-01T00:00:00"},
		{"hours since 2020-01-01 00:00:00", dtype.Hour, "2020-01-01T00:00:00"},
		{"hours since 2020-1-1", dtype.Hour, "2020-01-01T00:00:00"},
		{"hours since 2020-1-1 1:2", dtype.Hour, "2020-01-01T01:02:00"},
		{"hours since 2020-01-01T06:30", dtype.Hour, "2020-01-01T06:30:00"},
		{"hours since 2020-01-01t06:30:15", dtype.Hour, "2020-01-01T06:30:15"},
		{"nanoseconds since 2020-01-01 00:00:00.123456789", dtype.Nanosecond, "2020-01-01T00:00:00.123456789"},
		{"seconds since 2020-01-01 00:00:00.5", dtype.Second, "2020-01-01T00:00:00.5"},
		{"seconds since 2020-01-01 00:00:00.1234567891", dtype.Second, "2020-01-01T00:00:00.123456789..."},
		{"hours since 2020-01-01 00:00:00Z", dtype.Hour, "2020-01-01T00:00:00"},
		{"hours since 2020-01-01 00:00:00 Z", dtype.Hour, "2020-01-01T00:00:00"},
		{"hours since 2020-01-01 00:00:00 UTC", dtype.Hour, "2020-01-01T00:00:00"},
		{"hours since 2020-01-01 00:00:00 utc", dtype.Hour, "2020-01-01T00:00:00"},
		{"hours since 2020-01-01 00:00:00 +01:00", dtype.Hour, "2019-12-31T23:00:00"},
		{"hours since 2020-01-01 00:00:00 -0530", dtype.Hour, "2020-01-01T05:30:00"},
		{"hours since 2020-01-01 00:00:00+02", dtype.Hour, "2019-12-31T22:00:00"},
		{"hours since 2020-01-01 00:00:00 -07", dtype.Hour, "2020-01-01T07:00:00"},
		{"hours since 2020-01-01 UTC", dtype.Hour, "2020-01-01T00:00:00"},
		{"hours since 2020-01-01 UTC+00:00", dtype.Hour, "2020-01-01T00:00:00"},
		{"hours since 2020-01-01 00:00:00 +0", dtype.Hour, "2020-01-01T00:00:00"},
		{"  hours   since   2020-01-01  ", dtype.Hour, "2020-01-01T00:00:00"},
		{"hours since 1-1-1", dtype.Hour, "0000-12-30T00:00:00"}, // Julian AD 1 in the standard calendar
		{"days since -4713-01-01 12:00", dtype.Day, "-4713-11-24T12:00:00"},
		{"days since 1582-10-04", dtype.Day, "1582-10-14T00:00:00"},
		{"days since 1582-10-15", dtype.Day, "1582-10-15T00:00:00"},
		{"days since 12000-01-01", dtype.Day, "12000-01-01T00:00:00"},
		{"days since +2000-01-01", dtype.Day, "2000-01-01T00:00:00"},
	}
	for _, c := range ok {
		u, err := ParseUnits(c.text, Standard)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if u.Unit != c.unit || FormatInstant(u.Reference) != c.ref {
			t.Errorf("%q: %s since %s, want %s since %s", c.text, u.Unit, FormatInstant(u.Reference), c.unit, c.ref)
		}
	}
	bad := []struct{ text, says string }{
		{"", "empty"},
		{"   ", "empty"},
		{"hours", "no reference date"},
		{"hours since", "no reference date after"},
		{"hours after 2000-01-01", `"after" where "since" belongs`},
		{"hours from 2000-01-01", `"from" where "since" belongs`},
		{"fortnights since 2000-01-01", `unknown time unit "fortnights"`},
		{"months since 2000-01-01", "not a fixed length of time"},
		{"years since 2000-01-01", "not a fixed length of time"},
		{"common_years since 2000-01-01", "not a fixed length of time"},
		{"since 2000-01-01", `unknown time unit "since"`},
		{"hours since yesterday", "expected the year"},
		{"hours since 2000", "a year without month and day (xarray reads 2000 as 2000-01-01, cftime refuses it)"},
		{"hours since 2000-01", "a month without its day (xarray reads 2000-01 as 2000-01-01"},
		{"hours since 2000/01/01", `expected "-" and the month`},
		{"hours since 2000-13-01", "month 13 is out of range"},
		{"hours since 2000-00-01", "month 0 is out of range"},
		{"hours since 2000-02-30", "day 30 is out of range"},
		{"hours since 2001-02-29", "day 29 is out of range"},
		{"hours since 1900-02-29 00:00", "day 29 is out of range"}, // 1900 is Gregorian in the standard calendar
		{"hours since 2000-01-00", "day 0 is out of range"},
		{"hours since 2000-01-01 25:00", "hour 25 is out of range"},
		{"hours since 2000-01-01 24:00", "hour 24 is out of range"},
		{"hours since 2000-01-01 10:60", "minute 60 is out of range"},
		{"hours since 2000-01-01 10:00:60", "second 60 is out of range"},
		{"hours since 2000-01-01 10", `expected ":" and the minutes`},
		{"hours since 2000-01-01 10:", "expected the minutes"},
		{"hours since 2000-01-01 10:00:", "expected the seconds"},
		{"hours since 2000-01-01 10:00:00.", "expected digits after the decimal point"},
		{"hours since 2000-01-01 00:00:00 +25:00", "out of range"},
		{"hours since 2000-01-01 00:00:00 +01:75", "out of range"},
		{"hours since 2000-01-01 00:00:00 +123", "want hh:mm, hhmm, hh or h"},
		{"hours since 2000-01-01 00:00:00 +", "expected the zone's hours"},
		{"hours since 2000-01-01 00:00:00 UTC+01:00", `zone "UTC+01:00" is ambiguous`},
		{"hours since 2000-01-01 00:00:00 GMT-3", `write -03:00 or +03:00 instead`},
		{"hours since 2000-01-01 00:00:00 +2", `write +02:00 instead`},
		{"hours since 2000-01-01 00:00:00 PST", `unexpected "PST"`},
		{"hours since 2000-01-01 junk", `unexpected "junk"`},
		{"hours since 2000-01-01 00:00:00 UTC extra", `unexpected "extra"`},
		{"hours since 1582-10-10", "does not exist in the standard calendar"},
		{"hours since 0-01-01", "year 0 does not exist"},
		{"hours since 2000000000000-01-01", "out of range"},
		{"hours since 2000-01-01T", "expected"},
	}
	for _, c := range bad {
		u, err := ParseUnits(c.text, Standard)
		var ae *AttributeError
		if !errors.As(err, &ae) || ae.Attribute != "units" || ae.Text != c.text || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%q: %v (%v); want an error on units saying %q", c.text, err, u, c.says)
		}
	}
	t.Logf("%d accepted, %d refused", len(ok), len(bad))
}

func TestCalendars(t *testing.T) {
	for text, want := range map[string]Calendar{
		"": Standard, "standard": Standard, "gregorian": Standard, "Gregorian": Standard, "STANDARD": Standard,
		"proleptic_gregorian": ProlepticGregorian, "Proleptic_Gregorian": ProlepticGregorian, "julian": Julian, "JULIAN": Julian,
		"noleap": NoLeap, "365_day": NoLeap, "NoLeap": NoLeap, "all_leap": AllLeap, "366_day": AllLeap, "360_day": Day360,
	} {
		if c, err := ParseCalendar(text); err != nil || c != want {
			t.Errorf("%q: %v, %v; want %v", text, c, err, want)
		}
	}
	for _, text := range []string{"none", "None"} {
		_, err := ParseCalendar(text)
		var ae *AttributeError
		if !errors.As(err, &ae) || ae.Attribute != "calendar" || !strings.Contains(err.Error(), text) || !strings.Contains(err.Error(), "no dates") {
			t.Errorf("%q: %v; want a refusal naming it", text, err)
		}
	}
	if _, err := ParseCalendar("lunar"); err == nil || !strings.Contains(err.Error(), "unknown calendar") {
		t.Errorf("lunar: %v", err)
	}
	// Spaces around a name: xarray and cftime refuse them both.
	for _, text := range []string{" STANDARD ", "noleap ", "\tjulian"} {
		if _, err := ParseCalendar(text); err == nil || !strings.Contains(err.Error(), "spaces around") {
			t.Errorf("%q: %v; want a refusal", text, err)
		}
	}
	// The calendar rules: the Julian 1582-10-04 is followed by the
	// Gregorian 1582-10-15; 1900-02-29 exists in the Julian calendar
	// only; 2000-02-29 in all three; year 0 only in proleptic Gregorian.
	day := func(c Calendar, y, m, d int64) int64 {
		n, err := c.daysFromCivil(y, m, d)
		if err != nil {
			t.Fatalf("%s %d-%d-%d: %v", c, y, m, d, err)
		}
		return n
	}
	if day(Standard, 1582, 10, 4)+1 != day(Standard, 1582, 10, 15) {
		t.Error("standard: 1582-10-04 is not the day before 1582-10-15")
	}
	if day(Julian, 1582, 10, 5) != day(ProlepticGregorian, 1582, 10, 15) {
		t.Error("the Julian 1582-10-05 is not the Gregorian 1582-10-15")
	}
	if day(Julian, 1900, 2, 29)+1 != day(Julian, 1900, 3, 1) {
		t.Error("julian 1900-02-29")
	}
	if _, err := ProlepticGregorian.daysFromCivil(1900, 2, 29); err == nil {
		t.Error("proleptic Gregorian 1900-02-29 accepted")
	}
	if day(Standard, 1000, 1, 1) != day(Julian, 1000, 1, 1) || day(Standard, 2000, 1, 1) != day(ProlepticGregorian, 2000, 1, 1) {
		t.Error("standard is not Julian before 1582 and Gregorian after")
	}
	if day(Standard, -1, 1, 1) != day(ProlepticGregorian, 0, 1, 1)-2 {
		t.Error("standard 1 BC (-1) is not astronomical year 0, two days off the Gregorian in the Julian calendar")
	}
	for z := int64(-800_000); z <= 800_000; z += 7 {
		y, m, d := civilFromDays(z)
		if gregorianDays(y, m, d) != z {
			t.Fatalf("day %d -> %d-%d-%d -> %d", z, y, m, d, gregorianDays(y, m, d))
		}
	}
}

// DefaultType: a CF time's own unit where every value is exact in it,
// else nanoseconds.
func TestDefaultType(t *testing.T) {
	for _, c := range []struct {
		attrs  string
		stored Stored
		want   dtype.Unit
	}{
		{`{"units": "hours since 1900-01-01"}`, Stored{Kind: StoredInt, Size: 8}, dtype.Hour},
		{`{"units": "days since 1500-01-01", "calendar": "standard"}`, Stored{Kind: StoredInt, Size: 4}, dtype.Day},
		{`{"units": "hours since 1900-01-01 00:30"}`, Stored{Kind: StoredInt, Size: 8}, dtype.Nanosecond},
		{`{"units": "seconds since 2000-01-01T00:00:00+01:00"}`, Stored{Kind: StoredUint, Size: 2}, dtype.Second},
		{`{"units": "hours since 1900-01-01 00:00:00+00:30"}`, Stored{Kind: StoredInt, Size: 8}, dtype.Nanosecond},
		{`{"units": "hours since 1900-01-01"}`, Stored{Kind: StoredFloat, Size: 8}, dtype.Nanosecond},
		{`{"units": "hours since 1900-01-01", "scale_factor": 0.5}`, Stored{Kind: StoredInt, Size: 2}, dtype.Nanosecond},
		{`{"units": "hours since 1900-01-01", "scale_factor": 2, "add_offset": 1}`, Stored{Kind: StoredInt, Size: 2}, dtype.Hour},
		{`{"units": "weeks since 1970-01-01"}`, Stored{Kind: StoredInt, Size: 8}, dtype.Week},
		{`{"units": "weeks since 1970-01-02"}`, Stored{Kind: StoredInt, Size: 8}, dtype.Nanosecond},
	} {
		tm, err := ParseAttributes(json.RawMessage(c.attrs), c.stored)
		if err != nil {
			t.Fatal(err)
		}
		if got := tm.DefaultType(); got.Unit != c.want || got.Scale != 1 {
			t.Errorf("%s %s: %s, want %s", c.attrs, c.stored, got, c.want)
		}
	}
}
