package cf

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
)

var (
	ns = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}
	s  = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1}
)

func units(t *testing.T, text string) Units {
	t.Helper()
	u, err := ParseUnits(text, ProlepticGregorian)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestDecoding(t *testing.T) {
	// hours since 1900-01-01 to ns: v × 3.6e12 − 2208988800e9, no division.
	d, err := NewDecoding(units(t, "hours since 1900-01-01"), Packing{}, ns)
	if err != nil {
		t.Fatal(err)
	}
	if a, b, c, ok := d.Int64(); !ok || a != 3_600_000_000_000 || b != -2_208_988_800_000_000_000 || c != 1 {
		t.Fatalf("hours since 1900 -> ns: %s", d)
	}
	for _, c := range []struct {
		units string
		to    dtype.DataType
		pack  Packing
		v     any
		want  int64
		res   Result
	}{
		{"hours since 1970-01-01", s, Packing{}, int64(1), 3600, Exact},
		{"hours since 1970-01-01", s, Packing{}, int64(-1), -3600, Exact},
		{"days since 1970-01-01", s, Packing{}, 0.5, 43200, Exact},  // a float is its binary value
		{"days since 1970-01-01", s, Packing{}, 0.1, 8640, Lossy},   // 0.1 is a little above 1/10: 8640.000000000000479…
		{"days since 1970-01-01", s, Packing{}, -0.1, -8641, Lossy}, // floored, not truncated as xarray does
		{"seconds since 2000-01-01 00:00:00.5", s, Packing{}, int64(0), 946684800, Lossy},
		{"seconds since 2000-01-01 00:00:00.5", s, Packing{}, int64(-1), 946684799, Lossy},
		{"nanoseconds since 2020-01-01 00:00:00.123456789", ns, Packing{}, int64(1), 1577836800123456790, Exact},
		{"hours since 2000-01-01 +01:00", s, Packing{}, int64(0), 946681200, Exact},
		{"days since 1970-01-01", s, Packing{Scale: big.NewRat(1, 2), Offset: big.NewRat(10, 1)}, int64(3), 11*86400 + 43200, Exact},
		{"seconds since 1970-01-01", ns, Packing{}, float64(math.MaxInt64), 0, Overflow},
		{"seconds since 1970-01-01", ns, Packing{}, math.Inf(1), 0, Overflow},
		{"seconds since 1970-01-01", ns, Packing{}, int64(9_223_372_036), 9_223_372_036_000_000_000, Exact},
		{"seconds since 1970-01-01", ns, Packing{}, int64(9_223_372_037), 0, Overflow},
		{"seconds since 1970-01-01", ns, Packing{}, uint64(math.MaxUint64), 0, Overflow},
	} {
		d, err := NewDecoding(units(t, c.units), c.pack, c.to)
		if err != nil {
			t.Fatal(err)
		}
		var got int64
		var res Result
		switch v := c.v.(type) {
		case int64:
			got, res = d.Int(v)
		case uint64:
			got, res = d.Uint(v)
		case float64:
			got, res = d.Float(v)
		}
		if res != c.res || (res != Overflow && got != c.want) {
			t.Errorf("%s -> %s, v=%v: %d (%d), want %d (%d)", c.units, c.to, c.v, got, res, c.want, c.res)
		}
	}
	if _, err := NewDecoding(units(t, "days since 1970-01-01"), Packing{}, dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Month, Scale: 1}); err == nil {
		t.Error("decoding to datetime64[M] accepted")
	}
	if _, err := NewDecoding(units(t, "days since 1970-01-01"), Packing{}, dtype.DataType{Kind: dtype.Timedelta, Unit: dtype.Second, Scale: 1}); err == nil {
		t.Error("decoding to timedelta64 accepted")
	}
}

// Decoding then encoding with the same units gives the stored integers
// back whenever the destination unit divides the CF unit; the affine
// parameters agree with a direct big.Rat evaluation over random values.
func TestEncodingInvertsDecoding(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, text := range []string{"hours since 1900-01-01", "days since 1800-1-1 00:00:00", "seconds since 2000-01-01 12:30:00 +01:00", "minutes since 1582-10-15", "weeks since -400-03-01"} {
		u := units(t, text)
		dec, err := NewDecoding(u, Packing{}, ns)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := NewEncoding(ns, u)
		if err != nil {
			t.Fatal(err)
		}
		for range 2000 {
			v := rng.Int64N(1<<40) - 1<<39
			x, res := dec.Int(v)
			if res == Overflow {
				continue
			}
			// Direct: (ref + v·unit)/1ns.
			direct := new(big.Rat).Mul(new(big.Rat).SetInt64(v), secondsPer[u.Unit])
			direct.Add(direct, u.Reference)
			direct.Mul(direct, big.NewRat(1_000_000_000, 1))
			if !direct.IsInt() || direct.Num().Int64() != x || res != Exact {
				t.Fatalf("%s: %d -> %d (%d), direct %s", text, v, x, res, direct)
			}
			if back, res := enc.Int(x); back != v || res != Exact {
				t.Fatalf("%s: %d -> %d -> %d (%d)", text, v, x, back, res)
			}
		}
	}
}
