package cf

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
)

// Every date of every calendar round-trips through its day number, over
// 1200 years around 1970 and across year 0.
func TestModelCivilRoundTrip(t *testing.T) {
	for _, c := range []Calendar{NoLeap, AllLeap, Day360, Julian, ProlepticGregorian} {
		first, err := c.daysFromCivil(-1, 1, 1)
		if c == Julian {
			first, err = c.daysFromCivil(-2, 1, 1)
		}
		if err != nil {
			t.Fatal(err)
		}
		prev := [3]int64{}
		for day := first; day < first+1200*366; day++ {
			y, m, d := c.Civil(day)
			yy := y
			if c == Julian && y <= 0 {
				yy-- // daysFromCivil reads CF's years: 1 BC is -1
			}
			back, err := c.daysFromCivil(yy, m, d)
			if err != nil || back != day {
				t.Fatalf("%s day %d: %04d-%02d-%02d -> %d, %v", c, day, y, m, d, back, err)
			}
			if day > first && [3]int64{y, m, d} == prev {
				t.Fatalf("%s day %d repeats %v", c, day, prev)
			}
			prev = [3]int64{y, m, d}
		}
	}
}

// 360_day by year: the Gregorian days no 360-day date lands on are
// those xarray 2023.01's convert_calendar leaves out (its docstring says
// day 36 for February 6th of a common year, which is day 37, the day
// xarray computes).
func TestConvertYearGaps(t *testing.T) {
	for year, want := range map[int64][]int64{2000: {31, 91, 153, 213, 275, 335}, 2001: {37, 109, 183, 255, 329}} {
		hit := map[int64]bool{}
		start, _ := Day360.daysFromCivil(year, 1, 1)
		jan1 := gregorianDays(year, 1, 1)
		for day := start; day < start+360; day++ {
			g, ok := Day360.convertDay(day, ConvertYear)
			if !ok {
				t.Fatalf("day %d has no date", day)
			}
			hit[g-jan1+1] = true
		}
		var gaps []int64
		n := int64(365)
		if isGregorianLeap(year) {
			n = 366
		}
		for doy := int64(1); doy <= n; doy++ {
			if !hit[doy] {
				gaps = append(gaps, doy)
			}
		}
		if len(gaps) != len(want) {
			t.Fatalf("%d: days missed %v, want %v", year, gaps, want)
		}
		for i := range gaps {
			if gaps[i] != want[i] {
				t.Fatalf("%d: days missed %v, want %v", year, gaps, want)
			}
		}
	}
}

// The decoder refuses a model calendar without a conversion, naming it;
// by date, a date Gregorian lacks is an error naming the element and
// its model date, or NaT and counted.
func TestModelCalendarDecode(t *testing.T) {
	i8 := Stored{Kind: StoredInt, Size: 8}
	ns := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}
	tm, err := ParseAttributes([]byte(`{"units": "days since 2001-02-27", "calendar": "360_day"}`), i8)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewDecoder(tm, ns, dtype.OverflowError); !errors.Is(err, ErrModelCalendar) || !strings.Contains(err.Error(), `calendar "360_day"`) {
		t.Fatalf("no conversion: %v", err)
	}
	raw := make([]byte, 8*5)
	for i, v := range []int64{0, 1, 2, 3, 4} { // Feb 27, 28, 29, 30, Mar 1
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	out := make([]int64, 5)
	d, _ := NewDecoderWith(tm, ns, DecoderOptions{Calendar: CalendarOptions{Convert: ConvertDate}})
	_, err = d.Decode(out, raw, binary.LittleEndian)
	var ee *dtype.ElementError
	if !errors.As(err, &ee) || ee.Reason != dtype.ReasonNoDate || ee.Index != 2 || !strings.Contains(err.Error(), "2001-02-29T00:00:00 (360_day)") {
		t.Fatalf("Feb 29: %v", err)
	}
	d, _ = NewDecoderWith(tm, ns, DecoderOptions{Calendar: CalendarOptions{Convert: ConvertDate, Missing: MissingNaT}})
	st, err := d.Decode(out, raw, binary.LittleEndian)
	feb27 := gregorianDays(2001, 2, 27) * 86400e9
	want := []int64{feb27, feb27 + 86400e9, dtype.NaT, dtype.NaT, feb27 + 2*86400e9}
	if err != nil || st.NoDate != 2 || st.NaT != 2 || out[0] != want[0] || out[1] != want[1] || out[2] != want[2] || out[3] != want[3] || out[4] != want[4] {
		t.Fatalf("NaT: %v %+v %v, want %v", err, st, out, want)
	}
	// By year, day 61 (Mar 1) is day round(61 × 365/360) = 62, Mar 3.
	d, _ = NewDecoderWith(tm, ns, DecoderOptions{Calendar: CalendarOptions{Convert: ConvertYear}})
	if st, err = d.Decode(out, raw, binary.LittleEndian); err != nil || st.NoDate != 0 || out[4] != gregorianDays(2001, 3, 3)*86400e9 {
		t.Fatalf("year: %v %+v %v", err, st, out)
	}
	if s := tm.Units.String(); s != "days since 2001-02-27T00:00:00 (360_day)" {
		t.Errorf("units read back as %q", s)
	}
}
