package inflate

import (
	"encoding/binary"
	"hash/crc32"
)

const (
	gzFTEXT    = 1 << 0
	gzFHCRC    = 1 << 1
	gzFEXTRA   = 1 << 2
	gzFNAME    = 1 << 3
	gzFCOMMENT = 1 << 4
)

// Gzip decodes the gzip data (RFC 1952) in src into dst and returns the
// number of bytes written. The semantics are those of Python's gzip
// module, which numcodecs' GZip codec uses:
//
//   - every member is decoded, its outputs concatenated;
//   - zero bytes after a member are padding and skipped;
//   - anything else after a member must be another member (ErrCorrupt);
//   - empty input is zero members and decodes to 0 bytes.
//
// Each member's CRC-32 and ISIZE are checked, and the header CRC when
// FHCRC is set (Python skips it; Go checks it). Sizes behave as in Raw.
func Gzip(dst, src []byte) (n int, err error) {
	pos := 0
	for pos < len(src) {
		m, used, err := gzipMember(dst[n:], src[pos:])
		if err != nil {
			return n + m, shift(err, pos)
		}
		n += m
		pos += used
		for pos < len(src) && src[pos] == 0 {
			pos++
		}
	}
	return n, nil
}

// gzipMember decodes the gzip member at the start of src.
func gzipMember(dst, src []byte) (n, used int, err error) {
	if len(src) < 10 {
		return 0, 0, errAt(ErrTruncated, len(src), "input ends in the 10-byte gzip header")
	}
	if src[0] != 0x1f || src[1] != 0x8b {
		return 0, 0, errAt(ErrCorrupt, 0, "not a gzip member: starts %02x %02x, want 1f 8b", src[0], src[1])
	}
	if src[2] != 8 {
		return 0, 0, errAt(ErrCorrupt, 2, "gzip compression method %d, want 8 (deflate)", src[2])
	}
	flg := src[3]
	pos := 10
	if flg&gzFEXTRA != 0 {
		if len(src)-pos < 2 {
			return 0, 0, errAt(ErrTruncated, len(src), "input ends in the gzip FEXTRA length")
		}
		xlen := int(binary.LittleEndian.Uint16(src[pos:]))
		pos += 2
		if len(src)-pos < xlen {
			return 0, 0, errAt(ErrTruncated, len(src), "input ends in the %d-byte gzip FEXTRA field", xlen)
		}
		pos += xlen
	}
	for _, f := range [2]byte{gzFNAME, gzFCOMMENT} {
		if flg&f == 0 {
			continue
		}
		i := pos
		for i < len(src) && src[i] != 0 {
			i++
		}
		if i == len(src) {
			return 0, 0, errAt(ErrTruncated, len(src), "input ends in a gzip file name or comment")
		}
		pos = i + 1
	}
	if flg&gzFHCRC != 0 {
		if len(src)-pos < 2 {
			return 0, 0, errAt(ErrTruncated, len(src), "input ends in the gzip header CRC")
		}
		want := binary.LittleEndian.Uint16(src[pos:])
		if got := uint16(crc32.ChecksumIEEE(src[:pos])); got != want {
			return 0, 0, errAt(ErrChecksum, pos, "gzip header CRC %04x, header says %04x", got, want)
		}
		pos += 2
	}
	n, used, err = raw(dst, src[pos:])
	if err != nil {
		return n, 0, shift(err, pos)
	}
	end := pos + used
	if len(src)-end < 8 {
		return n, 0, errAt(ErrTruncated, len(src), "input ends in the gzip trailer")
	}
	wantCRC := binary.LittleEndian.Uint32(src[end:])
	if got := crc32.ChecksumIEEE(dst[:n]); got != wantCRC {
		return n, 0, errAt(ErrChecksum, end, "CRC-32 %08x of the output, trailer says %08x", got, wantCRC)
	}
	if size := binary.LittleEndian.Uint32(src[end+4:]); size != uint32(n) {
		return n, 0, errAt(ErrChecksum, end+4, "member decodes to %d bytes, trailer ISIZE says %d", n, size)
	}
	return n, end + 8, nil
}
