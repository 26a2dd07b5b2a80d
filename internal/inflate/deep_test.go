package inflate

import (
	"bytes"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// The fast loop's bit budget is tightest for streams of long codes: three
// 11-bit literals (the longest a root entry holds) then a 15-bit literal,
// or then a 15-bit length code with 5 extra bits, followed by a 15-bit
// distance code with 13 extra bits. deepStream writes dynamic blocks of
// such symbols at every bit alignment; TestDeepCodes decodes them.

// completeLengths gives the symbols of special the lengths there and
// fills the rest of n symbols greedily with the shortest lengths that
// keep the code complete (Kraft sum 1, in units of 2^-15).
func completeLengths(n int, special map[int]uint8) []uint8 {
	lens := make([]uint8, n)
	left := 1 << 15
	for s, l := range special {
		lens[s] = l
		left -= 1 << (15 - l)
	}
	for s := range lens {
		if left == 0 {
			break
		}
		if lens[s] != 0 {
			continue
		}
		l := uint8(16 - bits.Len(uint(left))) // largest power of two ≤ left
		lens[s] = l
		left -= 1 << (15 - l)
	}
	if left != 0 {
		panic("incomplete code")
	}
	return lens
}

// canonical returns the canonical Huffman codewords for lens.
func canonical(lens []uint8) []uint32 {
	var count [16]uint32
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	var next [16]uint32
	code := uint32(0)
	for l := 1; l <= 15; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	codes := make([]uint32, len(lens))
	for s, l := range lens {
		if l != 0 {
			codes[s] = next[l]
			next[l]++
		}
	}
	return codes
}

func deepStream(seed uint64) (src, want []byte) {
	r := rand.New(rand.NewPCG(seed, 5))
	lit := map[int]uint8{}
	short := []int{}
	for c := 'a'; c <= 'p'; c++ {
		lit[int(c)] = 11
		short = append(short, int(c))
	}
	long := []int{'A', 'B', 'C', 'D'}
	for _, c := range long {
		lit[c] = 15
	}
	lit[256] = 15 // end of block
	for s := 257; s <= 285; s++ {
		lit[s] = 15
	}
	litLens := completeLengths(286, lit)
	distLens := completeLengths(30, map[int]uint8{29: 15, 28: 15, 0: 15, 3: 15})
	litCodes, distCodes := canonical(litLens), canonical(distLens)

	var w bitWriter
	var out []byte
	putLit := func(c int) {
		w.code(litCodes[c], uint(litLens[c]))
		out = append(out, byte(c))
	}
	putMatch := func(lsym int, lextra uint32, dsym int, dextra uint32) {
		w.code(litCodes[lsym], uint(litLens[lsym]))
		w.bits(lextra, uint(lenExtra[lsym-257]))
		w.code(distCodes[dsym], uint(distLens[dsym]))
		w.bits(dextra, uint(distExtra[dsym]))
		length := int(lenBase[lsym-257]) + int(lextra)
		dist := int(distBase[dsym]) + int(dextra)
		for range length {
			out = append(out, out[len(out)-dist])
		}
	}
	for block := range 3 {
		w.bits(uint32(block/2), 1) // final on the last
		w.bits(2, 2)               // dynamic
		w.bits(286-257, 5)
		w.bits(30-1, 5)
		w.bits(19-4, 4)
		// Code-length code: symbols 0-15 of 4 bits, 16-18 unused.
		for _, s := range clOrder {
			if s < 16 {
				w.bits(4, 3)
			} else {
				w.bits(0, 3)
			}
		}
		for _, l := range append(append([]uint8{}, litLens...), distLens...) {
			w.code(uint32(l), 4)
		}
		// Pad the output past the longest distance, at some alignment.
		for range 32768 + r.IntN(8) {
			putLit(short[r.IntN(len(short))])
		}
		for range 20000 {
			for range 3 {
				putLit(short[r.IntN(len(short))])
			}
			switch r.IntN(4) {
			case 0:
				putLit(long[r.IntN(len(long))])
			case 1:
				// Length 227-257 (5 extra bits), distance 24577-32768.
				putMatch(284, uint32(r.IntN(31)), 29, uint32(r.IntN(1<<13)))
			case 2:
				putMatch(281+r.IntN(3), uint32(r.IntN(32)), 28, uint32(r.IntN(1<<13)))
			default:
				putMatch(257+r.IntN(8), 0, []int{0, 3}[r.IntN(2)], 0)
			}
		}
		w.code(litCodes[256], uint(litLens[256]))
	}
	w.align()
	return w.b, out
}

func TestDeepCodes(t *testing.T) {
	for seed := range uint64(4) {
		src, want := deepStream(seed)
		dst := make([]byte, len(want))
		n, err := Raw(dst, src)
		if err != nil || n != len(want) || !bytes.Equal(dst, want) {
			t.Fatalf("seed %d: n = %d of %d, err = %v, equal = %v", seed, n, len(want), err, bytes.Equal(dst[:n], want[:n]))
		}
		check(t, formats[0], src)
	}
}
