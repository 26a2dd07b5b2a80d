package cf

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strings"

	"github.com/zarr-dt64/dt64/dtype"
)

// FloatRule is how a stored float becomes an instant. A float stands for
// an interval: the instants whose nearest float (in the stored type and
// unit) it is.
type FloatRule uint8

const (
	// FloatShortest decodes a float to the coarsest instant of its
	// interval, trying whole days, hours, minutes, seconds, then 100 ms,
	// 10 ms, … 1 ns (and finer grids down to the destination unit when it
	// is finer): the first grid with a point inside wins, its point
	// nearest the exact value. That is shortest round-trip printing
	// (strconv's 'g', -1) applied to instants: the float64 nearest 1/24
	// day is 01:00 exactly. The instant is then rounded to the nearest
	// destination unit (half to even); an element that still lost a
	// remainder is lossy. Where no grid has a point inside, the exact
	// value is rounded.
	FloatShortest FloatRule = iota
	// FloatExact takes a float as the exact binary value it is and floors
	// it to the destination unit, as integers are (the float64 nearest
	// 1/24 day is 00:59:59.999999999…).
	FloatExact
)

func (r FloatRule) String() string {
	if r == FloatExact {
		return "exact"
	}
	return "shortest"
}

// ParseFloatRule parses "shortest" or "exact".
func ParseFloatRule(s string) (FloatRule, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "shortest", "":
		return FloatShortest, nil
	case "exact":
		return FloatExact, nil
	}
	return 0, fmt.Errorf("float rule %q: want shortest or exact", s)
}

// secondGrids are the grids FloatShortest tries, in seconds, coarse to
// fine, down to 1 ns.
var secondGrids = func() []*big.Rat {
	g := []*big.Rat{big.NewRat(86400, 1), big.NewRat(3600, 1), big.NewRat(60, 1), big.NewRat(1, 1)}
	for d := int64(10); d <= 1_000_000_000; d *= 10 {
		g = append(g, big.NewRat(1, d))
	}
	return g
}()

// planShortest derives the rule's constants for the destination type to:
// the grids in destination units and, when a second is a whole number of
// them, that number (the fast check's).
func (d *Decoder) planShortest(to dtype.DataType) error {
	ds, err := unitSeconds(to)
	if err != nil {
		return err
	}
	grids := secondGrids
	for g := big.NewRat(1, 10_000_000_000); g.Cmp(ds) >= 0; g = new(big.Rat).Quo(g, big.NewRat(10, 1)) {
		grids = append(grids[:len(grids):len(grids)], g)
	}
	whole := true
	for _, g := range grids {
		dg := new(big.Rat).Quo(g, ds)
		d.grids = append(d.grids, dg)
		// The integer ladder's steps: every grid at least the
		// destination unit, each a whole number of it.
		if dg.Cmp(big.NewRat(1, 1)) >= 0 {
			whole = whole && dg.IsInt() && dg.Num().IsInt64()
			if whole {
				d.steps = append(d.steps, dg.Num().Int64())
			}
		}
	}
	if !whole || len(d.steps) == 0 || d.steps[0] > math.MaxInt64/4 {
		d.steps = nil
	}
	// The ladder relies on the grids nesting, each step a whole number of
	// the next. Day, hour, minute, second and the decimal fractions do,
	// in any unit they are whole in; without it the ladder stays off.
	for i := 1; i < len(d.steps); i++ {
		if d.steps[i-1]%d.steps[i] != 0 {
			d.steps = nil
			break
		}
	}
	d.scaleF, _ = new(big.Rat).SetFrac(d.aff.A, d.aff.C).Float64()
	d.offsetF, _ = new(big.Rat).SetFrac(d.aff.B, d.aff.C).Float64()
	if per := new(big.Rat).Inv(ds); per.IsInt() && per.Num().IsInt64() {
		d.perSecond = per.Num().Int64()
	}
	return nil
}

// fineDecoder is a decoder to a unit k times finer than the destination.
type fineDecoder struct {
	d *Decoder
	k int64
}

// planFine gives a destination unit coarser than 1 ns (seconds, hours,
// …) decoders to ns, µs and ms, those of them finer than the unit, whose
// ladders go on past the destination unit: a float with a fraction of a
// second decoded to seconds is then decided in integers (its grid point
// in the finer unit, rounded to the destination's) instead of by the
// search on exact rationals, which took about 190 times as long
// (BenchmarkCFDecodeBetweenGrids, to s). The ns ladder decides every
// interval it can, within ns's ±292 years of 1970; the µs and ms ones
// take over beyond (where float64 intervals are microseconds wide, a
// µs grid point is inside). Without them (a unit not a whole number of
// these, a decoder that cannot be planned) the search decides as before.
func (d *Decoder) planFine(t *Time, to dtype.DataType, o DecoderOptions) {
	ds, err := unitSeconds(to)
	if err != nil {
		return
	}
	for _, u := range []struct {
		unit dtype.Unit
		per  int64 // in a second
	}{{dtype.Nanosecond, 1_000_000_000}, {dtype.Microsecond, 1_000_000}, {dtype.Millisecond, 1000}} {
		k := new(big.Rat).Mul(ds, big.NewRat(u.per, 1))
		if !k.IsInt() || !k.Num().IsInt64() || k.Num().Int64() < 2 {
			return // the coarser units are not finer than the destination either
		}
		fine, err := NewDecoderWith(t, dtype.DataType{Kind: to.Kind, Unit: u.unit, Scale: 1}, o)
		if err == nil && fine.fast && fine.steps != nil {
			d.fines = append(d.fines, fineDecoder{fine, k.Num().Int64()})
		}
	}
}

// decodeShortest decodes a finite float under FloatShortest: the fast
// check or the integer ladder when they decide, the exact value rounded
// in integers when the ladder finds no grid with a point inside, else the
// search on exact rationals.
func (d *Decoder) decodeShortest(f float64) (int64, Result, bool) {
	if d.hasFastCheck {
		if q, ok := d.fastCheck.Decide(f); ok {
			return q, Exact, q < 0
		}
	}
	if !d.reference {
		// A finer ladder tries the destination's own grids first, so it
		// decides whatever d.ladder would, within its range. Only the ns
		// ladder, which tries every grid, can find none inside.
		for _, fd := range d.fines {
			qf, decided, none := fd.d.ladder(f)
			if decided {
				q, lossy := roundDiv(qf, fd.k)
				if lossy {
					return q, Lossy, q < 0
				}
				return q, Exact, q < 0
			}
			if none {
				if q, res, neg, ok := d.roundExact(f); ok {
					return q, res, neg
				}
				break
			}
		}
		q, decided, none := d.ladder(f)
		switch {
		case decided:
			return q, Exact, q < 0
		case none:
			if q, res, neg, ok := d.roundExact(f); ok {
				return q, res, neg
			}
		}
	}
	// Far beyond the range (|value| > 1.9e19 destination units, while
	// the interval is narrower than 2^-23 of it) nothing inside fits: an
	// overflow, without the search's huge rationals.
	if est := f*d.scaleF + d.offsetF; math.Abs(est) > 1.9e19 {
		return 0, Overflow, est < 0
	}
	return d.shortestExact(f)
}

// significand returns |f| = m × 2^e in the stored float type, and the
// sign.
func (d *Decoder) significand(f float64) (m uint64, e int, neg bool) {
	if d.t.Stored.Size == 4 {
		b := math.Float32bits(float32(f))
		m, e = uint64(b&(1<<23-1)), int(b>>23&0xff)
		if e == 0 {
			e = 1
		} else {
			m |= 1 << 23
		}
		return m, e - 150, b>>31 != 0
	}
	b := math.Float64bits(f)
	m, e = b&(1<<52-1), int(b>>52&0x7ff)
	if e == 0 {
		e = 1
	} else {
		m |= 1 << 52
	}
	return m, e - 1075, b>>63 != 0
}

// floatBits describes a stored float for the integer checks: |f| = m ×
// 2^e, its sign, and the half-widths of its interval in units of
// 2^(e-2): 2 away from zero, near (2, or 1 for a power of two above the
// smallest normal) towards zero.
type floatBits struct {
	m    uint64
	e    int
	neg  bool
	near int64
}

func (d *Decoder) floatBits(f float64) floatBits {
	m, e, neg := d.significand(f)
	p := 52
	if d.t.Stored.Size == 4 {
		p = 23
	}
	near := int64(2)
	if m == 1<<p && e > minExponent(d.t.Stored.Size) {
		near = 1
	}
	return floatBits{m, e, neg, near}
}

// inside reports whether the instant t (destination units) lies in the
// float's interval, in exact 128-bit integers: diff = (t×C − B)×2^(2−e)
// − (±4m)×A must be within the half-widths times |A| (strictly unless m
// is even: a tie rounds to the even float). Towards zero in the stored
// number is diff's sign opposite to sign(f)×sign(A). dist is |diff|, to
// compare candidates; ok is false when the operands do not fit.
func (d *Decoder) inside(fb floatBits, t int64) (in bool, dist int128, ok bool) {
	n := mulMag(t < 0, absU(t), int64(d.c)).add(int128Of(d.b).neg())
	if fb.e > 2 {
		return d.insideWhole(fb, n)
	}
	shift := 2 - fb.e
	if l := bits.Len64(fb.m) + 2 + d.aBits; n.bitLen()+shift > 124 || l > 124 {
		// A point that is not the value's own grid point (n ≠ 0) next to
		// an interval this narrow (a value far below 1, whose e shifts n
		// beyond 128 bits) is outside: |diff| ≥ 2^(len(n)-1+shift) −
		// 2^l ≥ 2^l, more than the half-widths' |A| × 4 < 2^l.
		if l <= 124 && n.bitLen() > 0 && n.bitLen()-1+shift >= l+1 {
			return false, int128{^uint64(0) >> 1, ^uint64(0)}, true
		}
		return false, int128{}, false
	}
	diff := n.shlBig(uint(shift)).add(mulMag(fb.neg, 4*fb.m, d.a).neg())
	return d.within(fb, diff, 0)
}

// within ends inside's test: |diff| against the half-width toward its
// side (times |A|, 2 or fb.near toward zero) shifted left by u.
func (d *Decoder) within(fb floatBits, diff int128, u uint) (in bool, dist int128, ok bool) {
	half := int64(2)
	if diff.negative() != (fb.neg != (d.a < 0)) {
		half = fb.near
	}
	if diff.negative() {
		diff = diff.neg()
	}
	hi, lo := bits.Mul64(absU(d.a), uint64(half))
	c := diff.cmp(int128{hi, lo}.shlBig(u))
	return c < 0 || c == 0 && fb.m&1 == 0, diff, true
}

// insideWhole is inside for a float whose interval is more than 4
// stored units wide (e > 2: a float64 beyond 2^55, "nanoseconds since"
// more than 417 days from the reference), n = t×C − B: both sides of
// inside's test divided by 2^(e−2), diff = n − (±m)×A×2^e against the
// half-widths |A|×2^(e−2) (times 2, or fb.near toward zero).
func (d *Decoder) insideWhole(fb floatBits, n int128) (in bool, dist int128, ok bool) {
	u := uint(fb.e - 2)
	if n.bitLen() > 124 || bits.Len64(fb.m)+d.aBits+fb.e > 124 || d.aBits+2+int(u) > 124 {
		return false, int128{}, false
	}
	diff := n.add(mulMag(fb.neg, fb.m, d.a).shlBig(uint(fb.e)).neg())
	return d.within(fb, diff, u)
}

// ladder is FloatShortest in 128-bit integers, for destinations every
// grid down to whose unit is a whole number of (d.steps): on each grid,
// coarse to fine, the two points around the exact value, the nearer one
// inside winning. decided is false when it does not decide: then none
// says that every grid was tried without a point inside (the answer is
// the exact value rounded, roundExact), and otherwise (a grid finer than
// the destination unit is reached, or the operands do not fit) the
// exact search decides.
func (d *Decoder) ladder(f float64) (q int64, decided, none bool) {
	if !d.fast || d.steps == nil || d.c > math.MaxInt64 {
		return 0, false, false
	}
	fb := d.floatBits(f)
	if fb.m == 0 {
		// Zero's interval is 2^-1075 stored units wide (2^-150 in
		// float32): the reference itself, when it is a whole number of
		// destination units, is its only grid point.
		q, res, _ := d.floorFloat(0)
		return q, res == Exact, false
	}
	q0, res, _ := d.floorFloat(f)
	// The candidates are at most a grid step (steps[0], the largest, at
	// most MaxInt64/4) from q0: they stay in range.
	if room := math.MaxInt64 - 2*d.steps[0]; res == Overflow || q0 < -room || q0 > room {
		return 0, false, false
	}
	// Most real values sit on a whole second: when the interval is
	// narrower than one, the second nearest the value decides at once
	// (a coarser grid's point inside would be that same instant).
	if k := d.perSecond; k != 0 && d.narrowerThan(fb, k) {
		t := q0 - floorMod(q0, k)
		if 2*(q0-t) >= k {
			t += k
		}
		if in, _, ok := d.inside(fb, t); ok && in {
			return t, true, false
		}
	}
	// The interval's half-width is at most 2^(e-1) stored units, h =
	// |A| / (C × 2^(1-e)) destination units; w is floor(h) + 1, one to
	// spare. The value v is in [q0, q0+1), so on a grid with q0 = t1 + r
	// the point t1 is at least r from v and t1 + g more than g - r - 1:
	// when both exceed w, neither is inside, and the exact test is
	// skipped. That is most grids coarser than the interval, for most
	// values.
	w := int64(1)
	if fb.e <= 0 {
		if s := uint(1 - fb.e); s < 64 && d.c <= math.MaxUint64>>s {
			w += int64(absU(d.a) / (d.c << s))
		}
	} else {
		// A float with no fraction bits (beyond 2^52 in float64): the
		// half-width is |A| × 2^(e−1) / C.
		if bits.Len64(absU(d.a))+fb.e-1 >= 62 {
			return 0, false, false
		}
		w += int64((absU(d.a) << uint(fb.e-1)) / d.c)
	}
	// The grids nest (each step a whole number of the next), so a point
	// of a grid is a point of every finer one: when neither point of a
	// grid G around the value is within w of it, no coarser grid has one
	// inside either. G is the finest grid whose step exceeds 2w + 1 (a
	// finer one always has a point within w), which skips the coarse
	// grids with one division for most values.
	steps := d.steps
	j := 0
	for j < len(steps) && steps[j]/2 > w {
		j++
	}
	if j > 1 {
		g := steps[j-1]
		if r := floorMod(q0, g); r > w && g-r-1 > w {
			steps = steps[j:]
		}
	}
	for _, g := range steps {
		r := floorMod(q0, g)
		if r > w && g-r-1 > w {
			continue
		}
		t1 := q0 - r
		in1, d1, ok1 := d.inside(fb, t1)
		in2, d2, ok2 := d.inside(fb, t1+g)
		switch {
		case !ok1 || !ok2:
			return 0, false, false
		case in1 && (!in2 || d1.cmp(d2) <= 0):
			return t1, true, false
		case in2:
			return t1 + g, true, false
		}
	}
	// The two points around the value on a grid are the only ones that
	// can be inside (the interval holds the value), so when every grid
	// was tried, none has a point inside.
	return 0, false, len(d.steps) == len(d.grids)
}

// roundExact is FloatShortest where no grid has a point inside the
// float's interval: its exact value rounded to the nearest destination
// unit, a half to the even one, in 128-bit integers. ok is false when
// the operands do not fit (the exact search decides).
func (d *Decoder) roundExact(f float64) (q int64, res Result, neg, ok bool) {
	if f == 0 {
		return 0, 0, false, false
	}
	negF, m, e := splitOdd(f)
	var num int128
	var den uint64
	k := uint(-e)
	switch {
	case e >= 0:
		// A whole number of stored units (a float64 beyond 2^52).
		if !d.fast || bits.Len64(m)+d.aBits+e > 124 {
			return 0, 0, false, false
		}
		num, den = mulMag(negF, m, d.a).shlBig(uint(e)).add(int128Of(d.b)), d.c
	case d.fits(m, k):
		num, den = mulMag(negF, m, d.a).add(int128Of(d.b).shl(k)), d.c<<k
	case d.fast && bits.Len64(m)+d.aBits <= 125 && d.c < 1<<62:
		// A float far below 1 (2^e × m with e ≤ -64, a float64 days
		// value within an hour or so of its reference): B × 2^k does not
		// fit. The value is (N + r) / C, N = floor(m × A / 2^k) + B and r
		// in [0, 1) the part shifted out; rounding to the nearest needs
		// of r only which quarter it is in, g: (4N + g) / 4C rounds as
		// the value does (4C − 4·(N mod C) is even, so only g against 2
		// can tie), and has a remainder when the value does.
		q, g := mulMag(negF, m, d.a).sarRound(k)
		num, den = q.add(int128Of(d.b)).shl(2).add(int128{0, g}), d.c<<2
	default:
		return 0, 0, false, false
	}
	q, lossy, inRange, negative := roundDiv128(num, den)
	switch {
	case !inRange:
		return 0, Overflow, negative, true
	case lossy:
		return q, Lossy, q < 0, true
	}
	return q, Exact, q < 0, true
}

// roundDiv returns x / k (k >= 1) rounded to the nearest integer, a half
// to the even one, and whether a remainder was dropped.
func roundDiv(x, k int64) (int64, bool) {
	q, r := x/k, x%k
	if r < 0 {
		q, r = q-1, r+k // floor
	}
	if r > k-r || r == k-r && q&1 != 0 {
		q++
	}
	return q, r != 0
}

// narrowerThan reports whether the float's interval, at most 2^e stored
// units, is narrower than k destination units: 2^e × |A| < k × C.
func (d *Decoder) narrowerThan(fb floatBits, k int64) bool {
	hi, lo := bits.Mul64(uint64(k), d.c)
	if fb.e >= 0 { // k and C below 2^63: the product below 2^126
		a := absU(d.a)
		return bits.Len64(a)+fb.e <= 126 && int128{0, a}.shlBig(uint(fb.e)).cmp(int128{hi, lo}) < 0
	}
	if hi != 0 || -fb.e >= 64 || bits.Len64(lo)-fb.e > 64 {
		return true // k×C×2^(-e) >= 2^64 > |A|
	}
	return absU(d.a) < lo<<uint(-fb.e)
}

func floorMod(a, b int64) int64 {
	r := a % b
	if r < 0 {
		r += b
	}
	return r
}

// shortestExact is FloatShortest on exact rationals: the reference the
// fast check and the kernels are tested against.
func (d *Decoder) shortestExact(f float64) (int64, Result, bool) {
	m, e, neg := d.significand(f)
	// The interval's ends, midway to the neighbouring floats of the
	// stored type (the one towards zero is half as far for a power of
	// two above the smallest normal).
	x := new(big.Rat).SetFloat64(f)
	var ulp *big.Rat
	if e >= 0 {
		ulp = new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(e)))
	} else {
		ulp = new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-e)))
	}
	half := new(big.Rat).Quo(ulp, big.NewRat(2, 1))
	below := half
	p := 52
	if d.t.Stored.Size == 4 {
		p = 23
	}
	if m == 1<<p && e > minExponent(d.t.Stored.Size) {
		below = new(big.Rat).Quo(half, big.NewRat(2, 1))
	}
	lo, hi := new(big.Rat).Sub(x, below), new(big.Rat).Add(x, half)
	if neg {
		lo, hi = new(big.Rat).Sub(x, half), new(big.Rat).Add(x, below)
	}
	closed := m&1 == 0
	v, l, h := d.aff.exact(x), d.aff.exact(lo), d.aff.exact(hi)
	if l.Cmp(h) > 0 {
		l, h = h, l
	}
	inside := func(t *big.Rat) bool {
		cl, ch := t.Cmp(l), t.Cmp(h)
		return cl > 0 && ch < 0 || closed && cl >= 0 && ch <= 0
	}
	t := v
	for _, g := range d.grids {
		n := new(big.Rat).Quo(v, g)
		fl := new(big.Int).Div(n.Num(), n.Denom()) // floor: the denominator is positive
		var best *big.Rat
		for _, c := range []*big.Int{fl, new(big.Int).Add(fl, big.NewInt(1))} {
			pt := new(big.Rat).Mul(new(big.Rat).SetInt(c), g)
			if inside(pt) && (best == nil || distance(pt, v).Cmp(distance(best, v)) < 0) {
				best = pt
			}
		}
		if best != nil {
			t = best
			break
		}
	}
	q, frac := roundHalfEven(t)
	switch {
	case q.Cmp(minValue) < 0 || q.Cmp(maxValue) > 0:
		return 0, Overflow, t.Sign() < 0
	case frac:
		return q.Int64(), Lossy, q.Sign() < 0
	}
	return q.Int64(), Exact, q.Sign() < 0
}

// minExponent is e of the smallest normal float of the stored type
// (m × 2^e, m of 53 or 24 bits).
func minExponent(size int) int {
	if size == 4 {
		return -149
	}
	return -1074
}

func distance(a, b *big.Rat) *big.Rat { return new(big.Rat).Abs(new(big.Rat).Sub(a, b)) }

// roundHalfEven rounds t to the nearest integer, a half to the even one;
// frac says whether t had a fraction.
func roundHalfEven(t *big.Rat) (*big.Int, bool) {
	q, r := new(big.Int).DivMod(t.Num(), t.Denom(), new(big.Int)) // floor, 0 <= r < den
	if r.Sign() == 0 {
		return q, false
	}
	switch new(big.Int).Lsh(r, 1).Cmp(t.Denom()) {
	case 1:
		q.Add(q, big.NewInt(1))
	case 0:
		if q.Bit(0) == 1 {
			q.Add(q, big.NewInt(1))
		}
	}
	return q, true
}

// exact is (x × A + B) / C as an exact rational.
func (f Affine) exact(x *big.Rat) *big.Rat {
	n := new(big.Int).Mul(x.Num(), f.A)
	n.Add(n, new(big.Int).Mul(x.Denom(), f.B))
	return new(big.Rat).SetFrac(n, new(big.Int).Mul(x.Denom(), f.C))
}
