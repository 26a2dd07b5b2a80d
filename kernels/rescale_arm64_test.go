//go:build !purego

package kernels

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/zarr-dt64/dt64/internal/impl"
)

// Differential tests of the arm64 rescale assembly (rescale_*_arm64.s)
// against the generic loops of linear.go (mulLoop, divLoop, mulDivLoop),
// which are the bit-exact reference: same prefix, same words, same NaT and
// lossy counts, nothing written past the prefix, src untouched, and the
// same answers in place. The assembly stops at the exact element the
// generic loop stops at (it converts one element at a time), so n is
// checked exactly: min(generic stop, len rounded down to the block).

const rescaleBlock = 4 // blockRescale in asm/neon/rescale.go

// rescaleRun is one kernel under test and its generic twin, both with the
// parameters already bound.
type rescaleRun struct {
	name string
	asm  func(dst, src []uint64, swapIn, swapOut bool) (n, nat, lossy int)
	ref  func(dst, src []uint64, swapIn, swapOut bool) (n, nat, lossy int)
	gen  func(r *rand.Rand, n int) []int64 // values that mostly convert
	edge []int64                           // values at and beyond the fast range
}

func linearFor(t *testing.T, num, den uint64, want opKind) *linearParams {
	t.Helper()
	op, p, ok := compileLinear(new(big.Int).SetUint64(num), new(big.Int).SetUint64(den))
	if !ok || op != want {
		t.Fatalf("compileLinear(%d, %d) = op %d, ok %v; want op %d", num, den, op, ok, want)
	}
	return &p
}

// inRange returns a random value in [lo, hi], small ones (near multiples of
// anything) a third of the time.
func inRange(r *rand.Rand, lo, hi int64) int64 {
	if r.IntN(3) == 0 {
		v := r.Int64N(2_000_001) - 1_000_000
		if v >= lo && v <= hi {
			return v
		}
	}
	return lo + int64(r.Uint64N(uint64(hi-lo)+1))
}

// rare sprinkles NaT (one in eight) and, when edge is not empty, an edge
// value (one in 1500, so runs are long but every length range meets some).
func rare(r *rand.Rand, vals []int64, edge []int64) []int64 {
	for i := range vals {
		switch {
		case r.IntN(8) == 0:
			vals[i] = math.MinInt64
		case len(edge) > 0 && r.IntN(1500) == 0:
			vals[i] = edge[r.IntN(len(edge))]
		}
	}
	return vals
}

func mulRun(t *testing.T, k uint64) rescaleRun {
	p := linearFor(t, k, 1, opMul)
	edge := []int64{p.lo - 1, p.hi + 1, math.MaxInt64, math.MinInt64 + 1}
	return rescaleRun{
		name: fmt.Sprintf("mul/k=%d", k),
		asm: func(dst, src []uint64, in, out bool) (int, int, int) {
			n, nat := mulCheckARM64(dst, src, p.k, p.lo, p.hi, in, out)
			return n, nat, 0
		},
		ref: func(dst, src []uint64, in, out bool) (int, int, int) {
			n, nat := mulLoop(dst, src, p, in, out)
			return n, nat, 0
		},
		gen: func(r *rand.Rand, n int) []int64 {
			v := make([]int64, n)
			for i := range v {
				switch r.IntN(20) {
				case 0:
					v[i] = []int64{p.lo, p.hi, p.lo + 1, p.hi - 1, 0, -1, 1}[r.IntN(7)]
				default:
					v[i] = inRange(r, p.lo, p.hi)
				}
			}
			return rare(r, v, edge)
		},
		edge: edge,
	}
}

func divRun(t *testing.T, d uint64) rescaleRun {
	p := linearFor(t, 1, d, opDiv)
	return rescaleRun{
		name: fmt.Sprintf("div/d=%d", d),
		asm: func(dst, src []uint64, in, out bool) (int, int, int) {
			return floorDivARM64(dst, src, p.div.d, p.div.magic, p.div.shift, in, out)
		},
		ref: func(dst, src []uint64, in, out bool) (int, int, int) {
			return divLoop(dst, src, p, in, out)
		},
		gen: func(r *rand.Rand, n int) []int64 {
			v := make([]int64, n)
			for i := range v {
				switch r.IntN(6) {
				case 0: // at a multiple of d, or one off it, on either side of 0
					m := int64(r.IntN(2001) - 1000)
					if d >= 1<<40 { // m*d would not be an int64
						m = 0
					}
					v[i] = m*int64(d) + int64(r.IntN(3)-1)
				case 1:
					v[i] = []int64{math.MaxInt64, math.MinInt64 + 1, -1, 0, 1,
						int64(d - 1), -int64(d - 1), math.MinInt64 + int64(d%(1<<62))}[r.IntN(8)]
				default:
					v[i] = int64(r.Uint64())
				}
			}
			return rare(r, v, nil)
		},
	}
}

func mulDivRun(t *testing.T, num, den uint64) rescaleRun {
	p := linearFor(t, num, den, opMulDiv)
	// v whose floor quotient is q, when that is an int64.
	atQ := func(q int64, r uint64) (int64, bool) {
		v := new(big.Int).Mul(big.NewInt(q), new(big.Int).SetUint64(p.div.d))
		v.Add(v, new(big.Int).SetUint64(r))
		return v.Int64(), v.IsInt64()
	}
	var edge, inside []int64
	for _, q := range []int64{p.qlo - 1, p.qhi + 1} {
		for _, r := range []uint64{0, p.div.d - 1} {
			if v, ok := atQ(q, r); ok {
				edge = append(edge, v)
			}
		}
	}
	edge = append(edge, math.MaxInt64, math.MinInt64+1)
	for _, q := range []int64{p.qlo, p.qhi, 0, -1} {
		for _, r := range []uint64{0, 1, p.div.d - 1} {
			if v, ok := atQ(q, r); ok {
				inside = append(inside, v)
			}
		}
	}
	// The values whose quotient is in [qlo, qhi], clipped to int64.
	vlo, ok := atQ(p.qlo, 0)
	if !ok {
		vlo = math.MinInt64 + 1
	}
	vhi, ok := atQ(p.qhi, p.div.d-1)
	if !ok {
		vhi = math.MaxInt64
	}
	return rescaleRun{
		name: fmt.Sprintf("muldiv/%d:%d", num, den),
		asm: func(dst, src []uint64, in, out bool) (int, int, int) {
			return mulDivARM64(dst, src, p.num, p.div.d, p.div.magic, p.div.shift, p.qlo, p.qhi, in, out)
		},
		ref: func(dst, src []uint64, in, out bool) (int, int, int) {
			return mulDivLoop(dst, src, p, in, out)
		},
		gen: func(r *rand.Rand, n int) []int64 {
			v := make([]int64, n)
			for i := range v {
				if r.IntN(10) == 0 {
					v[i] = inside[r.IntN(len(inside))]
				} else {
					v[i] = inRange(r, vlo, vhi)
				}
			}
			return rare(r, v, edge)
		},
		edge: edge,
	}
}

func rescaleRuns(t *testing.T) []rescaleRun {
	r := rand.New(rand.NewPCG(11, 12))
	var runs []rescaleRun
	for _, k := range []uint64{2, 3, 1000, 1_000_000, 1_000_000_000, 86_400_000_000_000, 1 << 32,
		1 << 62, math.MaxInt64, 10 + r.Uint64N(1<<40)} {
		runs = append(runs, mulRun(t, k))
	}
	divisors := []uint64{2, 3, 7, 10, 1000, 1_000_000, 1_000_000_000, 3_600_000_000_000,
		86_400_000_000_000, 4, 1024, 1 << 32, 1 << 40, 1 << 62, 1 << 63, 1<<62 + 1, 1<<63 + 5,
		math.MaxUint64, 2 + r.Uint64N(1<<31), 2 + r.Uint64N(1<<63)}
	for _, d := range divisors {
		runs = append(runs, divRun(t, d))
	}
	// Reduced fractions with num*den < 2^63: NumPy's Y and M factors, second
	// <-> minute/hour mixes with scales, and extremes of the bound.
	fracs := [][2]uint64{{3, 2}, {2, 3}, {7, 10}, {1000, 3}, {3, 1000}, {146097, 400},
		{146097, 4800}, {400, 146097}, {1_000_000_000, 7}, {7, 1_000_000_000},
		{86_400_000_000_000, 7}, {3, 1<<61 - 1}, {1<<61 - 1, 3}, {2147483647, 2147483646}}
	for len(fracs) < 18 {
		a, b := 2+r.Uint64N(1<<31), 2+r.Uint64N(1<<31)
		if g := new(big.Int).GCD(nil, nil, new(big.Int).SetUint64(a), new(big.Int).SetUint64(b)); g.IsInt64() && g.Int64() == 1 {
			fracs = append(fracs, [2]uint64{a, b})
		}
	}
	for _, f := range fracs {
		runs = append(runs, mulDivRun(t, f[0], f[1]))
	}
	return runs
}

func rawWords(vals []int64, swap bool) []uint64 {
	w := make([]uint64, len(vals))
	for i, v := range vals {
		w[i] = rawOf(v, swap)
	}
	return w
}

const rescaleSentinel = 0xdeadbeefcafef00d

// checkRescale runs one kernel on src (out of place, then in place) and
// compares with the generic loop.
func checkRescale(t *testing.T, run rescaleRun, src []uint64, in, out bool) {
	t.Helper()
	l := len(src)
	ref := make([]uint64, l)
	stop, _, _ := run.ref(ref, src, in, out)
	wantN := min(stop, l&^(rescaleBlock-1))
	_, wantNaT, wantLossy := run.ref(make([]uint64, wantN), src[:wantN], in, out)

	orig := append([]uint64(nil), src...)
	dst := make([]uint64, l+3)
	for i := range dst {
		dst[i] = rescaleSentinel
	}
	n, nat, lossy := run.asm(dst[:l], src, in, out)
	where := fmt.Sprintf("%s swapIn=%v swapOut=%v len=%d", run.name, in, out, l)
	if n != wantN || nat != wantNaT || lossy != wantLossy {
		t.Fatalf("%s: n, nat, lossy = %d, %d, %d; want %d, %d, %d", where, n, nat, lossy, wantN, wantNaT, wantLossy)
	}
	for i := 0; i < n; i++ {
		if dst[i] != ref[i] {
			t.Fatalf("%s: dst[%d] = %#x for value %d; want %#x", where, i, dst[i], valueOf(src[i], in), ref[i])
		}
	}
	for i := n; i < len(dst); i++ {
		if dst[i] != rescaleSentinel {
			t.Fatalf("%s: dst[%d] written beyond the %d converted", where, i, n)
		}
	}
	for i := range src {
		if src[i] != orig[i] {
			t.Fatalf("%s: src[%d] modified", where, i)
		}
	}

	buf := append([]uint64(nil), src...)
	n2, nat2, lossy2 := run.asm(buf, buf, in, out)
	if n2 != n || nat2 != nat || lossy2 != lossy {
		t.Fatalf("%s in place: n, nat, lossy = %d, %d, %d; out of place %d, %d, %d", where, n2, nat2, lossy2, n, nat, lossy)
	}
	for i := range buf {
		want := orig[i]
		if i < n {
			want = ref[i]
		}
		if buf[i] != want {
			t.Fatalf("%s in place: word %d = %#x, want %#x", where, i, buf[i], want)
		}
	}
}

var swapPairs = [][2]bool{{false, false}, {false, true}, {true, false}, {true, true}}

// TestRescaleARM64Lengths: every length 0..4096, each with a parameter set
// and swap pair taken in turn (all of them for the first lengths), then
// long buffers for every parameter set.
func TestRescaleARM64Lengths(t *testing.T) {
	runs := rescaleRuns(t)
	r := rand.New(rand.NewPCG(13, 14))
	for l := 0; l <= 4096; l++ {
		sel := []int{l % len(runs)}
		if l <= 24 {
			sel = sel[:0]
			for i := range runs {
				sel = append(sel, i)
			}
		}
		for _, i := range sel {
			run := runs[i]
			sw := swapPairs[(l/len(runs)+i)%4]
			checkRescale(t, run, rawWords(run.gen(r, l), sw[0]), sw[0], sw[1])
		}
	}
	for i, run := range runs {
		large := []int{8191, 8192, 8193, 65536 + 15}
		if i%8 == 0 && !testing.Short() { // a few, as each costs seconds under qemu
			large = append(large, 1<<20+7)
		}
		for j, l := range large {
			sw := swapPairs[(i+j)%4]
			vals := run.gen(r, l)
			if l > 8192 {
				// Long runs without an edge value, so the kernel gets far.
				for k, v := range vals {
					for _, e := range run.edge {
						if v == e {
							vals[k] = math.MinInt64
						}
					}
				}
			}
			checkRescale(t, run, rawWords(vals, sw[0]), sw[0], sw[1])
		}
	}
}

// TestRescaleARM64Lanes puts NaT, and separately each value at and beyond
// the edges of the fast range, at every position of a few blocks, for
// every parameter set and swap pair.
func TestRescaleARM64Lanes(t *testing.T) {
	const l = 3*rescaleBlock + 1
	r := rand.New(rand.NewPCG(15, 16))
	for _, run := range rescaleRuns(t) {
		for _, sw := range swapPairs {
			specials := append([]int64{math.MinInt64}, run.edge...)
			for _, s := range specials {
				for p := 0; p < l; p++ {
					vals := run.gen(r, l)
					for k, v := range vals { // only the value under test is special
						for _, e := range specials {
							if v == e {
								vals[k] = 0
							}
						}
					}
					vals[p] = s
					checkRescale(t, run, rawWords(vals, sw[0]), sw[0], sw[1])
					all := make([]int64, l)
					for k := range all {
						all[k] = math.MinInt64
					}
					all[p] = s
					checkRescale(t, run, rawWords(all, sw[0]), sw[0], sw[1])
				}
			}
		}
	}
}

// TestRescaleARM64Hooks: the hooks dispatch to the assembly when NEON is
// selected, to nothing when it is not, and refuse parameters outside the
// assembly's assumptions instead of computing something else.
func TestRescaleARM64Hooks(t *testing.T) {
	if !useNEON {
		t.Skip("NEON disabled")
	}
	src := make([]uint64, 64)
	for i := range src {
		src[i] = uint64(i)
	}
	dst := make([]uint64, 64)
	dv := newDivisor(7)
	if n, _ := mulCheckSIMD(dst, src, 3, -100, 100, false, false); n != 64 {
		t.Errorf("mulCheckSIMD: %d, want 64", n)
	}
	if n, _, _ := floorDivSIMD(dst, src, dv.d, dv.magic, dv.shift, false, false); n != 64 {
		t.Errorf("floorDivSIMD: %d, want 64", n)
	}
	if n, _, _ := mulDivSIMD(dst, src, 3, dv.d, dv.magic, dv.shift, -100, 100, false, false); n != 64 {
		t.Errorf("mulDivSIMD: %d, want 64", n)
	}
	if n, _ := mulCheckSIMD(dst[:41], src, 3, -100, 100, false, false); n != 40 {
		t.Errorf("mulCheckSIMD with len(dst)=41: %d, want 40", n)
	}
	if n, _ := mulCheckSIMD(dst, src, 3, 5, 4, false, false); n != 0 {
		t.Errorf("mulCheckSIMD with lo > hi: %d, want 0", n)
	}
	if n, _ := mulCheckSIMD(dst, src, 3, math.MinInt64, 4, false, false); n != 0 {
		t.Errorf("mulCheckSIMD with lo = MinInt64: %d, want 0", n)
	}
	if n, _, _ := mulDivSIMD(dst, src, 3, dv.d, dv.magic, dv.shift, 1, 0, false, false); n != 0 {
		t.Errorf("mulDivSIMD with qlo > qhi: %d, want 0", n)
	}

	if !impl.Select("kernels", "generic") {
		t.Fatal("cannot select generic")
	}
	defer impl.Reset("kernels")
	if n, _ := mulCheckSIMD(dst, src, 3, -100, 100, false, false); n != 0 {
		t.Errorf("mulCheckSIMD with generic selected: %d", n)
	}
	if n, _, _ := floorDivSIMD(dst, src, dv.d, dv.magic, dv.shift, false, false); n != 0 {
		t.Errorf("floorDivSIMD with generic selected: %d", n)
	}
	if n, _, _ := mulDivSIMD(dst, src, 3, dv.d, dv.magic, dv.shift, -100, 100, false, false); n != 0 {
		t.Errorf("mulDivSIMD with generic selected: %d", n)
	}
}

// TestRescaleARM64Byteswap pins the byte order handling on one known
// value, independently of the generic loops: 1000 s -> ms on a big-endian
// source written little-endian.
func TestRescaleARM64Byteswap(t *testing.T) {
	src := []uint64{bits.ReverseBytes64(1000), bits.ReverseBytes64(natNative), 0x0100000000000000, 0}
	dst := make([]uint64, 4)
	n, nat := mulCheckARM64(dst, src, 1000, -(math.MaxInt64 / 1000), math.MaxInt64/1000, true, false)
	if n != 4 || nat != 1 || dst[0] != 1_000_000 || dst[1] != natNative || dst[2] != 1000 || dst[3] != 0 {
		t.Fatalf("got n=%d nat=%d dst=%v", n, nat, dst)
	}
}
