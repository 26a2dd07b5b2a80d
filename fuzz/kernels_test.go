package fuzz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/internal/impl"
	"github.com/zarr-dt64/dt64/kernels"
)

// maxFuzzElements bounds the element count a fuzz input can ask for: enough
// to cross the kernels' 512-element staging buffer and 8192-element blocks
// several times, small enough to keep executions fast.
const maxFuzzElements = 20000

// specials are the values kernels treat differently: NaT, the int64 edges,
// the overflow bounds of common factors ±1, calendar edges.
var specials = func() []int64 {
	s := []int64{dtype.NaT, math.MinInt64 + 1, math.MinInt64 + 2, math.MaxInt64, math.MaxInt64 - 1,
		0, 1, -1, 2, -2, 7, -7, 59, -60, 86399, -86400, 146096, -146097, 719468, -719469,
		1 << 31, -(1 << 31), 1 << 32, 1<<53 + 1, -(1<<53 + 1)}
	for _, k := range []int64{12, 24, 60, 1000, 3600, 86400, 1e6, 1e9, 86400e9, 1e12, 1e15, 1e18} {
		b := math.MaxInt64 / k
		s = append(s, b, b+1, -b, -b-1, k, -k, k-1, -(k - 1), k+1, -(k + 1))
	}
	return s
}()

// valuesFrom turns fuzz bytes into n elements: a pattern of specials, small
// numbers (where remainders and calendar edges are) and raw 64-bit values,
// repeated to length n with a shift per repetition so blocks differ.
func valuesFrom(data []byte, n int) []int64 {
	var pat []int64
	for len(data) > 0 && len(pat) < 4096 {
		sel := data[0]
		data = data[1:]
		switch {
		case sel < 80:
			pat = append(pat, specials[int(sel)%len(specials)])
		case sel < 160 && len(data) >= 2:
			pat = append(pat, int64(int16(binary.LittleEndian.Uint16(data))))
			data = data[2:]
		case len(data) >= 8:
			pat = append(pat, int64(binary.LittleEndian.Uint64(data)))
			data = data[8:]
		default:
			pat = append(pat, int64(sel)-200)
		}
	}
	out := make([]int64, n)
	if len(pat) == 0 {
		return out
	}
	for i := range out {
		v := pat[i%len(pat)]
		if rep := int64(i / len(pat)); rep > 0 && v != dtype.NaT && v > -1<<40 && v < 1<<40 {
			v += rep // vary small values between repetitions
		}
		out[i] = v
	}
	return out
}

// orderOf picks a byte order from a bit: 0 little-endian, 1 big-endian.
func orderOf(bit uint8) binary.ByteOrder {
	if bit&1 == 0 {
		return binary.LittleEndian
	}
	return binary.BigEndian
}

// encodeAt returns the elements of vals in order, placed at byte offset off
// of a fresh allocation (so the slice has that misalignment).
func encodeAt(vals []int64, order binary.ByteOrder, off int) []byte {
	buf := make([]byte, len(vals)*8+off+8)
	b := buf[off : off+len(vals)*8]
	for i, v := range vals {
		order.PutUint64(b[i*8:], uint64(v))
	}
	return b
}

// bufAt returns n zero bytes at byte offset off of a fresh allocation,
// filled with a marker so that unwritten bytes show.
func bufAt(n, off int, fill byte) []byte {
	buf := make([]byte, n+off+8)
	for i := range buf {
		buf[i] = fill
	}
	return buf[off : off+n : off+n]
}

// forEachImpl runs f for every kernels implementation this CPU has,
// "generic" first, with that implementation selected.
func forEachImpl(t testing.TB, f func(name string)) {
	t.Helper()
	defer impl.Reset("kernels")
	for _, name := range impl.Names("kernels") {
		if !impl.Select("kernels", name) {
			t.Fatalf("impl.Select(kernels, %q) failed", name)
		}
		f(name)
	}
}

// primitiveResults is everything the standalone kernels return for one input.
type primitiveResults struct {
	swapped, swappedInPlace []byte
	nat                     int
	bitmap                  []byte
	validityNaT             int
	applied                 []byte
	appliedSet              int
	lo, hi                  int64
	valid                   int
	swapped64               []int64
	nat64                   int
	bitmap64                []byte
	validityNaT64           int
	applied64               []int64
	appliedSet64, valid64   int
	lo64, hi64              int64
	errs                    []string
}

func (r *primitiveResults) check(what string, err error) {
	if err != nil {
		r.errs = append(r.errs, what+": "+err.Error())
	}
}

func runPrimitives(vals []int64, order binary.ByteOrder, srcOff, dstOff int, mask []byte) primitiveResults {
	var r primitiveResults
	n := len(vals)
	src := encodeAt(vals, order, srcOff)
	nb := (n + 7) / 8

	r.swapped = bufAt(n*8, dstOff, 0xa5)
	r.check("ByteSwap", kernels.ByteSwap(r.swapped, src))
	r.swappedInPlace = encodeAt(vals, order, dstOff)
	r.check("ByteSwap in place", kernels.ByteSwap(r.swappedInPlace, r.swappedInPlace))

	var err error
	r.nat, err = kernels.CountNaT(src, order)
	r.check("CountNaT", err)

	// Two spare bytes after the bitmap: Validity must not touch them.
	r.bitmap = bufAt(nb+2, dstOff, 0xa5)
	r.validityNaT, err = kernels.Validity(r.bitmap[:nb], src, order)
	r.check("Validity", err)

	r.applied = encodeAt(vals, order, dstOff)
	r.appliedSet, err = kernels.ApplyValidity(r.applied, mask[:nb], order)
	r.check("ApplyValidity", err)

	r.lo, r.hi, r.valid, err = kernels.MinMax(src, order)
	r.check("MinMax", err)

	r.swapped64 = make([]int64, n)
	r.check("ByteSwapInt64", kernels.ByteSwapInt64(r.swapped64, vals))
	r.nat64 = kernels.CountNaTInt64(vals)
	r.bitmap64 = bytes.Repeat([]byte{0x5a}, nb+2)
	r.validityNaT64, err = kernels.ValidityInt64(r.bitmap64[:nb], vals)
	r.check("ValidityInt64", err)
	r.applied64 = append([]int64(nil), vals...)
	r.appliedSet64, err = kernels.ApplyValidityInt64(r.applied64, mask[:nb])
	r.check("ApplyValidityInt64", err)
	r.lo64, r.hi64, r.valid64 = kernels.MinMaxInt64(vals)
	return r
}

// referencePrimitives computes what runPrimitives must find, with plain loops.
func referencePrimitives(t *testing.T, r primitiveResults, vals []int64, order binary.ByteOrder, mask []byte) {
	t.Helper()
	n := len(vals)
	nat, lo, hi := 0, int64(math.MaxInt64), int64(math.MinInt64)
	for i, v := range vals {
		if got := int64(order.Uint64(r.swapped[i*8:])); got != int64(swap64(uint64(v))) {
			t.Fatalf("ByteSwap element %d of %d: got %#x, want %#x", i, n, uint64(got), swap64(uint64(v)))
		}
		if v == dtype.NaT {
			nat++
			continue
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	if !bytes.Equal(r.swapped, r.swappedInPlace) {
		t.Fatalf("ByteSwap in place differs from out of place (n=%d)", n)
	}
	if r.nat != nat || r.validityNaT != nat || r.nat64 != nat || r.validityNaT64 != nat {
		t.Fatalf("NaT count %d: CountNaT %d, Validity %d, CountNaTInt64 %d, ValidityInt64 %d", nat, r.nat, r.validityNaT, r.nat64, r.validityNaT64)
	}
	if r.valid != n-nat || r.valid64 != n-nat || r.lo != lo || r.hi != hi || r.lo64 != lo || r.hi64 != hi {
		t.Fatalf("MinMax: got (%d %d %d), Int64 (%d %d %d), want (%d %d %d)", r.lo, r.hi, r.valid, r.lo64, r.hi64, r.valid64, lo, hi, n-nat)
	}
	nb := (n + 7) / 8
	want := make([]byte, nb)
	set := 0
	for i, v := range vals {
		if v != dtype.NaT {
			want[i/8] |= 1 << (i % 8)
		}
		if mask[i/8]>>(i%8)&1 == 0 {
			set++ // ApplyValidity counts every cleared bit, NaT or not
		}
	}
	if !bytes.Equal(r.bitmap[:nb], want) || !bytes.Equal(r.bitmap64[:nb], want) {
		t.Fatalf("Validity bitmap (n=%d):\n got %x\n i64 %x\nwant %x", n, r.bitmap[:nb], r.bitmap64[:nb], want)
	}
	if r.bitmap[nb] != 0xa5 || r.bitmap[nb+1] != 0xa5 || r.bitmap64[nb] != 0x5a || r.bitmap64[nb+1] != 0x5a {
		t.Fatalf("Validity wrote past the bitmap's %d bytes", nb)
	}
	for i, v := range vals {
		w := v
		if mask[i/8]>>(i%8)&1 == 0 {
			w = dtype.NaT
		}
		if got := int64(order.Uint64(r.applied[i*8:])); got != w || r.applied64[i] != w {
			t.Fatalf("ApplyValidity element %d: got %d / %d, want %d", i, got, r.applied64[i], w)
		}
	}
	if r.appliedSet != set || r.appliedSet64 != set {
		t.Fatalf("ApplyValidity set %d, ApplyValidityInt64 %d, want %d", r.appliedSet, r.appliedSet64, set)
	}
	if len(r.errs) > 0 {
		t.Fatalf("errors: %v", r.errs)
	}
}

func swap64(v uint64) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	return binary.BigEndian.Uint64(b[:])
}

// FuzzPrimitives runs ByteSwap, CountNaT, Validity, ApplyValidity and
// MinMax (byte and Int64 forms) under every implementation, at every
// alignment, against the generic implementation and a plain-loop reference.
func FuzzPrimitives(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, uint16(9), uint8(0), uint8(0xff))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 5}, uint16(8193), uint8(0x35), uint8(0x0f))
	f.Add([]byte{200, 1, 2, 3, 4, 5, 6, 7, 8, 100, 9, 9, 0}, uint16(1030), uint8(0x17), uint8(0xaa))
	f.Add([]byte{}, uint16(0), uint8(0x7), uint8(0))
	f.Add([]byte{3, 4, 0, 11}, uint16(17000), uint8(0x6e), uint8(0x81))
	f.Fuzz(func(t *testing.T, data []byte, n uint16, layout uint8, maskSeed uint8) {
		count := int(n) % maxFuzzElements
		vals := valuesFrom(data, count)
		order := orderOf(layout >> 6)
		srcOff, dstOff := int(layout&7), int(layout>>3&7)
		mask := make([]byte, (count+7)/8)
		for i := range mask {
			mask[i] = maskSeed ^ byte(i*37)
		}
		var want primitiveResults
		forEachImpl(t, func(name string) {
			got := runPrimitives(vals, order, srcOff, dstOff, mask)
			if name == "generic" {
				referencePrimitives(t, got, vals, order, mask)
				want = got
				return
			}
			if d := diffPrimitives(got, want); d != "" {
				t.Fatalf("impl %s differs from generic (n=%d, order %v, offsets %d/%d): %s", name, count, order, srcOff, dstOff, d)
			}
		})
	})
}

func diffPrimitives(a, b primitiveResults) string {
	switch {
	case !bytes.Equal(a.swapped, b.swapped) || !bytes.Equal(a.swappedInPlace, b.swappedInPlace):
		return "ByteSwap"
	case a.nat != b.nat || a.nat64 != b.nat64:
		return fmt.Sprintf("CountNaT %d/%d vs %d/%d", a.nat, a.nat64, b.nat, b.nat64)
	case !bytes.Equal(a.bitmap, b.bitmap) || a.validityNaT != b.validityNaT:
		return fmt.Sprintf("Validity %x (%d NaT) vs %x (%d NaT)", a.bitmap, a.validityNaT, b.bitmap, b.validityNaT)
	case !bytes.Equal(a.bitmap64, b.bitmap64) || a.validityNaT64 != b.validityNaT64:
		return "ValidityInt64"
	case !bytes.Equal(a.applied, b.applied) || a.appliedSet != b.appliedSet:
		return fmt.Sprintf("ApplyValidity (set %d vs %d)", a.appliedSet, b.appliedSet)
	case fmt.Sprint(a.applied64) != fmt.Sprint(b.applied64) || a.appliedSet64 != b.appliedSet64:
		return "ApplyValidityInt64"
	case a.lo != b.lo || a.hi != b.hi || a.valid != b.valid:
		return fmt.Sprintf("MinMax (%d %d %d) vs (%d %d %d)", a.lo, a.hi, a.valid, b.lo, b.hi, b.valid)
	case a.lo64 != b.lo64 || a.hi64 != b.hi64 || a.valid64 != b.valid64:
		return "MinMaxInt64"
	case fmt.Sprint(a.errs) != fmt.Sprint(b.errs):
		return fmt.Sprintf("errors %v vs %v", a.errs, b.errs)
	}
	return ""
}

// dataTypeFrom builds a valid data type from fuzz numbers: any unit
// (generic included), scale 1..MaxScale, biased towards small scales and
// the maximum.
func dataTypeFrom(kind dtype.Kind, unit uint8, scale uint32) dtype.DataType {
	u := dtype.Year + dtype.Unit(int(unit)%(dtype.NumUnits-int(dtype.Year)))
	var s int64
	switch scale >> 30 {
	case 0:
		s = int64(scale%1000) + 1
	case 1:
		s = dtype.MaxScale - int64(scale%3)
	default:
		s = int64(scale%dtype.MaxScale) + 1
	}
	return dtype.DataType{Kind: kind, Unit: u, Scale: s}
}

// transcodeResult is what one Run returns.
type transcodeResult struct {
	dst      []byte
	validity []byte
	stats    kernels.Stats
	err      error
}

// errKey identifies an error by kind, index and value, the parts callers use.
func errKey(err error) string {
	var ee *dtype.ElementError
	switch {
	case err == nil:
		return "nil"
	case errors.As(err, &ee):
		return fmt.Sprintf("%s at %d (value %d)", ee.Reason, ee.Index, ee.Value)
	}
	return "error: " + err.Error()
}

func errIndex(err error) int {
	var ee *dtype.ElementError
	if errors.As(err, &ee) {
		return ee.Index
	}
	return 0
}

// FuzzTranscoder runs Transcoder.Run with random conversions (calendar
// units, generic, extreme scales), byte orders, overflow policies, exact
// mode, statistics, alignments and in-place runs under every
// implementation, and compares each with the generic implementation, with
// RunInt64, and for linear conversions with an exact math/big reference.
func FuzzTranscoder(f *testing.F) {
	// units: low byte from, high byte to; flags: bit0-1 policy, bit2 exact,
	// bit3 stats, bit4 in place, bit5 timedelta, bit6 src order, bit7 dst order.
	f.Add([]byte{0, 1, 2, 3, 4, 5}, uint16(100), uint16(6|9<<8), uint32(1), uint32(1), uint8(0), uint8(0x12))
	f.Add([]byte{9, 10, 100, 1, 2}, uint16(9000), uint16(9|6<<8), uint32(7), uint32(3), uint8(0x4d), uint8(0x35))
	f.Add([]byte{1, 2, 3, 130, 0xff, 0x7f}, uint16(517), uint16(3|0<<8), uint32(1), uint32(1), uint8(0x81), uint8(0x01))
	f.Add([]byte{5, 6, 150, 1, 1}, uint16(64), uint16(1|9<<8), uint32(5), uint32(1000), uint8(0x02), uint8(0x26))
	f.Add([]byte{0, 3}, uint16(33), uint16(0|12<<8), uint32(1<<30), uint32(1), uint8(0x21), uint8(0))
	f.Add([]byte{7, 8, 9}, uint16(40), uint16(13|4<<8), uint32(2), uint32(1), uint8(0x08), uint8(0x77))
	f.Add([]byte{200, 1, 2, 3, 4, 5, 6, 7, 8}, uint16(1200), uint16(12|2<<8), uint32(2<<30|12345), uint32(999), uint8(0x16), uint8(0x5c))
	f.Fuzz(func(t *testing.T, data []byte, n uint16, units uint16, s1, s2 uint32, flags, layout uint8) {
		kind := dtype.Datetime
		if flags&0x20 != 0 {
			kind = dtype.Timedelta
		}
		from, to := dataTypeFrom(kind, uint8(units), s1), dataTypeFrom(kind, uint8(units>>8), s2)
		conv, err := dtype.NewConversion(from, to)
		if err != nil {
			if to.Unit != dtype.Generic || from.Unit == dtype.Generic {
				t.Fatalf("NewConversion(%v, %v): %v", from, to, err)
			}
			return
		}
		opts := kernels.Options{
			From: orderOf(flags >> 6), To: orderOf(flags >> 7),
			Overflow: dtype.OverflowPolicy(flags & 3 % 3), Exact: flags&4 != 0, Stats: flags&8 != 0,
		}
		tc, err := kernels.NewTranscoder(conv, opts)
		if err != nil {
			t.Fatalf("NewTranscoder(%v, %+v): %v", conv, opts, err)
		}
		count := int(n) % maxFuzzElements
		vals := valuesFrom(data, count)
		inPlace := flags&0x10 != 0
		srcOff, dstOff := int(layout&7), int(layout>>3&7)
		nb := (count + 7) / 8
		run := func() transcodeResult {
			src := encodeAt(vals, opts.From, srcOff)
			dst := src
			if !inPlace {
				dst = bufAt(len(src), dstOff, 0xa5)
			}
			var r transcodeResult
			r.validity = bufAt(nb+1, dstOff, 0xa5)
			r.stats, r.err = tc.Run(dst, src, r.validity[:nb])
			r.dst = dst
			return r
		}
		var want transcodeResult
		forEachImpl(t, func(name string) {
			got := run()
			if name == "generic" {
				want = got
				checkTranscodeReference(t, tc, vals, got)
				return
			}
			if d := diffTranscode(got, want); d != "" {
				t.Fatalf("impl %s differs from generic: %s: %s\n(n=%d, %+v, in place %v, offsets %d/%d)", name, tc, d, count, opts, inPlace, srcOff, dstOff)
			}
		})
	})
}

func diffTranscode(a, b transcodeResult) string {
	if errKey(a.err) != errKey(b.err) {
		return fmt.Sprintf("error %s vs %s", errKey(a.err), errKey(b.err))
	}
	if a.stats != b.stats {
		return fmt.Sprintf("stats %+v vs %+v", a.stats, b.stats)
	}
	n := len(a.dst) / 8
	if a.err != nil {
		n = errIndex(a.err) // the rest is unspecified
	}
	if !bytes.Equal(a.dst[:n*8], b.dst[:n*8]) {
		for i := 0; i < n; i++ {
			if !bytes.Equal(a.dst[i*8:i*8+8], b.dst[i*8:i*8+8]) {
				return fmt.Sprintf("element %d: %x vs %x", i, a.dst[i*8:i*8+8], b.dst[i*8:i*8+8])
			}
		}
	}
	for i := 0; i < n; i++ {
		if (a.validity[i/8]^b.validity[i/8])>>(i%8)&1 != 0 {
			return fmt.Sprintf("validity bit %d", i)
		}
	}
	if a.err == nil && !bytes.Equal(a.validity, b.validity) {
		return fmt.Sprintf("validity %x vs %x", a.validity, b.validity)
	}
	return ""
}

var (
	bigMin = big.NewInt(math.MinInt64 + 1)
	bigMax = big.NewInt(math.MaxInt64)
)

// checkTranscodeReference checks one generic run against RunInt64 and, for
// linear conversions, against floor(v*num/den) computed with math/big and
// the documented overflow, loss and statistics rules.
func checkTranscodeReference(t *testing.T, tc *kernels.Transcoder, vals []int64, r transcodeResult) {
	t.Helper()
	opts := tc.Options()
	n := len(vals)
	nb := (n + 7) / 8
	if r.validity[nb] != 0xa5 {
		t.Fatalf("%s: Run wrote past the %d-byte validity bitmap", tc, nb)
	}
	out := make([]int64, n)
	v64 := make([]byte, nb)
	st64, err64 := tc.RunInt64(out, vals, v64)
	if errKey(err64) != errKey(r.err) || st64 != r.stats {
		t.Fatalf("%s: Run gave %s %+v, RunInt64 %s %+v", tc, errKey(r.err), r.stats, errKey(err64), st64)
	}
	done := n
	if r.err != nil {
		done = errIndex(r.err)
		if done < 0 || done >= n {
			t.Fatalf("%s: error index %d outside [0, %d): %v", tc, done, n, r.err)
		}
		if msg := r.err.Error(); msg == "" {
			t.Fatalf("%s: empty error message", tc)
		}
	}
	for i := 0; i < done; i++ {
		got := int64(opts.To.Uint64(r.dst[i*8:]))
		if got != out[i] {
			t.Fatalf("%s: element %d (%d): Run %d, RunInt64 %d", tc, i, vals[i], got, out[i])
		}
		// On error the validity of the converted prefix is not written yet
		// (TestRegressionValidityBeforeError); checked only on success.
		if bit := r.validity[i/8] >> (i % 8) & 1; r.err == nil && (bit == 1) != (got != dtype.NaT) {
			t.Fatalf("%s: validity bit %d is %d for %d", tc, i, bit, got)
		}
	}
	conv := tc.Conversion()
	if conv.Path != dtype.PathLinear && conv.Path != dtype.PathCopy {
		return
	}
	num, den := conv.Factor()
	var st kernels.Stats
	st.Min, st.Max = math.MaxInt64, math.MinInt64
	var x, q, m big.Int
	for i, v := range vals {
		want := v
		if v != dtype.NaT {
			x.SetInt64(v)
			x.Mul(&x, num)
			q.DivMod(&x, den, &m) // Euclidean; den > 0, so this is floor division
			switch {
			case q.Cmp(bigMin) < 0 || q.Cmp(bigMax) > 0:
				switch opts.Overflow {
				case dtype.OverflowError:
					var oe *dtype.ElementError
					if !errors.As(r.err, &oe) || oe.Reason != dtype.ReasonOverflow || oe.Index != i || oe.Value != v {
						t.Fatalf("%s: element %d (%d) overflows to %s: got error %v", tc, i, v, &q, r.err)
					}
					return
				case dtype.OverflowNaT:
					want = dtype.NaT
				default:
					want = math.MaxInt64
					if q.Sign() < 0 {
						want = math.MinInt64 + 1
					}
				}
				st.Overflowed++
			default:
				want = q.Int64()
				if m.Sign() != 0 {
					if opts.Exact {
						var le *dtype.ElementError
						if !errors.As(r.err, &le) || le.Reason != dtype.ReasonLoss || le.Index != i || le.Value != v {
							t.Fatalf("%s: element %d (%d) is lossy (%s rem %s): got error %v", tc, i, v, &q, &m, r.err)
						}
						return
					}
					st.Lossy++
				}
			}
		}
		if r.err != nil && i >= done {
			t.Fatalf("%s: error %v at %d, but the reference converts element %d (%d) to %d", tc, r.err, done, i, v, want)
		}
		if got := int64(opts.To.Uint64(r.dst[i*8:])); got != want {
			t.Fatalf("%s: element %d: %d -> %d, want %d (factor %s/%s, policy %v)", tc, i, v, got, want, num, den, opts.Overflow)
		}
		st.Elements++
		if want == dtype.NaT {
			st.NaT++
		} else {
			st.Valid++
			st.Min, st.Max = min(st.Min, want), max(st.Max, want)
		}
	}
	if r.err != nil {
		t.Fatalf("%s: unexpected error %v", tc, r.err)
	}
	if !opts.Stats {
		st.Min, st.Max = 0, 0
	}
	if r.stats != st {
		t.Fatalf("%s: stats %+v, want %+v", tc, r.stats, st)
	}
}

// TestKernelImplementations makes sure the differential targets compare
// something: every implementation DT64_REQUIRE names (as make test sets it
// from the CPU flags) must be among those the targets run.
func TestKernelImplementations(t *testing.T) {
	names := impl.Names("kernels")
	t.Logf("kernels implementations: %v", names)
	for _, r := range strings.Split(os.Getenv("DT64_REQUIRE"), ",") {
		if r = strings.TrimSpace(r); r != "" && !slices.Contains(names, r) {
			t.Errorf("DT64_REQUIRE names %q, but the fuzz targets only run %v", r, names)
		}
	}
}

// FuzzShuffle checks Shuffle8 and Unshuffle8 (Blosc's byte shuffle) under
// every implementation, at every alignment and any length (a partial
// trailing element included), against the definition
// dst[j*n+i] = src[8*i+j] and against each other.
func FuzzShuffle(f *testing.F) {
	f.Add([]byte("0123456789abcdefghijklmnopqrstuvwxyz"), uint16(0), uint8(0))
	f.Add([]byte{1, 2, 3}, uint16(4099), uint8(0x2d))
	f.Add([]byte{0xff, 0, 0x80}, uint16(65535), uint8(0x3f))
	f.Fuzz(func(t *testing.T, data []byte, n uint16, layout uint8) {
		size := len(data) + int(n)%(8*maxFuzzElements)
		srcOff, dstOff := int(layout&7), int(layout>>3&7)
		src := bufAt(size, srcOff, 0)
		for i := range src {
			if len(data) > 0 {
				src[i] = data[i%len(data)] + byte(i/len(data))
			}
		}
		elems := size / 8
		var want []byte
		forEachImpl(t, func(name string) {
			sh := bufAt(size, dstOff, 0xa5)
			if err := kernels.Shuffle8(sh, src); err != nil {
				t.Fatalf("impl %s: Shuffle8 of %d bytes: %v", name, size, err)
			}
			back := bufAt(size, srcOff^1, 0x5a)
			if err := kernels.Unshuffle8(back, sh); err != nil {
				t.Fatalf("impl %s: Unshuffle8 of %d bytes: %v", name, size, err)
			}
			if !bytes.Equal(back, src) {
				t.Fatalf("impl %s: Unshuffle8(Shuffle8(x)) != x for %d bytes (offsets %d/%d)", name, size, srcOff, dstOff)
			}
			if name == "generic" {
				for i := 0; i < elems; i++ {
					for j := 0; j < 8; j++ {
						if sh[j*elems+i] != src[8*i+j] {
							t.Fatalf("Shuffle8: byte %d of element %d of %d: got %#x, want %#x", j, i, elems, sh[j*elems+i], src[8*i+j])
						}
					}
				}
				if !bytes.Equal(sh[8*elems:], src[8*elems:]) {
					t.Fatalf("Shuffle8 changed the %d trailing bytes", size-8*elems)
				}
				want = sh
				return
			}
			if !bytes.Equal(sh, want) {
				t.Fatalf("impl %s: Shuffle8 of %d bytes differs from generic (offsets %d/%d)", name, size, srcOff, dstOff)
			}
		})
	})
}
