package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Each entry point checks lengths, cuts the input into blocks of at most
// blockWords elements, lets the platform hook do what it can and finishes
// every block with the generic code. []byte inputs that are not 8-byte
// aligned go through an aligned staging buffer.

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
	sw, sok := wordsOf(src)
	if dok && sok {
		byteSwapWords(dw, sw)
		return nil
	}
	var buf [stageWords]uint64
	for off := 0; off < len(src); off += stageWords * 8 {
		end := min(off+stageWords*8, len(src))
		copy(stageBytes(&buf), src[off:end])
		w := buf[:(end-off)/8]
		byteSwapWords(w, w)
		copy(dst[off:end], stageBytes(&buf))
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
// 256 MiB 2684 vs 3725 (copy() 3091).
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

// CountNaT returns the number of NaT elements of src, stored in byte order
// order (nil: host order).
func CountNaT(src []byte, order binary.ByteOrder) (int, error) {
	if _, err := elements("source", src); err != nil {
		return 0, err
	}
	swap := swapFor(order)
	if w, ok := wordsOf(src); ok {
		return countNaTWords(w, swap), nil
	}
	var buf [stageWords]uint64
	nat := 0
	for off := 0; off < len(src); off += stageWords * 8 {
		end := min(off+stageWords*8, len(src))
		copy(stageBytes(&buf), src[off:end])
		nat += countNaTWords(buf[:(end-off)/8], swap)
	}
	return nat, nil
}

// CountNaTInt64 returns the number of NaT elements of src.
func CountNaTInt64(src []int64) int { return countNaTWords(int64Words(src), false) }

func countNaTWords(src []uint64, swap bool) int {
	total := 0
	for len(src) > 0 {
		k := min(len(src), blockWords)
		n, nat := countNaTSIMD(src[:k], swap)
		_, rest := countNaTGeneric(src[n:k], swap)
		total += nat + rest
		src = src[k:]
	}
	return total
}

// Validity writes the validity bitmap of src (Arrow layout: bit i of byte
// i/8, least significant first, 1 = not NaT) into bitmap[:ceil(n/8)] and
// returns the number of NaT elements. The unused high bits of a last partial
// byte are cleared; bytes beyond are not touched.
func Validity(bitmap, src []byte, order binary.ByteOrder) (nat int, err error) {
	n, err := elements("source", src)
	if err != nil {
		return 0, err
	}
	if err := bitmapCheck(bitmap, n); err != nil {
		return 0, err
	}
	swap := swapFor(order)
	if w, ok := wordsOf(src); ok {
		return validityWords(bitmap, w, swap), nil
	}
	var buf [stageWords]uint64
	for off := 0; off < len(src); off += stageWords * 8 {
		end := min(off+stageWords*8, len(src))
		copy(stageBytes(&buf), src[off:end])
		nat += validityWords(bitmap[off/64:], buf[:(end-off)/8], swap)
	}
	return nat, nil
}

// ValidityInt64 is Validity for a native slice.
func ValidityInt64(bitmap []byte, src []int64) (nat int, err error) {
	if err := bitmapCheck(bitmap, len(src)); err != nil {
		return 0, err
	}
	return validityWords(bitmap, int64Words(src), false), nil
}

// validityWords needs len(src) to be a multiple of 8 except in the last call.
func validityWords(bitmap []byte, src []uint64, swap bool) int {
	total := 0
	for len(src) > 0 {
		k := min(len(src), blockWords)
		n, nat := validitySIMD(bitmap, src[:k], swap)
		_, rest := validityGeneric(bitmap[n/8:], src[n:k], swap)
		total += nat + rest
		src = src[k:]
		bitmap = bitmap[k/8:]
	}
	return total
}

// ApplyValidity stores NaT in every element of dst whose bitmap bit is 0
// (the inverse of Validity) and returns how many elements it set.
func ApplyValidity(dst, bitmap []byte, order binary.ByteOrder) (int, error) {
	n, err := elements("destination", dst)
	if err != nil {
		return 0, err
	}
	if err := bitmapCheck(bitmap, n); err != nil {
		return 0, err
	}
	swap := swapFor(order)
	if w, ok := wordsOf(dst); ok {
		return applyValidityGeneric(w, bitmap, swap), nil
	}
	var buf [stageWords]uint64
	set := 0
	for off := 0; off < len(dst); off += stageWords * 8 {
		end := min(off+stageWords*8, len(dst))
		copy(stageBytes(&buf), dst[off:end])
		set += applyValidityGeneric(buf[:(end-off)/8], bitmap[off/64:], swap)
		copy(dst[off:end], stageBytes(&buf))
	}
	return set, nil
}

// ApplyValidityInt64 is ApplyValidity for a native slice.
func ApplyValidityInt64(dst []int64, bitmap []byte) (int, error) {
	if err := bitmapCheck(bitmap, len(dst)); err != nil {
		return 0, err
	}
	return applyValidityGeneric(int64Words(dst), bitmap, false), nil
}

// MinMax returns the smallest and largest non-NaT values of src and how many
// there are. With valid == 0, min is math.MaxInt64 and max math.MinInt64.
func MinMax(src []byte, order binary.ByteOrder) (lo, hi int64, valid int, err error) {
	n, err := elements("source", src)
	if err != nil {
		return 0, 0, 0, err
	}
	swap := swapFor(order)
	if w, ok := wordsOf(src); ok {
		lo, hi, nat := minMaxWords(w, swap)
		return lo, hi, n - nat, nil
	}
	var buf [stageWords]uint64
	lo, hi = math.MaxInt64, math.MinInt64
	nat := 0
	for off := 0; off < len(src); off += stageWords * 8 {
		end := min(off+stageWords*8, len(src))
		copy(stageBytes(&buf), src[off:end])
		l, h, c := minMaxWords(buf[:(end-off)/8], swap)
		lo, hi, nat = min(lo, l), max(hi, h), nat+c
	}
	return lo, hi, n - nat, nil
}

// MinMaxInt64 is MinMax for a native slice.
func MinMaxInt64(src []int64) (lo, hi int64, valid int) {
	lo, hi, nat := minMaxWords(int64Words(src), false)
	return lo, hi, len(src) - nat
}

func minMaxWords(src []uint64, swap bool) (lo, hi int64, nat int) {
	lo, hi = math.MaxInt64, math.MinInt64
	for len(src) > 0 {
		k := min(len(src), blockWords)
		n, l, h := minMaxSIMD(src[:k], swap)
		_, l2, h2 := minMaxGeneric(src[n:k], swap)
		lo, hi = min(lo, l, l2), max(hi, h, h2)
		// The NaT count is a second pass over a block that is still in L1.
		nat += countNaTWords(src[:k], swap)
		src = src[k:]
	}
	return lo, hi, nat
}
