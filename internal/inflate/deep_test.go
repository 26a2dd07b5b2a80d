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

// blockWriter writes dynamic blocks with given code lengths and records
// what they decode to.
type blockWriter struct {
	w                   bitWriter
	out                 []byte
	litLens, distLens   []uint8
	litCodes, distCodes []uint32
}

func newBlockWriter(litLens, distLens []uint8) *blockWriter {
	b := new(blockWriter)
	b.setCodes(litLens, distLens)
	return b
}

// setCodes sets the code lengths of the blocks that follow.
func (b *blockWriter) setCodes(litLens, distLens []uint8) {
	b.litLens, b.distLens = litLens, distLens
	b.litCodes, b.distCodes = canonical(litLens), canonical(distLens)
}

// header starts a dynamic block of 286 literal/length and 30 distance
// codes, its code lengths sent with a 4-bit code-length code.
func (b *blockWriter) header(final bool) {
	w := &b.w
	if final {
		w.bits(1, 1)
	} else {
		w.bits(0, 1)
	}
	w.bits(2, 2) // dynamic
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
	for _, l := range append(append([]uint8{}, b.litLens...), b.distLens...) {
		w.code(uint32(l), 4)
	}
}

func (b *blockWriter) lit(c int) {
	b.w.code(b.litCodes[c], uint(b.litLens[c]))
	b.out = append(b.out, byte(c))
}

func (b *blockWriter) match(lsym int, lextra uint32, dsym int, dextra uint32) {
	w := &b.w
	w.code(b.litCodes[lsym], uint(b.litLens[lsym]))
	w.bits(lextra, uint(lenExtra[lsym-257]))
	w.code(b.distCodes[dsym], uint(b.distLens[dsym]))
	w.bits(dextra, uint(distExtra[dsym]))
	length := int(lenBase[lsym-257]) + int(lextra)
	dist := int(distBase[dsym]) + int(dextra)
	for range length {
		b.out = append(b.out, b.out[len(b.out)-dist])
	}
}

func (b *blockWriter) end() { b.w.code(b.litCodes[256], uint(b.litLens[256])) }

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
	b := newBlockWriter(completeLengths(286, lit), completeLengths(30, map[int]uint8{29: 15, 28: 15, 0: 15, 3: 15}))
	for block := range 3 {
		b.header(block == 2)
		// Pad the output past the longest distance, at some alignment.
		for range 32768 + r.IntN(8) {
			b.lit(short[r.IntN(len(short))])
		}
		for range 20000 {
			for range 3 {
				b.lit(short[r.IntN(len(short))])
			}
			switch r.IntN(4) {
			case 0:
				b.lit(long[r.IntN(len(long))])
			case 1:
				// Length 227-257 (5 extra bits), distance 24577-32768.
				b.match(284, uint32(r.IntN(31)), 29, uint32(r.IntN(1<<13)))
			case 2:
				b.match(281+r.IntN(3), uint32(r.IntN(32)), 28, uint32(r.IntN(1<<13)))
			default:
				b.match(257+r.IntN(8), 0, []int{0, 3}[r.IntN(2)], 0)
			}
		}
		b.end()
	}
	b.w.align()
	return b.w.b, b.out
}

// The fast loop looks each distance up together with the literal/length
// entry before it, as if the length took lengthBits bits, and uses that
// entry when the length did take them and the counted bits cover the
// distance and the next lookup. specStream's blocks exercise both sides
// of that test: the shortest length code (symbol 265, 4 bits plus 1 extra
// bit: lengthBits 5) and others that also take 5 bits (symbol 257's 5-bit
// code; the 15-bit codes of symbols 266-268, whose subtable entries count
// 4 + 1 bits from the subtable), other lengths, 0 to 5 literals of 8, 11
// or 15 bits before each match, and distances of 2 to 15-bit codes with
// extra bits folded into the entry, extracted (up to 4 + 13 bits, which
// leaves few counted bits after three 11-bit literals), or in a subtable
// (first block only).
func specStream(seed uint64) (src, want []byte) {
	r := rand.New(rand.NewPCG(seed, 7))
	lit := map[int]uint8{265: 4, 257: 5, 266: 15, 267: 15, 268: 15, 258: 15, 284: 12, 256: 15}
	short := []int{}
	for c := 'a'; c <= 'z'; c++ {
		lit[int(c)] = 8 + 3*uint8(c&1)
		short = append(short, int(c))
	}
	long := []int{'A', 'B', 'C'}
	for _, c := range long {
		lit[c] = 15
	}
	// The second block's distance codes are all short: a distance entry
	// looked up from the wrong bits is then a distance, not a subtable
	// pointer that sends the loop the slow way anyway.
	dist := []map[int]uint8{{5: 2, 10: 3, 20: 4, 28: 4, 14: 6, 29: 15, 3: 9}, {5: 2, 10: 3, 20: 4, 28: 4, 14: 6, 29: 6, 3: 6}}
	litLens := completeLengths(286, lit)
	b := newBlockWriter(litLens, completeLengths(30, dist[0]))
	type sym struct {
		s     int
		extra uint32
	}
	lengths := []sym{{265, 1}, {265, 1}, {265, 1}, {257, 0}, {266, 1}, {267, 1}, {268, 1}, {258, 0}, {284, 31}}
	dists := []sym{{5, 1}, {10, 15}, {20, 511}, {28, 8191}, {14, 63}, {29, 8191}, {3, 0}}
	for block := range 2 {
		b.setCodes(litLens, completeLengths(30, dist[block]))
		b.header(block == 1)
		for range 32768 + r.IntN(8) {
			b.lit(short[r.IntN(len(short))])
		}
		for range 30000 {
			for range r.IntN(6) {
				if r.IntN(8) == 0 {
					b.lit(long[r.IntN(len(long))])
				} else {
					b.lit(short[r.IntN(len(short))])
				}
			}
			l, d := lengths[r.IntN(len(lengths))], dists[r.IntN(len(dists))]
			b.match(l.s, uint32(r.IntN(int(l.extra)+1)), d.s, uint32(r.IntN(int(d.extra)+1)))
		}
		b.end()
	}
	b.w.align()
	return b.w.b, b.out
}

// decodeStreams decodes stream(seed) for seeds 0-3, with each
// implementation of the fast loop, and compares the output with what the
// stream's writer recorded and with the references.
func decodeStreams(t *testing.T, stream func(seed uint64) (src, want []byte)) {
	t.Helper()
	for seed := range uint64(4) {
		src, want := stream(seed)
		eachImpl(t, func(impl string) {
			dst := make([]byte, len(want))
			n, err := Raw(dst, src)
			if err != nil || n != len(want) || !bytes.Equal(dst, want) {
				t.Fatalf("seed %d (%s): n = %d of %d, err = %v, equal = %v", seed, impl, n, len(want), err, bytes.Equal(dst[:n], want[:n]))
			}
		})
		check(t, formats[0], src)
	}
}

func TestDeepCodes(t *testing.T) { decodeStreams(t, deepStream) }

func TestSpeculativeDistance(t *testing.T) {
	if lk := lengthBits(completeLengths(286, map[int]uint8{265: 4, 257: 5})); lk != 5 {
		t.Fatalf("lengthBits = %d, want 5 (symbol 265: 4 bits + 1 extra)", lk)
	}
	decodeStreams(t, specStream)
}
