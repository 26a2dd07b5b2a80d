package kernels

import (
	"math"
	"math/bits"

	"github.com/zarr-dt64/dt64/cf"
)

// The float CF loop under cf.FloatShortest. cf.FastCheck decides, in a few
// float64 operations, every float on one grid of whole seconds, minutes,
// hours or days (its doc has the proof that its answer is the rule's);
// the others, which the check leaves, take the decoder's exact rule one
// element at a time (runBlock's slowElement). The hook
//
//	cfShortestSIMD(dst, src []uint64, c *cfCheckArgs, swapIn, swapOut bool) (n, nat int)
//
// converts whole vectors and stops before the first vector holding an
// element the check leaves (NaN and the one missing value become NaT);
// cfShortestCheckLoop, its generic twin, goes on from there and stops at
// that element.

// cfCheckArgs are the fast check's constants as the kernels load them (the
// float64 ones as their bits), in the order of the cc* indices; asm/rescale
// and asm/neon load them by these offsets.
type cfCheckArgs [ccCount]uint64

const (
	ccMul     = iota // steps per stored unit, rounded
	ccN1             // r = f×N1 − k×N2
	ccN2             //
	ccHalfN1         // N1/2: T = gap(f)×N1/2
	ccGapBits        // bits(|f|) − GapBits is the stored type's next float toward 0
	ccMax            // |f| < Max
	ccKLo            // KLo <= k <= KHi (float64)
	ccKHi            //
	ccStep           // out = k×Step + Base (int64)
	ccBase           //
	ccMiss           // the one missing value (float64; NaN: none)
	ccCount
)

// checkArgs packs c and the missing value for the kernels.
func checkArgs(c *cf.FastCheck, p *cfFloatParams) cfCheckArgs {
	miss := math.Float64bits(math.NaN()) // never equal: no missing value
	if p.hasMiss {
		miss = math.Float64bits(p.missF)
	}
	return cfCheckArgs{
		ccMul: math.Float64bits(c.Mul), ccN1: math.Float64bits(c.N1), ccN2: math.Float64bits(c.N2),
		ccHalfN1: math.Float64bits(c.HalfN1), ccGapBits: c.GapBits, ccMax: math.Float64bits(c.Max),
		ccKLo: math.Float64bits(c.KLo), ccKHi: math.Float64bits(c.KHi),
		ccStep: uint64(c.Step), ccBase: uint64(c.Base), ccMiss: miss,
	}
}

// shortestWords is fastWords for cfLoopShortest: the hook (at most one
// missing value besides NaN), then the generic twin; without a fast check,
// the exact rule for every element.
func (k *cfKernel) shortestWords(dst, src []uint64, swapIn, swapOut bool) (n, nat, lossy int) {
	if !k.hasCheck {
		return cfShortestLoop(dst, src, k, swapIn, swapOut)
	}
	if len(k.fl.missing) <= 1 {
		n, nat = cfShortestSIMD(dst, src, &k.check, swapIn, swapOut)
	}
	m, nat2 := cfShortestCheckLoop(dst[n:], src[n:], k, swapIn, swapOut)
	return n + m, nat + nat2, 0
}

// cfShortestCheckLoop converts float64 words by the fast check up to the
// first element it leaves (not missing, not NaN), where it stops. The
// check is cf.FastCheck.Decide written out here, operation for
// operation: a call per element (Decide is too large to inline) cost the
// loop 1.5 to 2.5 times its time. TestCFShortestHook holds the two to the
// same answers.
func cfShortestCheckLoop(dst, src []uint64, k *cfKernel, swapIn, swapOut bool) (n, nat int) {
	dst = dst[:len(src)]
	c := &k.fc
	missing := k.fl.missing
	for i, w := range src {
		v := w
		if swapIn {
			v = bits.ReverseBytes64(w)
		}
		f := math.Float64frombits(v)
		r := uint64(natBits)
		miss := f != f
		for _, m := range missing {
			miss = miss || f == m
		}
		if miss {
			nat++
		} else {
			// The explicit conversions keep a multiply from fusing into a
			// later add (Go may fuse x*y + z on arm64, ppc64 and s390x).
			a := math.Abs(f)
			steps := math.RoundToEven(float64(f * c.Mul))
			res := math.FMA(f, c.N1, -float64(steps*c.N2))
			half := float64(float64(a-math.Float64frombits(math.Float64bits(a)-c.GapBits)) * c.HalfN1)
			if !(a < c.Max && steps >= c.KLo && steps <= c.KHi && (res == 0 || math.Abs(res) < half)) {
				return i, nat
			}
			r = uint64(int64(steps)*c.Step + c.Base)
		}
		if swapOut {
			r = bits.ReverseBytes64(r)
		}
		dst[i] = r
	}
	return len(src), nat
}

// cfShortestLoop decodes float64 words under cf.FloatShortest one at a
// time with the decoder's rule (no allocation on its fast paths). It
// stops before an overflowing element, which runBlock finishes with the
// policies.
func cfShortestLoop(dst, src []uint64, k *cfKernel, swapIn, swapOut bool) (n, nat, lossy int) {
	dst = dst[:len(src)]
	for i, w := range src {
		v := w
		if swapIn {
			v = bits.ReverseBytes64(w)
		}
		r := uint64(natBits)
		if k.isMissing(v) {
			nat++
		} else {
			q, res, _ := k.dec.DecodeFloat(math.Float64frombits(v))
			if res == cf.Overflow {
				return i, nat, lossy
			}
			lossy += b2i(res == cf.Lossy)
			r = uint64(q)
		}
		if swapOut {
			r = bits.ReverseBytes64(r)
		}
		dst[i] = r
	}
	return len(src), nat, lossy
}
