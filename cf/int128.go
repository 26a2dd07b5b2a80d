package cf

import (
	"math"
	"math/bits"
)

// int128 is a two's complement 128-bit integer: the decoder's fast path
// computes floor((v × A + B) / C) in it without big.Int, exactly, when A
// and B fit in an int64 and C (times a float's power of two) in a uint64.
type int128 struct{ hi, lo uint64 }

func int128Of(v int64) int128 { return int128{uint64(v >> 63), uint64(v)} }

func (x int128) neg() int128 {
	lo, borrow := bits.Sub64(0, x.lo, 0)
	hi, _ := bits.Sub64(0, x.hi, borrow)
	return int128{hi, lo}
}

func (x int128) add(y int128) int128 {
	lo, carry := bits.Add64(x.lo, y.lo, 0)
	hi, _ := bits.Add64(x.hi, y.hi, carry)
	return int128{hi, lo}
}

func (x int128) negative() bool { return int64(x.hi) < 0 }

// shl shifts left by 0 <= k < 64 (no overflow for the decoder's operands).
func (x int128) shl(k uint) int128 {
	if k == 0 {
		return x
	}
	return int128{x.hi<<k | x.lo>>(64-k), x.lo << k}
}

// mulMag returns ±mag × a as an int128 (neg gives the sign of the first
// factor, mag its magnitude, up to 2^64-1): |result| < 2^127.
func mulMag(neg bool, mag uint64, a int64) int128 {
	am := uint64(a)
	if a < 0 {
		am = -am
	}
	hi, lo := bits.Mul64(mag, am)
	p := int128{hi, lo}
	if neg != (a < 0) {
		return p.neg()
	}
	return p
}

// divMag divides |x| by d > 0: the quotient and remainder of the
// magnitude, x's sign, and ok false when the quotient is 2^64 or more.
func divMag(x int128, d uint64) (uq, r uint64, negative, ok bool) {
	negative = x.negative()
	m := x
	if negative {
		m = x.neg()
	}
	if m.hi >= d {
		return 0, 0, negative, false
	}
	uq, r = bits.Div64(m.hi, m.lo, d)
	return uq, r, negative, true
}

// floorDiv128 returns floor(x / d) for d > 0, whether a non-zero remainder
// was dropped, and ok false when the quotient is outside
// [MinInt64+1, MaxInt64] (with the quotient's sign in negative).
func floorDiv128(x int128, d uint64) (q int64, lossy, ok, negative bool) {
	uq, r, negative, ok := divMag(x, d)
	if !ok || uq > math.MaxInt64 {
		return 0, false, false, negative
	}
	if !negative {
		return int64(uq), r != 0, true, false
	}
	if r != 0 {
		uq++ // floor of a negative quotient
		if uq > math.MaxInt64 {
			return 0, false, false, true
		}
	}
	return -int64(uq), r != 0, true, true
}

// bitLen is the bit length of |x|.
func (x int128) bitLen() int {
	if x.negative() {
		x = x.neg()
	}
	if x.hi != 0 {
		return 64 + bits.Len64(x.hi)
	}
	return bits.Len64(x.lo)
}

// sarRound is floor(x / 2^k) for k >= 1, and which part of [0, 1) the
// remainder r / 2^k (r = x − floor × 2^k) is: g 0 for none, 1 below a
// half, 2 a half, 3 above.
func (x int128) sarRound(k uint) (q int128, g uint64) {
	if k >= 128 {
		// |x| < 2^127 <= 2^(k-1): r is x, under a half, or 2^k + x,
		// above.
		switch {
		case x.hi == 0 && x.lo == 0:
			return x, 0
		case x.negative():
			return int128{^uint64(0), ^uint64(0)}, 3
		}
		return int128{}, 1
	}
	// The remainder's top bit (bit k-1) and whether any below it is set.
	var top, below bool
	if b := k - 1; b >= 64 {
		top = x.hi>>(b-64)&1 != 0
		below = x.lo != 0 || x.hi&(1<<(b-64)-1) != 0
	} else {
		top = x.lo>>b&1 != 0
		below = x.lo&(1<<b-1) != 0
	}
	switch {
	case top && below:
		g = 3
	case top:
		g = 2
	case below:
		g = 1
	}
	if k >= 64 {
		return int128{uint64(int64(x.hi) >> 63), uint64(int64(x.hi) >> (k - 64))}, g
	}
	return int128{uint64(int64(x.hi) >> k), x.hi<<(64-k) | x.lo>>k}, g
}

// shlBig shifts left by 0 <= k < 128 (the caller checks it does not
// overflow).
func (x int128) shlBig(k uint) int128 {
	if k >= 64 {
		return int128{x.lo << (k - 64), 0}
	}
	return x.shl(k)
}

// cmp compares x and y as signed integers: -1, 0 or +1.
func (x int128) cmp(y int128) int {
	switch {
	case int64(x.hi) < int64(y.hi):
		return -1
	case int64(x.hi) > int64(y.hi):
		return 1
	case x.lo < y.lo:
		return -1
	case x.lo > y.lo:
		return 1
	}
	return 0
}

// roundDiv128 returns x / d (d > 0) rounded to the nearest integer, a half
// to the even one, whether a non-zero remainder was dropped, and ok false
// when the result is outside [MinInt64+1, MaxInt64] (with the quotient's
// sign in negative).
func roundDiv128(x int128, d uint64) (q int64, lossy, ok, negative bool) {
	uq, r, negative, ok := divMag(x, d)
	if !ok || uq > math.MaxInt64 {
		return 0, false, false, negative
	}
	// |x| / d rounded; rounding is symmetric, so -x / d is its negation.
	if r > d-r || r == d-r && uq&1 != 0 {
		uq++
		if uq > math.MaxInt64 {
			return 0, false, false, negative
		}
	}
	if negative {
		return -int64(uq), r != 0, true, true
	}
	return int64(uq), r != 0, true, false
}
