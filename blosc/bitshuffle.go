package blosc

import "encoding/binary"

// Bit shuffle (the bitshuffle library's layout, which c-blosc embeds)
// stores bit i of byte j of every element together: for n elements, bit
// row r = 8*j+i is n/8 bytes, and bit e%8 of its byte e/8 is bit i of byte j
// of element e. It applies only when n is a multiple of 8; c-blosc copies
// other blocks as they are, and bytes past the last whole element always
// stay in place.

// transpose8x8 transposes an 8×8 bit matrix held in a word (byte r is row
// r, bit c of it is column c): afterwards bit c of byte r holds what bit r
// of byte c held. Three rounds of swaps of 1-, 2- and 4-bit blocks
// (Hacker's Delight, section 7-3).
func transpose8x8(x uint64) uint64 {
	t := (x ^ (x >> 7)) & 0x00AA00AA00AA00AA
	x ^= t ^ (t << 7)
	t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCC
	x ^= t ^ (t << 14)
	t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0
	x ^= t ^ (t << 28)
	return x
}

// bitShuffle writes the bit-shuffled src to dst (same length).
func bitShuffle(dst, src []byte, typesize int) {
	n := len(src) / typesize
	if n%8 != 0 {
		copy(dst, src)
		return
	}
	rowLen := n / 8
	for j := range typesize {
		for g := range rowLen {
			// Byte j of elements 8g..8g+7, element 8g+m in byte m.
			var x uint64
			base := 8*g*typesize + j
			for m := range 8 {
				x |= uint64(src[base+m*typesize]) << (8 * m)
			}
			x = transpose8x8(x)
			for i := range 8 {
				dst[(8*j+i)*rowLen+g] = byte(x >> (8 * i))
			}
		}
	}
	copy(dst[n*typesize:], src[n*typesize:])
}

// bitUnshuffle inverts bitShuffle.
func bitUnshuffle(dst, src []byte, typesize int) {
	n := len(src) / typesize
	if n%8 != 0 {
		copy(dst, src)
		return
	}
	rowLen := n / 8
	if typesize == 8 {
		bitUnshuffle8(dst[:8*n], src[:8*n])
	} else {
		for j := range typesize {
			for g := range rowLen {
				var x uint64
				for i := range 8 {
					x |= uint64(src[(8*j+i)*rowLen+g]) << (8 * i)
				}
				x = transpose8x8(x)
				base := 8*g*typesize + j
				for m := range 8 {
					dst[base+m*typesize] = byte(x >> (8 * m))
				}
			}
		}
	}
	// Bytes past the last whole element stay in place, for every typesize.
	copy(dst[n*typesize:], src[n*typesize:])
}

// bitUnshuffle8 is bitUnshuffle for whole 8-byte elements, len(src) a
// multiple of 64. It untransposes 8 bit rows at a time into a byte-shuffled
// group of 8 elements, then assembles the elements as words.
func bitUnshuffle8(dst, src []byte) {
	n := len(src) / 8
	rowLen := n / 8
	var planes [8]uint64 // planes[j] byte m = byte j of element 8g+m
	for g := range rowLen {
		for j := range 8 {
			var x uint64
			for i := range 8 {
				x |= uint64(src[(8*j+i)*rowLen+g]) << (8 * i)
			}
			planes[j] = transpose8x8(x)
		}
		// Transposing the 8×8 byte matrix planes gives the elements.
		out := dst[64*g : 64*g+64]
		for m := range 8 {
			var w uint64
			for j := range 8 {
				w |= (planes[j] >> (8 * m) & 0xff) << (8 * j)
			}
			binary.LittleEndian.PutUint64(out[8*m:], w)
		}
	}
}
