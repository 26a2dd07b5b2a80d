package cf

import (
	"math"
	"math/big"

	"github.com/zarr-dt64/dt64/dtype"
)

// FastCheck is FloatShortest in a few float64 operations, for the SIMD
// kernels and their generic twin (package kernels): it decides a float
// that sits on one grid, of whole seconds, minutes, hours or days, which
// is where most real times sit, and leaves every other float to the exact
// rule (Decoder.DecodeFloat). When it decides, its answer is the rule's.
//
// # The check
//
// One grid of step g is chosen per decoder; a grid point is Base + k×Step
// destination units, k an integer. A stored float f (float32 widened
// exactly to float64) is decided when
//
//  1. |f| < Max;
//  2. k = roundToEven(f×Mul) has KLo <= k <= KHi;
//  3. r = fma(f, N1, −(k×N2)) is 0, or |r| < T, with T = gap(f)×HalfN1,
//     gap(f) = |f| − pred(|f|), pred the next float of the stored type
//     toward zero (bits(|f|) − GapBits; for a subnormal float32 this
//     gives a smaller gap than the true one, which only decides less,
//     and for zero a NaN, which leaves r = 0 to decide);
//
// and the answer is k×Step + Base, exact (never lossy).
//
// # Why the answer is the rule's
//
// A step is N stored units (N1, N2 = 1, N: "seconds" data on a grid of
// minutes, milliseconds on seconds) or 1/N of one (N1, N2 = N, 1: days on
// seconds); the point k is at x = k×N2/N1 stored units from the
// reference, and f×N1 − k×N2 = N1×(f − x).
//
//   - The point is inside f's interval. k×N2 is exact (N2 = 1, or |k×N| <
//     2^53 by 1), T is exact (gap(f) is a power of two; N1/2 and the
//     product are exact away from underflow), and rounding to nearest is
//     monotone: |N1×(f − x)| >= T would give |r| >= T. So |r| < T means
//     |f − x| < gap(f)/2, and r = 0 means f×N1 = k×N2 exactly (a non-zero
//     difference of multiples of 2^−1074 does not round to 0). gap(f) is
//     the gap below |f|, never wider than the one above it, so x is
//     strictly inside f's interval, ties and powers of two included. (For
//     |f| < 2^−968, where T can underflow, k is 0 and |r| = |f|×N1 > T.)
//   - No other point of this grid is inside. The interval is at most
//     ulp(f) <= |f|×2^−p stored units wide (p = 52, or 23 for float32), and
//     1 bounds |f| by 2^p stored units per step: narrower than one step, so
//     it holds one grid point at most.
//   - The rule picks it. The rule's grids (days, hours, minutes, seconds,
//     then decimal fractions) each divide the coarser ones, all counted
//     from 1970-01-01 as the destination's counts are, and this grid is
//     among them: a coarser grid's point inside the interval would be a
//     point of this grid inside it, that is the point x. So the first
//     grid with a point inside has x as its only point there, and x is a
//     whole number of destination units (Step and Base are integers), so
//     rounding to the destination unit keeps it and loses nothing.
//   - 2 keeps k×Step + Base inside [MinInt64+1, MaxInt64] (no overflow)
//     and |k| <= 2^51, so k converts to an int64 exactly (the AVX2 kernel
//     converts through the 2^52+2^51 rounding constant).
//
// NaN, ±Inf and fills are the caller's: NaN and Inf fail 1.
type FastCheck struct {
	Mul      float64 // steps per stored unit (N, or 1/N rounded): k estimates f's step count
	N1, N2   float64 // the residual's factors: N, 1 or 1, N
	HalfN1   float64 // N1/2
	GapBits  uint64  // 1 (float64) or 1<<29 (float32 as float64): pred(|f|) = bits(|f|) − GapBits
	Max      float64 // a power of two: |f| < Max
	KLo, KHi float64 // the step counts whose result fits (integers, |k| <= 2^51)
	Step     int64   // destination units per step
	Base     int64   // the reference in destination units, a multiple of Step
}

// Decide is the check on one float (NaN and ±Inf are never decided): its
// decoded value and true, or false when the exact rule must decide. The
// kernels compute the same operations, in SIMD and in a Go loop that
// writes them out inline (kernels/cf_shortest.go); the explicit float64
// conversions keep the compiler from fusing a multiply into a later add.
func (c *FastCheck) Decide(f float64) (int64, bool) {
	a := math.Abs(f)
	k := math.RoundToEven(float64(f * c.Mul))
	r := math.FMA(f, c.N1, -float64(k*c.N2))
	t := float64(float64(a-math.Float64frombits(math.Float64bits(a)-c.GapBits)) * c.HalfN1)
	// int64(k) of an out-of-range k is some value (Go does not panic),
	// never returned as decided.
	return int64(k)*c.Step + c.Base, a < c.Max && k >= c.KLo && k <= c.KHi && (r == 0 || math.Abs(r) < t)
}

// fastReach is how far from the reference (2^34 s, about 544 years) the
// grid of the fast check should decide: the finest grid that reaches it
// is chosen (whole seconds for float64; for float32, whose floats are
// minutes apart within decades of the reference, whole hours).
const fastReach = 1 << 34

// FastCheck returns the decoder's fast check, and false when it has none:
// floats under FloatShortest only, with a reference that is a whole
// number of destination units and a unit that a grid of seconds,
// minutes, hours or days divides or is divided by.
func (d *Decoder) FastCheck() (FastCheck, bool) {
	return d.fastCheck, d.hasFastCheck
}

// planFastCheck picks the fast check's grid: among 1 s, 1 min, 1 h and
// 1 day, the finest that fits the decoding and reaches fastReach, or the
// one that reaches farthest.
func (d *Decoder) planFastCheck(to dtype.DataType) {
	if d.t.Stored.Kind != StoredFloat || d.rule != FloatShortest || d.reference {
		return
	}
	ds, err := unitSeconds(to)
	if err != nil {
		return
	}
	alpha := new(big.Rat).SetFrac(d.aff.A, d.aff.C) // destination units per stored unit
	base := new(big.Rat).SetFrac(d.aff.B, d.aff.C)
	if alpha.Sign() <= 0 || !base.IsInt() || !base.Num().IsInt64() {
		return
	}
	var best FastCheck
	var bestReach *big.Rat
	for _, g := range []int64{1, 60, 3600, 86400} {
		c, reach, ok := fastCheckOn(big.NewRat(g, 1), ds, alpha, base.Num(), d.t.Stored.Size)
		if !ok {
			continue
		}
		if bestReach == nil || reach.Cmp(bestReach) > 0 {
			best, bestReach = c, reach
		}
		if reach.Cmp(big.NewRat(fastReach, 1)) >= 0 {
			best = c
			break
		}
	}
	d.fastCheck, d.hasFastCheck = best, bestReach != nil
}

// fastCheckOn is the check on a grid of g seconds, its reach in seconds,
// and false when the grid does not fit: a step must be a whole number of
// destination units (ds seconds each) and divide the reference base, and
// a stored unit must hold a whole number of steps or the reverse.
func fastCheckOn(g, ds, alpha *big.Rat, base *big.Int, size int) (FastCheck, *big.Rat, bool) {
	var c FastCheck
	step := new(big.Rat).Quo(g, ds)
	if !step.IsInt() || !step.Num().IsInt64() {
		return c, nil, false
	}
	s := step.Num()
	if new(big.Int).Rem(base, s).Sign() != 0 {
		return c, nil, false
	}
	ratio := new(big.Rat).Quo(alpha, step) // steps per stored unit
	p, gapBits := 52, uint64(1)
	if size == 4 {
		p, gapBits = 23, 1<<29
	}
	// The bound 1 (|f| < 2^p stored units per step), |k| <= 2^50 + 1, and
	// in the multiplying form |f| <= 2^50.
	lim := new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(min(p, 50))))
	lim.Quo(lim, ratio)
	const maxN = 1 << 52
	switch {
	case ratio.IsInt() && ratio.Num().IsInt64() && ratio.Num().Int64() <= maxN:
		n := float64(ratio.Num().Int64())
		c.Mul, c.N1, c.N2 = n, n, 1
	case new(big.Rat).Inv(ratio).IsInt() && ratio.Denom().IsInt64() && ratio.Denom().Int64() <= maxN:
		n := float64(ratio.Denom().Int64())
		c.Mul, c.N1, c.N2 = 1/n, 1, n
		if lim.Cmp(big.NewRat(1<<50, 1)) > 0 {
			lim.SetInt64(1 << 50)
		}
	default:
		return c, nil, false
	}
	c.HalfN1, c.GapBits = c.N1/2, gapBits
	c.Max = pow2Below(lim)
	if c.Max == 0 {
		return c, nil, false
	}
	c.Step, c.Base = s.Int64(), base.Int64()
	// k×Step + Base in [MinInt64+1, MaxInt64], |k| <= 2^51.
	lo := new(big.Rat).SetFrac(new(big.Int).Sub(minValue, base), s)
	hi := new(big.Rat).SetFrac(new(big.Int).Sub(maxValue, base), s)
	const kLim = 1 << 51
	c.KLo = float64(max(ceilRat(lo), -kLim))
	c.KHi = float64(min(floorRat(hi), kLim))
	if c.KLo > c.KHi {
		return c, nil, false
	}
	// The reach: Max stored units in seconds.
	reach := new(big.Rat).SetFloat64(c.Max)
	reach.Mul(reach, ratio).Mul(reach, g)
	return c, reach, true
}

// pow2Below is the largest power of two at most x (x > 0), or 0 below 2^-1000.
func pow2Below(x *big.Rat) float64 {
	f, _ := x.Float64()
	_, e := math.Frexp(f) // f = m × 2^e, 0.5 <= m < 1
	for ; e > -1000; e-- {
		p := math.Ldexp(1, e)
		if new(big.Rat).SetFloat64(p).Cmp(x) <= 0 {
			return p
		}
	}
	return 0
}

// floorRat and ceilRat round x to an integer, clipped to ±2^62.
func floorRat(x *big.Rat) int64 {
	q := new(big.Int).Div(x.Num(), x.Denom()) // Euclidean, denominator > 0: the floor
	return clip62(q)
}

func ceilRat(x *big.Rat) int64 {
	return -floorRat(new(big.Rat).Neg(x))
}

func clip62(q *big.Int) int64 {
	const l = 1 << 62
	switch {
	case q.Cmp(big.NewInt(l)) > 0:
		return l
	case q.Cmp(big.NewInt(-l)) < 0:
		return -l
	}
	return q.Int64()
}
