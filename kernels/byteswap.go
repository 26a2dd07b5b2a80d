package kernels

import (
	"fmt"
	"math/bits"
)

// ByteSwap stores the byte-reversed 8-byte elements of src in dst. dst and
// src must have the same length (a multiple of 8) and may be the same slice.
func ByteSwap(dst, src []byte) error {
	if _, err := elements("source", src); err != nil {
		return err
	}
	if len(dst) != len(src) {
		return fmt.Errorf("kernels: byte swap of %d bytes into %d bytes: %w", len(src), len(dst), ErrLength)
	}
	if overlap(dst, src) == 2 {
		return ErrOverlap
	}
	dw, dok := wordsOf(dst)
	sw, sok := srcWordsOf(src)
	if dok && sok {
		byteSwapWords(dw, sw)
		return nil
	}
	var s stage
	for w, _, ok := s.next(src); ok; w, _, ok = s.next(src) {
		byteSwapWords(w, w)
		s.store(dst, len(w))
	}
	return nil
}

// ByteSwapInt64 byte-reverses every element of src into dst (same length;
// may be the same slice).
func ByteSwapInt64(dst, src []int64) error {
	if len(dst) != len(src) {
		return fmt.Errorf("kernels: byte swap of %d elements into %d: %w", len(src), len(dst), ErrLength)
	}
	byteSwapWords(int64Words(dst), int64Words(src))
	return nil
}

// streamBytes is the size from which an out-of-place byte swap uses the
// non-temporal hook: such stores skip reading the destination lines first,
// like copy() above 1 MiB, but leave dst out of the cache, so below this
// they lose. Measured on the 2-core Xeon (AVX-512) the kernels were written
// on, out of place, median MB/s of 5 runs, plain vs non-temporal (a loaded
// shared machine: runs varied by 2x, compare within a row): 1 MiB 9224 vs
// 6359, 4 MiB 6138 vs 10584, 16 MiB 10505 vs 13852, 64 MiB 2400 vs 7442,
// 256 MiB 2684 vs 3725 (copy() 3091). The exception is a destination
// whose pages were never touched (a fresh allocation, first call): there
// the page faults dominate and non-temporal stores lose, e.g. AVX2 8 MiB
// 1459-2202 plain vs 715-1215 MB/s (3 single calls each). copy() makes
// the same trade above 1 MiB.
const streamBytes = 4 << 20

func byteSwapWords(dst, src []uint64) {
	stream := len(src) >= streamBytes/8 && &dst[0] != &src[0]
	for len(src) > 0 {
		k := min(len(src), blockWords)
		var n int
		if stream {
			n = byteSwapStreamSIMD(dst[:k], src[:k])
		} else {
			n = byteSwapSIMD(dst[:k], src[:k])
		}
		byteSwapGeneric(dst[n:k], src[n:k])
		dst, src = dst[k:], src[k:]
	}
}

func byteSwapGeneric(dst, src []uint64) (n int) {
	dst = dst[:len(src)]
	for i, w := range src {
		dst[i] = bits.ReverseBytes64(w)
	}
	return len(src)
}
