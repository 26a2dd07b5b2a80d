package inflate

import "encoding/binary"

const (
	// The fast loop runs while one iteration cannot run out of input or
	// output: two refills loading 8 bytes each, and up to three literals
	// and one 258-byte match written in words that may overshoot the
	// match end by 7 bytes (8-byte words, Go), or 15 (16-byte words, the
	// assembly), or four literals.
	fastIn  = 16
	fastOut = 3 + 258 + 16

	litMask  = 1<<litRoot - 1
	distMask = 1<<distRoot - 1
)

// Exits of the fast loop (huffFast and its assembly twins): what huffBlock
// does next.
const (
	fastMargin  = iota // near the end of in or dst: huffBlockSlow goes on
	fastEOB            // end of block, its code consumed
	fastBadLit         // invalid literal/length symbol
	fastBadDist        // invalid distance symbol
	fastFar            // distance before the start of the output
)

// huffBlock decodes the symbols of one Huffman-coded block with the
// tables t (lk: their lengthBits) into dst from op, up to and including
// the end-of-block code, and returns the new output position. The fast
// loop (huffFast, or its assembly twin where the CPU has one, see
// useBMI2) does the bulk; huffBlockSlow the end of the input or output.
func huffBlock(br *bitReader, dst []byte, op int, t *tables, lk uint) (int, error) {
	pos := br.consumed()
	// The loop's set-up takes two refills (up to 14 bytes) before the
	// first iteration's check.
	if pos>>3 > len(br.in)-fastIn-14 || op > len(dst)-fastOut {
		return huffBlockSlow(br, dst, op, t)
	}
	var dist, exit int
	if useBMI2 {
		pos, op, dist, exit = huffFastBMI2(dst, br.in, t, lk, pos, op)
	} else {
		pos, op, dist, exit = huffFast(dst, br.in, t, lk, pos, op)
	}
	br.setPos(pos)
	switch exit {
	case fastEOB:
		return op, nil
	case fastBadLit:
		return op, br.fail(ErrCorrupt, "invalid literal/length symbol")
	case fastBadDist:
		return op, br.fail(ErrCorrupt, "invalid distance symbol")
	case fastFar:
		return op, br.fail(ErrCorrupt, "distance %d before the start of the output (at output byte %d)", dist, op)
	}
	return huffBlockSlow(br, dst, op, t)
}

// huffFast is the fast loop: it decodes symbols from input bit pos into
// dst from op while one more iteration cannot run out of in or dst, and
// returns where it stopped (the input bit position and the output
// position), why (exit: one of the fast* constants; the symbol that ended
// it consumed, except that of fastBadDist, of which only a subtable
// pointer's root bits are)
// and, for fastFar, the distance. The caller has checked that pos>>3 ≤
// len(in)-fastIn-14 and op ≤ len(dst)-fastOut. huffFastBMI2 is its
// assembly twin, with the same contract.
func huffFast(dst, in []byte, t *tables, lk uint, pos, op int) (posOut, opOut, dist, exit int) {
	ip := pos >> 3
	// Fast loop. A refill ORs the 8 input bytes at ip in above the nb
	// valid bits (an unaligned load, branch-free) and advances ip by the
	// whole bytes that added: bb then holds 64 true bits, of which nb (56
	// to 63) are counted. nb is kept only modulo 64: consuming subtracts
	// whole entries, whose bits above the low byte only disturb nb's bits
	// above its low 6 (borrows go up), and every use masks nb to 6 bits.
	// At most 56 bits are consumed between refills; lookups may look at
	// all 64.
	//
	// Each iteration starts with e, the entry of the next symbol, already
	// looked up (libdeflate's preload: the lookup from the bits left
	// before a refill does not wait for the refill's load). Per refill: up
	// to four root-table literals (44 bits, the next lookup 11 more), or
	// up to three and a subtable literal (33 + 15, + 11), or up to three
	// and a length (33 + 20), after which a refill comes before the
	// distance (28 bits, + 11). Table indexes are masked to the table
	// sizes, which only removes bounds checks: valid entries point inside.
	// Two refills per iteration advance ip by at most 14 bytes; the check
	// before each iteration's first keeps both loads inside in.
	//
	// With each literal/length entry e, the distance entry d is looked up
	// lk bits further on (lk: lengthBits, the bits the length code with
	// the shortest codeword takes, which the encoder gives the most
	// frequent length). When e is a length that took lk bits and the
	// counted bits cover d's and the next lookup's, d is the distance's
	// entry, found in parallel with e: a match then costs one dependent
	// lookup, not two. Else d is ignored and the distance looked up after
	// the length as before. d is always from bits that were true when it
	// was looked up: from the same bb as e within an iteration, and
	// looked up again after each refill (a preload before a refill may
	// have had fewer true bits than the refill then counts).
	inEnd := len(in) - fastIn
	outEnd := len(dst) - fastOut
	bb := load64(in, ip) >> (pos & 7)
	nb := uint(56 - pos&7)
	ip += 7
	bb |= load64(in, ip) << (nb & 63)
	ip += int(7 - (nb>>3)&7)
	nb |= 56
	lk &= 63
	e := t[bb&litMask]
	d := t[litSize+(bb>>lk)&distMask]
	var length int
	for {
		if e&fLit != 0 {
			bb >>= e & 63
			nb -= uint(e)
			dst[op] = byte(e >> 16)
			op++
			e = t[bb&litMask]
			d = t[litSize+(bb>>lk)&distMask]
			if e&fLit != 0 {
				bb >>= e & 63
				nb -= uint(e)
				dst[op] = byte(e >> 16)
				op++
				e = t[bb&litMask]
				d = t[litSize+(bb>>lk)&distMask]
				if e&fLit != 0 {
					bb >>= e & 63
					nb -= uint(e)
					dst[op] = byte(e >> 16)
					op++
					e = t[bb&litMask]
					d = t[litSize+(bb>>lk)&distMask]
					if e&fLit != 0 {
						bb >>= e & 63
						nb -= uint(e)
						dst[op] = byte(e >> 16)
						op++
						e = t[bb&litMask]
						goto refill
					}
				}
			}
		}
		if e&fExc != 0 {
			if e&fSub != 0 {
				// The root bits are consumed; the subtable entry's
				// lengths count from its start.
				bb >>= litRoot
				nb -= litRoot
				e = t[(e>>16+uint32(bb&(1<<((e>>8)&15)-1)))&(litSize-1)]
				d = fBad // looked up from before the root bits
				if e&fLit != 0 {
					bb >>= e & 63
					nb -= uint(e)
					dst[op] = byte(e >> 16)
					op++
					e = t[bb&litMask]
					goto refill
				}
			}
			if e&fExc != 0 {
				nb -= uint(e)
				if e&fEOB != 0 {
					return ip*8 - int(nb&63), op, 0, fastEOB
				}
				return ip*8 - int(nb&63), op, 0, fastBadLit
			}
		}
		// A length: base plus extra bits, which sit above the codeword.
		length = int(e >> 16)
		if e&fExtra != 0 {
			length += int((bb & (1<<(e&63) - 1)) >> ((e >> 8) & 63))
		}
		// The distance entry d was looked up with e, lk bits on: when
		// the length took lk bits, d is the right entry, and the lookup
		// that depended on the length is saved. The counted bits must
		// cover the distance and the next lookup's 11 bits (in the
		// other case the refill below provides them), and one more: the
		// assembly twin looks up from a copy of bb shifted left by 2,
		// which lacks bb's top 2 bits, and must take the same path (the
		// paths refill differently, and the loop's exit depends on ip).
		if uint(e&63) == lk && d&fExc == 0 && lk+uint(d&63)+litRoot < nb&63 {
			bb >>= lk
			dist = int(d >> 16)
			if d&fExtra != 0 {
				dist += int((bb & (1<<(d&63) - 1)) >> ((d >> 8) & 63))
			}
			bb >>= d & 63
			nb -= lk + uint(d)
			goto match
		}
		// Refill before consuming the length, so that the refill is off
		// the path from this entry to the distance entry.
		bb |= load64(in, ip) << (nb & 63)
		ip += int(7 - (nb>>3)&7)
		nb |= 56
		bb >>= e & 63
		nb -= uint(e)

		e = t[litSize+bb&distMask]
		if e&fExc != 0 {
			if e&fSub != 0 {
				bb >>= distRoot
				nb -= distRoot
				e = t[litSize+(e>>16+uint32(bb&(1<<((e>>8)&15)-1)))&(distSize-1)]
			}
			if e&fExc != 0 {
				return ip*8 - int(nb&63), op, 0, fastBadDist
			}
		}
		dist = int(e >> 16)
		if e&fExtra != 0 {
			dist += int((bb & (1<<(e&63) - 1)) >> ((e >> 8) & 63))
		}
		bb >>= e & 63
		nb -= uint(e)
	match:
		if dist > op {
			return ip*8 - int(nb&63), op, dist, fastFar
		}
		e = t[bb&litMask]

		// The match: 8-byte words that may overrun its end by up to 7
		// bytes (fastOut leaves room). Words copy forward correctly when
		// dist ≥ 8, each reading bytes already final. Most matches are
		// short: the first word often is the whole match.
		{
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

	refill:
		if ip > inEnd || op > outEnd {
			break
		}
		bb |= load64(in, ip) << (nb & 63)
		ip += int(7 - (nb>>3)&7)
		nb |= 56
		// d is looked up after the refill, from bits that are all true
		// up to bit 63 (e's lookup needs only the bits it had).
		d = t[litSize+(bb>>lk)&distMask]
	}
	return ip*8 - int(nb&63), op, 0, fastMargin
}

// load64 is the 8 bytes of in at i, little endian.
func load64(in []byte, i int) uint64 {
	return binary.LittleEndian.Uint64(in[i : i+8])
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
func huffBlockSlow(br *bitReader, dst []byte, op int, t *tables) (int, error) {
	for {
		if br.overread() {
			return op, br.fail(ErrTruncated, "")
		}
		br.refill()
		e := t[br.bb&litMask]
		if e&fSub != 0 {
			br.bits(litRoot)
			e = t[(e>>16+uint32(br.bb&(1<<((e>>8)&15)-1)))&(litSize-1)]
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
		e = t[litSize+br.bb&distMask]
		if e&fSub != 0 {
			br.bits(distRoot)
			e = t[litSize+(e>>16+uint32(br.bb&(1<<((e>>8)&15)-1)))&(distSize-1)]
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
