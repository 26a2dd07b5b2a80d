//go:build !purego

package kernels

// shuffle8NEON sets dst[j*stride+i] = src[8*i+j] for j < 8 and i < n, where
// n is len(src)/8 rounded down to a multiple of 16. The caller guarantees
// len(dst) >= 7*stride+n; dst and src do not overlap.
//
//go:noescape
func shuffle8NEON(dst, src []byte, stride int) (n int)

// unshuffle8NEON sets dst[8*i+j] = src[j*stride+i] for j < 8 and i < n,
// where n is len(dst)/8 rounded down to a multiple of 16. The caller
// guarantees len(src) >= 7*stride+n; dst and src do not overlap.
//
//go:noescape
func unshuffle8NEON(dst, src []byte, stride int) (n int)

// The hooks clamp the block to what the strided side can hold, so a wrong
// stride cannot make the assembly write or read out of bounds.

func shuffle8SIMD(dst, src []byte, stride int) (n int) {
	if !useNEON {
		return 0
	}
	return shuffle8NEON(dst, src[:8*shuffleRoom(len(src)/8, len(dst), stride)], stride)
}

func unshuffle8SIMD(dst, src []byte, stride int) (n int) {
	if !useNEON {
		return 0
	}
	return unshuffle8NEON(dst[:8*shuffleRoom(len(dst)/8, len(src), stride)], src, stride)
}
