package kernels

import "math/bits"

// int128 is a two's-complement signed 128-bit integer. It exists for the
// rare elements whose exact intermediate values leave int64 (huge scale
// factors, calendar conversions near the ends of the int64 range); the hot
// loops never touch it. It is a plain value type: no allocation, unlike
// math/big.
type int128 struct {
	hi uint64 // high 64 bits; the sign is bit 63
	lo uint64
}

func i128(v int64) int128 { return int128{hi: uint64(v >> 63), lo: uint64(v)} }

func u128(v uint64) int128 { return int128{lo: v} }

func (a int128) neg() bool { return int64(a.hi) < 0 }

func (a int128) isZero() bool { return a.hi == 0 && a.lo == 0 }

func (a int128) add(b int128) int128 {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, _ := bits.Add64(a.hi, b.hi, c)
	return int128{hi, lo}
}

func (a int128) sub(b int128) int128 {
	lo, c := bits.Sub64(a.lo, b.lo, 0)
	hi, _ := bits.Sub64(a.hi, b.hi, c)
	return int128{hi, lo}
}

func (a int128) negate() int128 { return int128{}.sub(a) }

// abs returns |a| as an unsigned 128-bit magnitude (hi, lo); correct for
// every value but the most negative one, which callers never produce.
func (a int128) abs() int128 {
	if a.neg() {
		return a.negate()
	}
	return a
}

func (a int128) cmp(b int128) int {
	if a.hi != b.hi {
		if int64(a.hi) < int64(b.hi) {
			return -1
		}
		return 1
	}
	if a.lo != b.lo {
		if a.lo < b.lo {
			return -1
		}
		return 1
	}
	return 0
}

// fitsValue reports whether a is a valid non-NaT int64, [MinInt64+1, MaxInt64].
func (a int128) fitsValue() bool {
	if a.hi == 0 {
		return a.lo <= 1<<63-1
	}
	return a.hi == ^uint64(0) && a.lo > 1<<63
}

// int64Sat returns a saturated to [MinInt64+1, MaxInt64]: the clamp policy.
func (a int128) int64Sat() int64 {
	if a.fitsValue() {
		return int64(a.lo)
	}
	if a.neg() {
		return minValue
	}
	return maxValue
}

// mulI64 returns a*b exactly and whether it fit in 128 bits.
func (a int128) mulI64(b int64) (int128, bool) {
	neg := a.neg() != (b < 0)
	m := a.abs()
	ub := uint64(b)
	if b < 0 {
		ub = -ub
	}
	h1, l := bits.Mul64(m.lo, ub)
	h2, l2 := bits.Mul64(m.hi, ub)
	h, c := bits.Add64(h1, l2, 0)
	if h2 != 0 || c != 0 || int64(h) < 0 {
		return int128{}, false
	}
	r := int128{h, l}
	if neg {
		r = r.negate()
	}
	return r, true
}

// divModU64 returns the floor quotient and the non-negative remainder of a/d,
// d > 0.
func (a int128) divModU64(d uint64) (q int128, r uint64) {
	m := a.abs()
	qh := m.hi / d
	ql, rem := bits.Div64(m.hi%d, m.lo, d)
	q = int128{qh, ql}
	if !a.neg() {
		return q, rem
	}
	q = q.negate()
	if rem != 0 {
		q = q.sub(u128(1))
		rem = d - rem
	}
	return q, rem
}

// udivmod128 divides unsigned 128-bit magnitudes by shift and subtract. Only
// the exotic linear factors whose denominator exceeds 2^64 use it, where the
// quotient has at most ~64 bits.
func udivmod128(n, d int128) (q, r int128) {
	if d.hi == 0 {
		qh := n.hi / d.lo
		ql, rem := bits.Div64(n.hi%d.lo, n.lo, d.lo)
		return int128{qh, ql}, u128(rem)
	}
	if ucmp(n, d) < 0 {
		return int128{}, n
	}
	shift := bits.LeadingZeros64(d.hi) - bits.LeadingZeros64(n.hi)
	d = shl(d, uint(shift))
	for i := 0; i <= shift; i++ {
		q = shl(q, 1)
		if ucmp(n, d) >= 0 {
			n = n.sub(d)
			q.lo |= 1
		}
		d = shr(d, 1)
	}
	return q, n
}

func ucmp(a, b int128) int {
	if a.hi != b.hi {
		if a.hi < b.hi {
			return -1
		}
		return 1
	}
	if a.lo != b.lo {
		if a.lo < b.lo {
			return -1
		}
		return 1
	}
	return 0
}

func shl(a int128, s uint) int128 {
	if s >= 64 {
		return int128{a.lo << (s - 64), 0}
	}
	if s == 0 {
		return a
	}
	return int128{a.hi<<s | a.lo>>(64-s), a.lo << s}
}

func shr(a int128, s uint) int128 {
	if s >= 64 {
		return int128{0, a.hi >> (s - 64)}
	}
	if s == 0 {
		return a
	}
	return int128{a.hi >> s, a.lo>>s | a.hi<<(64-s)}
}
