package cf

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
)

var (
	dtNs   = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}
	dtUs10 = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Microsecond, Scale: 10}
	dtS    = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1}
	dtD    = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Day, Scale: 1}
	dtAs   = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Attosecond, Scale: 1}
)

func mustTime(t *testing.T, attrs string, stored Stored) *Time {
	t.Helper()
	tm, err := ParseAttributes(json.RawMessage(attrs), stored)
	if err != nil || tm == nil {
		t.Fatalf("%s: %v %v", attrs, tm, err)
	}
	return tm
}

// exactFloor is the reference: floor((ref + x × scale + offset) × unit /
// to's unit) in math/big, from the attributes' parts, not from Affine.
func exactFloor(tm *Time, to dtype.DataType, x *big.Rat) (*big.Int, bool) {
	us := secondsPer[tm.Units.Unit]
	v := new(big.Rat).Set(x)
	if tm.Packing.Scale != nil {
		v.Mul(v, tm.Packing.Scale)
	}
	if tm.Packing.Offset != nil {
		v.Add(v, tm.Packing.Offset)
	}
	v.Mul(v, us)
	v.Add(v, tm.Units.Reference)
	ds, _ := unitSeconds(to)
	v.Quo(v, ds)
	q := new(big.Int).Div(v.Num(), v.Denom())
	return q, v.IsInt()
}

func checkOne(t *testing.T, d *Decoder, tm *Time, to dtype.DataType, x *big.Rat, got int64, res Result, neg bool, what string) {
	t.Helper()
	want, isInt := exactFloor(tm, to, x)
	inRange := want.Cmp(big.NewInt(math.MinInt64+1)) >= 0 && want.Cmp(big.NewInt(math.MaxInt64)) <= 0
	switch {
	case !inRange:
		if res != Overflow || neg != (want.Sign() < 0) {
			t.Fatalf("%s %s: got %d %v neg=%v; exact %s overflows", tm.Units.Text, what, got, res, neg, want)
		}
	case res == Overflow || got != want.Int64() || (res == Lossy) == isInt:
		t.Fatalf("%s → %s, %s: got %d %v; exact floor %s (integer %v)", tm.Units.Text, to, what, got, res, want, isInt)
	}
}

// TestDecoderExact compares the decoder (its int128 fast path and its
// math/big path) with an independent math/big computation, on random
// values of every stored type, the overflow bounds ±1, for several
// references, units, packings and destinations.
func TestDecoderExact(t *testing.T) {
	attrs := []string{
		`{"units": "hours since 1900-01-01"}`,
		`{"units": "days since 2019-12-31T23:59:59.5", "calendar": "proleptic_gregorian"}`,
		`{"units": "seconds since 2000-01-01 12:00:00+01:00"}`,
		`{"units": "nanoseconds since 1970-01-01"}`,
		`{"units": "days since 1500-01-01", "calendar": "standard"}`,
		`{"units": "microseconds since -4713-01-01T12:00:00.000001", "calendar": "julian"}`,
		`{"units": "hours since 2000-01-01", "scale_factor": 0.01, "add_offset": -12.5}`,
		`{"units": "weeks since 1970-01-01", "scale_factor": [3]}`,
		`{"units": "milliseconds since 2262-04-11T23:47:16.854775807"}`,
		// CF durations, to timedelta64: the same rules with no reference.
		`{"units": "hours"}`,
		`{"units": "days", "scale_factor": 0.25, "add_offset": -1.5}`,
		`{"units": "nanoseconds", "calendar": "noleap"}`,
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, a := range attrs {
		for _, to := range []dtype.DataType{dtNs, dtUs10, dtS, dtD, dtAs} {
			for _, stored := range []Stored{{StoredInt, 8}, {StoredUint, 8}, {StoredFloat, 8}} {
				tm := mustTime(t, a, stored)
				to.Kind = tm.Units.Kind()
				d, err := NewDecoderWith(tm, to, DecoderOptions{Float: FloatExact})
				if err != nil {
					t.Fatal(err)
				}
				aff := d.Affine()
				// The bounds: v with v×A+B at MaxInt64×C and MinInt64+1 (×C), ±1.
				var bounds []int64
				for _, lim := range []int64{math.MaxInt64, math.MinInt64 + 1} {
					n := new(big.Int).Mul(big.NewInt(lim), aff.C)
					n.Sub(n, aff.B)
					n.Quo(n, aff.A)
					for delta := int64(-2); delta <= 2; delta++ {
						v := new(big.Int).Add(n, big.NewInt(delta))
						if v.IsInt64() {
							bounds = append(bounds, v.Int64())
						}
					}
				}
				bounds = append(bounds, 0, 1, -1, math.MaxInt64, math.MinInt64, math.MinInt64+1)
				for i := 0; i < 3000; i++ {
					var v int64
					switch {
					case i < len(bounds):
						v = bounds[i]
					case i%3 == 0:
						v = r.Int64()
					default:
						v = r.Int64N(1<<40) - 1<<39
					}
					switch stored.Kind {
					case StoredInt:
						got, res, neg := d.DecodeInt(v)
						checkOne(t, d, tm, to, new(big.Rat).SetInt64(v), got, res, neg, "int")
					case StoredUint:
						u := uint64(v)
						if i%5 == 0 {
							u = r.Uint64()
						}
						got, res, neg := d.DecodeUint(u)
						checkOne(t, d, tm, to, new(big.Rat).SetInt(new(big.Int).SetUint64(u)), got, res, neg, "uint")
					case StoredFloat:
						var f float64
						switch i % 4 {
						case 0:
							f = math.Float64frombits(r.Uint64()) // any exponent
						case 1:
							f = float64(v) + r.Float64() // fractions
						case 2:
							f = float64(v) / 48
						default:
							f = float64(v)
						}
						if math.IsNaN(f) || math.IsInf(f, 0) {
							continue
						}
						got, res, neg := d.DecodeFloat(f)
						checkOne(t, d, tm, to, new(big.Rat).SetFloat64(f), got, res, neg, "float")
					}
				}
			}
		}
	}
}

// TestDecodeHalfDay: under FloatExact a float is its exact binary value:
// 0.5 days is 12 hours exactly, and 1/3 day is floored (and counted as
// lossy).
func TestDecodeHalfDay(t *testing.T) {
	tm := mustTime(t, `{"units": "days since 2000-01-01"}`, Stored{StoredFloat, 8})
	d, _ := NewDecoderWith(tm, dtNs, DecoderOptions{Float: FloatExact})
	raw := make([]byte, 16)
	binary.LittleEndian.PutUint64(raw, math.Float64bits(0.5))
	binary.LittleEndian.PutUint64(raw[8:], math.Float64bits(1.0/3))
	out := make([]int64, 2)
	st, err := d.Decode(out, raw, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	base := int64(946684800e9)
	// 1/3 as a float64 is 0.333333333333333314829616256247..., so
	// 28799.99999999999840 s: floored to ...999999 ns.
	if out[0] != base+12*3600e9 || out[1] != base+28800e9-1 || st.Lossy != 1 {
		t.Errorf("got %d %d (lossy %d)", out[0]-base, out[1]-base, st.Lossy)
	}
}

func encode(stored Stored, order binary.ByteOrder, vals ...float64) []byte {
	raw := make([]byte, len(vals)*stored.Size)
	for i, v := range vals {
		b := raw[i*stored.Size:]
		var u uint64
		switch stored.Kind {
		case StoredFloat:
			if stored.Size == 4 {
				u = uint64(math.Float32bits(float32(v)))
			} else {
				u = math.Float64bits(v)
			}
		default:
			u = uint64(int64(v))
		}
		switch stored.Size {
		case 1:
			b[0] = byte(u)
		case 2:
			order.PutUint16(b, uint16(u))
		case 4:
			order.PutUint32(b, uint32(u))
		default:
			order.PutUint64(b, u)
		}
	}
	return raw
}

// TestDecodeMissing: every missing-value form becomes NaT.
func TestDecodeMissing(t *testing.T) {
	for _, c := range []struct {
		attrs  string
		stored Stored
		vals   []float64
		nat    []bool
	}{
		{`{"units": "hours since 2000-01-01", "_FillValue": -999}`, Stored{StoredInt, 8}, []float64{-999, 1, 999}, []bool{true, false, false}},
		{`{"units": "hours since 2000-01-01", "_FillValue": [-999], "missing_value": [-1, 7]}`, Stored{StoredInt, 2}, []float64{-999, -1, 7, 8}, []bool{true, true, true, false}},
		{`{"units": "hours since 2000-01-01", "missing_value": 255}`, Stored{StoredUint, 1}, []float64{255, 254}, []bool{true, false}},
		{`{"units": "hours since 2000-01-01"}`, Stored{StoredFloat, 8}, []float64{math.NaN(), 1.5}, []bool{true, false}},
		{`{"units": "hours since 2000-01-01", "_FillValue": "NaN", "missing_value": 1e20}`, Stored{StoredFloat, 4}, []float64{1e20, math.NaN(), math.Copysign(0, -1), 3}, []bool{true, true, false, false}},
		{`{"units": "hours since 2000-01-01", "missing_value": [0.0, "-Infinity"]}`, Stored{StoredFloat, 8}, []float64{math.Copysign(0, -1), math.Inf(-1), 2}, []bool{true, true, false}},
	} {
		tm := mustTime(t, c.attrs, c.stored)
		d, err := NewDecoder(tm, dtNs, dtype.OverflowError)
		if err != nil {
			t.Fatal(err)
		}
		for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			out := make([]int64, len(c.vals))
			st, err := d.Decode(out, encode(c.stored, order, c.vals...), order)
			if err != nil {
				t.Fatalf("%s: %v", c.attrs, err)
			}
			n := 0
			for i, isNaT := range c.nat {
				if (out[i] == dtype.NaT) != isNaT {
					t.Errorf("%s %v: [%d] = %d, NaT %v", c.attrs, c.vals, i, out[i], isNaT)
				}
				if isNaT {
					n++
				}
			}
			if st.NaT != n {
				t.Errorf("%s: NaT count %d, want %d", c.attrs, st.NaT, n)
			}
		}
	}
}

// TestDecodeNaTMarker: in an int64 variable -2^63 (datetime64's NaT bits,
// what xarray 2023.01 writes for NaT in an int64 encoding, with no
// _FillValue) is NaT, declared or not, under every overflow policy; it is
// no marker in other stored types (uint64 2^63, float64 -0, int32's
// minimum are values).
func TestDecodeNaTMarker(t *testing.T) {
	const minI64 = float64(math.MinInt64)
	dtH := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Hour, Scale: 1}
	for _, c := range []struct {
		attrs  string
		stored Stored
		to     dtype.DataType
		vals   []float64
		nat    []bool
	}{
		// xarray's case: ns since 2000, where -2^63 + the reference is a
		// valid instant (1707-09-22), and -2^63 + 1 stays one.
		{`{"units": "nanoseconds since 2000-01-01"}`, Stored{StoredInt, 8}, dtNs, []float64{0, minI64, minI64 + 4096, 3600e9}, []bool{false, true, false, false}},
		{`{"units": "nanoseconds since 2000-01-01"}`, Stored{StoredInt, 8}, dtS, []float64{minI64, 1e9}, []bool{true, false}},
		// Coarser units, where the marker's product overflows: NaT, not an
		// overflow.
		{`{"units": "hours since 1900-01-01", "calendar": "standard"}`, Stored{StoredInt, 8}, dtNs, []float64{minI64, 5}, []bool{true, false}},
		{`{"units": "hours since 1900-01-01"}`, Stored{StoredInt, 8}, dtH, []float64{minI64, 5}, []bool{true, false}},
		// Beside a declared _FillValue and missing_value.
		{`{"units": "hours since 1900-01-01", "_FillValue": -999, "missing_value": 7}`, Stored{StoredInt, 8}, dtNs, []float64{minI64, -999, 7, 8}, []bool{true, true, true, false}},
		{`{"units": "nanoseconds since 1970-01-01", "_FillValue": -9223372036854775808}`, Stored{StoredInt, 8}, dtNs, []float64{minI64, 1}, []bool{true, false}},
		// Durations of every unit.
		{`{"units": "nanoseconds"}`, Stored{StoredInt, 8}, tdS, []float64{minI64, 1e9}, []bool{true, false}},
		{`{"units": "hours"}`, Stored{StoredInt, 8}, tdH, []float64{minI64, 1}, []bool{true, false}},
		{`{"units": "days", "_FillValue": -1}`, Stored{StoredInt, 8}, tdNs, []float64{minI64, -1, 1}, []bool{true, true, false}},
		// Not a marker in other types.
		{`{"units": "minutes since 2000-01-01"}`, Stored{StoredInt, 4}, dtS, []float64{math.MinInt32, 1}, []bool{false, false}},
		{`{"units": "days since 2000-01-01"}`, Stored{StoredFloat, 8}, dtNs, []float64{math.Copysign(0, -1), 1}, []bool{false, false}},
	} {
		tm := mustTime(t, c.attrs, c.stored)
		if slices.Contains(tm.Missing, NaTMarker) != strings.Contains(c.attrs, "-9223372036854775808") {
			t.Errorf("%s: Missing %v holds the marker only when declared", c.attrs, tm.Missing)
		}
		if mv := tm.MissingValues(); slices.Contains(mv, NaTMarker) != (c.stored == Stored{StoredInt, 8}) || len(mv) != len(slices.Compact(slices.Sorted(slices.Values(mv)))) {
			t.Errorf("%s: MissingValues %v", c.attrs, mv)
		}
		for _, policy := range []dtype.OverflowPolicy{dtype.OverflowError, dtype.OverflowNaT, dtype.OverflowClamp} {
			d, err := NewDecoder(tm, c.to, policy)
			if err != nil {
				t.Fatal(err)
			}
			for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
				out := make([]int64, len(c.vals))
				st, err := d.Decode(out, encode(c.stored, order, c.vals...), order)
				if err != nil {
					t.Fatalf("%s to %s, policy %d: %v", c.attrs, c.to, policy, err)
				}
				n := 0
				for i, isNaT := range c.nat {
					if (out[i] == dtype.NaT) != isNaT {
						t.Errorf("%s to %s: [%d] (%v) = %d, want NaT %v", c.attrs, c.to, i, c.vals[i], out[i], isNaT)
					}
					if isNaT {
						n++
					}
				}
				if st.NaT != n || st.Overflowed != 0 {
					t.Errorf("%s to %s: stats %+v, want %d NaT and no overflow", c.attrs, c.to, st, n)
				}
			}
		}
	}
	// uint64 2^63 is a value: here one that overflows ns.
	tm := mustTime(t, `{"units": "nanoseconds since 1970-01-01"}`, Stored{StoredUint, 8})
	d, _ := NewDecoder(tm, dtNs, dtype.OverflowClamp)
	out := make([]int64, 1)
	raw := binary.LittleEndian.AppendUint64(nil, 1<<63)
	if st, err := d.Decode(out, raw, binary.LittleEndian); err != nil || out[0] != math.MaxInt64 || st.Overflowed != 1 || st.NaT != 0 {
		t.Errorf("uint64 2^63: %d %+v %v, want clamped", out[0], st, err)
	}
}

// TestDecodePacking: scale_factor and add_offset apply exactly, as the
// decimal numbers written.
func TestDecodePacking(t *testing.T) {
	tm := mustTime(t, `{"units": "days since 2000-01-01", "scale_factor": 0.1, "add_offset": 0.3}`, Stored{StoredInt, 2})
	d, _ := NewDecoder(tm, dtS, dtype.OverflowError)
	out := make([]int64, 2)
	st, err := d.Decode(out, encode(Stored{StoredInt, 2}, binary.LittleEndian, 7, -3), binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	// 7 × 0.1 + 0.3 = 1 day exactly; -3 × 0.1 + 0.3 = 0 exactly (in
	// float64 arithmetic neither is exact).
	if out[0] != 946684800+86400 || out[1] != 946684800 || st.Lossy != 0 {
		t.Errorf("got %v, lossy %d", out, st.Lossy)
	}
}

func TestDecodeOverflowPolicy(t *testing.T) {
	tm := mustTime(t, `{"units": "days since 2000-01-01"}`, Stored{StoredFloat, 8})
	vals := []float64{1, 1e30, -1e30, math.Inf(1)}
	raw := encode(Stored{StoredFloat, 8}, binary.LittleEndian, vals...)
	out := make([]int64, len(vals))
	d, _ := NewDecoder(tm, dtNs, dtype.OverflowError)
	_, err := d.Decode(out, raw, binary.LittleEndian)
	var ee *dtype.ElementError
	if !errors.As(err, &ee) || ee.Index != 1 || ee.Text != "1e+30" || ee.Reason != dtype.ReasonOverflow || !strings.Contains(err.Error(), "element 1") {
		t.Errorf("error policy: %v", err)
	}
	d, _ = NewDecoder(tm, dtNs, dtype.OverflowNaT)
	st, err := d.Decode(out, raw, binary.LittleEndian)
	if err != nil || out[1] != dtype.NaT || out[2] != dtype.NaT || out[3] != dtype.NaT || st.Overflowed != 3 || st.NaT != 3 {
		t.Errorf("nat policy: %v %v %+v", out, err, st)
	}
	d, _ = NewDecoder(tm, dtNs, dtype.OverflowClamp)
	st, err = d.Decode(out, raw, binary.LittleEndian)
	if err != nil || out[1] != math.MaxInt64 || out[2] != math.MinInt64+1 || out[3] != math.MaxInt64 || st.Overflowed != 3 || st.NaT != 0 {
		t.Errorf("clamp policy: %v %v %+v", out, err, st)
	}
}

func TestParseAttributesErrors(t *testing.T) {
	f8 := Stored{StoredFloat, 8}
	for _, c := range []struct {
		attrs, attr, text string
		stored            Stored
	}{
		{`{"units": "days since 2000-01-01", "calendar": "none"}`, "calendar", "none", f8},
		{`{"units": "days since 2001-02-29", "calendar": "noleap"}`, "units", "days since 2001-02-29", f8},
		{`{"units": "days since 2001-01-31", "calendar": "360_day"}`, "units", "days since 2001-01-31", f8},
		{`{"units": "days since 2000-13-01"}`, "units", "days since 2000-13-01", f8},
		{`{"units": "months since 2000-01-01"}`, "units", "months since 2000-01-01", f8},
		{`{"units": "days since"}`, "units", "days since", f8},
		{`{"units": "days since 2000-01-01", "calendar": 5}`, "calendar", "5", f8},
		{`{"units": "days since 2000-01-01", "scale_factor": "x"}`, "scale_factor", `"x"`, f8},
		{`{"units": "days since 2000-01-01", "scale_factor": [1, 2]}`, "scale_factor", `[1, 2]`, f8},
		// A number written as a string (xarray cannot multiply by it), an
		// empty calendar and one with spaces (xarray and cftime refuse both).
		{`{"units": "days since 2000-01-01", "scale_factor": "0.5"}`, "scale_factor", `"0.5"`, f8},
		{`{"units": "days since 2000-01-01", "add_offset": ["1"]}`, "add_offset", `["1"]`, f8},
		{`{"units": "days since 2000-01-01", "calendar": ""}`, "calendar", ``, f8},
		{`{"units": "days since 2000-01-01", "calendar": "noleap "}`, "calendar", `noleap `, f8},
		{`{"units": "days since 2000-01-01", "scale_factor": 0}`, "scale_factor", `0`, f8},
		{`{"units": "days since 2000-01-01", "add_offset": null}`, "add_offset", `null`, f8},
		{`{"units": "days since 2000-01-01", "_FillValue": 1.5}`, "_FillValue", `1.5`, Stored{StoredInt, 8}},
		{`{"units": "days since 2000-01-01", "_FillValue": 300}`, "_FillValue", `300`, Stored{StoredInt, 1}},
		{`{"units": "days since 2000-01-01", "missing_value": [-1]}`, "missing_value", `[-1]`, Stored{StoredUint, 4}},
		{`{"units": "days since 2000-01-01", "missing_value": "x"}`, "missing_value", `"x"`, f8},
		{`{"units": "days since 2000-01-01", "missing_value": 1e39}`, "missing_value", `1e39`, Stored{StoredFloat, 4}},
		{`{"units": "days since 2000-01-01"}`, "units", "days since 2000-01-01", Stored{StoredFloat, 2}},
		// _Unsigned: only the strings xarray acts on; not on floats; a
		// _FillValue of neither signedness; a missing_value xarray would
		// compare, unconverted, with numbers of the other signedness.
		{`{"units": "days since 2000-01-01", "_Unsigned": true}`, "_Unsigned", `true`, Stored{StoredInt, 1}},
		{`{"units": "days since 2000-01-01", "_Unsigned": "True"}`, "_Unsigned", `True`, Stored{StoredInt, 1}},
		{`{"units": "days since 2000-01-01", "_Unsigned": ["true"]}`, "_Unsigned", `["true"]`, Stored{StoredInt, 1}},
		{`{"units": "days since 2000-01-01", "_Unsigned": "true"}`, "_Unsigned", `true`, f8},
		{`{"units": "days since 2000-01-01", "_Unsigned": "true", "_FillValue": 256}`, "_FillValue", `256`, Stored{StoredInt, 1}},
		{`{"units": "days since 2000-01-01", "_Unsigned": "true", "_FillValue": -129}`, "_FillValue", `-129`, Stored{StoredInt, 1}},
		{`{"units": "days since 2000-01-01", "_Unsigned": "true", "missing_value": -1}`, "missing_value", `-1`, Stored{StoredInt, 2}},
		{`{"units": "days since 2000-01-01", "_Unsigned": "false", "missing_value": 65535}`, "missing_value", `65535`, Stored{StoredUint, 2}},
	} {
		_, err := ParseAttributes(json.RawMessage(c.attrs), c.stored)
		var ae *AttributeError
		if !errors.As(err, &ae) || ae.Attribute != c.attr || ae.Text != c.text {
			t.Errorf("%s: %v; want an AttributeError naming %s %s", c.attrs, err, c.attr, c.text)
		}
	}
	for _, a := range []string{`{"units": "m/s"}`, `{"units": 3}`, `{}`, ``,
		// Not durations for xarray (exactly its words only), so not for dt64.
		`{"units": "hour"}`, `{"units": "Hours"}`, `{"units": " hours"}`, `{"units": "weeks"}`, `{"units": "h"}`, `{"units": "months"}`} {
		if tm, err := ParseAttributes(json.RawMessage(a), f8); tm != nil || err != nil {
			t.Errorf("%s: %v %v, want not a time", a, tm, err)
		}
	}
}

// TestUnsigned: _Unsigned "true" reads a signed type's bytes as the
// unsigned type of the same width, "false" an unsigned type's as the
// signed one, and converts the _FillValue as xarray does (-1 and 255 are
// the same int8 byte); the other combinations change nothing.
func TestUnsigned(t *testing.T) {
	i8, u8, i64, u64, u16, i16 := Stored{StoredInt, 1}, Stored{StoredUint, 1}, Stored{StoredInt, 8}, Stored{StoredUint, 8}, Stored{StoredUint, 2}, Stored{StoredInt, 2}
	dtH := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Hour, Scale: 1}
	const ref = 262968 // 2000-01-01 in hours
	for _, c := range []struct {
		attrs      string
		stored, as Stored
		missing    []uint64
		vals       []float64 // stored numbers, as the stored type
		want       []int64   // hours since 2000-01-01, NaT
	}{
		{`{"_Unsigned": "true"}`, i8, u8, nil, []float64{-76, 0, 127, -128, -1}, []int64{180, 0, 127, 128, 255}},
		{`{"_Unsigned": "true", "_FillValue": 255}`, i8, u8, []uint64{255}, []float64{-76, -1}, []int64{180, dtype.NaT}},
		{`{"_Unsigned": "true", "_FillValue": -1}`, i8, u8, []uint64{255}, []float64{-76, -1}, []int64{180, dtype.NaT}},
		{`{"_Unsigned": "true", "missing_value": [200, 7]}`, i8, u8, []uint64{200, 7}, []float64{-56, 7, 8}, []int64{dtype.NaT, dtype.NaT, 8}},
		{`{"_Unsigned": "false", "_FillValue": 65535}`, u16, i16, []uint64{1<<64 - 1}, []float64{65535, 65531, 3}, []int64{dtype.NaT, -5, 3}},
		{`{"_Unsigned": "false", "missing_value": -5}`, u16, i16, []uint64{1<<64 - 5}, []float64{65531, 65530}, []int64{dtype.NaT, -6}},
		// int64 read as uint64: -2^63's bytes are 2^63 hours, no NaT marker.
		{`{"_Unsigned": "true"}`, i64, u64, nil, []float64{-9223372036854775808, 1}, nil},
		// Nothing to change.
		{`{"_Unsigned": "false", "_FillValue": -1}`, i8, i8, []uint64{1<<64 - 1}, []float64{-76, -1}, []int64{-76, dtype.NaT}},
		{`{"_Unsigned": "true", "_FillValue": 255}`, u8, u8, []uint64{255}, []float64{180, 255}, []int64{180, dtype.NaT}},
		{`{"_Unsigned": "false"}`, Stored{StoredFloat, 8}, Stored{StoredFloat, 8}, nil, []float64{-76}, []int64{-76}},
	} {
		attrs := strings.Replace(c.attrs, "{", `{"units": "hours since 2000-01-01", `, 1)
		tm := mustTime(t, attrs, c.stored)
		wantOwn := Stored{}
		if c.as != c.stored {
			wantOwn = c.stored
		}
		if tm.Stored != c.as || tm.Unsigned != wantOwn || !slices.Equal(tm.Missing, c.missing) {
			t.Errorf("%s on %s: read as %s (own %s), missing %v; want %s, %v", c.attrs, c.stored, tm.Stored, tm.Unsigned, tm.Missing, c.as, c.missing)
			continue
		}
		if c.as == u64 {
			if mv := tm.MissingValues(); len(mv) != 0 {
				t.Errorf("%s on int64: missing values %v, want none (uint64 has no NaT marker)", c.attrs, mv)
			}
			continue
		}
		d, err := NewDecoder(tm, dtH, dtype.OverflowError)
		if err != nil {
			t.Fatal(err)
		}
		// The stored bytes are those of the array's own type.
		raw := encode(c.stored, binary.BigEndian, c.vals...)
		out := make([]int64, len(c.vals))
		if _, err := d.Decode(out, raw, binary.BigEndian); err != nil {
			t.Fatalf("%s: %v", c.attrs, err)
		}
		for i, w := range c.want {
			if w != dtype.NaT {
				w += ref
			}
			if out[i] != w {
				t.Errorf("%s on %s: %v decodes to %d hours, want %d", c.attrs, c.stored, c.vals[i], out[i], w)
			}
		}
	}
	// FromBits: the same bytes, read as each type.
	for _, c := range []struct {
		s    Stored
		w    uint64
		want uint64
	}{{u8, 1<<64 - 1, 255}, {i8, 255, 1<<64 - 1}, {i8, 0x7f, 0x7f}, {u16, 1<<64 - 5, 65531}, {i16, 65531, 1<<64 - 5}, {u64, 1 << 63, 1 << 63}, {Stored{StoredFloat, 4}, 12345, 12345}} {
		if got := c.s.FromBits(c.w); got != c.want {
			t.Errorf("%s.FromBits(%#x) = %#x, want %#x", c.s, c.w, got, c.want)
		}
	}
}

func TestDecodeAllocs(t *testing.T) {
	tm := mustTime(t, `{"units": "hours since 1900-01-01", "_FillValue": -999}`, Stored{StoredInt, 8})
	d, _ := NewDecoder(tm, dtNs, dtype.OverflowError)
	raw := encode(Stored{StoredInt, 8}, binary.LittleEndian, 1, 2, -999, 4)
	out := make([]int64, 4)
	if n := testing.AllocsPerRun(100, func() { _, _ = d.Decode(out, raw, binary.LittleEndian) }); n != 0 {
		t.Errorf("int fast path: %v allocations", n)
	}
	tf := mustTime(t, `{"units": "days since 2019-12-31T23:59:59.5"}`, Stored{StoredFloat, 8})
	df, _ := NewDecoderWith(tf, dtNs, DecoderOptions{Float: FloatExact})
	rawf := encode(Stored{StoredFloat, 8}, binary.LittleEndian, 0.5, 1.0/48, math.NaN(), 1e4)
	if n := testing.AllocsPerRun(100, func() { _, _ = df.Decode(out, rawf, binary.LittleEndian) }); n != 0 {
		t.Errorf("float fast path (exact rule): %v allocations", n)
	}
	// FloatShortest's whole-second check decides values on whole seconds
	// without allocating.
	tf = mustTime(t, `{"units": "days since 2019-12-31T23:59:59"}`, Stored{StoredFloat, 8})
	df, _ = NewDecoder(tf, dtNs, dtype.OverflowError)
	rawf = encode(Stored{StoredFloat, 8}, binary.LittleEndian, 0.5, 1.0/48, math.NaN(), 1e4+1.0/24)
	if n := testing.AllocsPerRun(100, func() { _, _ = df.Decode(out, rawf, binary.LittleEndian) }); n != 0 {
		t.Errorf("float whole-second check: %v allocations", n)
	}
}

func benchDecode(b *testing.B, attrs string, stored Stored, vals func(i int) float64) {
	tm, err := ParseAttributes(json.RawMessage(attrs), stored)
	if err != nil {
		b.Fatal(err)
	}
	d, _ := NewDecoder(tm, dtNs, dtype.OverflowNaT)
	const n = 1 << 14
	vs := make([]float64, n)
	for i := range vs {
		vs[i] = vals(i)
	}
	raw := encode(stored, binary.LittleEndian, vs...)
	out := make([]int64, n)
	b.SetBytes(n * 8)
	b.ResetTimer()
	for range b.N {
		_, _ = d.Decode(out, raw, binary.LittleEndian)
	}
}

func BenchmarkDecode(b *testing.B) {
	b.Run("path=int128/stored=int64/size=16384", func(b *testing.B) {
		benchDecode(b, `{"units": "hours since 1900-01-01"}`, Stored{StoredInt, 8}, func(i int) float64 { return float64(i) })
	})
	b.Run("path=int128/stored=float64/size=16384", func(b *testing.B) {
		benchDecode(b, `{"units": "days since 2019-12-31T23:59:59.5"}`, Stored{StoredFloat, 8}, func(i int) float64 { return float64(i) / 48 })
	})
	b.Run("path=big/stored=float64/size=16384", func(b *testing.B) {
		// 1e-30 days: a power of two far below 2^-64, beyond the fast path.
		benchDecode(b, `{"units": "days since 2000-01-01"}`, Stored{StoredFloat, 8}, func(i int) float64 { return float64(i) * 1e-30 })
	})
}
