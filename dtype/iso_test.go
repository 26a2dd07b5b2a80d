package dtype

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
)

// TestISOOracle checks FormatISO against np.datetime_as_string and str() of
// NumPy 1.24.2 scalars for every line of testdata/oracle/iso_strings.jsonl.
// The vectors contain no value whose value × scale wraps in NumPy, so every
// line must match exactly.
func TestISOOracle(t *testing.T) {
	f, err := os.Open("../testdata/oracle/iso_strings.jsonl")
	if err != nil {
		t.Fatalf("oracle vectors missing (generate them with tools/oracle/gen.py): %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	lines, checked := 0, 0
	for sc.Scan() {
		lines++
		var rec struct {
			Unit    string   `json:"unit"`
			Scale   int64    `json:"scale"`
			DType   string   `json:"dtype"`
			In      []int64  `json:"in"`
			Default []string `json:"default"`
			Str     []string `json:"str"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v", lines, err)
		}
		u, err := ParseUnit(rec.Unit)
		if err != nil {
			t.Fatalf("line %d: %v", lines, err)
		}
		d := DataType{Kind: Datetime, Unit: u, Scale: rec.Scale}
		if got, _, err := ParseNumPy(rec.DType); err != nil || got != d {
			t.Fatalf("line %d: dtype %q parses as %v, %v; want %v", lines, rec.DType, got, err, d)
		}
		if len(rec.In) == 0 || len(rec.Default) != len(rec.In) || len(rec.Str) != len(rec.In) {
			t.Fatalf("line %d: %d inputs, %d default, %d str", lines, len(rec.In), len(rec.Default), len(rec.Str))
		}
		for i, v := range rec.In {
			got := FormatISO(v, d)
			if got != rec.Default[i] {
				t.Errorf("line %d: FormatISO(%d, %v) = %q, NumPy %q", lines, v, d, got, rec.Default[i])
			}
			// str(scalar) is the same text as datetime_as_string for
			// datetimes; check the vectors agree, so that a change in
			// either shows up here.
			if rec.Str[i] != rec.Default[i] {
				t.Errorf("line %d: str %q differs from default %q for %d", lines, rec.Str[i], rec.Default[i], v)
			}
			checked++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if lines == 0 {
		t.Fatal("iso_strings.jsonl is empty")
	}
	t.Logf("%d lines, %d values", lines, checked)
}

func isoParseNumPy(t *testing.T, s string) DataType {
	t.Helper()
	d, _, err := ParseNumPy(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestISOHandCases are NumPy 1.24.2 outputs for the rules of
// research/numpy-semantics.md section 10.
func TestISOHandCases(t *testing.T) {
	cases := []struct {
		v    int64
		unit string
		want string
	}{
		{5, "10us", "1970-01-01T00:00:00.000050"},
		{-1, "s", "1969-12-31T23:59:59"},
		{0, "Y", "1970"},
		{-1971, "Y", "-001"},
		{-1970, "Y", "0000"},
		{-1969, "Y", "0001"},
		{-1965, "Y", "0005"},
		{8030, "Y", "10000"},
		{-102000, "Y", "-100030"},
		{-101970, "Y", "-100000"},
		{-1, "ns", "1969-12-31T23:59:59.999999999"},
		{1, "W", "1970-01-08"},
		{-1, "W", "1969-12-25"},
		{1, "3W", "1970-01-22"},
		{11016, "D", "2000-02-29"},
		{11017, "D", "2000-03-01"},
		{-719528, "D", "0000-01-01"},
		{-719529, "D", "-001-12-31"},
		{-1, "as", "1969-12-31T23:59:59.999999999999999999"},
		{1, "fs", "1970-01-01T00:00:00.000000000000001"},
		{5, "10as", "1970-01-01T00:00:00.000000000000000050"},
		{-1, "h", "1969-12-31T23"},
		{-1, "m", "1969-12-31T23:59"},
		{-1, "ms", "1969-12-31T23:59:59.999"},
		{-1, "us", "1969-12-31T23:59:59.999999"},
		{-1, "10us", "1969-12-31T23:59:59.999990"},
		{-1, "ps", "1969-12-31T23:59:59.999999999999"},
		{-1, "M", "1969-12"},
		{-13, "M", "1968-12"},
		{1, "3M", "1970-04"},
		{NaT, "ns", "NaT"},
		{NaT, "Y", "NaT"},
		{7, "generic", "NaT"},
		{NaT, "generic", "NaT"},
	}
	for _, c := range cases {
		d := isoParseNumPy(t, "M8["+c.unit+"]")
		if got := FormatISO(c.v, d); got != c.want {
			t.Errorf("FormatISO(%d, %v) = %q, want %q", c.v, d, got, c.want)
		}
	}
}

// TestISOExactBeyondNumPy checks values where NumPy's int64 value × scale
// wraps: dt64 prints the true date. The expected strings come from an
// independent big-integer reference (Python integers and datetime.date over
// 400-year eras).
func TestISOExactBeyondNumPy(t *testing.T) {
	cases := []struct {
		v     int64
		unit  string
		scale int64
		want  string
	}{
		// NumPy: 1969-12-31T23:59:50.776627963145224192 (wrapped).
		{1 << 62, "as", 10, "1970-01-01T00:00:46.116860184273879040"},
		{math.MaxInt64, "as", 10, "1970-01-01T00:01:32.233720368547758070"},
		{math.MinInt64 + 1, "as", 10, "1969-12-31T23:58:27.766279631452241930"},
		{math.MaxInt64, "Y", MaxScale, "19807040619342712359383730099"},
		{math.MinInt64 + 1, "Y", MaxScale, "-19807040619342712359383726159"},
		{math.MaxInt64, "M", MaxScale, "1650586718278559363281979314-02"},
		{math.MinInt64 + 1, "M", MaxScale, "-1650586718278559363281975375-12"},
		{math.MaxInt64, "W", MaxScale, "379608847095830815186312700-04-12"},
		{math.MinInt64 + 1, "W", MaxScale, "-379608847095830815186308761-09-22"},
		{math.MaxInt64, "D", MaxScale, "54229835299404402169474931-06-21"},
		{math.MinInt64 + 1, "D", MaxScale, "-54229835299404402169470992-07-14"},
		{math.MaxInt64, "h", MaxScale, "2259576470808516757063343-05-25T01"},
		{math.MinInt64 + 1, "h", MaxScale, "-2259576470808516757059404-08-08T23"},
		{math.MaxInt64, "ns", MaxScale, "627660132750-02-22T13:52:39.383728129"},
	}
	for _, c := range cases {
		d := DataType{Kind: Datetime, Unit: isoUnit(t, c.unit), Scale: c.scale}
		if got := FormatISO(c.v, d); got != c.want {
			t.Errorf("FormatISO(%d, %v) = %q, want %q", c.v, d, got, c.want)
		}
	}
}

func isoUnit(t *testing.T, s string) Unit {
	t.Helper()
	u, err := ParseUnit(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestISOAgainstTime compares random values with Go's time package, an
// independent calendar, within the range where its arithmetic is exact.
func TestISOAgainstTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type unitInfo struct {
		u       Unit
		perSec  int64 // units per second (0: coarser than a second)
		secPer  int64 // seconds per unit (for h, m, s, D, W)
		fracLen int
	}
	units := []unitInfo{
		{Week, 0, 7 * 86400, 0}, {Day, 0, 86400, 0}, {Hour, 0, 3600, 0},
		{Minute, 0, 60, 0}, {Second, 0, 1, 0},
		{Millisecond, 1e3, 0, 3}, {Microsecond, 1e6, 0, 6}, {Nanosecond, 1e9, 0, 9},
	}
	yearString := func(y int) string {
		if y < 0 {
			return fmt.Sprintf("-%03d", -y)
		}
		return fmt.Sprintf("%04d", y)
	}
	for i := 0; i < 20000; i++ {
		ui := units[rng.IntN(len(units))]
		scale := []int64{1, 3, 7, 10, 1000}[rng.IntN(5)]
		// |seconds| below 1e15 (about 31 million years): exact in time.Time.
		var sec, nsec int64
		var v int64
		if ui.perSec == 0 {
			lim := int64(1e15) / (ui.secPer * scale)
			v = rng.Int64N(2*lim+1) - lim
			sec = v * scale * ui.secPer
		} else {
			lim := int64(math.MaxInt64) / scale
			v = rng.Int64N(lim) - rng.Int64N(lim)
			total := v * scale // exact: |v| < MaxInt64/scale
			sec = isoFloorDiv(total, ui.perSec)
			nsec = (total - sec*ui.perSec) * (1e9 / ui.perSec)
		}
		tm := time.Unix(sec, nsec).UTC()
		var b strings.Builder
		b.WriteString(yearString(tm.Year()))
		fmt.Fprintf(&b, "-%02d-%02d", int(tm.Month()), tm.Day())
		switch ui.u {
		case Hour:
			fmt.Fprintf(&b, "T%02d", tm.Hour())
		case Minute:
			fmt.Fprintf(&b, "T%02d:%02d", tm.Hour(), tm.Minute())
		case Week, Day:
		default:
			fmt.Fprintf(&b, "T%02d:%02d:%02d", tm.Hour(), tm.Minute(), tm.Second())
			if ui.fracLen > 0 {
				fmt.Fprintf(&b, ".%0*d", ui.fracLen, int64(tm.Nanosecond())/(1e9/ui.perSec))
			}
		}
		d := DataType{Kind: Datetime, Unit: ui.u, Scale: scale}
		if got := FormatISO(v, d); got != b.String() {
			t.Fatalf("FormatISO(%d, %v) = %q, time package %q", v, d, got, b.String())
		}
	}
}

func isoFloorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// TestISOTimedelta checks FormatTimedelta (and FormatISO on timedelta data
// types) against NumPy 1.24.2's str() of timedelta64 scalars.
func TestISOTimedelta(t *testing.T) {
	cases := []struct {
		v    int64
		unit string
		want string
	}{
		{5, "10us", "50 microseconds"},
		{1, "s", "1 seconds"},
		{-1, "s", "-1 seconds"},
		{0, "s", "0 seconds"},
		{2, "M", "2 months"},
		{1, "Y", "1 years"},
		{3, "W", "3 weeks"},
		{7, "generic", "7 generic time units"},
		{7, "3generic", "21 generic time units"},
		{-9223372036854775807, "ns", "-9223372036854775807 nanoseconds"},
		{2, "3ps", "6 picoseconds"},
		{1, "D", "1 days"},
		{1, "h", "1 hours"},
		{1, "m", "1 minutes"},
		{1, "ms", "1 milliseconds"},
		{1, "fs", "1 femtoseconds"},
		{1, "as", "1 attoseconds"},
		{NaT, "ns", "NaT"},
		// NumPy wraps value × scale ("0 seconds"); dt64 is exact.
		{1 << 62, "4s", "18446744073709551616 seconds"},
		{math.MinInt64 + 1, "2147483647as", "-19807040619342712359383728129 attoseconds"},
	}
	for _, c := range cases {
		d := isoParseNumPy(t, "m8["+c.unit+"]")
		if got := FormatTimedelta(c.v, d); got != c.want {
			t.Errorf("FormatTimedelta(%d, %v) = %q, want %q", c.v, d, got, c.want)
		}
		if got := FormatISO(c.v, d); got != c.want {
			t.Errorf("FormatISO(%d, %v) = %q, want %q", c.v, d, got, c.want)
		}
	}
}

// TestISOInvalidDataType: no panic, the raw integer.
func TestISOInvalidDataType(t *testing.T) {
	for _, d := range []DataType{{}, {Kind: Datetime, Unit: Second, Scale: 0}, {Kind: Datetime, Unit: 99, Scale: 1}, {Kind: 7, Unit: Second, Scale: 1}} {
		if got := FormatISO(-42, d); got != "-42" {
			t.Errorf("FormatISO(-42, %#v) = %q, want -42", d, got)
		}
		if got := FormatTimedelta(-42, d); got != "-42" {
			t.Errorf("FormatTimedelta(-42, %#v) = %q, want -42", d, got)
		}
	}
}

// TestISOAppendNoAlloc: AppendISO with room in dst does not allocate, and
// 64 bytes are enough for the longest output.
func TestISOAppendNoAlloc(t *testing.T) {
	buf := make([]byte, 0, 64)
	longest := 0
	for u := Year; u <= Generic; u++ {
		for _, k := range []Kind{Datetime, Timedelta} {
			for _, v := range []int64{math.MinInt64 + 1, math.MaxInt64, -1} {
				d := DataType{Kind: k, Unit: u, Scale: MaxScale}
				n := testing.AllocsPerRun(10, func() { buf = AppendISO(buf[:0], v, d) })
				if n != 0 {
					t.Errorf("AppendISO(%d, %v) allocates %v times", v, d, n)
				}
				longest = max(longest, len(buf))
			}
		}
	}
	if longest > 64 {
		t.Errorf("longest output %d bytes, more than the documented 64", longest)
	}
	t.Logf("longest output: %d bytes", longest)
}

func BenchmarkFormatISO(b *testing.B) {
	buf := make([]byte, 0, 64)
	d := DataType{Kind: Datetime, Unit: Nanosecond, Scale: 1}
	for i := 0; b.Loop(); i++ {
		buf = AppendISO(buf[:0], int64(i)*1_000_000_007, d)
	}
}
