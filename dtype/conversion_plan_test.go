package dtype

import (
	"errors"
	"testing"
)

// Plans for the pairs in the research notes (sections 2.1 and 2.5).
func TestConversionPlans(t *testing.T) {
	tests := []struct {
		from, to DataType
		path     Path
		num, den int64
	}{
		{td(Year, 1), td(Day, 1), PathLinear, 146097, 400},
		{td(Month, 1), td(Day, 1), PathLinear, 48699, 1600},
		{td(Year, 1), td(Hour, 1), PathLinear, 438291, 50},
		{td(Year, 1), td(Second, 1), PathLinear, 31556952, 1},
		{td(Month, 1), td(Second, 1), PathLinear, 2629746, 1},
		{td(Week, 1), td(Day, 1), PathLinear, 7, 1},
		{td(Day, 1), td(Week, 1), PathLinear, 1, 7},
		{td(Hour, 25), td(Day, 1), PathLinear, 25, 24},
		{dt(Hour, 25), dt(Day, 1), PathLinear, 25, 24},
		{dt(Week, 1), dt(Day, 1), PathLinear, 7, 1},
		{dt(Microsecond, 10), dt(Nanosecond, 1), PathLinear, 10000, 1},
		{dt(Nanosecond, 1), dt(Microsecond, 10), PathLinear, 1, 10000},
		{dt(Day, 7), dt(Week, 1), PathLinear, 1, 1},
		{td(Month, 3), td(Year, 1), PathLinear, 1, 4},
		{dt(Month, 3), dt(Year, 1), PathCalendar, 1, 1},
		{dt(Year, 1), dt(Day, 1), PathCalendar, 1, 1},
		{dt(Year, 1), dt(Month, 1), PathCalendar, 1, 1},
		{dt(Nanosecond, 1), dt(Month, 1), PathCalendar, 1, 1},
		{dt(Second, 10), dt(Second, 10), PathCopy, 1, 1},
		{dt(Generic, 1), dt(Nanosecond, 1), PathCopy, 1, 1},
		{dt(Generic, 1), dt(Year, 1), PathCopy, 1, 1},
		{td(Generic, 1), td(Day, 5), PathCopy, 1, 1},
		// Beyond NumPy's 2^56 factor limit: dt64 is exact.
		{td(Day, 1), td(Picosecond, 1), PathLinear, 86400000000000000, 1},
		{dt(Second, 1), dt(Attosecond, 1), PathLinear, 1000000000000000000, 1},
	}
	for _, tc := range tests {
		c, err := NewConversion(tc.from, tc.to)
		if err != nil {
			t.Errorf("NewConversion(%v, %v): %v", tc.from, tc.to, err)
			continue
		}
		num, den, ok := c.Factor64()
		if c.Path != tc.path || !ok || num != uint64(tc.num) || den != uint64(tc.den) {
			t.Errorf("NewConversion(%v, %v) = %s %d/%d, want %s %d/%d", tc.from, tc.to, c.Path, num, den, tc.path, tc.num, tc.den)
		}
	}

	// A factor beyond uint64: week to attoseconds at a large scale.
	c, err := NewConversion(td(Week, MaxScale), td(Attosecond, 1))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := c.Factor64(); ok {
		t.Error("Factor64 of W[2147483647] -> as fits in uint64?")
	}
	if n, d := c.Factor(); n.String() != "1298798109705600000000000000000000" || d.Int64() != 1 {
		t.Errorf("Factor = %s/%s", n, d)
	}

	for _, tc := range []struct {
		from, to DataType
		is       error
	}{
		{dt(Second, 1), dt(Generic, 1), ErrToGeneric},
		{td(Year, 1), td(Generic, 1), ErrToGeneric},
		{dt(Second, 1), td(Second, 1), nil},
		{td(Second, 1), dt(Second, 1), nil},
		{dt(Second, 0), dt(Second, 1), nil},
		{dt(Second, 1), dt(Unit(42), 1), nil},
	} {
		_, err := NewConversion(tc.from, tc.to)
		if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) {
			t.Errorf("NewConversion(%v, %v) error %v, want %v", tc.from, tc.to, err, tc.is)
		}
	}
}
