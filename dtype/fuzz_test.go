package dtype

import (
	"encoding/binary"
	"testing"
)

// The fuzz targets check that no input panics and that whatever parses
// writes back to something that parses to the same value. Their seeds run
// in every go test.

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{
		cfg(`"unit":"us","scale_factor":10`), cfg(`"unit":"μs","scale_factor":1`),
		cfg(`"unit":"us","scale_factor":1.0`), `"numpy.datetime64"`, `{}`, `null`,
		tdJSON + `{"unit":"generic","scale_factor":2147483647}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseJSON(b)
		if err != nil {
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("ParseJSON(%q) = %+v, invalid: %v", b, d, err)
		}
		out, err := d.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if back, err := ParseJSON(out); err != nil || back != d {
			t.Fatalf("%q -> %s -> %+v, %v", b, out, back, err)
		}
	})
}

func FuzzParseNumPy(f *testing.F) {
	for _, s := range []string{"<M8[10us]", ">m8[ns]", "M8", "M8[s/4]", "M8[W/2]", "M8[2generic]", "M8[μs]", "m8[0s]", "M8[+1s]", "datetime64[25h]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, order, err := ParseNumPy(s)
		if err != nil {
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("ParseNumPy(%q) = %+v, invalid: %v", s, d, err)
		}
		if order != binary.LittleEndian && order != binary.BigEndian {
			t.Fatalf("ParseNumPy(%q) order %v", s, order)
		}
		out := d.NumPy(order)
		if back, o, err := ParseNumPy(out); err != nil || back != d || o != order {
			t.Fatalf("%q -> %q -> %+v %v %v", s, out, back, o, err)
		}
	})
}

func FuzzParseFillValue(f *testing.F) {
	for _, s := range []string{"0", `"NaT"`, "-9223372036854775808", "1.0", "null", `"nat"`, "9223372036854775808"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ParseFillValue(b)
		v2, isNull, err2 := ParseFillValueV2(b)
		if err == nil && (err2 != nil || v2 != v || isNull) {
			t.Fatalf("%q: v3 %d, v2 %d %v %v", b, v, v2, isNull, err2)
		}
		if err != nil {
			return
		}
		if back, err := ParseFillValue(FormatFillValue(v)); err != nil || back != v {
			t.Fatalf("%q -> %d -> %s -> %d, %v", b, v, FormatFillValue(v), back, err)
		}
	})
}

func FuzzSafetyAndFactor(f *testing.F) {
	f.Add(uint8(1), uint8(8), int64(10), uint8(1), uint8(9), int64(1))
	f.Add(uint8(2), uint8(0), int64(2147483647), uint8(2), uint8(6), int64(1))
	f.Add(uint8(2), uint8(13), int64(1000), uint8(2), uint8(12), int64(1))
	f.Fuzz(func(t *testing.T, k1, u1 uint8, s1 int64, k2, u2 uint8, s2 int64) {
		from := DataType{Kind: Kind(k1), Unit: Unit(u1), Scale: s1}
		to := DataType{Kind: Kind(k2), Unit: Unit(u2), Scale: s2}
		c := Safety(from, to, binary.LittleEndian, binary.BigEndian)
		if c > CastUnsafe {
			t.Fatalf("Safety = %d", c)
		}
		valid := from.Validate() == nil && to.Validate() == nil
		if _, _, err := NumPyFactor(from, to); err == nil && !valid {
			t.Fatalf("NumPyFactor accepted invalid %+v %+v", from, to)
		}
		if conv, err := NewConversion(from, to); err == nil && conv.Safety() > CastUnsafe {
			t.Fatal("Conversion.Safety")
		}
	})
}
