package blosc

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 99))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// Reference definitions, written straight from the layouts' descriptions.
func shuffleReference(src []byte, typesize int) []byte {
	n := len(src) / typesize
	dst := bytes.Clone(src)
	for i := range n {
		for j := range typesize {
			dst[j*n+i] = src[i*typesize+j]
		}
	}
	return dst
}

func bitShuffleReference(src []byte, typesize int) []byte {
	n := len(src) / typesize
	dst := bytes.Clone(src)
	if n%8 != 0 {
		return dst
	}
	clear(dst[:n*typesize])
	rowLen := n / 8
	for e := range n {
		for j := range typesize {
			for i := range 8 {
				bit := src[e*typesize+j] >> i & 1
				dst[(8*j+i)*rowLen+e/8] |= bit << (e % 8)
			}
		}
	}
	return dst
}

func TestTranspose8x8(t *testing.T) {
	for k := range 1000 {
		x := rand.New(rand.NewPCG(uint64(k), 1)).Uint64()
		y := transpose8x8(x)
		for r := range 8 {
			for c := range 8 {
				if y>>(8*r+c)&1 != x>>(8*c+r)&1 {
					t.Fatalf("transpose8x8(%#x) = %#x: bit (%d,%d) wrong", x, y, r, c)
				}
			}
		}
	}
}

func TestShuffleAgainstReference(t *testing.T) {
	for _, typesize := range []int{1, 2, 3, 4, 7, 8, 9, 16, 17, 255} {
		for _, n := range []int{0, 1, 7, 8, 9, 63, 64, 65, 200, 1000} {
			for _, extra := range []int{0, 1, typesize - 1} {
				if extra >= typesize && typesize > 1 || extra < 0 {
					continue
				}
				src := randomBytes(n*typesize+extra, uint64(n*1000+typesize))
				want := shuffleReference(src, typesize)
				got := make([]byte, len(src))
				shuffle(got, src, typesize)
				if !bytes.Equal(got, want) {
					t.Fatalf("shuffle typesize %d n %d extra %d differs from the reference", typesize, n, extra)
				}
				back := make([]byte, len(src))
				unshuffle(back, got, typesize)
				if !bytes.Equal(back, src) {
					t.Fatalf("unshuffle(shuffle) typesize %d n %d extra %d is not the identity", typesize, n, extra)
				}
				want = bitShuffleReference(src, typesize)
				bitShuffle(got, src, typesize)
				if !bytes.Equal(got, want) {
					t.Fatalf("bitShuffle typesize %d n %d extra %d differs from the reference", typesize, n, extra)
				}
				// A fresh buffer: unshuffle above already put the
				// bytes past the last element in back.
				back = bytes.Repeat([]byte{0xa5}, len(src))
				bitUnshuffle(back, got, typesize)
				if !bytes.Equal(back, src) {
					t.Fatalf("bitUnshuffle(bitShuffle) typesize %d n %d extra %d is not the identity", typesize, n, extra)
				}
			}
		}
	}
}

// shuffle8 and unshuffle8 are the hooks SIMD versions will replace; pin
// them to the generic kernels directly.
func TestShuffle8MatchesGeneric(t *testing.T) {
	for _, n := range []int{0, 1, 2, 15, 16, 17, 31, 32, 33, 1024, 4099} {
		src := randomBytes(8*n, uint64(n))
		want := make([]byte, len(src))
		shuffleGeneric(want, src, 8)
		got := make([]byte, len(src))
		shuffle8(got, src)
		if !bytes.Equal(got, want) {
			t.Fatalf("shuffle8 n=%d differs from shuffleGeneric", n)
		}
		unshuffleGeneric(want, src, 8)
		unshuffle8(got, src)
		if !bytes.Equal(got, want) {
			t.Fatalf("unshuffle8 n=%d differs from unshuffleGeneric", n)
		}
	}
}
