package kernels

import (
	"math"
	"math/bits"
	"unsafe"
)

// The generic twins of the platform hooks (see doc.go). They have exactly
// the hook signatures, process every element they are given, and are the
// oracle the SIMD implementations are tested against.

// natWord returns NaT as it sits in memory: the bit pattern 1<<63, byte
// reversed when the data's byte order is not the host's. Comparing raw words
// against it finds NaT without swapping anything.
func natWord(swap bool) uint64 {
	if swap {
		return 0x80
	}
	return 1 << 63
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func byteSwapGeneric(dst, src []uint64) (n int) {
	dst = dst[:len(src)]
	for i, w := range src {
		dst[i] = bits.ReverseBytes64(w)
	}
	return len(src)
}

func countNaTGeneric(src []uint64, swap bool) (n, nat int) {
	pat := natWord(swap)
	for _, w := range src {
		nat += b2i(w == pat)
	}
	return len(src), nat
}

// validityGeneric writes ceil(len(src)/8) bitmap bytes; the unused high bits
// of a last partial byte are zero.
func validityGeneric(bitmap []byte, src []uint64, swap bool) (n, nat int) {
	pat := natWord(swap)
	full := len(src) &^ 7
	bitmap = bitmap[:(len(src)+7)/8]
	for i := 0; i < full; i += 8 {
		s := src[i : i+8 : i+8]
		b := b2i(s[0] != pat) | b2i(s[1] != pat)<<1 | b2i(s[2] != pat)<<2 | b2i(s[3] != pat)<<3 |
			b2i(s[4] != pat)<<4 | b2i(s[5] != pat)<<5 | b2i(s[6] != pat)<<6 | b2i(s[7] != pat)<<7
		bitmap[i/8] = byte(b)
		nat += 8 - bits.OnesCount8(byte(b))
	}
	if full < len(src) {
		b := 0
		for j, w := range src[full:] {
			b |= b2i(w != pat) << j
		}
		bitmap[full/8] = byte(b)
		nat += len(src) - full - bits.OnesCount8(byte(b))
	}
	return len(src), nat
}

// minMaxGeneric: NaT is MinInt64, so it never wins a max; for the min it is
// replaced by MaxInt64 (a conditional move, no branch).
func minMaxGeneric(src []uint64, swap bool) (n int, lo, hi int64) {
	lo, hi = math.MaxInt64, math.MinInt64
	if swap {
		for _, w := range src {
			v := int64(bits.ReverseBytes64(w))
			m := v
			if v == math.MinInt64 {
				m = math.MaxInt64
			}
			lo = min(lo, m)
			hi = max(hi, v)
		}
	} else {
		for _, w := range src {
			v := int64(w)
			m := v
			if v == math.MinInt64 {
				m = math.MaxInt64
			}
			lo = min(lo, m)
			hi = max(hi, v)
		}
	}
	return len(src), lo, hi
}

// applyValidityGeneric stores NaT where the bitmap bit is 0 and returns how
// many elements it set.
func applyValidityGeneric(dst []uint64, bitmap []byte, swap bool) int {
	pat := natWord(swap)
	set := 0
	for i := range dst {
		if bitmap[i>>3]>>(i&7)&1 == 0 {
			dst[i] = pat
			set++
		}
	}
	return set
}

// Byte-order variants of a loop. The hot loops are generic functions over
// one of these types, so the compiler builds four copies of each (one per
// GC shape: the underlying types differ in size) in which swapsIn and
// swapsOut are constants: no flag is tested per element and the registers a
// flag would hold are free for the arithmetic. Go has no other way to
// specialise a loop on a boolean without writing it four times.
type (
	orderNative   uint8  // neither side swapped
	orderSwapIn   uint16 // source byte order is not the host's
	orderSwapOut  uint32 // destination byte order is not the host's
	orderSwapBoth uint64 // both
)

type byteOrders interface {
	orderNative | orderSwapIn | orderSwapOut | orderSwapBoth
}

// orderSwaps returns the flags of order O: constants within each
// instantiation (the size of a shape is known when it is compiled). Loops
// call it once, outside the loop: calling generic helpers per element would
// go through the instantiation's dictionary.
func orderSwaps[O byteOrders]() (swapIn, swapOut bool) {
	var o O
	size := unsafe.Sizeof(o)
	return size == 2 || size == 8, size >= 4
}
