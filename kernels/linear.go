package kernels

import (
	"math"
	"math/big"
	"math/bits"
	"unsafe"
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

const natBits = 1 << 63

// The loops below return how many leading elements they converted, the NaT
// count among them and (where possible) the lossy count. Each dispatches
// once on the byte orders to a copy of its loop specialised for them (see
// byteOrders): with the flags gone the loop body fits in registers.

func mulLoop(dst, src []uint64, p *linearParams, swapIn, swapOut bool) (n, nat int) {
	switch {
	case !swapIn && !swapOut:
		return mulLoopOf[orderNative](dst, src, p)
	case !swapOut:
		return mulLoopOf[orderSwapIn](dst, src, p)
	case !swapIn:
		return mulLoopOf[orderSwapOut](dst, src, p)
	}
	return mulLoopOf[orderSwapBoth](dst, src, p)
}

func mulLoopOf[O byteOrders](dst, src []uint64, p *linearParams) (n, nat int) {
	dst = dst[:len(src)]
	k := p.k
	// lo <= v <= hi as one unsigned compare (compileLinear: lo = -hi).
	lo, span := uint64(p.lo), uint64(p.hi)-uint64(p.lo)
	swapIn, swapOut := orderSwaps[O]()
	for i, w := range src {
		v := w
		if swapIn {
			v = bits.ReverseBytes64(w)
		}
		r := v * k
		if v-lo > span {
			if v != natBits {
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

func divLoop(dst, src []uint64, p *linearParams, swapIn, swapOut bool) (n, nat, lossy int) {
	// divLoopOf counts in 32-bit halves of one register: cut inputs longer
	// than that (callers pass a 64 KiB block; this is only a guard). The
	// cut lives here, not in divLoopOf: a call inside the loop function
	// made the compiler keep the loop's variables on the stack.
	const chunk = 1 << 30
	dv, sh := p.div, p.div.shift
	for n < len(src) {
		k := min(len(src)-n, chunk)
		d, s := dst[n:n+k], src[n:n+k]
		var nat1, lossy1 int
		switch {
		case !swapIn && !swapOut:
			nat1, lossy1 = divLoopOf[orderNative](d, s, dv.d, dv.magic, sh)
		case !swapOut:
			nat1, lossy1 = divLoopOf[orderSwapIn](d, s, dv.d, dv.magic, sh)
		case !swapIn:
			nat1, lossy1 = divLoopOf[orderSwapOut](d, s, dv.d, dv.magic, sh)
		default:
			nat1, lossy1 = divLoopOf[orderSwapBoth](d, s, dv.d, dv.magic, sh)
		}
		n, nat, lossy = n+k, nat+nat1, lossy+lossy1
	}
	return n, nat, lossy
}

// divLoopOf converts all of src (fewer than 2^32 elements) and returns
// the NaT count and how many other elements had a remainder. It keeps its
// loop in registers (MULQ takes two of them and the variable shift a
// third): the NaT and lossy counts share one accumulator (NaT in the high
// half), and the remainder test needs neither the sign mask nor d-1:
// q = floor(v/d) leaves v - q*d in [0, d), so v is exact iff q*d == v.
func divLoopOf[O byteOrders](dst, src []uint64, d, magic uint64, sh uint) (nat, lossy int) {
	n := len(src)
	if n == 0 {
		return 0, 0
	}
	dst = dst[:n]
	swapIn, swapOut := orderSwaps[O]()
	acc := uint64(0)
	// As in mulDivLoopOf: an offset from the last elements, and NaT in an
	// outer loop, leave the inner one registers to spare around MULQ.
	sEnd := unsafe.Pointer(&src[n-1]) // the last element: checkptr refuses one past the end
	dEnd := unsafe.Pointer(&dst[n-1])
	nat1 := natWord(swapIn)
	off := -8 * (n - 1)
	for {
		for ; off <= 0; off += 8 {
			w := *(*uint64)(unsafe.Add(sEnd, off))
			if w == nat1 {
				break
			}
			if swapIn {
				w = bits.ReverseBytes64(w)
			}
			// floor(v/d) = ^(^v/d) for v < 0: fold the sign with a mask.
			s := uint64(int64(w) >> 63)
			hi, _ := bits.Mul64(w^s, magic)
			q := (hi >> (sh & 63)) ^ s
			acc += uint64(b2i(q*d != w))
			if swapOut {
				q = bits.ReverseBytes64(q)
			}
			*(*uint64)(unsafe.Add(dEnd, off)) = q
		}
		if off > 0 {
			break
		}
		acc += 1 << 32
		*(*uint64)(unsafe.Add(dEnd, off)) = natWord(swapOut)
		off += 8
	}
	return int(acc >> 32), int(acc & (1<<32 - 1))
}

// mulDivLoop converts a prefix of src: mulDivLoopOf takes every value
// whose product v*num fits in int64 (every realistic one) and NaT, and
// returns at any other value, which mulDivWide converts here. It stops
// before the first value even that cannot do.
func mulDivLoop(dst, src []uint64, p *linearParams, swapIn, swapOut bool) (n, nat, lossy int) {
	const chunk = 1 << 30 // mulDivLoopOf's counts are 32-bit halves
	dv, num := p.div, p.num
	// mulDivLoopOf's range: v^sign(v) <= vmax, that is
	// -MaxInt64/num <= v < MaxInt64/num, where v*num fits in int64.
	vmax := uint64(math.MaxInt64)/num - 1
	for n < len(src) {
		end := min(len(src), n+chunk)
		d, s := dst[n:end], src[n:end]
		var k, nat1, lossy1 int
		switch {
		case !swapIn && !swapOut:
			k, nat1, lossy1 = mulDivLoopOf[orderNative](d, s, num, vmax, dv.d, dv.magic, dv.shift)
		case !swapOut:
			k, nat1, lossy1 = mulDivLoopOf[orderSwapIn](d, s, num, vmax, dv.d, dv.magic, dv.shift)
		case !swapIn:
			k, nat1, lossy1 = mulDivLoopOf[orderSwapOut](d, s, num, vmax, dv.d, dv.magic, dv.shift)
		default:
			k, nat1, lossy1 = mulDivLoopOf[orderSwapBoth](d, s, num, vmax, dv.d, dv.magic, dv.shift)
		}
		n, nat, lossy = n+k, nat+nat1, lossy+lossy1
		if n == end {
			continue
		}
		v := src[n]
		if swapIn {
			v = bits.ReverseBytes64(v)
		}
		res, inexact, ok := mulDivWide(int64(v), p)
		if !ok {
			break
		}
		if swapOut {
			res = bits.ReverseBytes64(res)
		}
		dst[n] = res
		n, lossy = n+1, lossy+b2i(inexact)
	}
	return n, nat, lossy
}

// mulDivLoopOf converts NaT and the values in its range, where v*num fits
// in int64 and the result is one floor division of v*num by d, and returns
// at the first other value. The loop must fit in registers (MULQ takes two
// and the variable shift a third): the NaT and lossy counts share one (NaT
// in the high half; src has fewer than 2^32 elements), and the remainder
// test is q*d != x, as in divLoopOf.
func mulDivLoopOf[O byteOrders](dst, src []uint64, num, vmax, d, magic uint64, sh uint) (n, nat, lossy int) {
	n = len(src)
	if n == 0 {
		return 0, 0, 0
	}
	dst = dst[:n]
	swapIn, swapOut := orderSwaps[O]()
	acc := uint64(0)
	// A byte offset from the last elements of both slices counts up to 0:
	// no length stays live in a register. MULQ takes RAX and RDX and the
	// shift CX, and with one more live value the compiler kept the index
	// on the stack, a store-to-load chain on every element.
	sEnd := unsafe.Pointer(&src[n-1]) // the last element: checkptr refuses one past the end
	dEnd := unsafe.Pointer(&dst[n-1])
	off := -8 * (n - 1)
	for {
		// The common case alone, so that the rare one's constants do not
		// take registers or instructions from it.
		for ; off <= 0; off += 8 {
			w := *(*uint64)(unsafe.Add(sEnd, off))
			if swapIn {
				w = bits.ReverseBytes64(w)
			}
			// In range, v*num has the sign of v: one mask serves the
			// range test and the division.
			s := uint64(int64(w) >> 63)
			if w^s > vmax { // NaT folds to MaxInt64
				break
			}
			x := w * num
			hi, _ := bits.Mul64(x^s, magic)
			q := (hi >> (sh & 63)) ^ s
			acc += uint64(b2i(q*d != x))
			if swapOut {
				q = bits.ReverseBytes64(q)
			}
			*(*uint64)(unsafe.Add(dEnd, off)) = q
		}
		if off > 0 {
			break
		}
		// NaT stays NaT; anything else out of range goes back to mulDivLoop.
		if *(*uint64)(unsafe.Add(sEnd, off)) != natWord(swapIn) {
			return n - 1 + off/8, int(acc >> 32), int(acc & (1<<32 - 1))
		}
		acc += 1 << 32
		*(*uint64)(unsafe.Add(dEnd, off)) = natWord(swapOut)
		off += 8
	}
	return n, int(acc >> 32), int(acc & (1<<32 - 1))
}

// mulDivWide is floor(v*num/d) for a value beyond mulDivLoopOf's range (not
// NaT): q, r = floordiv(v, d) and result = q*num + floor(r*num/d), where
// r*num < d*num < 2^63 so the same magic divides it. It fails where q*num
// overflows, as the SIMD hooks do, and the exact path takes over.
func mulDivWide(v int64, p *linearParams) (res uint64, lossy, ok bool) {
	dv, num := p.div, p.num
	q, r := dv.floorDiv(v)
	if q < p.qlo || q > p.qhi {
		return 0, false, false
	}
	rn := r * num
	t := dv.quo(rn)
	return uint64(q*int64(num) + int64(t)), rn != t*dv.d, true
}

// copyLoop converts nothing; it only changes the byte order (or copies).
func copyLoop(dst, src []uint64, swapIn, swapOut bool) (nat int) {
	if swapIn != swapOut {
		byteSwapWords(dst, src)
		_, nat = countNaTWordsFast(dst, swapOut)
		return nat
	}
	if &dst[0] != &src[0] {
		copy(dst, src)
	}
	_, nat = countNaTWordsFast(src, swapIn)
	return nat
}

func countNaTWordsFast(src []uint64, swap bool) (int, int) {
	return len(src), countNaTWords(src, swap)
}
