package inflate

import (
	"encoding/binary"
	"sync"
)

// decoder holds the tables of a dynamic block and the scratch to build
// them: about 12 KiB, pooled so that a decode allocates nothing.
type decoder struct {
	tab     tables
	lk      uint // lengthBits of tab
	cl      [1 << clRoot]uint32
	lens    [maxLit + maxDist]uint8
	scratch buildScratch
}

var decoders = sync.Pool{New: func() any { return new(decoder) }}

// bitReader reads the input LSB first through a 64-bit buffer. bb holds
// nb valid bits; bits above them are either zero or the true bits that
// follow (the fast refill loads whole words), so OR-ing the next bytes in
// is always right. Past the end of the input the slow refill supplies
// zero bytes and still advances ip: consuming more than 8*len(in) bits is
// detected by overread, which is how truncation shows.
type bitReader struct {
	in []byte
	ip int    // next input byte to load (may pass len(in) by the zero padding)
	bb uint64 // bit buffer
	nb uint   // valid bits in bb
}

// refill tops the buffer up to at least 56 bits, byte by byte.
func (b *bitReader) refill() {
	for b.nb <= 56 {
		if b.ip < len(b.in) {
			b.bb |= uint64(b.in[b.ip]) << b.nb
		}
		b.ip++
		b.nb += 8
	}
}

// setPos positions the reader at input bit pos (≤ 8*len(in)), as the
// fast loop leaves it.
func (b *bitReader) setPos(pos int) {
	b.ip, b.bb, b.nb = pos>>3, 0, 0
	b.refill()
	b.bits(uint(pos & 7))
}

// consumed is the number of input bits read so far.
func (b *bitReader) consumed() int { return b.ip*8 - int(b.nb) }

func (b *bitReader) overread() bool { return b.consumed() > len(b.in)*8 }

// offset is the input byte holding the next unread bit, clamped to the
// input, for error messages.
func (b *bitReader) offset() int { return min(b.consumed()/8, len(b.in)) }

// bits takes n ≤ 32 bits; the caller has refilled.
func (b *bitReader) bits(n uint) uint32 {
	v := uint32(b.bb & (1<<n - 1))
	b.bb >>= n
	b.nb -= n
	return v
}

// fail reports err unless the input ran out first, in which case the real
// cause is truncation (the bits that caused err were padding).
func (b *bitReader) fail(kind error, format string, args ...any) error {
	if b.overread() {
		return errAt(ErrTruncated, len(b.in), "input ends inside the deflate stream")
	}
	return errAt(kind, b.offset(), format, args...)
}

// inflate decodes the raw DEFLATE stream at the start of src into dst.
// It returns the bytes written and the bytes of src the stream occupies
// (rounded up to a whole byte; what follows is not looked at).
func (d *decoder) inflate(dst, src []byte) (n, used int, err error) {
	br := bitReader{in: src}
	op := 0
	for {
		if br.overread() {
			return op, 0, br.fail(ErrTruncated, "")
		}
		br.refill()
		final := br.bits(1)
		switch br.bits(2) {
		case 0:
			op, err = storedBlock(&br, dst, op)
		case 1:
			op, err = huffBlock(&br, dst, op, fixedTable, fixedLengthBits)
		case 2:
			if err = d.readDynamic(&br); err == nil {
				op, err = huffBlock(&br, dst, op, &d.tab, d.lk)
			}
		default:
			err = br.fail(ErrCorrupt, "reserved block type 3")
		}
		if err != nil {
			return op, 0, err
		}
		if final == 1 {
			break
		}
	}
	if br.overread() {
		return op, 0, br.fail(ErrTruncated, "")
	}
	return op, (br.consumed() + 7) / 8, nil
}

func storedBlock(br *bitReader, dst []byte, op int) (int, error) {
	// Drop the bits up to the byte boundary; the buffer then holds whole
	// bytes, which are given back to the input.
	br.bb >>= br.nb & 7
	br.nb &^= 7
	pos := br.ip - int(br.nb/8)
	br.bb, br.nb = 0, 0
	br.ip = pos
	if pos+4 > len(br.in) {
		return op, errAt(ErrTruncated, len(br.in), "input ends in a stored block header")
	}
	n := int(binary.LittleEndian.Uint16(br.in[pos:]))
	if nn := int(binary.LittleEndian.Uint16(br.in[pos+2:])); n != nn^0xffff {
		return op, errAt(ErrCorrupt, pos, "stored block length %d does not match its complement %d", n, nn)
	}
	pos += 4
	if n > len(br.in)-pos {
		return op, errAt(ErrTruncated, len(br.in), "input ends inside a stored block of %d bytes", n)
	}
	if n > len(dst)-op {
		return op, errAt(ErrTooLarge, pos, "stored block of %d bytes at output byte %d, destination holds %d", n, op, len(dst))
	}
	copy(dst[op:], br.in[pos:pos+n])
	br.ip = pos + n
	return op + n, nil
}

// clOrder is the order of the code-length code lengths (RFC 1951 3.2.7).
var clOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// readDynamic reads a dynamic block's code lengths and builds d.tab's
// literal/length and distance tables, with compress/flate's rules: at most 286 literal/length and 30
// distance codes, and the codes complete or a single 1-bit code.
func (d *decoder) readDynamic(br *bitReader) error {
	br.refill()
	nlit := int(br.bits(5)) + 257
	ndist := int(br.bits(5)) + 1
	nclen := int(br.bits(4)) + 4
	if nlit > maxLit || ndist > maxDist {
		return br.fail(ErrCorrupt, "dynamic block declares %d literal/length and %d distance codes (at most 286 and 30)", nlit, ndist)
	}
	var cl [19]uint8
	for i := range nclen {
		if br.nb < 3 {
			br.refill()
		}
		cl[clOrder[i]] = uint8(br.bits(3))
	}
	if !build(d.cl[:], cl[:], clRoot, kindCL, &d.scratch) {
		return br.fail(ErrCorrupt, "invalid code-length code")
	}
	n := nlit + ndist
	lens := d.lens[:n]
	for i := 0; i < n; {
		if br.overread() {
			return br.fail(ErrTruncated, "")
		}
		br.refill()
		e := d.cl[br.bb&(1<<clRoot-1)]
		if e&fBad != 0 {
			return br.fail(ErrCorrupt, "invalid code-length symbol")
		}
		br.bits(uint(e & 63))
		sym := uint8(e >> 16)
		if sym < 16 {
			lens[i] = sym
			i++
			continue
		}
		var rep int
		var v uint8
		switch sym {
		case 16:
			if i == 0 {
				return br.fail(ErrCorrupt, "code length repeat with no previous length")
			}
			v = lens[i-1]
			rep = 3 + int(br.bits(2))
		case 17:
			rep = 3 + int(br.bits(3))
		default:
			rep = 11 + int(br.bits(7))
		}
		if rep > n-i {
			return br.fail(ErrCorrupt, "code length repeat of %d past the %d lengths", rep, n)
		}
		for j := range rep {
			lens[i+j] = v
		}
		i += rep
	}
	if br.overread() {
		return br.fail(ErrTruncated, "")
	}
	if !build(d.tab[:litEnough], lens[:nlit], litRoot, kindLit, &d.scratch) {
		return br.fail(ErrCorrupt, "invalid literal/length code")
	}
	if !build(d.tab[litSize:litSize+distEnough], lens[nlit:], distRoot, kindDist, &d.scratch) {
		return br.fail(ErrCorrupt, "invalid distance code")
	}
	d.lk = lengthBits(lens[:nlit])
	return nil
}
