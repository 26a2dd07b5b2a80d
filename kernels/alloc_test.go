package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
)

// "Nothing allocates per call", proven: every entry point, on every
// implementation, aligned and misaligned, in place, with and without the
// validity bitmap and statistics, in exact mode. The inputs convert without
// error (an error value may allocate).

// allocElements spans several 64 KiB blocks and 4 KiB staging buffers, with
// a tail; -short (qemu) takes two blocks.
func allocElements() int {
	if testing.Short() {
		return blockWords + 5
	}
	return 3*blockWords + 5
}

func requireNoAllocs(t *testing.T, what string, f func()) {
	t.Helper()
	if n := testing.AllocsPerRun(5, f); n != 0 {
		t.Errorf("%s: %v allocations per call, want 0", what, n)
	}
}

// allocBuffers returns an 8-byte aligned buffer of n bytes and one at byte
// offset 3.
func allocBuffers(n int) (aligned, misaligned []byte) {
	w := make([]uint64, n/8+1)
	b := int64Bytes(make([]int64, len(w)))
	return b[:n], b[3 : 3+n]
}

func TestPrimitivesDoNotAllocate(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	vals := make([]int64, allocElements())
	for i := range vals {
		vals[i] = int64(r.Uint64())
		if i%13 == 0 {
			vals[i] = math.MinInt64
		}
	}
	n := 8 * len(vals)
	forEachImpl(t, func(t *testing.T) {
		src, srcOdd := allocBuffers(n)
		dst, dstOdd := allocBuffers(n)
		copy(src, encode(binary.LittleEndian, vals, 0))
		copy(srcOdd, src)
		bitmap := make([]byte, (len(vals)+7)/8)
		native := append([]int64(nil), vals...)
		nativeOut := make([]int64, len(vals))
		for _, order := range []binary.ByteOrder{nil, binary.LittleEndian, binary.BigEndian} {
			for _, c := range []struct {
				name     string
				src, dst []byte
			}{{"aligned", src, dst}, {"misaligned", srcOdd, dstOdd}, {"in place", src, src}, {"in place misaligned", srcOdd, srcOdd}} {
				where := fmt.Sprintf("%s %v", c.name, order)
				requireNoAllocs(t, "ByteSwap "+where, func() { _ = ByteSwap(c.dst, c.src) })
				requireNoAllocs(t, "CountNaT "+where, func() { _, _ = CountNaT(c.src, order) })
				requireNoAllocs(t, "Validity "+where, func() { _, _ = Validity(bitmap, c.src, order) })
				requireNoAllocs(t, "ApplyValidity "+where, func() { _, _ = ApplyValidity(c.dst, bitmap, order) })
				requireNoAllocs(t, "MinMax "+where, func() { _, _, _, _ = MinMax(c.src, order) })
			}
		}
		requireNoAllocs(t, "ByteSwapInt64", func() { _ = ByteSwapInt64(nativeOut, native) })
		requireNoAllocs(t, "ByteSwapInt64 in place", func() { _ = ByteSwapInt64(nativeOut, nativeOut) })
		requireNoAllocs(t, "CountNaTInt64", func() { _ = CountNaTInt64(native) })
		requireNoAllocs(t, "ValidityInt64", func() { _, _ = ValidityInt64(bitmap, native) })
		requireNoAllocs(t, "ApplyValidityInt64", func() { _, _ = ApplyValidityInt64(nativeOut, bitmap) })
		requireNoAllocs(t, "MinMaxInt64", func() { _, _, _ = MinMaxInt64(native) })
		for _, c := range []struct {
			name     string
			src, dst []byte
		}{{"aligned", src, dst}, {"misaligned", srcOdd, dstOdd}} {
			requireNoAllocs(t, "Shuffle8 "+c.name, func() { _ = Shuffle8(c.dst, c.src) })
			requireNoAllocs(t, "Unshuffle8 "+c.name, func() { _ = Unshuffle8(c.dst, c.src) })
		}
	})
}

func TestTranscoderDoesNotAllocate(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	forEachImpl(t, func(t *testing.T) {
		for _, base := range fusedConversions(t) {
			for _, o := range []Options{
				{Overflow: dtype.OverflowNaT},
				{Overflow: dtype.OverflowClamp, Stats: true, From: binary.BigEndian},
				{Overflow: dtype.OverflowNaT, Exact: true, To: binary.BigEndian},
				{Overflow: dtype.OverflowClamp, Exact: true, Stats: true, From: binary.BigEndian, To: binary.BigEndian},
			} {
				tr := mustTr(t, base.conv, o)
				vals := make([]int64, allocElements())
				for i := range vals {
					switch {
					case i%11 == 0:
						vals[i] = math.MinInt64
					case o.Exact:
						vals[i] = 0 // lossless in every conversion: exact mode must not fail
					default:
						vals[i] = r.Int64N(1<<40) - 1<<39
					}
				}
				n := 8 * len(vals)
				src, srcOdd := allocBuffers(n)
				dst, dstOdd := allocBuffers(n)
				enc := encode(fusedOrder(o.From), vals, 0)
				bitmap := make([]byte, (len(vals)+7)/8)
				out := make([]int64, len(vals))
				work := make([]int64, len(vals))
				for _, vb := range [][]byte{nil, bitmap} {
					where := fmt.Sprintf("%s %+v validity %v", tr, o, vb != nil)
					run := func(name string, d, s []byte) {
						t.Helper()
						requireNoAllocs(t, "Run "+name+" "+where, func() {
							copy(s, enc) // in place overwrites the source
							if _, err := tr.Run(d, s, vb); err != nil {
								t.Fatal(err)
							}
						})
					}
					run("aligned", dst, src)
					run("misaligned", dstOdd, srcOdd)
					run("source misaligned", dst, srcOdd)
					run("in place", src, src)
					run("in place misaligned", srcOdd, srcOdd)
					requireNoAllocs(t, "RunInt64 "+where, func() {
						if _, err := tr.RunInt64(out, vals, vb); err != nil {
							t.Fatal(err)
						}
					})
					requireNoAllocs(t, "RunInt64 in place "+where, func() {
						copy(work, vals)
						if _, err := tr.RunInt64(work, work, vb); err != nil {
							t.Fatal(err)
						}
					})
				}
				requireNoAllocs(t, fmt.Sprintf("Convert %s %+v", tr, o), func() {
					if _, err := tr.Convert(vals[1]); err != nil {
						t.Fatal(err)
					}
				})
			}
		}
	})
}

// TestStackBuffersStayOnTheStack: a caller's arrays must not escape through
// an entry point (a leaking parameter would move them to the heap on every
// call, which AllocsPerRun counts).
func TestStackBuffersStayOnTheStack(t *testing.T) {
	tr := mustTr(t, mustConv(t, dt(dtype.Datetime, dtype.Second, 1), dt(dtype.Datetime, dtype.Nanosecond, 1)), Options{Stats: true, Exact: true, From: binary.BigEndian})
	forEachImpl(t, func(t *testing.T) {
		requireNoAllocs(t, "primitives on stack arrays", func() {
			var src, dst [8*40 + 3]byte
			var bitmap [5]byte
			var native [40]int64
			_ = ByteSwap(dst[3:], src[3:])
			_ = ByteSwap(dst[:320], src[:320])
			_, _ = CountNaT(src[3:], nil)
			_, _ = Validity(bitmap[:], src[3:], nil)
			_, _ = ApplyValidity(dst[3:], bitmap[:], nil)
			_, _, _, _ = MinMax(src[3:], nil)
			_ = ByteSwapInt64(native[:], native[:])
			_ = CountNaTInt64(native[:])
			_, _ = ValidityInt64(bitmap[:], native[:])
			_, _ = ApplyValidityInt64(native[:], bitmap[:])
			_, _, _ = MinMaxInt64(native[:])
			_ = Shuffle8(dst[3:], src[3:])
			_ = Unshuffle8(dst[3:], src[3:])
		})
		requireNoAllocs(t, "Transcoder on stack arrays", func() {
			var src, dst [8*40 + 3]byte
			var bitmap [5]byte
			var in, out [40]int64
			if _, err := tr.Run(dst[3:], src[3:], bitmap[:]); err != nil {
				t.Fatal(err)
			}
			if _, err := tr.Run(src[:320], src[:320], bitmap[:]); err != nil {
				t.Fatal(err)
			}
			if _, err := tr.RunInt64(out[:], in[:], bitmap[:]); err != nil {
				t.Fatal(err)
			}
		})
	})
}

func TestCFKernelsDoNotAllocate(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	forEachImpl(t, func(t *testing.T) {
		for _, c := range cfCases() {
			cc := compileCase(t, c)
			for _, o := range []Options{
				{Overflow: dtype.OverflowNaT},
				{Overflow: dtype.OverflowClamp, Stats: true, From: binary.BigEndian},
				{Overflow: dtype.OverflowNaT, Exact: true, To: binary.BigEndian},
			} {
				k := cc.kernel(t, o)
				n := allocElements()
				// Realistic values (math/big is the fallback for huge
				// floats only) and the missing values.
				words := make([]uint64, n)
				for i := range words {
					switch {
					case cc.t != nil && len(cc.t.Missing) > 0 && i%13 == 0:
						words[i] = cc.t.Missing[i%len(cc.t.Missing)]
					case cc.c.stored.Kind == cf.StoredFloat:
						words[i] = math.Float64bits(float64(r.IntN(4000)-2000) / 8)
					default:
						words[i] = uint64(r.IntN(100))
					}
				}
				z := cc.c.stored.Size
				enc := make([]byte, z*n)
				for i, w := range words {
					putElement(enc[z*i:], w, cc.c.stored, fusedOrder(o.From))
				}
				src, srcOdd := allocBuffers(8 * n)
				dst, dstOdd := allocBuffers(8 * n)
				bitmap := make([]byte, (n+7)/8)
				for _, vb := range [][]byte{nil, bitmap} {
					run := func(name string, d, s []byte) {
						t.Helper()
						copy(s, enc)
						if _, err := k.Run(d, s[:len(enc)], vb); err != nil {
							return // exact mode and a reference with a fraction: an error value may allocate
						}
						requireNoAllocs(t, fmt.Sprintf("%s %s %+v validity %v", k, name, o, vb != nil), func() {
							copy(s, enc)
							_, _ = k.Run(d, s[:len(enc)], vb)
						})
					}
					run("aligned", dst, src)
					run("misaligned", dstOdd, srcOdd)
					run("in place", src, src)
					run("in place misaligned", srcOdd, srcOdd)
				}
			}
		}
	})
}

// TestCFStackBuffersStayOnTheStack: CFDecoder.Run must not make a caller's
// arrays escape (narrow, float and integer sources, misaligned and in place).
func TestCFStackBuffersStayOnTheStack(t *testing.T) {
	var ks []*CFDecoder
	for _, a := range []struct {
		attrs  string
		stored cf.Stored
	}{
		{`{"units": "hours since 1900-01-01", "_FillValue": -1}`, i64},
		{`{"units": "days since 1800-01-01", "_FillValue": "NaN"}`, f64},
		{`{"units": "minutes since 2000-01-01T00:00:00.5"}`, i16},
	} {
		tm, err := cf.ParseAttributes([]byte(a.attrs), a.stored)
		if err != nil {
			t.Fatal(err)
		}
		k, err := NewCFDecoder(tm, ns, Options{Stats: true, From: binary.BigEndian})
		if err != nil {
			t.Fatal(err)
		}
		ks = append(ks, k)
	}
	forEachImpl(t, func(t *testing.T) {
		for _, k := range ks {
			requireNoAllocs(t, k.String()+" on stack arrays", func() {
				var src, dst [8*40 + 3]byte
				var bitmap [5]byte
				if _, err := k.Run(dst[3:], src[3:3+40*k.k.size], bitmap[:]); err != nil {
					t.Fatal(err)
				}
				if _, err := k.Run(src[:320], src[:40*k.k.size], bitmap[:]); err != nil {
					t.Fatal(err)
				}
			})
		}
	})
}
