package blosc

import "encoding/binary"

// Byte shuffle stores byte j of every element together: for n elements of
// typesize bytes, dst[j*n+i] = src[i*typesize+j]. Timestamps then become
// typesize streams, the high bytes nearly constant and the low bytes noisy,
// which compress far better apart than interleaved. A block whose size is
// not a multiple of typesize keeps its trailing bytes in place, as c-blosc
// does.
//
// shuffle8 and unshuffle8 are the typesize-8 kernels (every dt64 element);
// they take whole elements only and are the place for SIMD versions to
// hook in. The generic versions serve every other typesize.

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
// multiple of 8.
func shuffle8(dst, src []byte) {
	n := len(src) / 8
	if n == 0 {
		return
	}
	// Eight plane slices with their lengths proven to the compiler, so the
	// loop body has no bounds checks.
	p0, p1, p2, p3 := dst[0*n:1*n], dst[1*n:2*n], dst[2*n:3*n], dst[3*n:4*n]
	p4, p5, p6, p7 := dst[4*n:5*n], dst[5*n:6*n], dst[6*n:7*n], dst[7*n:8*n]
	src = src[:8*n]
	for i := range n {
		w := binary.LittleEndian.Uint64(src[8*i:])
		p0[i] = byte(w)
		p1[i] = byte(w >> 8)
		p2[i] = byte(w >> 16)
		p3[i] = byte(w >> 24)
		p4[i] = byte(w >> 32)
		p5[i] = byte(w >> 40)
		p6[i] = byte(w >> 48)
		p7[i] = byte(w >> 56)
	}
}

// unshuffle8 inverts shuffle8.
func unshuffle8(dst, src []byte) {
	n := len(src) / 8
	if n == 0 {
		return
	}
	p0, p1, p2, p3 := src[0*n:1*n], src[1*n:2*n], src[2*n:3*n], src[3*n:4*n]
	p4, p5, p6, p7 := src[4*n:5*n], src[5*n:6*n], src[6*n:7*n], src[7*n:8*n]
	dst = dst[:8*n]
	for i := range n {
		w := uint64(p0[i]) | uint64(p1[i])<<8 | uint64(p2[i])<<16 | uint64(p3[i])<<24 |
			uint64(p4[i])<<32 | uint64(p5[i])<<40 | uint64(p6[i])<<48 | uint64(p7[i])<<56
		binary.LittleEndian.PutUint64(dst[8*i:], w)
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
