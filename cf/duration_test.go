package cf

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
)

var (
	tdNs = dtype.DataType{Kind: dtype.Timedelta, Unit: dtype.Nanosecond, Scale: 1}
	tdH  = dtype.DataType{Kind: dtype.Timedelta, Unit: dtype.Hour, Scale: 1}
	tdS  = dtype.DataType{Kind: dtype.Timedelta, Unit: dtype.Second, Scale: 1}
)

// TestDurationUnits: exactly xarray's words are durations, each its
// unit, with no reference and timedelta64 as the kind; a calendar
// attribute is ignored, as xarray ignores it.
func TestDurationUnits(t *testing.T) {
	want := map[string]dtype.Unit{"days": dtype.Day, "hours": dtype.Hour, "minutes": dtype.Minute, "seconds": dtype.Second,
		"milliseconds": dtype.Millisecond, "microseconds": dtype.Microsecond, "nanoseconds": dtype.Nanosecond}
	for word, u := range want {
		tm := mustTime(t, `{"units": "`+word+`", "calendar": "noleap", "_FillValue": -1}`, Stored{StoredInt, 2})
		if !tm.Units.Duration || tm.Units.Unit != u || tm.Units.Reference.Sign() != 0 || tm.Units.Kind() != dtype.Timedelta || tm.Units.String() != word {
			t.Errorf("%s: %+v", word, tm.Units)
		}
		if d := tm.DefaultType(); d != (dtype.DataType{Kind: dtype.Timedelta, Unit: u, Scale: 1}) {
			t.Errorf("%s: default type %s", word, d)
		}
		if len(tm.Missing) != 1 || int64(tm.Missing[0]) != -1 {
			t.Errorf("%s: missing %v", word, tm.Missing)
		}
	}
	if tm := mustTime(t, `{"units": "days"}`, Stored{StoredFloat, 8}); tm.DefaultType() != (dtype.DataType{Kind: dtype.Timedelta, Unit: dtype.Nanosecond, Scale: 1}) {
		t.Errorf("float days: default %s", tm.DefaultType())
	}
	for _, text := range []string{"hours since 2000-01-01", "hour", "Hours", "weeks", ""} {
		_, err := ParseDuration(text)
		var ae *AttributeError
		if !errors.As(err, &ae) || ae.Attribute != "units" || ae.Text != text {
			t.Errorf("ParseDuration(%q): %v", text, err)
		}
	}
	if _, err := ParseDuration("hours since 2000-01-01"); err == nil || !strings.Contains(err.Error(), "no reference date") {
		t.Errorf("since: %v", err)
	}
	// A duration is float16 no more than a time is.
	if _, err := ParseAttributes([]byte(`{"units": "hours"}`), Stored{StoredFloat, 2}); err == nil {
		t.Error("float16 duration: no error")
	}
}

// TestDurationKinds: durations decode to timedelta64 only, times to
// datetime64 only, both ways.
func TestDurationKinds(t *testing.T) {
	dur := mustTime(t, `{"units": "hours"}`, Stored{StoredInt, 8})
	tim := mustTime(t, `{"units": "hours since 2000-01-01"}`, Stored{StoredInt, 8})
	for _, c := range []struct {
		tm *Time
		to dtype.DataType
	}{{dur, dtNs}, {tim, tdNs}} {
		if _, err := NewDecoder(c.tm, c.to, dtype.OverflowError); err == nil || !strings.Contains(err.Error(), "not "+c.to.String()) {
			t.Errorf("%s to %s: %v", c.tm.Units.Text, c.to, err)
		}
		if _, err := NewEncoding(c.to, c.tm.Units); err == nil {
			t.Errorf("encoding %s as %s: no error", c.to, c.tm.Units.Text)
		}
	}
	if _, err := NewDecoder(dur, dtype.DataType{Kind: dtype.Timedelta, Unit: dtype.Month, Scale: 1}, dtype.OverflowError); err == nil {
		t.Error("timedelta64[M]: no error (NumPy's month is an average)")
	}
	aff, err := NewEncoding(tdS, dur.Units)
	if err != nil || aff.String() != "floor((v×1+0)/3600)" {
		t.Errorf("encoding s as hours: %v %v", aff, err)
	}
}

// TestDurationDecode: integers exact, floats to the coarsest instant
// they stand for (1/24 day is one hour; float32 hourly days are whole
// hours), NaN and _FillValue NaT, negative durations, both byte orders.
func TestDurationDecode(t *testing.T) {
	h := int64(3600e9)
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		tm := mustTime(t, `{"units": "days", "_FillValue": -9999}`, Stored{StoredFloat, 8})
		d, _ := NewDecoder(tm, tdNs, dtype.OverflowError)
		out := make([]int64, 6)
		st, err := d.Decode(out, encode(tm.Stored, order, 1.0/24, -1.0/24, 1.5, math.NaN(), -9999, 7.0/24), order)
		want := []int64{h, -h, 36 * h, dtype.NaT, dtype.NaT, 7 * h}
		if err != nil || st != (Stats{NaT: 2}) || !slices.Equal(out, want) {
			t.Errorf("%v float64 days: %v %+v %v, want %v", order, out, st, err, want)
		}
		t32 := mustTime(t, `{"units": "days"}`, Stored{StoredFloat, 4})
		d32, _ := NewDecoder(t32, tdS, dtype.OverflowError)
		out = out[:3]
		if _, err := d32.Decode(out, encode(t32.Stored, order, 19.0/24, 365+5.0/24, -3.0/24), order); err != nil || !slices.Equal(out, []int64{19 * 3600, 365*86400 + 5*3600, -3 * 3600}) {
			t.Errorf("%v float32 days: %v %v", order, out, err)
		}
		ti := mustTime(t, `{"units": "hours", "missing_value": [-1]}`, Stored{StoredInt, 1})
		di, _ := NewDecoder(ti, tdH, dtype.OverflowError)
		if st, err := di.Decode(out, encode(ti.Stored, order, 127, -1, -128), order); err != nil || st.NaT != 1 || !slices.Equal(out, []int64{127, dtype.NaT, -128}) {
			t.Errorf("%v int8 hours: %v %+v %v", order, out, st, err)
		}
	}
	// Overflow: 2^62 hours is no timedelta64[ns].
	ti := mustTime(t, `{"units": "hours"}`, Stored{StoredInt, 8})
	d, _ := NewDecoder(ti, tdNs, dtype.OverflowError)
	var ee *dtype.ElementError
	if _, err := d.Decode(make([]int64, 1), encode(ti.Stored, binary.LittleEndian, 1<<62), binary.LittleEndian); !errors.As(err, &ee) || ee.Index != 0 || !strings.Contains(ee.Source, "int64 hours") {
		t.Errorf("overflow: %v", err)
	}
}
