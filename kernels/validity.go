package kernels

import (
	"encoding/binary"
	"math/bits"
)

// CountNaT returns the number of NaT elements of src, stored in byte order
// order (nil: host order).
func CountNaT(src []byte, order binary.ByteOrder) (int, error) {
	if _, err := elements("source", src); err != nil {
		return 0, err
	}
	swap := swapFor(order)
	if w, ok := srcWordsOf(src); ok {
		return countNaTWords(w, swap), nil
	}
	var s stage
	nat := 0
	for w, _, ok := s.next(src); ok; w, _, ok = s.next(src) {
		nat += countNaTWords(w, swap)
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
	if w, ok := srcWordsOf(src); ok {
		return validityWords(bitmap, w, swap), nil
	}
	var s stage
	for w, first, ok := s.next(src); ok; w, first, ok = s.next(src) {
		nat += validityWords(bitmap[first/8:], w, swap)
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
	var s stage
	set := 0
	for w, first, ok := s.next(dst); ok; w, first, ok = s.next(dst) {
		set += applyValidityGeneric(w, bitmap[first/8:], swap)
		s.store(dst, len(w))
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
