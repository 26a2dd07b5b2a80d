package fuzz

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"testing"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
)

// FuzzCFDecode parses arbitrary CF attributes for every stored type and,
// when they describe a time, decodes an arbitrary element: never a panic,
// errors are *cf.AttributeError values, and the decoder (int128 fast
// path or math/big) equals floor((v × A + B) / C) computed with math/big.
func FuzzCFDecode(f *testing.F) {
	for _, a := range []string{
		`{"units": "hours since 1900-01-01"}`,
		`{"units": "days since 2019-12-31T23:59:59.5", "calendar": "proleptic_gregorian", "_FillValue": -999}`,
		`{"units": "seconds since 2000-01-01 12:00:00+01:00", "scale_factor": 0.001, "add_offset": [5]}`,
		`{"units": "days since 1500-01-01", "calendar": "standard", "missing_value": ["NaN", 1e20]}`,
		`{"units": "days since 2000-01-01", "calendar": "noleap"}`,
		`{"units": "m/s"}`,
	} {
		f.Add([]byte(a), uint8(0), uint64(1), uint8(0))
		f.Add([]byte(a), uint8(5), math.Float64bits(0.5), uint8(3))
	}
	stored := []cf.Stored{{Kind: cf.StoredInt, Size: 1}, {Kind: cf.StoredInt, Size: 8}, {Kind: cf.StoredUint, Size: 2},
		{Kind: cf.StoredUint, Size: 8}, {Kind: cf.StoredFloat, Size: 4}, {Kind: cf.StoredFloat, Size: 8}}
	units := []dtype.Unit{dtype.Nanosecond, dtype.Microsecond, dtype.Second, dtype.Day, dtype.Attosecond}
	f.Fuzz(func(t *testing.T, attrs []byte, kind uint8, v uint64, unit uint8) {
		st := stored[int(kind)%len(stored)]
		tm, err := cf.ParseAttributes(json.RawMessage(attrs), st)
		if err != nil {
			var ae *cf.AttributeError
			if !errors.As(err, &ae) || ae.Attribute == "" || ae.Error() == "" {
				t.Fatalf("%v is not a *cf.AttributeError", err)
			}
			return
		}
		if tm == nil {
			return
		}
		to := dtype.DataType{Kind: dtype.Datetime, Unit: units[int(unit)%len(units)], Scale: 1}
		// The exact rule is checked against the exact floor below; the
		// default rule (shortest) against its own reference path, which
		// decides every float on exact rationals.
		d, err := cf.NewDecoderWith(tm, to, cf.DecoderOptions{Overflow: dtype.OverflowClamp, Float: cf.FloatExact})
		if err != nil {
			return // a reference too far for big arithmetic to plan is an error, not a panic
		}
		fast, err := cf.NewDecoder(tm, to, dtype.OverflowClamp)
		if err != nil {
			t.Fatalf("the exact rule plans, the shortest one fails: %v", err)
		}
		ref, err := cf.NewDecoderWith(tm, to, cf.DecoderOptions{Overflow: dtype.OverflowClamp, Reference: true})
		if err != nil {
			t.Fatal(err)
		}
		raw := make([]byte, st.Size)
		var x *big.Rat
		switch {
		case st.Size == 1:
			raw[0] = byte(v)
		case st.Size == 2:
			binary.LittleEndian.PutUint16(raw, uint16(v))
		case st.Size == 4:
			binary.LittleEndian.PutUint32(raw, uint32(v))
		default:
			binary.LittleEndian.PutUint64(raw, v)
		}
		switch st.Kind {
		case cf.StoredInt:
			shift := 64 - 8*st.Size
			x = new(big.Rat).SetInt64(int64(v<<shift) >> shift)
		case cf.StoredUint:
			x = new(big.Rat).SetInt(new(big.Int).SetUint64(v & (math.MaxUint64 >> (64 - 8*st.Size))))
		default:
			fv := math.Float64frombits(v)
			if st.Size == 4 {
				fv = float64(math.Float32frombits(uint32(v)))
			}
			if !math.IsNaN(fv) && !math.IsInf(fv, 0) {
				x = new(big.Rat).SetFloat64(fv)
			}
		}
		out := make([]int64, 1)
		gf, gr := make([]int64, 1), make([]int64, 1)
		sf, errF := fast.Decode(gf, raw, binary.LittleEndian)
		sr, errR := ref.Decode(gr, raw, binary.LittleEndian)
		if errF != nil || errR != nil || gf[0] != gr[0] || sf != sr {
			t.Fatalf("%s %s %d → %s: shortest rule %d %+v %v, its reference %d %+v %v", attrs, st, v, to, gf[0], sf, errF, gr[0], sr, errR)
		}
		stats, err := d.Decode(out, raw, binary.LittleEndian)
		if err != nil {
			t.Fatal(err)
		}
		if x == nil || out[0] == dtype.NaT && stats.NaT == 1 {
			return // NaN, ±Inf (clamped) or a missing value
		}
		aff := d.Affine()
		n := new(big.Int).Mul(x.Num(), aff.A)
		n.Add(n, new(big.Int).Mul(x.Denom(), aff.B))
		q := new(big.Int).Div(n, new(big.Int).Mul(x.Denom(), aff.C))
		want := q
		if q.Cmp(big.NewInt(math.MaxInt64)) > 0 {
			want = big.NewInt(math.MaxInt64)
		} else if q.Cmp(big.NewInt(math.MinInt64+1)) < 0 {
			want = big.NewInt(math.MinInt64 + 1)
		}
		if out[0] != want.Int64() {
			t.Fatalf("%s %s %d → %s: got %d, exact %s", attrs, st, v, to, out[0], q)
		}
	})
}
