package kernels

import "math/bits"

// divisor is floor division of an int64 by a constant d >= 2 without a
// hardware divide: the sign is folded away with the xor trick (for v < 0,
// floor(v/d) = ^(^v / d), and ^v >= 0), and the unsigned quotient of a
// 63-bit dividend is a multiply-high by a 64-bit magic number and a shift
// (Granlund-Montgomery: with l = ceil(log2 d) and m = ceil(2^(63+l)/d),
// m*d - 2^(63+l) < d <= 2^l, which makes the estimate exact for every
// dividend below 2^63; m < 2^64 for every d >= 2, powers of two included).
type divisor struct {
	d     uint64
	magic uint64
	shift uint
}

func newDivisor(d uint64) divisor {
	if d < 2 {
		panic("kernels: newDivisor needs d >= 2")
	}
	l := uint(bits.Len64(d - 1)) // ceil(log2 d)
	q, r := bits.Div64(1<<(l-1), 0, d)
	if r != 0 {
		q++
	}
	return divisor{d: d, magic: q, shift: l - 1}
}

// floorDiv returns floor(v/d) and the floor remainder v - q*d in [0, d).
// Valid for every int64 v (NaT included, as a number).
func (dv divisor) floorDiv(v int64) (q int64, rem uint64) {
	s := uint64(v >> 63)
	u := uint64(v) ^ s
	hi, _ := bits.Mul64(u, dv.magic)
	qu := hi >> (dv.shift & 63)
	r := u - qu*dv.d
	// For v < 0 the floor remainder is d-1-r = ^r + d.
	return int64(qu ^ s), (r ^ s) + (dv.d & s)
}

// floorQuo returns floor(v/d), for loops that test the remainder only for
// zero (v - q*d, which needs no fix-up for the sign).
func (dv divisor) floorQuo(v int64) int64 {
	s := uint64(v >> 63)
	hi, _ := bits.Mul64(uint64(v)^s, dv.magic)
	return int64((hi >> (dv.shift & 63)) ^ s)
}

// quo returns floor(u/d) for 0 <= u < 2^63, and beyond up to the bound
// exactTo confirms.
func (dv divisor) quo(u uint64) uint64 {
	hi, _ := bits.Mul64(u, dv.magic)
	return hi >> (dv.shift & 63)
}

// exactTo reports whether quo is exact for every u <= umax. The magic
// exceeds 2^(64+shift)/d by e/d with e = magic*d - 2^(64+shift) < d, so
// u*magic/2^(64+shift) = u/d + u*e/(d*2^(64+shift)), whose integer part
// stays floor(u/d) while u*e < 2^(64+shift): always below 2^63 (e < d <=
// 2^(shift+1)), and for most d well beyond.
func (dv divisor) exactTo(umax uint64) bool {
	_, e := bits.Mul64(dv.magic, dv.d) // the high word is 2^shift
	hi, _ := bits.Mul64(umax, e)
	return hi>>(dv.shift&63) == 0
}
