package dtype

import (
	"encoding/binary"
	"errors"
	"testing"
)

func dt(u Unit, scale int64) DataType { return DataType{Kind: Datetime, Unit: u, Scale: scale} }
func td(u Unit, scale int64) DataType { return DataType{Kind: Timedelta, Unit: u, Scale: scale} }

func TestCastingNames(t *testing.T) {
	for c := CastNo; c <= CastUnsafe; c++ {
		back, err := ParseCasting(c.String())
		if err != nil || back != c {
			t.Errorf("ParseCasting(%q) = %v, %v", c.String(), back, err)
		}
	}
	if CastNo.String() != "no" || CastSameKind.String() != "same_kind" || Casting(9).String() != "Casting(9)" {
		t.Errorf("names: %s %s %s", CastNo, CastSameKind, Casting(9))
	}
	if _, err := ParseCasting("Safe"); err == nil {
		t.Error(`ParseCasting("Safe") accepted`)
	}
}

// Scaled examples from the research notes (section 6) and NumPy quirks.
func TestSafety(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	tests := []struct {
		from, to DataType
		fo, to_  binary.ByteOrder
		want     Casting
	}{
		{dt(Nanosecond, 1), dt(Nanosecond, 1), le, le, CastNo},
		{dt(Nanosecond, 1), dt(Nanosecond, 1), be, le, CastEquiv},
		{dt(Nanosecond, 1), dt(Nanosecond, 1), nil, binary.NativeEndian, CastNo},
		{dt(Microsecond, 10), dt(Nanosecond, 1), le, le, CastSafe},
		{dt(Day, 7), dt(Week, 1), le, le, CastSameKind},
		{dt(Second, 1), dt(Second, 2), le, le, CastSameKind},
		{dt(Microsecond, 3), dt(Microsecond, 2), le, le, CastSameKind},
		{dt(Second, 2), dt(Millisecond, 1), le, le, CastSafe},
		{dt(Nanosecond, 1000), dt(Microsecond, 1), le, le, CastNo},
		{dt(Nanosecond, 2001), dt(Microsecond, 2), le, le, CastNo}, // C integer division: 2001/2 == 1000
		{dt(Nanosecond, 2001), dt(Microsecond, 2), le, be, CastEquiv},
		{dt(Nanosecond, 1000000), dt(Millisecond, 1), le, le, CastNo},
		{dt(Second, 60), dt(Minute, 1), le, le, CastSameKind}, // minutes are not metric
		{dt(Generic, 1), dt(Nanosecond, 1), le, le, CastSafe},
		{dt(Nanosecond, 1), dt(Generic, 1), le, le, CastUnsafe},
		{dt(Year, 1), dt(Day, 1), le, le, CastSafe},
		{dt(Year, 1), dt(Picosecond, 1), le, le, CastSafe}, // although NumPy's cast then overflows
		{dt(Day, 1), dt(Picosecond, 1), le, le, CastSameKind},
		{td(Year, 1), dt(Day, 1), le, le, CastUnsafe}, // kinds differ
		{td(Year, 1), td(Day, 1), le, le, CastUnsafe},
		{td(Year, 1), td(Month, 1), le, le, CastSafe},
		{td(Month, 1), td(Year, 1), le, le, CastSameKind},
		{td(Week, 1), td(Day, 1), le, le, CastSafe},
		{dt(Second, 0), dt(Second, 1), le, le, CastUnsafe}, // invalid
	}
	for _, tc := range tests {
		if got := Safety(tc.from, tc.to, tc.fo, tc.to_); got != tc.want {
			t.Errorf("Safety(%v %v, %v %v) = %s, want %s", tc.fo, tc.from, tc.to_, tc.to, got, tc.want)
		}
	}
	if !CanCast(dt(Second, 1), dt(Nanosecond, 1), CastSafe) || CanCast(dt(Nanosecond, 1), dt(Second, 1), CastSafe) {
		t.Error("CanCast s<->ns")
	}
	c, err := NewConversion(dt(Microsecond, 10), dt(Nanosecond, 1))
	if err != nil || c.Safety() != CastSafe {
		t.Errorf("Conversion.Safety() = %s, %v", c.Safety(), err)
	}
}

func TestNumPyFactor(t *testing.T) {
	tests := []struct {
		from, to DataType
		num, den int64
	}{
		{td(Year, 1), td(Day, 1), 146097, 400},
		{td(Month, 1), td(Day, 1), 48699, 1600},
		{td(Week, 1), td(Day, 1), 7, 1},
		{td(Day, 1), td(Week, 1), 1, 7},
		{td(Year, 1), td(Week, 1), 20871, 400},
		{td(Hour, 25), td(Day, 1), 25, 24},
		{td(Month, 3), td(Year, 1), 1, 4},
		{dt(Microsecond, 10), dt(Nanosecond, 1), 10000, 1},
		{td(Hour, 1), td(Picosecond, 1), 3600000000000000, 1},
		{td(Generic, 1), td(Year, 5), 1, 1},
		// NumPy's unchecked uint64 wrap-around (research section 3.3).
		{td(Month, 2), td(Nanosecond, 1), 106231523848288256, 75},
		{td(Year, 2), td(Nanosecond, 1), 424926095393153024, 25},
		{td(Year, MaxScale), td(Second, 1), 541279454622251624, 25},
		{dt(Microsecond, 1), dt(Week, MaxScale), 1, 7526024545931386880},
	}
	for _, tc := range tests {
		num, den, err := NumPyFactor(tc.from, tc.to)
		if err != nil || num != tc.num || den != tc.den {
			t.Errorf("NumPyFactor(%v, %v) = %d/%d, %v; want %d/%d", tc.from, tc.to, num, den, err, tc.num, tc.den)
		}
	}
	for _, tc := range []struct {
		from, to     DataType
		coarse, fine Unit
	}{
		{td(Day, 1), td(Picosecond, 1), Day, Picosecond},
		{dt(Picosecond, 7), dt(Year, 1), Year, Picosecond},
		{dt(Second, 1), dt(Attosecond, 1), Second, Attosecond},
		{td(Hour, 1), td(Femtosecond, 1), Hour, Femtosecond},
	} {
		_, _, err := NumPyFactor(tc.from, tc.to)
		var fe *FactorOverflowError
		if !errors.As(err, &fe) || fe.Coarse != tc.coarse || fe.Fine != tc.fine {
			t.Errorf("NumPyFactor(%v, %v) error %v, want FactorOverflowError{%s, %s}", tc.from, tc.to, err, tc.coarse, tc.fine)
		}
	}
	if _, _, err := NumPyFactor(dt(Second, 1), dt(Generic, 1)); !errors.Is(err, ErrToGeneric) {
		t.Errorf("to generic: %v", err)
	}
	if _, _, err := NumPyFactor(dt(Second, 0), dt(Second, 1)); err == nil {
		t.Error("scale 0 accepted")
	}
}
