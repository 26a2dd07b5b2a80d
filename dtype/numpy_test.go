package dtype

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
)

func TestParseNumPy(t *testing.T) {
	native := NativeOrder()
	le, be := binary.LittleEndian, binary.BigEndian
	tests := []struct {
		in    string
		want  DataType
		order binary.ByteOrder
	}{
		{"<M8[10us]", DataType{Datetime, Microsecond, 10}, le},
		{">m8[ns]", DataType{Timedelta, Nanosecond, 1}, be},
		{"M8[D]", DataType{Datetime, Day, 1}, native},
		{"=M8[s]", DataType{Datetime, Second, 1}, native},
		{"|M8[s]", DataType{Datetime, Second, 1}, native},
		{"datetime64[ns]", DataType{Datetime, Nanosecond, 1}, native},
		{"timedelta64[25h]", DataType{Timedelta, Hour, 25}, native},
		{">timedelta64", DataType{Timedelta, Generic, 1}, be},
		{"<M8", DataType{Datetime, Generic, 1}, le},
		{"M", DataType{Datetime, Generic, 1}, native},
		{">m", DataType{Timedelta, Generic, 1}, be},
		{"M8[generic]", DataType{Datetime, Generic, 1}, native},
		{"M8[2generic]", DataType{Datetime, Generic, 2}, native},
		{"M8[μs]", DataType{Datetime, Microsecond, 1}, native},
		{"M8[10μs]", DataType{Datetime, Microsecond, 10}, native},
		{"M8[1Y]", DataType{Datetime, Year, 1}, native},
		{"M8[01s]", DataType{Datetime, Second, 1}, native},
		{"M8[007D]", DataType{Datetime, Day, 7}, native},
		{"M8[2147483647s]", DataType{Datetime, Second, MaxScale}, native},
		{"M8[m]", DataType{Datetime, Minute, 1}, native},
		{"M8[M]", DataType{Datetime, Month, 1}, native},
		// NumPy's divisor form.
		{"M8[s/4]", DataType{Datetime, Millisecond, 250}, native},
		{"M8[2s/4]", DataType{Datetime, Millisecond, 500}, native},
		{"M8[W/2]", DataType{Datetime, Hour, 84}, native},
		{"M8[W/7]", DataType{Datetime, Day, 1}, native},
		{"M8[W/16]", DataType{Datetime, Minute, 630}, native},
		{"M8[D/24]", DataType{Datetime, Hour, 1}, native},
		{"M8[D/25]", DataType{Datetime, Second, 3456}, native},
		{"M8[Y/2]", DataType{Datetime, Month, 6}, native},
		{"M8[Y/13]", DataType{Datetime, Week, 4}, native},
		{"M8[M/3]", DataType{Datetime, Day, 10}, native},
		{"M8[M/16]", DataType{Datetime, Hour, 45}, native},
		{"M8[h/3600]", DataType{Datetime, Second, 1}, native},
		{"M8[fs/2]", DataType{Datetime, Attosecond, 500}, native},
		{"M8[s/1]", DataType{Datetime, Second, 1}, native},
		{"M8[s/01]", DataType{Datetime, Second, 1}, native},
		{"M8[μs/2]", DataType{Datetime, Nanosecond, 500}, native},
		{"M8[s/1000000]", DataType{Datetime, Microsecond, 1}, native},
	}
	for _, tc := range tests {
		d, order, err := ParseNumPy(tc.in)
		if err != nil || d != tc.want || order != tc.order {
			t.Errorf("ParseNumPy(%q) = %+v, %v, %v; want %+v, %v", tc.in, d, order, err, tc.want, tc.order)
		}
	}

	errTests := []struct{ in, field, mention string }{
		{"M8[0s]", "scale", "scale factor 0"},
		{"M8[00s]", "scale", "scale factor 0"},
		{"M8[0generic]", "scale", "scale factor 0"},
		{"M8[0s/4]", "scale", "scale factor 0"},
		{"M8[2147483648s]", "scale", "2147483648"},
		{"M8[99999999999999999999s]", "scale", "99999999999999999999"},
		{"M8[-1s]", "scale", "sign"},
		{"M8[+1s]", "scale", "sign"},
		{"M8[ 10s]", "scale", "white space"},
		{"M8[\t1s]", "scale", "white space"},
		{"M8[10 us]", "unit", `" us"`},
		{"M8[10us ]", "unit", `"us "`},
		{"M8[ s]", "unit", `" s"`},
		{"M8[US]", "unit", "case-sensitive"},
		{"M8[S]", "unit", "case-sensitive"},
		{"M8[y]", "unit", "case-sensitive"},
		{"M8[B]", "unit", "unknown unit"},
		{"M8[µs]", "unit", "U+00B5"},
		{"M8[1]", "unit", "missing unit"},
		{"M8[/2]", "unit", "missing unit"},
		{"M8[]", "unit", "empty brackets"},
		{"M8[s/]", "divisor", "digits"},
		{"M8[s/-1]", "divisor", "digits"},
		{"M8[s/+4]", "divisor", "digits"},
		{"M8[s/ 4]", "divisor", "digits"},
		{"M8[s/2/3]", "divisor", "digits"},
		{"M8[s/0]", "divisor", "divisor 0"},
		{"M8[W/0]", "divisor", "divisor 0"},
		{"M8[s/4294967300]", "divisor", "4294967300"},
		{"M8[as/2]", "divisor", "divisor (2) is not a multiple of a lower-unit"},
		{"M8[h/7]", "divisor", "divisor (7) is not a multiple of a lower-unit"},
		{"M8[W/11]", "divisor", "divisor (11)"},
		{"M8[Y/7]", "divisor", "divisor (7)"},
		{"M8[h/7200]", "divisor", "divisor (7200)"},
		{"M8[generic/2]", "divisor", "generic"},
		{"M8[2147483647s/2]", "divisor", "above 2147483647"},
		{"M8[ns", "", "missing ']'"},
		{"M8ns", "", `"ns"`},
		{"M8[ns]x", "", `"x"`},
		{"M8[D]]", "", `"]"`},
		{"M8 [ns]", "", `" [ns]"`},
		{"M8()", "", `"()"`},
		{"<M8[ns] ", "", `" "`},
		{"M4", "", "not a datetime64"},
		{"M16", "", "not a datetime64"},
		{"Datetime64", "", "not a datetime64"},
		{"datetime", "", "not a datetime64"},
		{" M8[ns]", "", "not a datetime64"},
		{"<<M8[s]", "", "not a datetime64"},
		{"<", "", "not a datetime64"},
		{"", "", "not a datetime64"},
		{"i8", "", "not a datetime64"},
		{"M8[ns],", "", `","`},
	}
	for _, tc := range errTests {
		d, order, err := ParseNumPy(tc.in)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("ParseNumPy(%q) = %+v, %v, %v; want a *ParseError", tc.in, d, order, err)
			continue
		}
		if pe.Field != tc.field || pe.Value != tc.in {
			t.Errorf("ParseNumPy(%q): Field %q Value %q, want Field %q", tc.in, pe.Field, pe.Value, tc.field)
		}
		if !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("ParseNumPy(%q): error %q does not mention %q", tc.in, err, tc.mention)
		}
		if order != nil || d != (DataType{}) {
			t.Errorf("ParseNumPy(%q) returned %+v, %v with its error", tc.in, d, order)
		}
	}
	t.Logf("%d valid, %d invalid dtype strings", len(tests), len(errTests))
}

func TestNumPyFormat(t *testing.T) {
	nativeChar := "<"
	if NativeOrder() == binary.BigEndian {
		nativeChar = ">"
	}
	tests := []struct {
		d     DataType
		order binary.ByteOrder
		want  string
	}{
		{DataType{Datetime, Microsecond, 10}, binary.LittleEndian, "<M8[10us]"},
		{DataType{Timedelta, Nanosecond, 1}, binary.BigEndian, ">m8[ns]"},
		{DataType{Datetime, Generic, 1}, binary.LittleEndian, "<M8"},
		{DataType{Datetime, Generic, 2}, binary.BigEndian, ">M8[2generic]"},
		{DataType{Timedelta, Hour, 25}, binary.NativeEndian, nativeChar + "m8[25h]"},
		{DataType{Datetime, Minute, 1}, nil, nativeChar + "M8[m]"},
		{DataType{Datetime, Month, MaxScale}, binary.LittleEndian, "<M8[2147483647M]"},
	}
	for _, tc := range tests {
		if got := tc.d.NumPy(tc.order); got != tc.want {
			t.Errorf("%+v.NumPy(%v) = %q, want %q", tc.d, tc.order, got, tc.want)
		}
	}
}

func TestNumPyRoundTrip(t *testing.T) {
	n := 0
	for _, k := range []Kind{Datetime, Timedelta} {
		for u := Year; int(u) < NumUnits; u++ {
			for _, scale := range []int64{1, 2, 1000, MaxScale} {
				for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
					d := DataType{Kind: k, Unit: u, Scale: scale}
					s := d.NumPy(order)
					back, o, err := ParseNumPy(s)
					if err != nil || back != d || o != order {
						t.Errorf("ParseNumPy(%q) = %+v, %v, %v; want %+v, %v", s, back, o, err, d, order)
					}
					if !HasByteOrder(s) {
						t.Errorf("HasByteOrder(%q) = false", s)
					}
					n++
				}
			}
		}
	}
	for _, s := range []string{"M8[s]", "=M8[s]", "|M8[s]", "datetime64", ""} {
		if HasByteOrder(s) {
			t.Errorf("HasByteOrder(%q) = true", s)
		}
	}
	t.Logf("%d round trips", n)
}

func TestNativeOrder(t *testing.T) {
	o := NativeOrder()
	if o != binary.LittleEndian && o != binary.BigEndian {
		t.Fatalf("NativeOrder() = %v", o)
	}
	var b [8]byte
	binary.NativeEndian.PutUint64(b[:], 0x0102030405060708)
	if o.Uint64(b[:]) != 0x0102030405060708 {
		t.Errorf("NativeOrder() = %v disagrees with binary.NativeEndian", o)
	}
	if normalizeOrder(binary.NativeEndian) != o || normalizeOrder(nil) != o {
		t.Errorf("normalizeOrder does not map NativeEndian/nil to %v", o)
	}
}
