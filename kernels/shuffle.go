package kernels

import (
	"encoding/binary"
	"fmt"
)

// Byte shuffle (Blosc's "shuffle" filter) for 8-byte elements: for n
// elements, dst[j*n+i] = src[8*i+j], so the output is n first bytes, then n
// second bytes, and so on. Timestamps then become eight byte planes, the
// high ones nearly constant, which compress far better than the
// interleaved elements. Unshuffle8 is the inverse.
//
// The hooks work on one block of elements at a time and write into all
// eight planes at a stride:
//
//	shuffle8SIMD(dst, src []byte, stride int) (n int)
//	    // for i < n <= len(src)/8, j < 8: dst[j*stride+i] = src[8*i+j]
//	unshuffle8SIMD(dst, src []byte, stride int) (n int)
//	    // for i < n <= len(dst)/8, j < 8: dst[8*i+j] = src[j*stride+i]
//
// The callers guarantee that the strided slice holds 7*stride plus the
// block's elements. Go finishes each block with the generic twins.

// Shuffle8 stores the byte shuffle of src's 8-byte elements in dst. A
// trailing len(src)%8 bytes that do not make a whole element are copied
// unchanged, as c-blosc does with a block that is not a multiple of the
// type size. dst and src must have the same length and must not overlap
// (the shuffle cannot run in place).
func Shuffle8(dst, src []byte) error {
	if err := shuffleCheck("Shuffle8", dst, src); err != nil {
		return err
	}
	n := len(src) / 8
	for i := 0; i < n; i += blockWords {
		k := min(n-i, blockWords)
		block := src[8*i : 8*(i+k)]
		done := shuffle8SIMD(dst[i:], block, n)
		shuffle8Generic(dst[i+done:], block[8*done:], n)
	}
	copy(dst[8*n:], src[8*n:])
	return nil
}

// Unshuffle8 inverts Shuffle8: dst[8*i+j] = src[j*n+i] for the n =
// len(src)/8 whole elements, and the trailing len(src)%8 bytes are copied
// unchanged. dst and src must have the same length and must not overlap.
func Unshuffle8(dst, src []byte) error {
	if err := shuffleCheck("Unshuffle8", dst, src); err != nil {
		return err
	}
	n := len(src) / 8
	for i := 0; i < n; i += blockWords {
		k := min(n-i, blockWords)
		block := dst[8*i : 8*(i+k)]
		done := unshuffle8SIMD(block, src[i:], n)
		unshuffle8Generic(block[8*done:], src[i+done:], n)
	}
	copy(dst[8*n:], src[8*n:])
	return nil
}

func shuffleCheck(op string, dst, src []byte) error {
	if len(dst) != len(src) {
		return fmt.Errorf("kernels: %s of %d bytes into %d bytes: %w", op, len(src), len(dst), ErrLength)
	}
	if overlap(dst, src) != 0 {
		return &shuffleOverlapError{op: op}
	}
	return nil
}

// shuffleOverlapError is ErrOverlap for the shuffles, with a message that
// does not suggest in place works: every element scatters over all eight
// planes, so even identical slices would overwrite unread input.
type shuffleOverlapError struct{ op string }

func (e *shuffleOverlapError) Error() string {
	return "kernels: " + e.op + " needs separate dst and src buffers (they overlap; the shuffle cannot run in place)"
}

func (e *shuffleOverlapError) Unwrap() error { return ErrOverlap }

// shuffleRoom is how many of m elements a SIMD hook may do with planes of
// the given stride in a strided buffer of length planes: 7*stride+n <=
// planes and n <= stride. The entry points always allow all m; the clamp
// keeps a wrong stride from ever reaching the assembly.
func shuffleRoom(m, planes, stride int) int {
	if stride < 0 || stride > planes/7 {
		return 0
	}
	return max(0, min(m, stride, planes-7*stride))
}

// shuffle8Generic is the oracle for shuffle8SIMD and finishes its blocks:
// for i < len(src)/8, j < 8: dst[j*stride+i] = src[8*i+j]. Eight elements
// at a time are one 8x8 byte matrix, transposed in registers and written as
// one 8-byte word per plane.
func shuffle8Generic(dst, src []byte, stride int) {
	m := len(src) / 8
	if m == 0 {
		return
	}
	_ = dst[7*stride+m-1] // one bounds check for the whole block
	i := 0
	for ; i+8 <= m; i += 8 {
		s := src[8*i : 8*i+64]
		r0, r1, r2, r3, r4, r5, r6, r7 := transpose8x8(
			binary.LittleEndian.Uint64(s[0:]), binary.LittleEndian.Uint64(s[8:]),
			binary.LittleEndian.Uint64(s[16:]), binary.LittleEndian.Uint64(s[24:]),
			binary.LittleEndian.Uint64(s[32:]), binary.LittleEndian.Uint64(s[40:]),
			binary.LittleEndian.Uint64(s[48:]), binary.LittleEndian.Uint64(s[56:]))
		binary.LittleEndian.PutUint64(dst[i:], r0)
		binary.LittleEndian.PutUint64(dst[stride+i:], r1)
		binary.LittleEndian.PutUint64(dst[2*stride+i:], r2)
		binary.LittleEndian.PutUint64(dst[3*stride+i:], r3)
		binary.LittleEndian.PutUint64(dst[4*stride+i:], r4)
		binary.LittleEndian.PutUint64(dst[5*stride+i:], r5)
		binary.LittleEndian.PutUint64(dst[6*stride+i:], r6)
		binary.LittleEndian.PutUint64(dst[7*stride+i:], r7)
	}
	for ; i < m; i++ {
		for j := range 8 {
			dst[j*stride+i] = src[8*i+j]
		}
	}
}

// unshuffle8Generic is the oracle for unshuffle8SIMD and finishes its
// blocks: for i < len(dst)/8, j < 8: dst[8*i+j] = src[j*stride+i].
func unshuffle8Generic(dst, src []byte, stride int) {
	m := len(dst) / 8
	if m == 0 {
		return
	}
	_ = src[7*stride+m-1]
	i := 0
	for ; i+8 <= m; i += 8 {
		r0, r1, r2, r3, r4, r5, r6, r7 := transpose8x8(
			binary.LittleEndian.Uint64(src[i:]), binary.LittleEndian.Uint64(src[stride+i:]),
			binary.LittleEndian.Uint64(src[2*stride+i:]), binary.LittleEndian.Uint64(src[3*stride+i:]),
			binary.LittleEndian.Uint64(src[4*stride+i:]), binary.LittleEndian.Uint64(src[5*stride+i:]),
			binary.LittleEndian.Uint64(src[6*stride+i:]), binary.LittleEndian.Uint64(src[7*stride+i:]))
		d := dst[8*i : 8*i+64]
		binary.LittleEndian.PutUint64(d[0:], r0)
		binary.LittleEndian.PutUint64(d[8:], r1)
		binary.LittleEndian.PutUint64(d[16:], r2)
		binary.LittleEndian.PutUint64(d[24:], r3)
		binary.LittleEndian.PutUint64(d[32:], r4)
		binary.LittleEndian.PutUint64(d[40:], r5)
		binary.LittleEndian.PutUint64(d[48:], r6)
		binary.LittleEndian.PutUint64(d[56:], r7)
	}
	for ; i < m; i++ {
		for j := range 8 {
			dst[8*i+j] = src[j*stride+i]
		}
	}
}

// transpose8x8 transposes the 8x8 byte matrix whose row r is the word rr
// (byte c of a row is bits 8c..8c+7): byte c of result r is byte r of input
// c. Three rounds swap ever smaller off-diagonal blocks (4x4, 2x2, 1x1)
// with shifts and masks; a transpose is its own inverse.
func transpose8x8(r0, r1, r2, r3, r4, r5, r6, r7 uint64) (uint64, uint64, uint64, uint64, uint64, uint64, uint64, uint64) {
	const lo32, lo16, lo8 = 0x00000000ffffffff, 0x0000ffff0000ffff, 0x00ff00ff00ff00ff
	r0, r4 = r0&lo32|r4<<32, r0>>32|r4&^lo32
	r1, r5 = r1&lo32|r5<<32, r1>>32|r5&^lo32
	r2, r6 = r2&lo32|r6<<32, r2>>32|r6&^lo32
	r3, r7 = r3&lo32|r7<<32, r3>>32|r7&^lo32

	r0, r2 = r0&lo16|r2<<16&^lo16, r0>>16&lo16|r2&^lo16
	r1, r3 = r1&lo16|r3<<16&^lo16, r1>>16&lo16|r3&^lo16
	r4, r6 = r4&lo16|r6<<16&^lo16, r4>>16&lo16|r6&^lo16
	r5, r7 = r5&lo16|r7<<16&^lo16, r5>>16&lo16|r7&^lo16

	r0, r1 = r0&lo8|r1<<8&^lo8, r0>>8&lo8|r1&^lo8
	r2, r3 = r2&lo8|r3<<8&^lo8, r2>>8&lo8|r3&^lo8
	r4, r5 = r4&lo8|r5<<8&^lo8, r4>>8&lo8|r5&^lo8
	r6, r7 = r6&lo8|r7<<8&^lo8, r6>>8&lo8|r7&^lo8
	return r0, r1, r2, r3, r4, r5, r6, r7
}
