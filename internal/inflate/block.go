package inflate

import "encoding/binary"

const (
	// The fast loop runs while one iteration cannot run out of input or
	// output: two refills of up to 8 bytes each, and up to three
	// literals and one 258-byte match written in 8-byte words that may
	// overshoot the match end by 7 bytes.
	fastIn  = 16
	fastOut = 3 + 258 + 8

	litMask  = 1<<litRoot - 1
	distMask = 1<<distRoot - 1
)

// huffBlock decodes the symbols of one Huffman-coded block with the
// tables lt and dt into dst from op, up to and including the end-of-block
// code, and returns the new output position.
func huffBlock(br *bitReader, dst []byte, op int, lt *[litSize]uint32, dt *[distSize]uint32) (int, error) {
	in := br.in
	bb, nb, ip := br.bb, br.nb, br.ip
	var e uint32

	// Fast loop. nb is kept only modulo 64: consumptions subtract whole
	// entries, whose bits above the low byte only disturb nb's bits above
	// its low byte (borrows go up), and every use masks nb to 6 bits.
	// This saves a mask per symbol. Refills load 8 bytes unaligned and branch-free, leaving
	// 56 to 63 bits, enough for a length code with its extra bits (20
	// bits at most) and then, after another refill, a distance code with
	// its extra bits (28). Literals come up to three per refill (15 bits
	// each). Table indexes are masked to the table sizes, which only
	// removes bounds checks: valid entries point inside.
	for ip <= len(in)-fastIn && op <= len(dst)-fastOut {
		bb |= binary.LittleEndian.Uint64(in[ip:]) << (nb & 63)
		ip += int(7 - (nb>>3)&7)
		nb |= 56

		e = lt[bb&litMask]
		if e&fLit != 0 {
			bb >>= e & 63
			nb -= uint(e)
			dst[op] = byte(e >> 16)
			op++
			e = lt[bb&litMask]
			if e&fLit != 0 {
				bb >>= e & 63
				nb -= uint(e)
				dst[op] = byte(e >> 16)
				op++
				e = lt[bb&litMask]
				if e&fLit != 0 {
					bb >>= e & 63
					nb -= uint(e)
					dst[op] = byte(e >> 16)
					op++
					continue
				}
			}
		}
		if e&fExc != 0 {
			if e&fSub != 0 {
				bb >>= litRoot
				nb -= litRoot
				e = lt[(e>>16+uint32(bb&(1<<((e>>8)&15)-1)))&(litSize-1)]
				if e&fLit != 0 {
					bb >>= e & 63
					nb -= uint(e)
					dst[op] = byte(e >> 16)
					op++
					continue
				}
			}
			if e&fExc != 0 {
				bb >>= e & 63
				nb -= uint(e)
				br.bb, br.nb, br.ip = bb, nb&63, ip
				if e&fEOB != 0 {
					return op, nil
				}
				return op, br.fail(ErrCorrupt, "invalid literal/length symbol")
			}
		}
		// A length: base plus extra bits, which sit above the codeword.
		length := int(e>>16) + int((bb&(1<<(e&63)-1))>>((e>>8)&15))
		bb >>= e & 63
		nb -= uint(e)

		bb |= binary.LittleEndian.Uint64(in[ip:]) << (nb & 63)
		ip += int(7 - (nb>>3)&7)
		nb |= 56

		e = dt[bb&distMask]
		if e&fExc != 0 {
			if e&fSub != 0 {
				bb >>= distRoot
				nb -= distRoot
				e = dt[(e>>16+uint32(bb&(1<<((e>>8)&15)-1)))&(distSize-1)]
			}
			if e&fExc != 0 {
				br.bb, br.nb, br.ip = bb, nb&63, ip
				return op, br.fail(ErrCorrupt, "invalid distance symbol")
			}
		}
		dist := int(e>>16) + int((bb&(1<<(e&63)-1))>>((e>>8)&15))
		bb >>= e & 63
		nb -= uint(e)
		if dist > op {
			br.bb, br.nb, br.ip = bb, nb&63, ip
			return op, br.fail(ErrCorrupt, "distance %d before the start of the output (at output byte %d)", dist, op)
		}

		// The match: 8-byte words that may overrun its end by up to 7
		// bytes (fastOut leaves room). Words copy forward correctly when
		// dist ≥ 8, each reading bytes already final. Most matches are
		// short: the first word often is the whole match.
		src := op - dist
		end := op + length
		if dist >= 8 {
			binary.LittleEndian.PutUint64(dst[op:], binary.LittleEndian.Uint64(dst[src:]))
			for op+8 < end {
				op += 8
				src += 8
				binary.LittleEndian.PutUint64(dst[op:], binary.LittleEndian.Uint64(dst[src:]))
			}
		} else if dist == 1 {
			// A run: the byte repeated, as words.
			v := uint64(dst[src]) * 0x0101010101010101
			for ; op < end; op += 8 {
				binary.LittleEndian.PutUint64(dst[op:], v)
			}
		} else {
			copyShort(dst, op, src, end)
		}
		op = end
	}
	br.bb, br.nb, br.ip = bb, nb&63, ip
	return huffBlockSlow(br, dst, op, lt, dt)
}

// copyShort copies a match of distance 2 to 7 byte by byte: each byte may
// be one this copy wrote.
func copyShort(dst []byte, op, src, end int) {
	for op < end {
		dst[op] = dst[src]
		op++
		src++
	}
}

// huffBlockSlow is huffBlock near the end of the input or the output:
// byte-wise refills (zero padding past the input's end, see bitReader)
// and every write checked.
func huffBlockSlow(br *bitReader, dst []byte, op int, lt *[litSize]uint32, dt *[distSize]uint32) (int, error) {
	for {
		if br.overread() {
			return op, br.fail(ErrTruncated, "")
		}
		br.refill()
		e := lt[br.bb&litMask]
		if e&fSub != 0 {
			br.bits(litRoot)
			e = lt[(e>>16+uint32(br.bb&(1<<((e>>8)&15)-1)))&(litSize-1)]
		}
		if e&fLit != 0 {
			if op >= len(dst) {
				return op, br.fail(ErrTooLarge, "output exceeds the %d-byte destination", len(dst))
			}
			br.bits(uint(e & 63))
			dst[op] = byte(e >> 16)
			op++
			continue
		}
		if e&fEOB != 0 {
			br.bits(uint(e & 63))
			return op, nil
		}
		if e&fBad != 0 {
			return op, br.fail(ErrCorrupt, "invalid literal/length symbol")
		}
		length := int(e>>16) + int((br.bb&(1<<(e&63)-1))>>((e>>8)&15))
		br.bits(uint(e & 63))
		br.refill()
		e = dt[br.bb&distMask]
		if e&fSub != 0 {
			br.bits(distRoot)
			e = dt[(e>>16+uint32(br.bb&(1<<((e>>8)&15)-1)))&(distSize-1)]
		}
		if e&fBad != 0 {
			return op, br.fail(ErrCorrupt, "invalid distance symbol")
		}
		dist := int(e>>16) + int((br.bb&(1<<(e&63)-1))>>((e>>8)&15))
		br.bits(uint(e & 63))
		if dist > op {
			return op, br.fail(ErrCorrupt, "distance %d before the start of the output (at output byte %d)", dist, op)
		}
		if length > len(dst)-op {
			return op, br.fail(ErrTooLarge, "output exceeds the %d-byte destination", len(dst))
		}
		for i := range length {
			dst[op+i] = dst[op-dist+i]
		}
		op += length
	}
}
