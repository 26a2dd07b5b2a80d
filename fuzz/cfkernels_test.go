package fuzz

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/internal/impl"
	"github.com/zarr-dt64/dt64/kernels"
)

// gridFloats is a seed of float64 values on whole hours (as days), a
// NaN, and values next to them: floats the CF fast check decides, and
// their neighbours, which it leaves to the exact rule.
func gridFloats() []byte {
	var b []byte
	for i, f := range []float64{1.0 / 24, 0.5, 36524.25, -1.0 / 3, math.NaN(), math.Nextafter(1.0/24, 1), 19.0 / 24, 0, 1e300} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f+float64(i%2)*7))
	}
	return b
}

// FuzzCFKernels decodes arbitrary stored bytes with arbitrary CF
// attributes through kernels.CFDecoder, on every implementation, at a byte
// offset, out of place and in place, and compares with cf.Decoder element
// by element: the same values, the same Stats, the same failing element.
func FuzzCFKernels(f *testing.F) {
	for _, a := range []string{
		`{"units": "hours since 1900-01-01"}`,
		`{"units": "hours since 1900-01-01", "_FillValue": -1}`,
		`{"units": "days since 1800-01-01", "_FillValue": "NaN"}`,
		`{"units": "nanoseconds since 2020-01-01 00:00:00.123456789"}`,
		`{"units": "seconds since 2000-01-01 12:00:00+01:00", "scale_factor": 0.25, "add_offset": 3}`,
		`{"units": "days since 1500-01-01", "calendar": "standard", "missing_value": [0, 7]}`,
	} {
		f.Add([]byte(a), uint8(1), []byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"), uint8(0))
		f.Add([]byte(a), uint8(5), []byte("\xff\xff\xff\xff\xff\xff\xef\x7f\x00\x00\x00\x00\x00\x00\xf8\x7f\x00\x00\x00\x00\x00\x00\xe0\x3f"), uint8(7))
		f.Add([]byte(a), uint8(5), gridFloats(), uint8(0)) // hourly float64 days: the fast check decides them
	}
	stored := []cf.Stored{{Kind: cf.StoredInt, Size: 1}, {Kind: cf.StoredInt, Size: 8}, {Kind: cf.StoredUint, Size: 2},
		{Kind: cf.StoredUint, Size: 8}, {Kind: cf.StoredFloat, Size: 4}, {Kind: cf.StoredFloat, Size: 8},
		{Kind: cf.StoredInt, Size: 4}}
	units := []dtype.Unit{dtype.Nanosecond, dtype.Microsecond, dtype.Second, dtype.Day}
	policies := []dtype.OverflowPolicy{dtype.OverflowError, dtype.OverflowNaT, dtype.OverflowClamp}
	f.Fuzz(func(t *testing.T, attrs []byte, kind uint8, data []byte, sel uint8) {
		st := stored[int(kind)%len(stored)]
		tm, err := cf.ParseAttributes(json.RawMessage(attrs), st)
		if err != nil || tm == nil {
			return
		}
		to := dtype.DataType{Kind: dtype.Datetime, Unit: units[int(sel)%len(units)], Scale: 1}
		pol := policies[int(sel/4)%len(policies)]
		order := binary.ByteOrder(binary.LittleEndian)
		if sel&0x10 != 0 {
			order = binary.BigEndian
		}
		off := int(sel>>5) % 8
		// The reference decodes every float on exact rationals, not by the
		// fast check the kernels share with cf.Decoder.
		ref, err := cf.NewDecoderWith(tm, to, cf.DecoderOptions{Overflow: pol, Reference: true})
		if err != nil {
			return
		}
		n := len(data) / st.Size
		raw := data[:n*st.Size]
		want := make([]int64, n)
		wst, werr := ref.Decode(want, raw, order)
		var wfail *dtype.ElementError
		if werr != nil && !errors.As(werr, &wfail) {
			t.Fatal(werr)
		}
		d, err := kernels.NewCFDecoder(tm, to, kernels.Options{Overflow: pol, From: order, To: binary.LittleEndian})
		if err != nil {
			t.Fatal(err)
		}
		defer impl.Reset("kernels")
		for _, name := range impl.Names("kernels") {
			impl.Select("kernels", name)
			for _, inPlace := range []bool{false, true} {
				buf := make([]byte, off+8*n)
				src := buf[off : off+len(raw)]
				copy(src, raw)
				dst := make([]byte, off+8*n)[off:]
				if inPlace {
					dst = buf[off:]
				}
				got, err := d.Run(dst, src, nil)
				upto := n
				if wfail != nil {
					var ee *dtype.ElementError
					if !errors.As(err, &ee) || ee.Index != wfail.Index || ee.Reason != dtype.ReasonOverflow {
						t.Fatalf("%s %s %s impl=%s in place %v: error %v, want an overflow at %d", attrs, st, to, name, inPlace, err, wfail.Index)
					}
					upto = wfail.Index
				} else if err != nil {
					t.Fatalf("%s %s %s impl=%s: %v", attrs, st, to, name, err)
				} else if got.NaT != wst.NaT || got.Lossy != wst.Lossy || got.Overflowed != wst.Overflowed || got.Elements != n || got.Valid != n-wst.NaT {
					t.Fatalf("%s %s %s impl=%s in place %v: stats %+v, cf %+v", attrs, st, to, name, inPlace, got, wst)
				}
				for i := range upto {
					if v := int64(binary.LittleEndian.Uint64(dst[8*i:])); v != want[i] {
						t.Fatalf("%s %s %s impl=%s in place %v: element %d = %d, cf %d", attrs, st, to, name, inPlace, i, v, want[i])
					}
				}
			}
		}
	})
}
