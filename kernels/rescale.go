package kernels

import (
	"math"
	"math/bits"
	"unsafe"
)

// The rescale loops: a platform hook converts a leading run of elements
// (0 without SIMD) and the generic loop of the same name carries on from
// there, up to the end or to the first element it cannot convert in int64,
// which runBlock then finishes with the exact path.
//
// The hooks, one per op, with the contract of the generic loops (convert a
// prefix, stop before the first element that needs the exact path, NaT
// kept and counted; lossy counts only non-NaT elements; dst may equal src):
//
//	mulCheckSIMD(dst, src []uint64, k uint64, lo, hi int64, swapIn, swapOut bool) (n, nat int)
//	floorDivSIMD(dst, src []uint64, d, magic uint64, shift uint, swapIn, swapOut bool) (n, nat, lossy int)
//	floorDivValiditySIMD(dst, src []uint64, bitmap []byte, d, magic uint64, shift uint, swapIn, swapOut bool) (n, nat, lossy int)
//	mulDivSIMD(dst, src []uint64, num, d, magic uint64, shift uint, qlo, qhi int64, swapIn, swapOut bool) (n, nat, lossy int)

func (t *Transcoder) mulWords(dst, src []uint64, swapIn, swapOut bool) (n, nat int) {
	p := &t.lin
	n, nat = mulCheckSIMD(dst, src, p.k, p.lo, p.hi, swapIn, swapOut)
	m, nat2 := mulLoop(dst[n:], src[n:], p, swapIn, swapOut)
	return n + m, nat + nat2
}

func (t *Transcoder) divWords(dst, src []uint64, swapIn, swapOut bool) (n, nat, lossy int) {
	p := &t.lin
	n, nat, lossy = floorDivSIMD(dst, src, p.div.d, p.div.magic, p.div.shift, swapIn, swapOut)
	m, nat2, lossy2 := divLoop(dst[n:], src[n:], p, swapIn, swapOut)
	return n + m, nat + nat2, lossy + lossy2
}

func (t *Transcoder) mulDivWords(dst, src []uint64, swapIn, swapOut bool) (n, nat, lossy int) {
	p := &t.lin
	n, nat, lossy = mulDivSIMD(dst, src, p.num, p.div.d, p.div.magic, p.div.shift, p.qlo, p.qhi, swapIn, swapOut)
	m, nat2, lossy2 := mulDivLoop(dst[n:], src[n:], p, swapIn, swapOut)
	return n + m, nat + nat2, lossy + lossy2
}

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
