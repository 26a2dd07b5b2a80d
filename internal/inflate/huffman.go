package inflate

import "math/bits"

// Decode tables, after libdeflate's design: one lookup of the low rootBits
// bits of the bit buffer gives an entry that decodes a whole symbol,
// literal or length base with the number of its extra bits, so the hot
// loop needs no second table for lengths. Codes longer than rootBits go
// through one subtable, reached from a pointer entry.
//
// An entry is a uint32:
//
//	bits  0-5   bits to consume: codeword length plus extra bits
//	            (pointer: rootBits)
//	bit   7     extra bits to add (a length or distance whose extra bits
//	            are not folded into the entry, see below)
//	bits  8-11  codeword length alone, to shift the extra bits down
//	            (pointer: the subtable's index bits)
//	bit   12    literal
//	bit   13    subtable pointer
//	bit   14    end of block
//	bit   15    invalid symbol or unused code
//	bits 16-31  literal byte, length or distance base, subtable start,
//	            or code-length symbol
//
// A length or distance code whose codeword and extra bits fit in its
// table's index bits has one entry per value of the extra bits, holding
// the final length or distance, bit 7 clear and, as its codeword length,
// all the bits it consumes: extracting extra bits from it yields zero, and
// the hot loop skips the extraction on bit 7.
const (
	fExtra = 1 << 7
	fLit   = 1 << 12
	fSub   = 1 << 13
	fEOB   = 1 << 14
	fBad   = 1 << 15
	fExc   = fSub | fEOB | fBad // not a literal and not a length or distance

	litRoot  = 11
	distRoot = 8
	clRoot   = 7 // code-length codes are at most 7 bits: no subtables

	// Largest table sizes, root plus subtables, for complete codes of
	// up to 15 bits over 288 and 32 symbols with these roots (from
	// zlib's examples/enough.c, as libdeflate uses them).
	litEnough  = 2342
	distEnough = 402

	// The tables are allocated at the next powers of two, so that an
	// index masked to their size needs no bounds check in the hot loop.
	litSize  = 4096
	distSize = 512
	tabSize  = litSize + distSize

	maxLit  = 286 // HLIT at most 286 (RFC 1951 3.2.7)
	maxDist = 30
)

var (
	lenBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lenExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}

	distBase  = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

type tableKind uint8

const (
	kindLit tableKind = iota
	kindDist
	kindCL
)

// entry is the table entry for sym with a codeword of l bits (l counted
// from the subtable's start for long codes).
func entry(kind tableKind, sym int, l uint32) uint32 {
	switch kind {
	case kindLit:
		switch {
		case sym < 256:
			return uint32(sym)<<16 | fLit | l<<8 | l
		case sym == 256:
			return fEOB | l<<8 | l
		case sym < 286:
			s := sym - 257
			return uint32(lenBase[s])<<16 | l<<8 | (l + uint32(lenExtra[s])) | extraFlag(lenExtra[s])
		}
	case kindDist:
		if sym < 30 {
			return uint32(distBase[sym])<<16 | l<<8 | (l + uint32(distExtra[sym])) | extraFlag(distExtra[sym])
		}
	case kindCL:
		return uint32(sym)<<16 | l<<8 | l
	}
	// Symbols 286, 287 and distances 30, 31 have codes in the fixed
	// tables but are invalid in a stream.
	return fBad | l<<8 | l
}

func extraFlag(n uint8) uint32 {
	if n == 0 {
		return 0
	}
	return fExtra
}

// symEntries is entry(kind, sym, 0) for every kind and symbol: its low 6
// bits are the number of extra bits, and entry(kind, sym, l) is it plus
// l<<8 + l (symEntry). Table building looks entries up here rather than
// through entry's switch. Indexes are masked to 511, which only removes
// bounds checks.
var symEntries = func() (t [3][512]uint32) {
	for k := range t {
		for sym := range 288 {
			t[k][sym] = entry(tableKind(k), sym, 0)
		}
	}
	return t
}()

// symEntry is entry(kind, sym, l) and the number of sym's extra bits (0
// for literals, end of block, invalid symbols and code-length codes).
func symEntry(kind tableKind, sym int, l uint32) (e, x uint32) {
	e0 := symEntries[kind][sym&511]
	return e0 + l<<8 + l, e0 & 63
}

// fill writes sym's entries for a codeword of l bits, bit-reversed r,
// into tab, a root table or a subtable of 1<<n entries: every index whose
// low l bits are r. Where the extra bits fit in the n bits too, each
// index gets the entry for its value of them (see entry's format).
func fill(tab []uint32, kind tableKind, sym int, r int, l, n uint32) {
	e, x := symEntry(kind, sym, l)
	if x == 0 || l+x > n {
		for i := r; i < len(tab); i += 1 << l {
			tab[i] = e
		}
		return
	}
	t := l + x
	for i := r; i < len(tab); i += 1 << l {
		tab[i] = (e>>16+uint32(i>>l)&(1<<x-1))<<16 | t<<8 | t
	}
}

// scratch for build, kept in the decoder so that building allocates
// nothing.
type buildScratch struct {
	sorted [maxLit + 2]uint16 // the used symbols in canonical order
	fold   [32]foldSym        // codewords whose extra bits fold (at most 29)
}

// build fills table for the code lengths lens and reports whether they
// form a code that compress/flate accepts: complete, or a single code of
// length 1 (zlib's exception for one-symbol codes), or empty (all lengths
// 0; any use of it then fails). Unused slots decode as invalid entries.
//
// Every dynamic block builds three tables, and zlib writes a block every
// 16 Ki symbols or so (41 in a MiB of timestamps): building by a strided
// fill per symbol took 13 % of decoding such a chunk. It follows libdeflate's
// build_decode_table: the symbols in canonical order (by codeword length,
// then symbol), each root codeword's entry written once, at its
// bit-reversed codeword, into the first 2^l entries, which are doubled by
// a copy for each longer length; subtables are allocated in canonical
// order, where the codewords under one root prefix are consecutive.
// Entries whose extra bits are folded in (see entry) differ along the
// doubling, so they are written again afterwards, by fill.
func build(table []uint32, lens []uint8, root uint, kind tableKind, s *buildScratch) bool {
	// Counted in two halves, whose increments do not wait for each
	// other; the halves' counts also place the symbols below.
	var count, lo [16]int
	half := len(lens) / 2
	for i, l := range lens[:half] {
		lo[l&15]++ // lengths are at most 15
		count[lens[half+i]&15]++
	}
	if len(lens)&1 != 0 {
		count[lens[len(lens)-1]&15]++
	}
	for l := range lo {
		count[l] += lo[l]
	}
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
		for l := 2; l <= 15; l++ {
			if count[l] != 0 {
				return false
			}
		}
		bad := uint32(fBad | 1<<8 | 1)
		for i := range table[:rootSize] {
			table[i] = bad
		}
		for sym, l := range lens {
			if l == 1 {
				fill(table[:rootSize], kind, sym, 0, 1, uint32(root))
			}
		}
		return true
	}

	// The symbols in canonical order, unused ones (length 0) after them,
	// placed from both halves at once: hi's positions start after lo's.
	var offs, hi [16]int
	for l := 1; l < 15; l++ {
		offs[l+1] = offs[l] + count[l]
	}
	offs[0] = offs[15] + count[15]
	for l := range hi {
		hi[l] = offs[l] + lo[l]
	}
	sorted := s.sorted[:len(lens)]
	for i, l := range lens[:half] {
		sorted[offs[l&15]] = uint16(i)
		offs[l&15]++
		m := lens[half+i]
		sorted[hi[m&15]] = uint16(half + i)
		hi[m&15]++
	}
	if len(lens)&1 != 0 {
		sorted[hi[lens[len(lens)-1]&15]] = uint16(len(lens) - 1)
	}

	l := 1
	for count[l] == 0 {
		l++
	}
	c := count[l] // codewords of length l still to place
	end := 1 << l // table[:end] is filled for the codewords of up to l bits
	cw := 0       // the next codeword, bit-reversed (LSB first, as looked up)
	i := 0        // its symbol's index in sorted
	nfold := 0
	for l <= int(root) {
		for ; c > 0; c-- {
			sym := sorted[i]
			i++
			e, x := symEntry(kind, int(sym), uint32(l))
			table[cw&(rootSize-1)] = e
			if x != 0 && uint(l)+uint(x) <= root {
				s.fold[nfold&31] = foldSym{sym, uint16(cw), uint8(l)}
				nfold++
			}
			if cw == end-1 {
				// The last codeword (all ones): the code ends in the root.
				for ; l < int(root); l++ {
					copy(table[end:2*end], table[:end])
					end <<= 1
				}
				refold(table[:rootSize], kind, s.fold[:min(nfold, 32)], root)
				return true
			}
			cw = nextCodeword(cw, end)
		}
		// The next length with codewords; the table doubled up to it.
		for c == 0 {
			l++
			if l <= int(root) {
				copy(table[end:2*end], table[:end])
				end <<= 1
			}
			c = count[l&15]
		}
	}
	refold(table[:rootSize], kind, s.fold[:min(nfold, 32)], root)

	// Codewords longer than the root: a subtable per root prefix, as
	// large as the codewords under that prefix need.
	pos := rootSize
	prefix := -1
	subStart, subBits := 0, 0
	for {
		if cw&(rootSize-1) != prefix {
			prefix = cw & (rootSize - 1)
			subStart = pos
			// 2^(l-root) entries, or more if fewer codewords of l bits
			// remain than that: then longer ones fill the rest (the
			// code is complete).
			subBits = l - int(root)
			used := c
			for used < 1<<subBits && int(root)+subBits < 15 {
				subBits++
				used = used<<1 + count[int(root)+subBits]
			}
			pos += 1 << subBits
			if pos > len(table) {
				return false // cannot happen for a complete code
			}
			table[prefix] = uint32(subStart)<<16 | fSub | uint32(subBits)<<8 | uint32(root)
		}
		fill(table[subStart:subStart+1<<subBits], kind, int(sorted[i]), cw>>root, uint32(l)-uint32(root), uint32(subBits))
		i++
		if cw == 1<<l-1 {
			return true
		}
		cw = nextCodeword(cw, 1<<l)
		c--
		for c == 0 && l < 15 {
			l++
			c = count[l]
		}
	}
}

// nextCodeword is the canonical code's next codeword after cw, both
// bit-reversed, among codewords of log2(end) bits: adding one to the
// codeword is, reversed, setting its highest zero bit and clearing the
// bits above it.
func nextCodeword(cw, end int) int {
	bit := 1 << (bits.Len(uint(cw^(end-1))) - 1)
	return cw&(bit-1) | bit
}

// foldSym is a root codeword whose extra bits fold into its entries.
type foldSym struct {
	sym, cw uint16
	l       uint8
}

// refold writes the entries of the codewords in f, whose extra bits fold
// into their entries, over the plain entries the doubling copied.
func refold(table []uint32, kind tableKind, f []foldSym, root uint) {
	for _, s := range f {
		fill(table, kind, int(s.sym), int(s.cw), uint32(s.l), uint32(root))
	}
}

// lengthBits is the number of bits that the length code with the
// shortest codeword takes with its extra bits, when they fit in the root
// table, else 0: the fast loop looks the distance up that many bits on,
// together with each literal/length entry (see huffBlock). The encoder
// gives the most frequent length the shortest codeword.
func lengthBits(lens []uint8) uint {
	best := uint(0)
	bestLen := uint8(16)
	for sym := 257; sym < len(lens) && sym < 286; sym++ {
		if l := lens[sym]; l != 0 && l < bestLen {
			bestLen = l
			best = uint(l) + uint(lenExtra[sym-257])
		}
	}
	if best > litRoot {
		return 0
	}
	return best
}

// tables is a block's literal/length table followed by its distance table
// (at litSize): one base pointer for both in the hot loop.
type tables [tabSize]uint32

// fixedLitLens is the fixed literal/length code of RFC 1951 3.2.6.
func fixedLitLens() (lens [288]uint8) {
	for i := range lens {
		switch {
		case i < 144:
			lens[i] = 8
		case i < 256:
			lens[i] = 9
		case i < 280:
			lens[i] = 7
		default:
			lens[i] = 8
		}
	}
	return lens
}

// The fixed Huffman tables of RFC 1951 3.2.6, built once.
var fixedTable, fixedLengthBits = func() (*tables, uint) {
	lens := fixedLitLens()
	var s buildScratch
	t := new(tables)
	if !build(t[:litEnough], lens[:], litRoot, kindLit, &s) {
		panic("inflate: fixed literal/length code rejected")
	}
	var dl [32]uint8
	for i := range dl {
		dl[i] = 5
	}
	if !build(t[litSize:litSize+distEnough], dl[:], distRoot, kindDist, &s) {
		panic("inflate: fixed distance code rejected")
	}
	return t, lengthBits(lens[:])
}()
