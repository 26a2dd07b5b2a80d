//go:build !purego

package kernels

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// Differential tests of floorDivEst (asm/rescale), the floor divide by a
// float64 estimate with validity, for AVX-512 and for AVX2 with FMA3
// (floorDivEstAVX2, all in float64 within 2^50 of its base), against the
// generic divLoop: the kernel called directly with chosen bases and
// ranges (where it must stop, the quotient at the edges of its range and
// at multiples of d), and through floorDivSIMD and floorDivValiditySIMD
// on clustered data with outliers (the base, the fallback to the
// magic-number kernel and the new base after it).

// estKernel is one floorDivEst kernel.
type estKernel struct {
	name string
	kind estKind
}

// pow2 reports whether k is one of the kernels with a power-of-two range
// (estPow2, estPow2Z): [-lim, lim), lim <= 2^50, d <= 2^32.
func (k estKernel) pow2() bool { return k.kind != estWide }

// estKernels returns the kernels this CPU runs.
func estKernels(t *testing.T) []estKernel {
	var ks []estKernel
	if availableAVX512 {
		ks = append(ks, estKernel{"avx512", estWide}, estKernel{"avx512-pow2", estPow2Z})
	}
	if availableAVX2 && availableFMA {
		ks = append(ks, estKernel{"avx2", estPow2})
	}
	if len(ks) == 0 {
		t.Skip("neither AVX-512 nor AVX2 with FMA3")
	}
	return ks
}

// estDivisors are the divisors the tests run: small ones (where lim =
// 2^50*d binds), the time-unit factors, powers of two and 2^52 (the
// largest floorDivEst takes), and random ones; for the power-of-two
// kernels those up to 2^32 (estTakes).
func estDivisors() []uint64 {
	ds := []uint64{2, 3, 5, 7, 10, 60, 1000, 1024, 3600, 4095, 4096, 4097, 1e6, 1e9, 60e9, 3600e9, 86400e9, 1 << 40, 1<<52 - 1, 1 << 52}
	r := rand.New(rand.NewPCG(11, 12))
	for range 8 {
		ds = append(ds, r.Uint64N(1<<52-2)+2)
	}
	// The power-of-two kernels' divisors: the largest, one past it, and
	// random ones.
	ds = append(ds, estMaxDivisorPow2-1, estMaxDivisorPow2, estMaxDivisorPow2+1)
	for range 4 {
		ds = append(ds, r.Uint64N(estMaxDivisorPow2-2)+2)
	}
	return ds
}

// estTakes reports whether kernel k takes divisor d.
func estTakes(k estKernel, d uint64) bool {
	return d <= estMaxDivisor && (!k.pow2() || d <= estMaxDivisorPow2)
}

// estLim is min(2^50*d, 2^62), and for the power-of-two kernels 2^50
// (estLimPow2).
func estLim(d uint64, k estKernel) uint64 {
	switch {
	case k.pow2():
		return estLimPow2
	case d < 1<<12:
		return d << 50
	}
	return 1 << 62
}

// estConfig is one (qbase, lim) the kernel is called with.
type estConfig struct {
	qbase int64
	lim   uint64
}

// estConfigs returns the bases of estBases with lim = min(estLim,
// 2^63-1-|base|) (as estBase gives them), and for AVX-512 and d >= 2^13
// (as floorDivEstimate calls it) base 0 with lim = 2^63-1.
func estConfigs(d uint64, r *rand.Rand, k estKernel) []estConfig {
	var cs []estConfig
	if d >= 1<<13 && !k.pow2() {
		cs = append(cs, estConfig{0, math.MaxInt64})
	}
	for _, qb := range estBases(d, r) {
		mag := uint64(qb * int64(d))
		if qb < 0 {
			mag = -mag
		}
		lim := min(estLim(d, k), math.MaxInt64-mag)
		if k.pow2() {
			if lim == 0 {
				continue // floorDivEstimate does not call it
			}
			lim = 1 << (bits.Len64(lim) - 1) // a power of two, as floorDivEstimate gives it
		}
		cs = append(cs, estConfig{qb, lim})
	}
	return cs
}

// estCheck runs floorDivEst (byte-order variant by swapIn, swapOut) on
// vals with base = qbase*d and lim, and compares with divLoop; the kernel
// must stop before the first vector with a non-NaT value more than lim
// from base.
//
// The bitmap has room for every element, or with short for only about
// half of them (the kernel must stop there); its bytes past n/8 must stay
// as they were.
func estCheck(t *testing.T, k estKernel, vals []int64, dv divisor, qbase int64, lim uint64, swapIn, swapOut, inPlace, short bool) {
	t.Helper()
	base := qbase * int64(dv.d)
	src := hookWords(vals, swapIn)
	bitmap := make([]byte, (len(vals)+7)/8)
	if short {
		bitmap = bitmap[:len(bitmap)/2]
	}
	for i := range bitmap {
		bitmap[i] = 0xa5
	}
	stop := min(len(vals), 8*len(bitmap))
	for i, v := range vals[:stop] {
		// The power-of-two range is [-lim, lim), the wide one [-lim, lim].
		if v != math.MinInt64 && (uint64(v)-uint64(base)+lim > 2*lim || k.pow2() && uint64(v)-uint64(base)+lim == 2*lim) {
			stop = i
			break
		}
	}
	dst, hookSrc := hookBuffers(src, inPlace)
	inv := math.Float64bits(1 / float64(dv.d))
	n, nat, lossy := floorDivEstOrders(dst, hookSrc, bitmap, dv.d, inv, uint64(base), uint64(qbase), lim, swapIn, swapOut, k.kind)
	where := fmt.Sprintf(k.name+": d=%d base=%d lim=%d len=%d swapIn=%v swapOut=%v inPlace=%v short=%v", dv.d, base, lim, len(vals), swapIn, swapOut, inPlace, short)
	if want := stop / 8 * 8; n != want {
		t.Fatalf("%s: n = %d, want %d (first value out of range, or end of the bitmap, at %d)", where, n, want, stop)
	}
	checkDivided(t, where, dst, src, vals, bitmap, n, nat, lossy, &linearParams{div: dv}, swapIn, swapOut)
	checkUntouched(t, where, dst, src, n, inPlace)
}

// checkDivided compares the n elements a floor divide hook converted, its
// NaT and lossy counts and the validity bits it wrote with divLoop's.
func checkDivided(t *testing.T, where string, dst, src []uint64, vals []int64, bitmap []byte, n, nat, lossy int, p *linearParams, swapIn, swapOut bool) {
	t.Helper()
	want := make([]uint64, n)
	_, wantNat, wantLossy := divLoop(want, src[:n], p, swapIn, swapOut)
	if nat != wantNat || lossy != wantLossy {
		t.Fatalf("%s: nat, lossy = %d, %d, want %d, %d", where, nat, lossy, wantNat, wantLossy)
	}
	for i := range n {
		if dst[i] != want[i] {
			t.Fatalf("%s: element %d (source %d): got %#x, want %#x", where, i, vals[i], dst[i], want[i])
		}
	}
	checkBitmap(t, where, bitmap, want, n, swapOut)
}

// checkBitmap checks bitmap[:n/8] against the validity of want (n
// elements) and that its other bytes still hold 0xa5.
func checkBitmap(t *testing.T, where string, bitmap []byte, want []uint64, n int, swap bool) {
	t.Helper()
	wantBits := make([]byte, n/8)
	validityGeneric(wantBits, want[:n], swap)
	for i, b := range bitmap {
		switch {
		case i < n/8 && b != wantBits[i]:
			t.Fatalf("%s: bitmap byte %d = %#x, want %#x", where, i, b, wantBits[i])
		case i >= n/8 && b != 0xa5:
			t.Fatalf("%s: bitmap byte %d past n = %d was written: %#x", where, i, n, b)
		}
	}
}

// estBases returns qbase values for d: 0, small, the largest with
// |qbase*d| < 2^62, each sign, random ones, and bases from 2^62 to int64's
// end (nanoseconds after 2116), where lim shrinks to what is left; the
// first six (the edge tests take those) have two beyond 2^62.
func estBases(d uint64, r *rand.Rand) []int64 {
	top := int64((1<<62 - 1) / d)
	end := int64(math.MaxInt64/d) - 1
	qs := []int64{0, top + top/2, -end, 1, -1, top, -top, top - 1, -top + 1, top + 1, -top - 1, -top - top/2, end}
	for range 3 {
		qs = append(qs, r.Int64N(2*top+1)-top)
	}
	return qs
}

// estEdges returns values around base: ±lim and one past (the first out
// of range), multiples of d around those and around base (exact, one
// below, one above), and int64's ends and NaT's neighbour.
func estEdges(d uint64, base int64, lim uint64) []int64 {
	var vs []int64
	add := func(w int64) { vs = append(vs, base+w) } // wrapping, as the kernel computes
	l := int64(lim)
	for _, w := range []int64{0, 1, -1, l, -l, l + 1, -l - 1, l - 1, -l + 1} {
		add(w)
	}
	for _, m := range []int64{1, -1, 2, -2, l / int64(d), -l / int64(d), l/int64(d) - 1, -l/int64(d) + 1} {
		for _, dw := range []int64{-1, 0, 1} {
			add(m*int64(d) + dw)
		}
	}
	return append(vs, math.MaxInt64, math.MinInt64+1, math.MaxInt64-1, math.MinInt64+2)
}

// estData returns n values: 2% NaT, a few edge values (some out of range)
// with bad, the rest in range: uniform in [-lim, lim] around base, or
// near it (random magnitudes).
func estData(r *rand.Rand, n int, base int64, lim uint64, edges []int64, bad bool) []int64 {
	vals := make([]int64, n)
	for i := range vals {
		w := int64(r.Uint64N(2*lim+1) - lim)
		switch x := r.IntN(100); {
		case x < 2:
			vals[i] = math.MinInt64
			continue
		case x < 6 && bad:
			vals[i] = edges[r.IntN(len(edges))]
			continue
		case x < 40:
			w >>= r.UintN(63)
		}
		vals[i] = base + w
	}
	return vals
}

// TestFloorDivEstKernel calls the kernel directly for every divisor and
// base, over assorted lengths, every byte order, out of place and in place.
func TestFloorDivEstKernel(t *testing.T) {
	for _, k := range estKernels(t) {
		testFloorDivEstKernel(t, k)
	}
}

func testFloorDivEstKernel(t *testing.T, k estKernel) {
	lengths := []int{0, 1, 7, 8, 9, 15, 16, 17, 23, 24, 31, 32, 33, 64, 100, 1000, 8192 + 5}
	if testing.Short() {
		lengths = []int{0, 7, 8, 17, 33, 100, 1000}
	}
	r := rand.New(rand.NewPCG(13, 14))
	for _, d := range estDivisors() {
		if !estTakes(k, d) {
			continue
		}
		dv := newDivisor(d)
		for _, cf := range estConfigs(d, r, k) {
			qb, lim := cf.qbase, cf.lim
			edges := estEdges(d, qb*int64(d), lim)
			for _, n := range lengths {
				for i, sw := range swapVariants {
					vals := estData(r, n, qb*int64(d), lim, edges, i%2 == 0)
					estCheck(t, k, vals, dv, qb, lim, sw[0], sw[1], i >= 2, n%3 == 1)
				}
			}
		}
	}
}

// TestFloorDivEstEdgeEveryLane puts each edge value (and NaT) at every
// lane of a few vectors of in-range values: the stop must land on the
// vector that holds it, the quotient must be exact at it. The in-range
// values are random, or all base - lim: then a block's range test sees
// the edge value alone (the power-of-two kernels' main loop tests an OR
// of the block's offsets, which random values would fill with bits a
// too-loose mask overlooks).
func TestFloorDivEstEdgeEveryLane(t *testing.T) {
	for _, k := range estKernels(t) {
		testFloorDivEstEdgeEveryLane(t, k)
	}
}

func testFloorDivEstEdgeEveryLane(t *testing.T, k estKernel) {
	r := rand.New(rand.NewPCG(15, 16))
	// Two main-loop blocks, a single vector and a tail: the blocks are
	// two vectors of 8 for the wide kernel, eight of 4 for AVX2's (four
	// with a swapped source) and eight of 8 for AVX-512's power-of-two.
	block := map[estKind]int{estWide: 16, estPow2: 32, estPow2Z: 64}[k.kind]
	n := 2*block + 8 + 3
	for _, d := range estDivisors() {
		if !estTakes(k, d) {
			continue
		}
		dv := newDivisor(d)
		for _, cf := range estConfigs(d, r, k)[:6] {
			qb, lim := cf.qbase, cf.lim
			base := qb * int64(d)
			low := make([]int64, n)
			for i := range low {
				low[i] = base - int64(lim)
			}
			for _, in := range [][]int64{estData(r, n, base, lim, nil, false), low} {
				for _, e := range append(estEdges(d, base, lim), math.MinInt64) {
					for pos := range n {
						vals := append([]int64(nil), in...)
						vals[pos] = e
						sw := swapVariants[pos%4]
						estCheck(t, k, vals, dv, qb, lim, sw[0], sw[1], pos%2 == 1, false)
					}
				}
			}
		}
	}
}

// TestFloorDivEstExhaustiveNear checks every value in windows around the
// base, around ±lim and around multiples of d far from the base, where a
// wrong estimate or fix-up would first show.
func TestFloorDivEstExhaustiveNear(t *testing.T) {
	for _, k := range estKernels(t) {
		testFloorDivEstExhaustiveNear(t, k)
	}
}

func testFloorDivEstExhaustiveNear(t *testing.T, k estKernel) {
	r := rand.New(rand.NewPCG(17, 18))
	for _, d := range estDivisors() {
		if !estTakes(k, d) {
			continue
		}
		dv := newDivisor(d)
		for _, cf := range estConfigs(d, r, k)[:6] {
			qb, lim := cf.qbase, cf.lim
			base := qb * int64(d)
			l := int64(lim)
			var vals []int64
			for _, c := range []int64{0, l - 3000, -l + 3000, l / int64(d) / 3 * int64(d), -l / int64(d) / 3 * int64(d)} {
				for w := int64(-3000); w < 3000; w++ {
					vals = append(vals, base+c+w)
				}
			}
			estCheck(t, k, vals, dv, qb, lim, false, false, false, false)
			estCheck(t, k, vals, dv, qb, lim, true, true, true, false)
		}
	}
}

// TestFloorDivEstPow2Margins tries the uncorrected estimate of the
// power-of-two kernels (floorDivEstAVX2, floorDivEstPow2AVX512) where its
// margins are thinnest: divisors spread log-uniformly
// up to 2^32, values up to 2^50 from the base, remainders 0, 1, d/2 and
// d-1 (where the rounding of k + f/d - 1/2 + 1/(2d) and the test f = 0
// on the remainder's low 32 bits would first go wrong), against divLoop.
func TestFloorDivEstPow2Margins(t *testing.T) {
	for _, k := range estKernels(t) {
		if k.pow2() {
			testFloorDivEstPow2Margins(t, k)
		}
	}
}

func testFloorDivEstPow2Margins(t *testing.T, k estKernel) {
	r := rand.New(rand.NewPCG(21, 22))
	rounds := 3000
	if testing.Short() {
		rounds = 300
	}
	for range rounds {
		d := uint64(math.Exp2(1+r.Float64()*31)) + r.Uint64N(2)
		d = min(max(d, 2), estMaxDivisorPow2)
		dv := newDivisor(d)
		qMax := int64(1<<62/d) - 1 // the base within 2^62 of 0
		qb := r.Int64N(2*qMax+1) - qMax
		base := qb * int64(d)
		lim := uint64(estLimPow2)
		vals := make([]int64, 64)
		for i := range vals {
			kMax := int64(lim / d)
			q := kMax - r.Int64N(min(kMax, 4)+1) // near +lim
			switch i % 4 {
			case 1:
				q = -q // near -lim
			case 2:
				q = r.Int64N(2*kMax+1) - kMax
			}
			f := []int64{0, 1, int64(d / 2), int64(d) - 1}[r.IntN(4)]
			w := q*int64(d) + f
			if w >= int64(lim) || w < -int64(lim) {
				w = q * int64(d)
			}
			vals[i] = base + w
		}
		estCheck(t, k, vals, dv, qb, lim, false, false, r.IntN(2) == 0, false)
	}
}

// TestFloorDivSIMDClustered runs floorDivSIMD (floorDivEst, the fallback
// after an outlier, a new base) on time-like data: runs of values near a
// centre that moves, random outliers anywhere in int64, NaT, through the
// shared rescale check (against divLoop, every byte order, in place).
func TestFloorDivSIMDClustered(t *testing.T) {
	forEachRescaleImpl(t, func(t *testing.T, ri rescaleImpl) {
		r := rand.New(rand.NewPCG(19, 20))
		lengths := []int{0, 5, 8, 64, 255, 256, 257, 1000, 4096 + 3, 8192}
		for _, d := range estDivisors() {
			c := newRescaleCase(t, 1, d)
			// The range of the kernel floorDivSIMD runs (the wide one on
			// AVX-512), which the validity hook's takes too, or not.
			k := estKernel{ri.name, estWide}
			if ri.name == "avx2" {
				k.kind = estPow2
			}
			lim := estLim(d, k)
			for _, n := range lengths {
				for i, sw := range swapVariants {
					vals := make([]int64, n)
					centre := int64(r.Uint64())
					for j := range vals {
						switch x := r.IntN(1000); {
						case x < 2: // the data jumps
							centre = int64(r.Uint64())
							vals[j] = centre
						case x < 4*(i+1):
							vals[j] = int64(r.Uint64()) // an outlier
						case x < 30:
							vals[j] = math.MinInt64
						default:
							vals[j] = centre + int64(r.Uint64N(lim)>>r.UintN(64)) - int64(lim/2)
						}
					}
					c.check(t, ri, vals, sw[0], sw[1], i >= 2)
					checkValidityHook(t, ri, c, vals, sw[0], sw[1], i >= 2)
				}
			}
		}
	})
}

// checkValidityHook runs floorDivValiditySIMD on vals (with a bitmap for
// every element) and compares with divLoop and validityGeneric: every
// whole vector on AVX-512 and on AVX2 with FMA3, none elsewhere.
func checkValidityHook(t *testing.T, ri rescaleImpl, c rescaleCase, vals []int64, swapIn, swapOut, inPlace bool) {
	t.Helper()
	src := hookWords(vals, swapIn)
	dst, hookSrc := hookBuffers(src, inPlace)
	bitmap := make([]byte, (len(vals)+7)/8)
	for i := range bitmap {
		bitmap[i] = 0xa5
	}
	p := &c.p
	n, nat, lossy := floorDivValiditySIMD(dst, hookSrc, bitmap, p.div.d, p.div.magic, p.div.shift, swapIn, swapOut)
	where := fmt.Sprintf("%s floorDivValiditySIMD %s len=%d swapIn=%v swapOut=%v inPlace=%v", ri.name, c, len(vals), swapIn, swapOut, inPlace)
	wantN := 0
	if ri.name == "avx512" && estTakes(estKernel{}, p.div.d) || ri.name == "avx2" && availableFMA && estTakes(estKernel{kind: estPow2}, p.div.d) {
		wantN = len(vals) / 8 * 8
	}
	if n != wantN {
		t.Fatalf("%s: n = %d, want %d", where, n, wantN)
	}
	checkDivided(t, where, dst, src, vals, bitmap, n, nat, lossy, p, swapIn, swapOut)
	checkUntouched(t, where, dst, src, n, inPlace)
}
