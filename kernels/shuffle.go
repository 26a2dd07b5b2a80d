package kernels

import "fmt"

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
