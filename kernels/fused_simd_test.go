package kernels

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/internal/impl"
)

// Differential tests of the fused Transcoder, and through it of every
// rescale and calendar hook: each implementation this CPU can run against
// the generic one ("generic" selected: no hook does anything), over every
// length 0..4096, every pair of input and output byte offsets 0..7, NaT and
// every bound of the compiled op ±1 (edgeValues) at every lane, each byte
// order pair, in place, under every policy and in exact mode, with the
// validity bitmap and min/max. Where the generic loop stops and what the
// hook itself returns is checked per architecture (rescale_*_test.go,
// calendar_amd64_test.go); here the whole conversion must be identical.
//
// -short (the qemu runs) thins the lengths above 300 to every 7th and the
// lane positions to the first 40, each case still in every byte order.

// fusedConversions has one conversion for each op the Transcoder compiles,
// several for the ops with SIMD hooks.
func fusedConversions(t *testing.T) []*Transcoder {
	t.Helper()
	d := func(u dtype.Unit, s int64) dtype.DataType { return dt(dtype.Datetime, u, s) }
	td := func(u dtype.Unit, s int64) dtype.DataType { return dt(dtype.Timedelta, u, s) }
	pairs := [][2]dtype.DataType{
		{d(dtype.Second, 1), d(dtype.Nanosecond, 1)},      // multiply by 1e9
		{td(dtype.Day, 1), td(dtype.Hour, 1)},             // multiply by 24
		{d(dtype.Nanosecond, 1), d(dtype.Second, 1)},      // floor divide by 1e9
		{d(dtype.Nanosecond, 1), d(dtype.Microsecond, 1)}, // floor divide by 1e3: floorDivEst's base and fallback
		{td(dtype.Microsecond, 7), td(dtype.Second, 1)},   // floor divide by 1e6/7: multiply-divide
		{d(dtype.Second, 25), d(dtype.Second, 24)},        // multiply-divide 25/24
		{d(dtype.Hour, 25), d(dtype.Day, 1)},              // 25/24 as a floor divide after reduction
		{d(dtype.Nanosecond, 1), d(dtype.Month, 1)},       // to calendar
		{d(dtype.Second, 1), d(dtype.Year, 1)},            // to calendar
		{d(dtype.Millisecond, 1), d(dtype.Month, 3)},      // to calendar, scaled (generic on every CPU)
		{d(dtype.Month, 1), d(dtype.Nanosecond, 1)},       // from calendar
		{d(dtype.Year, 1), d(dtype.Second, 1)},            // from calendar
		{d(dtype.Month, 1), d(dtype.Day, 1)},              // from calendar
		{d(dtype.Year, 1), d(dtype.Month, 1)},             // calendar to calendar: linear
		{d(dtype.Nanosecond, 1), d(dtype.Nanosecond, 1)},  // copy / byte swap
		{td(dtype.Attosecond, 3), td(dtype.Week, 1000)},   // exact 128-bit path
		{td(dtype.Year, 1), td(dtype.Attosecond, 1)},      // every non-zero value overflows
	}
	var trs []*Transcoder
	ops := map[opKind]bool{}
	for _, p := range pairs {
		tr := mustTr(t, mustConv(t, p[0], p[1]), Options{})
		ops[tr.op] = true
		trs = append(trs, tr)
	}
	for op := opCopy; op <= opFromCalendar; op++ {
		if !ops[op] {
			t.Fatalf("no conversion compiles to %s", op)
		}
	}
	return trs
}

// fusedOptions are the option sets each conversion runs with: every policy,
// exact mode, statistics, each byte order pair.
func fusedOptions(i int) Options {
	o := orders[i%len(orders)]
	opts := []Options{
		{Overflow: dtype.OverflowNaT, Stats: true},
		{Overflow: dtype.OverflowClamp},
		{Overflow: dtype.OverflowError, Stats: true},
		{Overflow: dtype.OverflowClamp, Exact: true, Stats: true},
	}[i/len(orders)%4]
	opts.From, opts.To = o.from, o.to
	return opts
}

// fusedValues returns n source values the op's fast loops mostly convert
// (within ±200 years of 1970, which every unit down to ns holds), 3% NaT,
// 7% small values and, with edges, a rare bound value of the op ±1.
func fusedValues(r *rand.Rand, tr *Transcoder, n int, edges bool) []int64 {
	ev := fusedEdges(tr)
	from := tr.conv.From
	span := int64(1) << 61
	per := new(big.Int).Mul(attos(from.Unit), big.NewInt(from.Scale))
	if q := new(big.Int).Quo(new(big.Int).Mul(attos(dtype.Year), big.NewInt(200)), per); q.Cmp(big.NewInt(span)) < 0 {
		span = max(q.Int64(), 1)
	}
	vs := make([]int64, n)
	for i := range vs {
		switch x := r.IntN(1000); {
		case x < 30:
			vs[i] = math.MinInt64
		case x < 32 && edges:
			vs[i] = ev[r.IntN(len(ev))]
		case x < 100:
			vs[i] = int64(r.IntN(2001) - 1000)
		default:
			vs[i] = r.Int64N(2*span+1) - span
		}
	}
	return vs
}

// fusedEdges are edgeValues (the bounds each compiled loop tests) and the
// true overflow bounds ±1: the largest and the smallest source values whose
// exact result fits, found by bisection (the exact result is monotonic).
func fusedEdges(tr *Transcoder) []int64 {
	vs := edgeValues(tr)
	fits := func(v int64) bool { r, _ := tr.exact(v); return r.fitsValue() }
	for _, end := range []int64{math.MaxInt64, math.MinInt64 + 1} {
		if fits(end) {
			continue
		}
		in, out := int64(0), end // fits(in), !fits(out); same sign, so no difference overflows
		for in-out > 1 || out-in > 1 {
			mid := in/2 + out/2
			if fits(mid) {
				in = mid
			} else {
				out = mid
			}
		}
		for _, v := range []int64{in - 1, in, out, out + 1, out - 1, in + 1} {
			if v != math.MinInt64 {
				vs = append(vs, v)
			}
		}
	}
	return vs
}

// fusedResult is what one Run returned and wrote.
type fusedResult struct {
	out, validity []byte
	st            Stats
	err           error
}

// fusedRun runs tr under implementation name on the encoded src placed at
// byte offset inOff, into a destination at outOff (or in place), with a
// validity bitmap, and checks that nothing beyond the buffers was written.
func fusedRun(t *testing.T, name string, tr *Transcoder, src []byte, inOff, outOff int, inPlace bool) fusedResult {
	t.Helper()
	if !impl.Select("kernels", name) {
		t.Fatalf("impl.Select(kernels, %s) failed", name)
	}
	defer impl.Reset("kernels")
	const guard = 0xEE
	n := len(src)
	sbuf := fusedScratch(0, n+16, guard)
	s := sbuf[inOff : inOff+n : inOff+n]
	copy(s, src)
	d := s
	var dbuf []byte
	if !inPlace {
		dbuf = fusedScratch(1, n+16, guard)
		d = dbuf[outOff : outOff+n : outOff+n]
	}
	vlen := (n/8 + 7) / 8
	vbuf := fusedScratch(2, vlen+1, 0xA5)
	st, err := tr.Run(d, s, vbuf[:vlen])
	untouched := func(b []byte) bool { return bytes.Count(b, []byte{guard}) == len(b) }
	if !untouched(sbuf[:inOff]) || !untouched(sbuf[inOff+n:]) {
		t.Fatalf("%s impl=%s: a byte around the source was written", tr, name)
	}
	if !inPlace && (!untouched(dbuf[:outOff]) || !untouched(dbuf[outOff+n:])) {
		t.Fatalf("%s impl=%s: a byte around the destination was written", tr, name)
	}
	if vbuf[vlen] != 0xA5 {
		t.Fatalf("%s impl=%s: validity written past its %d bytes", tr, name, vlen)
	}
	return fusedResult{out: append([]byte(nil), d...), validity: append([]byte(nil), vbuf[:vlen]...), st: st, err: err}
}

var fusedBuffers [3][]byte

// fusedScratch returns scratch buffer i, n bytes all set to fill (reused
// across runs: allocating them dominated the tests' time).
func fusedScratch(i, n int, fill byte) []byte {
	if cap(fusedBuffers[i]) < n {
		fusedBuffers[i] = make([]byte, n)
	}
	b := fusedBuffers[i][:n]
	if n > 0 {
		b[0] = fill
		for k := 1; k < n; k *= 2 {
			copy(b[k:], b[:k])
		}
	}
	return b
}

// fusedCompare checks got against the generic result: the same error (or
// none), the same Stats, and the same output and validity for every element
// before the one that stopped the run (Run leaves the rest unspecified).
func fusedCompare(t *testing.T, where string, want, got fusedResult) {
	t.Helper()
	if !reflect.DeepEqual(got.err, want.err) {
		t.Fatalf("%s: error %v, generic %v", where, got.err, want.err)
	}
	if got.st != want.st {
		t.Fatalf("%s: stats %+v, generic %+v", where, got.st, want.st)
	}
	done := len(want.out) / 8
	if want.err != nil {
		done = failedIndex(want.err)
	}
	if !bytes.Equal(got.out[:8*done], want.out[:8*done]) {
		i := firstDiff(got.out, want.out) / 8
		t.Fatalf("%s: element %d = %x, generic %x", where, i, got.out[8*i:8*i+8], want.out[8*i:8*i+8])
	}
	for i := range done {
		if got.validity[i/8]>>(i%8)&1 != want.validity[i/8]>>(i%8)&1 {
			t.Fatalf("%s: validity bit %d differs from generic", where, i)
		}
	}
	if want.err == nil && !bytes.Equal(got.validity, want.validity) {
		t.Fatalf("%s: validity bitmap %x, generic %x (unused bits of the last byte must be cleared)", where, got.validity, want.validity)
	}
}

// fusedLengthConversions are the conversions TestFusedLengths runs: the
// first of each op with a platform hook on some architecture, the second
// calendar unit each way (Y and M take different SIMD constants) and the
// second floor divide (by 1e3, where floorDivEst needs a base near the
// data and falls back far from it; by 1e9 every int64 is in its range).
func fusedLengthConversions(t *testing.T) []*Transcoder {
	var trs []*Transcoder
	seen := map[opKind]int{}
	for _, tr := range fusedConversions(t) {
		switch tr.op {
		case opCopy, opMul, opMulDiv:
			if seen[tr.op] == 0 {
				trs = append(trs, tr)
			}
		case opDiv:
			if seen[tr.op] < 2 {
				trs = append(trs, tr)
			}
		case opToCalendar, opFromCalendar:
			if seen[tr.op] < 2 {
				trs = append(trs, tr)
			}
		}
		seen[tr.op]++
	}
	return trs
}

// simdNames are the implementations compared with generic.
func simdNames() []string { return impl.Names("kernels")[1:] }

// TestFusedLengths: every op with a hook at every length 0..4096 (and a few
// past the 64 KiB block) in each implementation, with the byte order pair,
// option set, offsets and in-place choice rotating with the length. The
// expected result of length n comes from each element converted alone
// (RunInt64 of one element, generic selected), so it costs no generic run
// of its own.
func TestFusedLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	names := impl.Names("kernels")
	const maxLen = 4096
	for ci, base := range fusedLengthConversions(t) {
		type prepared struct {
			tr   *Transcoder
			vals []int64
			ref  []fusedElement
			src  []byte
		}
		var sets []prepared
		for k := range 4 * len(orders) {
			tr := mustTr(t, base.conv, fusedOptions(k))
			// Edge values (some overflow) only where they do not stop
			// every run early: not under dtype.OverflowError.
			vals := fusedValues(r, tr, maxLen, tr.opts.Overflow != dtype.OverflowError)
			sets = append(sets, prepared{tr, vals, fusedReference(t, tr, vals), encode(tr.opts.From, vals, 0)})
		}
		for n := 0; n <= maxLen; n++ {
			if testing.Short() && n > 300 && (n+ci)%7 != 0 {
				continue
			}
			set := sets[(n+ci)%len(sets)]
			tr := set.tr
			inOff, outOff := 0, 0
			if n%5 == 0 { // also the staging path, at some offsets
				inOff, outOff = n%8, (n/8+3)%8
			}
			inPlace := n%3 == 0
			want := fusedPrefix(tr, set.ref, n)
			for _, name := range names {
				got := fusedRun(t, name, tr, set.src[:8*n], inOff, outOff, inPlace)
				fusedCompare(t, fmt.Sprintf("%s %+v n=%d impl=%s offsets %d/%d in place %v", tr, tr.opts, n, name, inOff, outOff, inPlace), want, got)
			}
		}
		for _, n := range []int{8191, 8192, 8193, 2*8192 + 9} {
			tr := mustTr(t, base.conv, fusedOptions(n+ci))
			src := encode(tr.opts.From, fusedValues(r, tr, n, true), 0)
			want := fusedRun(t, "generic", tr, src, 0, 0, false)
			for _, name := range names[1:] {
				got := fusedRun(t, name, tr, src, 0, 0, n%2 == 0)
				fusedCompare(t, fmt.Sprintf("%s %+v n=%d impl=%s", tr, tr.opts, n, name), want, got)
			}
		}
	}
}

// fusedElement is one element converted alone.
type fusedElement struct {
	out int64
	st  Stats
	err error
}

// fusedReference converts each of vals alone with the generic code.
func fusedReference(t *testing.T, tr *Transcoder, vals []int64) []fusedElement {
	t.Helper()
	impl.Select("kernels", "generic")
	defer impl.Reset("kernels")
	ref := make([]fusedElement, len(vals))
	for i, v := range vals {
		var out [1]int64
		st, err := tr.RunInt64(out[:], vals[i:i+1], nil)
		if err != nil && failedIndex(err) != 0 {
			t.Fatalf("%s: converting %d alone: error %v names element %d", tr, v, err, failedIndex(err))
		}
		ref[i] = fusedElement{out[0], st, err}
	}
	return ref
}

// fusedPrefix is what Run must return for the first n elements of ref:
// their outputs and validity, the sum of their Stats, or the first error.
func fusedPrefix(tr *Transcoder, ref []fusedElement, n int) fusedResult {
	res := fusedResult{out: make([]byte, 8*n), validity: make([]byte, (n+7)/8)}
	for i, e := range ref[:n] {
		if e.err != nil {
			res.err = fusedAt(e.err, i)
			break
		}
		res.st.Add(e.st)
		fusedOrder(tr.opts.To).PutUint64(res.out[8*i:], uint64(e.out))
		if e.out != math.MinInt64 {
			res.validity[i/8] |= 1 << (i % 8)
		}
	}
	if tr.opts.Stats && res.st.Valid == 0 {
		res.st.Min, res.st.Max = math.MaxInt64, math.MinInt64
	}
	return res
}

// fusedAt is the element error err of an element converted alone, moved to
// index i.
func fusedAt(err error, i int) error {
	if e, ok := err.(*dtype.ElementError); ok {
		c := *e
		c.Index = i
		return &c
	}
	return err
}

func fusedOrder(o binary.ByteOrder) binary.ByteOrder {
	if o == nil {
		return binary.NativeEndian
	}
	return o
}

// TestFusedOffsets: every pair of source and destination byte offsets
// 0..7, and in place at each offset, around the vector widths and the
// 4 KiB staging buffer, every implementation (generic included: the staging
// path is Go code) against generic on aligned buffers.
func TestFusedOffsets(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	lengths := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 511, 512, 513, 1025}
	if !testing.Short() {
		lengths = append(lengths, 4095, 4096, 4097)
	}
	names := impl.Names("kernels")
	for ci, base := range fusedConversions(t) {
		for li, n := range lengths {
			tr := mustTr(t, base.conv, fusedOptions(ci+li))
			src := encode(tr.opts.From, fusedValues(r, tr, n, li%2 == 0), 0)
			want := fusedRun(t, "generic", tr, src, 0, 0, false)
			for _, name := range names {
				for inOff := range 8 {
					for outOff := range 8 {
						got := fusedRun(t, name, tr, src, inOff, outOff, false)
						fusedCompare(t, fmt.Sprintf("%s %+v n=%d impl=%s offsets %d/%d", tr, tr.opts, n, name, inOff, outOff), want, got)
					}
					got := fusedRun(t, name, tr, src, inOff, inOff, true)
					fusedCompare(t, fmt.Sprintf("%s %+v n=%d impl=%s offset %d in place", tr, tr.opts, n, name, inOff), want, got)
				}
			}
		}
	}
}

// TestFusedEveryLane puts NaT, each bound of the compiled op ±1, the true
// overflow bounds ±1 and the int64 extremes at every position of 80 converted values (several
// unrolled vectors of every width, and a tail), under every option set.
func TestFusedEveryLane(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	const n = 80
	positions := n
	if testing.Short() {
		positions = 40
	}
	names := simdNames()
	if len(names) == 0 {
		t.Skip("no SIMD implementation on this CPU or build: nothing to compare with generic")
	}
	for ci, base := range fusedConversions(t) {
		vals := fusedValues(r, base, n, false)
		for i, v := range vals {
			if v == math.MinInt64 {
				vals[i] = 1
			}
		}
		for ei, e := range append(fusedEdges(base), math.MinInt64) {
			tr := mustTr(t, base.conv, fusedOptions(ci+ei))
			for pos := range positions {
				in := append([]int64(nil), vals...)
				in[pos] = e
				src := encode(tr.opts.From, in, 0)
				want := fusedRun(t, "generic", tr, src, 0, 0, false)
				for _, name := range names {
					got := fusedRun(t, name, tr, src, 0, 0, pos%2 == 1)
					fusedCompare(t, fmt.Sprintf("%s %+v value %d at %d impl=%s", tr, tr.opts, e, pos, name), want, got)
				}
			}
		}
	}
}

// TestFusedRunInt64 checks that RunInt64 on native slices agrees with Run in
// host byte order, for every implementation.
func TestFusedRunInt64(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 28))
	for ci, base := range fusedConversions(t) {
		opts := fusedOptions(ci * len(orders)) // host order on both sides: orders[0] is le-le
		opts.From, opts.To = nil, nil
		tr := mustTr(t, base.conv, opts)
		for _, n := range []int{0, 1, 9, 100, 1000, 8193} {
			in := fusedValues(r, tr, n, true)
			want := fusedRun(t, "generic", tr, encode(binary.NativeEndian, in, 0), 0, 0, false)
			forEachImpl(t, func(t *testing.T) {
				out := make([]int64, n)
				vb := make([]byte, len(want.validity))
				st, err := tr.RunInt64(out, in, vb)
				fusedCompare(t, fmt.Sprintf("%s RunInt64 n=%d", tr, n), want, fusedResult{out: encode(binary.NativeEndian, out, 0), validity: vb, st: st, err: err})
			})
		}
	}
}
