package inflate

import (
	"bytes"
	"compress/flate"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// refScratch is buildRef's scratch.
type refScratch struct {
	rev    [maxLit + maxDist + 2]uint16
	subMax [1 << litRoot]uint8
	subOff [1 << litRoot]uint16
}

// buildRef is build as it was before table doubling (a strided fill per
// symbol and a scan of every root prefix for subtables), kept as the
// oracle of TestBuildMatchesRef. It fills table for the code lengths lens and reports whether they
// form a code that compress/flate accepts: complete, or a single code of
// length 1 (zlib's exception for one-symbol codes), or empty (all lengths
// 0; any use of it then fails). Unused slots decode as invalid entries.
func buildRef(table []uint32, lens []uint8, root uint, kind tableKind, s *refScratch) bool {
	var count [16]int
	maxLen := 0
	for _, l := range lens {
		count[l]++
		if int(l) > maxLen {
			maxLen = int(l)
		}
	}
	count[0] = 0
	left := 1
	for l := 1; l <= 15; l++ {
		left = left<<1 - count[l]
		if left < 0 {
			return false // over-subscribed
		}
	}
	rootSize := 1 << root
	if left != 0 {
		// Incomplete: only the empty code and a single 1-bit code pass.
		if maxLen > 1 {
			return false
		}
		bad := uint32(fBad | 1<<8 | 1)
		for i := range table[:rootSize] {
			table[i] = bad
		}
		if maxLen == 0 {
			return true
		}
	}
	var next [16]uint32
	code := uint32(0)
	for l := 1; l <= 15; l++ {
		code = (code + uint32(count[l-1])) << 1
		next[l] = code
	}
	next[0] = 0
	rootMask := uint16(rootSize - 1)
	long := maxLen > int(root)
	if long {
		clear(s.subMax[:rootSize])
	}
	for sym, l := range lens {
		if l == 0 {
			continue
		}
		r := bits.Reverse16(uint16(next[l])) >> (16 - l)
		next[l]++
		s.rev[sym] = r
		if long && uint(l) > root {
			p := r & rootMask
			if l > s.subMax[p] {
				s.subMax[p] = l
			}
		}
	}
	pos := rootSize
	if long {
		for p := range rootSize {
			m := s.subMax[p]
			if m == 0 {
				continue
			}
			sb := uint(m) - root
			if pos+1<<sb > len(table) {
				return false // cannot happen for a complete code
			}
			s.subOff[p] = uint16(pos)
			table[p] = uint32(pos)<<16 | fSub | uint32(sb)<<8 | uint32(root)
			pos += 1 << sb
		}
	}
	for sym, l := range lens {
		if l == 0 {
			continue
		}
		r := int(s.rev[sym])
		if uint(l) <= root {
			fill(table[:rootSize], kind, sym, r, uint32(l), uint32(root))
			continue
		}
		p := r & int(rootMask)
		sb := uint(s.subMax[p]) - root
		ll := uint(l) - root
		sub := table[s.subOff[p] : int(s.subOff[p])+1<<sb]
		fill(sub, kind, sym, r>>root, uint32(ll), uint32(sb))
	}
	return true
}

// resolve is the final entry that table gives for the 15 input bits v
// (LSB first): the root entry, or the entry of the subtable it points to.
func resolve(table []uint32, root uint, v uint32) uint32 {
	e := table[v&(1<<root-1)]
	if e&fSub != 0 {
		e = table[e>>16+(v>>root)&(1<<((e>>8)&15)-1)]
	}
	return e
}

// TestBuildMatchesRef builds random codes (complete, deep ones with
// subtables, incomplete, over-subscribed, empty, one-symbol) of every
// kind and the fixed codes with build and buildRef, and requires the same
// verdict and, for every 15-bit input, the same entry. Subtables may be
// laid out in a different order; what each input decodes to may not
// differ.
func TestBuildMatchesRef(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 1))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	var s buildScratch
	var rs refScratch
	built, subtables := 0, 0
	check := func(lens []uint8, root uint, kind tableKind) {
		t.Helper()
		size := litEnough
		if kind == kindDist {
			size = distEnough
		} else if kind == kindCL {
			size = 1 << clRoot
		}
		got := make([]uint32, size)
		want := make([]uint32, size)
		for i := range got {
			got[i], want[i] = 0xdeadbeef, 0xdeadbeef
		}
		okGot := build(got, lens, root, kind, &s)
		okWant := buildRef(want, lens, root, kind, &rs)
		if okGot != okWant {
			t.Fatalf("lens %v: build %v, buildRef %v", lens, okGot, okWant)
		}
		if !okGot {
			return
		}
		built++
		if kind != kindCL && got[0]&fSub != 0 || got[1<<root-1]&fSub != 0 {
			subtables++
		}
		limit := uint32(1) << 15
		if kind == kindCL {
			limit = 1 << clRoot
		}
		for v := range limit {
			if g, w := resolve(got, root, v), resolve(want, root, v); g != w {
				t.Fatalf("lens %v, input %#x: entry %#x, buildRef %#x", lens, v, g, w)
			}
		}
	}
	kinds := []struct {
		kind tableKind
		n    int
		root uint
	}{{kindLit, maxLit, litRoot}, {kindDist, maxDist, distRoot}, {kindCL, 19, clRoot}}
	for i := range n {
		k := kinds[i%3]
		maxLen := 15
		if k.kind == kindCL {
			maxLen = 7
		}
		var lens []uint8
		if r.IntN(2) == 0 {
			lens = randomLengths(r, k.n, 1+r.IntN(maxLen))
		} else {
			lens = growLengths(r, k.n, maxLen, true)
		}
		switch r.IntN(10) {
		case 0: // incomplete: a length made longer
			j := r.IntN(len(lens))
			if lens[j] != 0 && int(lens[j]) < maxLen {
				lens[j]++
			}
		case 1: // over-subscribed: a length made shorter
			j := r.IntN(len(lens))
			if lens[j] > 1 {
				lens[j]--
			}
		case 2: // empty, or one symbol of one bit
			clear(lens)
			if r.IntN(2) == 0 {
				lens[r.IntN(len(lens))] = 1
			}
		}
		check(lens, k.root, k.kind)
	}
	fixed := fixedLitLens()
	check(fixed[:], litRoot, kindLit)
	fixedDist := bytes.Repeat([]uint8{5}, 32)
	check(fixedDist, distRoot, kindDist)
	// The random codes must mostly be accepted, and many need subtables
	// (their longest codewords are all ones, at the root's last index).
	t.Logf("%d of %d codes built, %d with subtables", built, n+2, subtables)
	if built < n/2 || subtables < n/5 {
		t.Fatalf("%d of %d codes built, %d with subtables: the cases do not cover build", built, n+2, subtables)
	}
}

// BenchmarkReadDynamic reads the header of a dynamic block and builds its
// three tables: what every dynamic block costs before its first symbol.
// The block is the first that compress/flate writes at level 5 for the
// e2e-ns benchmark chunk. zlib (numcodecs' GZip and Zlib) writes a block
// every 16 Ki symbols or so: 41 in a MiB of these timestamps.
func BenchmarkReadDynamic(b *testing.B) {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, 5)
	w.Write(e2eNS(benchChunkSize/8, 1))
	w.Close()
	src := buf.Bytes()
	d := new(decoder)
	for b.Loop() {
		br := bitReader{in: src}
		br.refill()
		if br.bits(3)>>1 != 2 {
			b.Fatal("not a dynamic block")
		}
		if err := d.readDynamic(&br); err != nil {
			b.Fatal(err)
		}
	}
}
