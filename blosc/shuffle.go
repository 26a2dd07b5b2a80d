package blosc

import "github.com/zarr-dt64/dt64/kernels"

// Byte shuffle stores byte j of every element together: for n elements of
// typesize bytes, dst[j*n+i] = src[i*typesize+j]. Timestamps then become
// typesize streams, the high bytes nearly constant and the low bytes noisy,
// which compress far better apart than interleaved. A block whose size is
// not a multiple of typesize keeps its trailing bytes in place, as c-blosc
// does.
//
// shuffle8 and unshuffle8 are the typesize-8 kernels (every dt64 element):
// whole elements only, done by kernels.Shuffle8/Unshuffle8 with SIMD. The
// generic versions serve every other typesize.

// shuffle writes the byte-shuffled src to dst (same length).
func shuffle(dst, src []byte, typesize int) {
	n := len(src) / typesize
	body := n * typesize
	switch typesize {
	case 1:
		copy(dst, src)
		return
	case 8:
		shuffle8(dst[:body], src[:body])
	default:
		shuffleGeneric(dst[:body], src[:body], typesize)
	}
	copy(dst[body:], src[body:])
}

// unshuffle inverts shuffle.
func unshuffle(dst, src []byte, typesize int) {
	n := len(src) / typesize
	body := n * typesize
	switch typesize {
	case 1:
		copy(dst, src)
		return
	case 8:
		unshuffle8(dst[:body], src[:body])
	default:
		unshuffleGeneric(dst[:body], src[:body], typesize)
	}
	copy(dst[body:], src[body:])
}

// shuffle8 byte-shuffles whole 8-byte elements: len(dst) == len(src), a
// multiple of 8. kernels.Shuffle8 is the SIMD version (AVX2, AVX-512,
// NEON, or its own generic 8x8 transpose). It refuses only buffers of
// different lengths or that overlap, which the callers never pass (blocks
// are shuffled into a separate scratch buffer); in that impossible case
// the plain loop runs rather than leaving dst unwritten.
func shuffle8(dst, src []byte) {
	if kernels.Shuffle8(dst, src) != nil {
		shuffleGeneric(dst, src, 8)
	}
}

// unshuffle8 inverts shuffle8.
func unshuffle8(dst, src []byte) {
	if kernels.Unshuffle8(dst, src) != nil {
		unshuffleGeneric(dst, src, 8)
	}
}

// shuffleGeneric byte-shuffles whole elements of any typesize.
func shuffleGeneric(dst, src []byte, typesize int) {
	n := len(src) / typesize
	for j := range typesize {
		plane := dst[j*n : (j+1)*n]
		for i := range plane {
			plane[i] = src[i*typesize+j]
		}
	}
}

// unshuffleGeneric inverts shuffleGeneric.
func unshuffleGeneric(dst, src []byte, typesize int) {
	n := len(src) / typesize
	for j := range typesize {
		plane := src[j*n : (j+1)*n]
		for i, b := range plane {
			dst[i*typesize+j] = b
		}
	}
}
