package kernels

import (
	"math"
	"math/big"
	"math/bits"
)

// A linear conversion is floor(v*num/den) with the exact reduced factor.
// compileLinear picks the cheapest loop that is exact for the factor; every
// loop stops at the first element it cannot handle (an overflow, or a value
// outside its fast range) and the driver finishes that element with
// exactLinear.

type linearParams struct {
	// exactLinear: factor = q0 + rem/den, q0 < 2^63, rem < den, rem < 2^64.
	q0, rem uint64
	den     int128

	k      uint64  // multiply loop: factor k
	lo, hi int64   // multiply loop: v*k fits exactly when lo <= v <= hi
	div    divisor // divide and mul-div loops: the denominator
	num    uint64  // mul-div loop: numerator
	qlo    int64   // mul-div loop: q*num+t fits when qlo <= q <= qhi
	qhi    int64
}

var two63 = new(big.Int).Lsh(big.NewInt(1), 63)

func bigU64(x *big.Int) (uint64, bool) {
	if x.Sign() < 0 || x.BitLen() > 64 {
		return 0, false
	}
	return x.Uint64(), true
}

func bigI128(x *big.Int) (int128, bool) {
	if x.Sign() < 0 || x.BitLen() > 127 {
		return int128{}, false
	}
	hi := new(big.Int).Rsh(x, 64)
	lo := new(big.Int).And(x, new(big.Int).SetUint64(math.MaxUint64))
	return int128{hi.Uint64(), lo.Uint64()}, true
}

// compileLinear chooses the op for num/den (both > 0, reduced).
func compileLinear(num, den *big.Int) (op opKind, p linearParams, ok bool) {
	if num.Cmp(den) == 0 {
		return opCopy, p, true
	}
	// num/den >= 2^63: every non-zero value overflows.
	if num.Cmp(new(big.Int).Mul(den, two63)) >= 0 {
		return opAllOverflow, p, true
	}
	q0, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	var ok1, ok2, ok3 bool
	p.q0, ok1 = bigU64(q0)
	p.rem, ok2 = bigU64(rem)
	p.den, ok3 = bigI128(den)
	if !ok1 || !ok2 || !ok3 {
		// Impossible for dt64's units and scales (one side of a reduced
		// factor is at most a scale, < 2^31), but never compute garbage.
		return 0, p, false
	}
	n64, nok := bigU64(num)
	d64, dok := bigU64(den)
	switch {
	case !nok || !dok:
		return opLinearExact, p, true
	case d64 == 1:
		p.k = n64
		p.hi = int64(uint64(math.MaxInt64) / n64)
		p.lo = -p.hi
		return opMul, p, true
	case n64 == 1:
		p.div = newDivisor(d64)
		return opDiv, p, true
	}
	if hi, lo := bits.Mul64(n64, d64); hi == 0 && lo < 1<<63 {
		p.num = n64
		p.div = newDivisor(d64)
		p.qhi = int64((uint64(math.MaxInt64) - (n64 - 1)) / n64)
		p.qlo = -int64(uint64(math.MaxInt64) / n64)
		return opMulDiv, p, true
	}
	return opLinearExact, p, true
}

// exactLinear returns floor(v*num/den) exactly and whether a non-zero
// remainder was dropped. v must not be NaT.
func (p *linearParams) exactLinear(v int64) (int128, bool) {
	a := uint64(v)
	if v < 0 {
		a = -a
	}
	mh, ml := bits.Mul64(a, p.q0)
	ph, pl := bits.Mul64(a, p.rem)
	t, tr := udivmod128(int128{ph, pl}, p.den)
	total := int128{mh, ml}.add(t)
	lossy := !tr.isZero()
	if v >= 0 {
		return total, lossy
	}
	total = total.negate()
	if lossy {
		total = total.sub(u128(1))
	}
	return total, lossy
}

// copyLoop converts nothing; it only changes the byte order (or copies).
func copyLoop(dst, src []uint64, swapIn, swapOut bool) (nat int) {
	copyWords(dst, src, swapIn, swapOut)
	_, nat = countNaTWordsFast(dst, swapOut)
	return nat
}

// copyWords copies src into dst, byte-reversing each word when the two
// orders differ.
func copyWords(dst, src []uint64, swapIn, swapOut bool) {
	switch {
	case swapIn != swapOut:
		byteSwapWords(dst, src)
	case &dst[0] != &src[0]:
		copy(dst, src)
	}
}

func countNaTWordsFast(src []uint64, swap bool) (int, int) {
	return len(src), countNaTWords(src, swap)
}
