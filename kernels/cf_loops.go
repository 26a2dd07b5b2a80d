package kernels

import (
	"math"
	"math/bits"
)

// The CF fast loops. Like the rescale loops, a platform hook converts a
// leading run (0 without SIMD) and the generic loop of the same name goes
// on from there, up to the end or to the first element it cannot convert
// in int64, which runBlock finishes with the exact path. The hooks:
//
//	cfMulAddSIMD(dst, src []uint64, a, b uint64, lo, hi int64, miss uint64, hasMiss, swapIn, swapOut bool) (n, nat int)
//	cfFloatSIMD(dst, src []uint64, p *cfFloatParams, swapIn, swapOut bool) (n, nat, lossy int)
//
// cfMulAddSIMD: integer words, C == 1: dst = v×a + b (wrapping, exact for
// lo <= v <= hi), v == miss (when hasMiss) to NaT; stops before the first
// other v. cfFloatSIMD: float64 words, C == 1, see cfFloatLoop.

// cfMissing describes the missing values to the fast loops: the words in
// [mlo, mlo+mspan] need a look (unsigned compare); when single is set the
// range is the one missing value and the loops store NaT for it, else
// they stop and leave the word to the exact path. Without missing values
// the range is one word the fast range excludes.
type cfMissing struct {
	mlo, mspan uint64
	single     bool
	inRange    bool // some missing value is inside the fast range
}

// cfFloatParams are the float loop's constants: x = floor(f×af) + b,
// exactly, in wrapping uint64 arithmetic, for |floor(f×af) + bf| <=
// cfFloatSumMax in float64 (bf = B rounded): the true sum then fits an
// int64 with room to spare. missF is the one missing value the SIMD
// kernels compare (hasMiss); the generic loop takes them all.
type cfFloatParams struct {
	af, bf  float64
	b       uint64
	missF   float64
	hasMiss bool
	missing []float64
}

// cfFloatSumMax bounds the float estimate of floor(f×A) + B on the float
// fast path. The estimate is off by at most 2048 (bf's rounding, the
// sum's, and the residual's floor, at most 2^10, which it leaves out), so
// the exact sum is inside ±(2^63 - 4096): valid, never NaT.
const cfFloatSumMax = 1<<63 - 8192

func (k *cfKernel) fastWords(dst, src []uint64, swapIn, swapOut bool) (n, nat, lossy int) {
	switch k.loop {
	case cfLoopMulAdd:
		if k.miss.mspan == 0 { // SIMD compares one missing value at most
			var m uint64
			if k.miss.single {
				m = k.miss.mlo
			}
			n, nat = cfMulAddSIMD(dst, src, uint64(k.a), uint64(k.b), k.lo, k.hi, m, k.miss.single, swapIn, swapOut)
		}
		m, nat2 := cfMulAddLoop(dst[n:], src[n:], k, swapIn, swapOut)
		return n + m, nat + nat2, 0
	case cfLoopMulAddDiv:
		// Two passes over the block while it is in L1: the multiply-add
		// kernel (host order out), then the floor-divide hook and loop in
		// place, which keep NaT. Several missing values: generic only.
		if k.miss.mspan == 0 {
			var m uint64
			if k.miss.single {
				m = k.miss.mlo
			}
			n, nat = cfMulAddSIMD(dst, src, uint64(k.a), uint64(k.b), k.lo, k.hi, m, k.miss.single, swapIn, false)
			if n > 0 {
				d := dst[:n]
				dv := &k.lin.div
				q, _, l1 := floorDivSIMD(d, d, dv.d, dv.magic, dv.shift, false, swapOut)
				_, _, l2 := divLoop(d[q:], d[q:], &k.lin, false, swapOut)
				lossy = l1 + l2
			}
		}
		m, nat2, lossy2 := cfMulAddDivLoop(dst[n:], src[n:], k, swapIn, swapOut)
		return n + m, nat + nat2, lossy + lossy2
	case cfLoopFloat:
		if k.c == 1 {
			n, nat, lossy = cfFloatSIMD(dst, src, &k.fl, swapIn, swapOut)
		}
		m, nat2, lossy2 := cfFloatLoop(dst[n:], src[n:], k, swapIn, swapOut)
		return n + m, nat + nat2, lossy + lossy2
	case cfLoopShortest:
		return k.shortestWords(dst, src, swapIn, swapOut)
	}
	return 0, 0, 0
}

func cfMulAddLoop(dst, src []uint64, k *cfKernel, swapIn, swapOut bool) (n, nat int) {
	if !k.miss.inRange {
		switch {
		case !swapIn && !swapOut:
			return cfMulAddOutLoopOf[orderNative](dst, src, k)
		case !swapOut:
			return cfMulAddOutLoopOf[orderSwapIn](dst, src, k)
		case !swapIn:
			return cfMulAddOutLoopOf[orderSwapOut](dst, src, k)
		}
		return cfMulAddOutLoopOf[orderSwapBoth](dst, src, k)
	}
	switch {
	case !swapIn && !swapOut:
		return cfMulAddLoopOf[orderNative](dst, src, k)
	case !swapOut:
		return cfMulAddLoopOf[orderSwapIn](dst, src, k)
	case !swapIn:
		return cfMulAddLoopOf[orderSwapOut](dst, src, k)
	}
	return cfMulAddLoopOf[orderSwapBoth](dst, src, k)
}

// cfMulAddLoopOf is v×a + b with the one range test of the compiled
// bounds; a missing value (or the range of several) is the second test,
// folded into the first's rare branch unless it is in range.
func cfMulAddLoopOf[O byteOrders](dst, src []uint64, k *cfKernel) (n, nat int) {
	dst = dst[:len(src)]
	a, b := uint64(k.a), uint64(k.b)
	lo, span := uint64(k.lo), uint64(k.hi)-uint64(k.lo)
	mlo, mspan, single := k.miss.mlo, k.miss.mspan, k.miss.single
	swapIn, swapOut := orderSwaps[O]()
	for i, w := range src {
		v := w
		if swapIn {
			v = bits.ReverseBytes64(w)
		}
		r := v*a + b
		if v-lo > span || v-mlo <= mspan {
			if !single || v != mlo {
				return i, nat
			}
			nat++
			r = natBits
		}
		if swapOut {
			r = bits.ReverseBytes64(r)
		}
		dst[i] = r
	}
	return len(src), nat
}

// cfMulAddOutLoopOf is cfMulAddLoopOf when no missing value is in the
// range (none, or a fill value such as MinInt64 outside it): the one range
// test alone, the missing value looked at in its rare branch.
func cfMulAddOutLoopOf[O byteOrders](dst, src []uint64, k *cfKernel) (n, nat int) {
	dst = dst[:len(src)]
	a, b := uint64(k.a), uint64(k.b)
	lo, span := uint64(k.lo), uint64(k.hi)-uint64(k.lo)
	mlo, single := k.miss.mlo, k.miss.single
	swapIn, swapOut := orderSwaps[O]()
	for i, w := range src {
		v := w
		if swapIn {
			v = bits.ReverseBytes64(w)
		}
		r := v*a + b
		if v-lo > span {
			if !single || v != mlo {
				return i, nat
			}
			nat++
			r = natBits
		}
		if swapOut {
			r = bits.ReverseBytes64(r)
		}
		dst[i] = r
	}
	return len(src), nat
}

// cfMulAddDivLoop is floor((v×a + b)/c) for c >= 2 with v×a + b in int64
// (lo <= v <= hi) and the division by the magic number of c.
func cfMulAddDivLoop(dst, src []uint64, k *cfKernel, swapIn, swapOut bool) (n, nat, lossy int) {
	dst = dst[:len(src)]
	a, b := uint64(k.a), uint64(k.b)
	lo, span := uint64(k.lo), uint64(k.hi)-uint64(k.lo)
	mlo, mspan, single := k.miss.mlo, k.miss.mspan, k.miss.single
	dv := k.div
	for i, w := range src {
		v := w
		if swapIn {
			v = bits.ReverseBytes64(w)
		}
		var r uint64
		if v-lo > span || v-mlo <= mspan {
			if !single || v != mlo {
				return i, nat, lossy
			}
			nat++
			r = natBits
		} else {
			x := int64(v*a + b)
			q := dv.floorQuo(x)
			lossy += b2i(uint64(q)*dv.d != uint64(x))
			r = uint64(q)
		}
		if swapOut {
			r = bits.ReverseBytes64(r)
		}
		dst[i] = r
	}
	return len(src), nat, lossy
}

// cfFloatLoop converts float64 words: x = floor(f×A) + B exactly (then
// divided by C when C >= 2: floor((floor(f×A) + B)/C) is the floor of the
// exact quotient, B being an integer). p = f×A rounded; the FMA residual
// e = f×A - p is exact (an underflowing residual only comes with a tiny
// p, which is not an integer, and e is not used then). If p is not an
// integer, it is within half an ulp of the exact product, and the nearest
// integers are at least an ulp away: the floor is floor(p), and there was
// a fraction. If p is an integer, the exact product is p + e: p +
// floor(e). |p| < 2^64, converted through its magnitude; the sums wrap,
// and the float estimate floor(p) + bf within ±cfFloatSumMax guarantees
// the exact result fits.
func cfFloatLoop(dst, src []uint64, k *cfKernel, swapIn, swapOut bool) (n, nat, lossy int) {
	dst = dst[:len(src)]
	p := &k.fl
	af, bf, b := p.af, p.bf, p.b
	div := k.c != 1
	dv := k.div
	for i, w := range src {
		v := w
		if swapIn {
			v = bits.ReverseBytes64(w)
		}
		f := math.Float64frombits(v)
		r := uint64(natBits)
		missing := f != f
		for _, m := range p.missing {
			missing = missing || f == m
		}
		if missing {
			nat++
		} else {
			p := f * af
			fp := math.Floor(p)
			if t := fp + bf; !(t >= -cfFloatSumMax && t <= cfFloatSumMax) {
				return i, nat, lossy
			}
			e := math.FMA(f, af, -p)
			fe := math.Floor(e)
			u := uint64(math.Abs(fp))
			if fp < 0 {
				u = -u
			}
			frac := fp != p || fe != e
			if fp == p {
				u += uint64(int64(fe))
			}
			x := u + b
			r = x
			if div {
				q := dv.floorQuo(int64(x))
				frac = frac || uint64(q)*dv.d != x
				r = uint64(q)
			}
			lossy += b2i(frac)
		}
		if swapOut {
			r = bits.ReverseBytes64(r)
		}
		dst[i] = r
	}
	return len(src), nat, lossy
}
