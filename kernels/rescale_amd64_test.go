//go:build !purego

package kernels

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/zarr-dt64/dt64/internal/impl"
)

// Differential tests of the generated rescale kernels (asm/rescale) through
// the hooks mulCheckSIMD, floorDivSIMD and mulDivSIMD, against the generic
// loops mulLoop, divLoop and mulDivLoop. The kernels convert whole vectors
// and stop before the vector holding an element they must not convert, so
// the expected n is exact: the generic loop's stop, rounded down to the
// vector width.

type rescaleImpl struct {
	name  string
	lanes int
}

func forEachRescaleImpl(t *testing.T, f func(t *testing.T, ri rescaleImpl)) {
	for _, ri := range []rescaleImpl{{"avx512", 8}, {"avx2", 4}} {
		t.Run(ri.name, func(t *testing.T) {
			if !impl.Select("kernels", ri.name) {
				t.Skipf("%s is not available on this CPU", ri.name)
			}
			defer impl.Reset("kernels")
			f(t, ri)
		})
	}
}

type rescaleOp uint8

const (
	rescaleMul rescaleOp = iota
	rescaleDiv
	rescaleMulDiv
)

// rescaleCase is one factor num/den compiled as the Transcoder compiles it.
type rescaleCase struct {
	op       rescaleOp
	num, den uint64
	p        linearParams
	vlo      int64   // the values the fast loop converts: vlo <= v <= vlo+vspan
	vspan    uint64  // (NaT aside)
	edgeVals []int64 // edges(), computed once
}

func newRescaleCase(t *testing.T, num, den uint64) rescaleCase {
	t.Helper()
	n, d := new(big.Int).SetUint64(num), new(big.Int).SetUint64(den)
	g := new(big.Int).GCD(nil, nil, n, d)
	n.Quo(n, g)
	d.Quo(d, g)
	op, p, ok := compileLinear(n, d)
	if !ok {
		t.Fatalf("compileLinear(%d/%d) failed", num, den)
	}
	c := rescaleCase{num: n.Uint64(), den: d.Uint64(), p: p}
	switch op {
	case opMul:
		c.op = rescaleMul
	case opDiv:
		c.op = rescaleDiv
	case opMulDiv:
		c.op = rescaleMulDiv
	default:
		t.Fatalf("%d/%d compiles to %s, not a rescale loop", num, den, op)
	}
	c.vlo, c.vspan = math.MinInt64, math.MaxUint64
	switch c.op {
	case rescaleMul:
		c.vlo, c.vspan = p.lo, uint64(p.hi)-uint64(p.lo)
	case rescaleMulDiv:
		// q in [qlo, qhi] means v in [qlo*d, qhi*d + d-1], clipped to int64.
		lo := new(big.Int).Mul(big.NewInt(p.qlo), d)
		hi := new(big.Int).Mul(big.NewInt(p.qhi), d)
		hi.Add(hi, new(big.Int).Sub(d, big.NewInt(1)))
		lo = rescaleBigMax(lo, big.NewInt(math.MinInt64+1))
		hi = rescaleBigMin(hi, big.NewInt(math.MaxInt64))
		c.vlo, c.vspan = lo.Int64(), uint64(hi.Int64())-uint64(lo.Int64())
	}
	c.edgeVals = c.edges()
	return c
}

func rescaleBigMax(a, b *big.Int) *big.Int {
	if a.Cmp(b) < 0 {
		return b
	}
	return a
}

func rescaleBigMin(a, b *big.Int) *big.Int {
	if a.Cmp(b) > 0 {
		return b
	}
	return a
}

func (c rescaleCase) String() string { return fmt.Sprintf("%d/%d", c.num, c.den) }

// run calls the hook and the generic loop on the same input and compares.
// inPlace runs the hook with dst == src.
func (c rescaleCase) check(t *testing.T, ri rescaleImpl, vals []int64, swapIn, swapOut, inPlace bool) {
	t.Helper()
	src := hookWords(vals, swapIn)
	dst, hookSrc := hookBuffers(src, inPlace)
	p := &c.p
	var n, nat, lossy int
	switch c.op {
	case rescaleMul:
		n, nat = mulCheckSIMD(dst, hookSrc, p.k, p.lo, p.hi, swapIn, swapOut)
	case rescaleDiv:
		n, nat, lossy = floorDivSIMD(dst, hookSrc, p.div.d, p.div.magic, p.div.shift, swapIn, swapOut)
	case rescaleMulDiv:
		n, nat, lossy = mulDivSIMD(dst, hookSrc, p.num, p.div.d, p.div.magic, p.div.shift, p.qlo, p.qhi, swapIn, swapOut)
	}

	// The generic loop over the whole input tells where it stops; over the
	// prefix the hook did, it gives the expected words and counts.
	stop := c.generic(make([]uint64, len(src)), src, swapIn, swapOut)
	wantN := stop / ri.lanes * ri.lanes
	if c.op == rescaleMulDiv && ri.name == "avx2" {
		wantN = 0 // no AVX2 multiply-divide kernel: the generic loop does it
	}
	where := fmt.Sprintf("%s %s len=%d swapIn=%v swapOut=%v inPlace=%v", ri.name, c, len(src), swapIn, swapOut, inPlace)
	if n != wantN {
		t.Fatalf("%s: n = %d, want %d (generic loop stops at %d)", where, n, wantN, stop)
	}
	want := make([]uint64, n)
	var wantNat, wantLossy int
	switch c.op {
	case rescaleMul:
		_, wantNat = mulLoop(want, src[:n], p, swapIn, swapOut)
	case rescaleDiv:
		_, wantNat, wantLossy = divLoop(want, src[:n], p, swapIn, swapOut)
	case rescaleMulDiv:
		_, wantNat, wantLossy = mulDivLoop(want, src[:n], p, swapIn, swapOut)
	}
	if nat != wantNat || lossy != wantLossy {
		t.Fatalf("%s: nat, lossy = %d, %d, want %d, %d", where, nat, lossy, wantNat, wantLossy)
	}
	for i := 0; i < n; i++ {
		if dst[i] != want[i] {
			t.Fatalf("%s: element %d (source %d): got %#x, want %#x", where, i, vals[i], dst[i], want[i])
		}
	}
	checkUntouched(t, where, dst, src, n, inPlace)
}

// generic returns where the generic loop stops on src.
func (c rescaleCase) generic(dst, src []uint64, swapIn, swapOut bool) int {
	var n int
	switch c.op {
	case rescaleMul:
		n, _ = mulLoop(dst, src, &c.p, swapIn, swapOut)
	case rescaleDiv:
		n, _, _ = divLoop(dst, src, &c.p, swapIn, swapOut)
	case rescaleMulDiv:
		n, _, _ = mulDivLoop(dst, src, &c.p, swapIn, swapOut)
	}
	return n
}

// edges returns the values where the case's behaviour changes: the
// accepted range's ends ±1, multiples of the divisor ±1, int64's ends.
func (c rescaleCase) edges() []int64 {
	vs := []int64{0, 1, -1, 2, -2, math.MaxInt64, math.MinInt64 + 1, math.MaxInt64 - 1, math.MinInt64 + 2}
	add := func(x *big.Int) {
		if x.IsInt64() {
			vs = append(vs, x.Int64())
		}
	}
	around := func(x *big.Int) {
		for _, dx := range []int64{-1, 0, 1} {
			add(new(big.Int).Add(x, big.NewInt(dx)))
		}
	}
	d := new(big.Int).SetUint64(c.den)
	switch c.op {
	case rescaleMul:
		around(big.NewInt(c.p.lo))
		around(big.NewInt(c.p.hi))
	case rescaleDiv:
		for _, m := range []int64{1, -1, 2, -2, 1000, -1000} {
			around(new(big.Int).Mul(d, big.NewInt(m)))
		}
	case rescaleMulDiv:
		// q = floor(v/d) at qlo-1, qlo, qhi, qhi+1: v from q*d to q*d+d-1.
		for _, q := range []int64{c.p.qlo - 1, c.p.qlo, c.p.qhi, c.p.qhi + 1, 1, -1} {
			base := new(big.Int).Mul(big.NewInt(q), d)
			around(base)
			around(new(big.Int).Add(base, new(big.Int).Sub(d, big.NewInt(1))))
		}
	}
	return vs
}

// inRange returns a random value the fast loop converts (or NaT).
func (c rescaleCase) inRange(r *rand.Rand) int64 {
	if c.vspan == math.MaxUint64 {
		return int64(r.Uint64())
	}
	return c.vlo + int64(r.Uint64N(c.vspan+1))
}

// data returns n values: mostly in range (random magnitudes), 2% NaT and,
// with bad, a few edge values (some out of range).
func (c rescaleCase) data(r *rand.Rand, n int, bad bool) []int64 {
	vals := make([]int64, n)
	edges := c.edgeVals
	for i := range vals {
		switch x := r.IntN(100); {
		case x < 2:
			vals[i] = math.MinInt64
		case x < 6 && bad:
			vals[i] = edges[r.IntN(len(edges))]
		case x < 30:
			v := c.inRange(r)
			if v != math.MinInt64 {
				v >>= r.UintN(63)
			}
			vals[i] = v
		default:
			vals[i] = c.inRange(r)
		}
	}
	return vals
}

func rescaleCases(t *testing.T) []rescaleCase {
	var cs []rescaleCase
	for _, k := range []uint64{2, 3, 7, 10, 1000, 1e6, 1e9, 3600e9, 86400e9, 1 << 20, 1 << 32, 1<<32 + 1, 1 << 62, 1<<62 + 1} {
		cs = append(cs, newRescaleCase(t, k, 1))
	}
	divisors := []uint64{2, 3, 7, 10, 1000, 1e6, 1e9, 3600e9, 86400e9, 1<<62 + 1, 1<<63 - 1, 1 << 63, 1<<63 + 1, math.MaxUint64}
	for s := 2; s < 64; s += 3 {
		divisors = append(divisors, 1<<s)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 12 {
		divisors = append(divisors, r.Uint64()>>r.UintN(62)|2)
	}
	for _, d := range divisors {
		cs = append(cs, newRescaleCase(t, 1, d))
	}
	// Multiply-divide: num*den < 2^63 after reduction.
	for _, f := range [][2]uint64{{25, 24}, {24, 25}, {7, 3}, {3, 7}, {1000, 3}, {3, 1000}, {86400, 7}, {7, 86400e9},
		{1e9 + 7, 1e9 - 1}, {1 << 20, (1 << 40) + 1}, {(1 << 31) - 1, 1<<31 + 1}, {3, 1<<61 - 1}, {1<<61 - 1, 3}} {
		cs = append(cs, newRescaleCase(t, f[0], f[1]))
	}
	for range 12 {
		bits := 3 + r.UintN(58)
		num := r.Uint64N(1<<bits) | 2
		den := r.Uint64N(1<<(62-bits)) | 3
		if new(big.Int).GCD(nil, nil, new(big.Int).SetUint64(num), new(big.Int).SetUint64(den)).Cmp(big.NewInt(1)) == 0 {
			cs = append(cs, newRescaleCase(t, num, den))
		}
	}
	return cs
}

var swapVariants = [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}}

// TestRescaleSIMDAllLengths runs one factor per op over every length up to
// 4096, with a few out-of-range values, in both byte orders and in place.
func TestRescaleSIMDAllLengths(t *testing.T) {
	forEachRescaleImpl(t, func(t *testing.T, ri rescaleImpl) {
		r := rand.New(rand.NewPCG(3, 4))
		for _, c := range []rescaleCase{newRescaleCase(t, 1e9, 1), newRescaleCase(t, 1, 1e9), newRescaleCase(t, 25, 24)} {
			for n := 0; n <= 4096; n++ {
				sw := swapVariants[n%4]
				vals := c.data(r, n, n%3 == 0)
				c.check(t, ri, vals, sw[0], sw[1], n%5 == 0)
			}
		}
	})
}

// TestRescaleSIMDFactors runs every factor over assorted lengths, large
// ones included, both byte orders, out of place and in place.
func TestRescaleSIMDFactors(t *testing.T) {
	lengths := []int{0, 1, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 1000, 4096, 8192, 8192 + 13, 65536 + 5}
	forEachRescaleImpl(t, func(t *testing.T, ri rescaleImpl) {
		r := rand.New(rand.NewPCG(5, 6))
		for _, c := range rescaleCases(t) {
			for _, n := range lengths {
				for i, sw := range swapVariants {
					c.check(t, ri, c.data(r, n, i%2 == 0), sw[0], sw[1], i >= 2)
				}
			}
		}
	})
}

// TestRescaleSIMDEdgeEveryLane puts each edge value (and NaT) at every lane
// of a few vectors of in-range values: stops must land on the right vector
// and NaT must be kept in every lane.
func TestRescaleSIMDEdgeEveryLane(t *testing.T) {
	forEachRescaleImpl(t, func(t *testing.T, ri rescaleImpl) {
		r := rand.New(rand.NewPCG(7, 8))
		const n = 80 // several unrolled blocks of either width, and a tail
		for _, c := range rescaleCases(t) {
			base := make([]int64, n)
			for i := range base {
				base[i] = c.inRange(r)
			}
			for _, e := range append(c.edgeVals, math.MinInt64) {
				for pos := 0; pos < n; pos++ {
					vals := append([]int64(nil), base...)
					vals[pos] = e
					sw := swapVariants[pos%4]
					c.check(t, ri, vals, sw[0], sw[1], pos%2 == 1)
				}
			}
			// NaT in every lane at once.
			all := make([]int64, n)
			for i := range all {
				all[i] = math.MinInt64
			}
			c.check(t, ri, all, false, false, false)
			c.check(t, ri, all, true, true, true)
		}
	})
}

// TestRescaleSIMDDivideExhaustiveSmall checks every value in a window
// around zero and around int64's ends for small divisors, where a wrong
// magic-number step would first show.
func TestRescaleSIMDDivideExhaustiveSmall(t *testing.T) {
	forEachRescaleImpl(t, func(t *testing.T, ri rescaleImpl) {
		for _, d := range []uint64{2, 3, 5, 6, 7, 9, 10, 11, 12, 60, 1000, 1024, 3600, 4095, 4097} {
			for _, c := range []rescaleCase{newRescaleCase(t, 1, d), newRescaleCase(t, d+1, d), newRescaleCase(t, d-1, d)} {
				var vals []int64
				for v := int64(-5000); v < 5000; v++ {
					vals = append(vals, v, math.MaxInt64-5000-v, math.MinInt64+5001+v)
				}
				c.check(t, ri, vals, false, false, false)
				c.check(t, ri, vals, true, false, true)
			}
		}
	})
}
