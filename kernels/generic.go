package kernels

import (
	"math/bits"
	"unsafe"
)

// What the generic twins of the platform hooks share. Each twin lives in
// the file of its op (byteswap.go, validity.go, minmax.go, linear.go,
// calendar32.go, shuffle.go), has exactly the hook's signature, processes
// every element it is given, and is the oracle the SIMD implementations are
// tested against.

// natBits is NaT's bit pattern, math.MinInt64, as a word in host order.
const natBits = 1 << 63

// natWord returns NaT as it sits in memory: natBits, byte reversed when the
// data's byte order is not the host's. Comparing raw words against it finds
// NaT without swapping anything (SIMD kernels take it as their pattern).
func natWord(swap bool) uint64 {
	if swap {
		return bits.ReverseBytes64(natBits)
	}
	return natBits
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
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
