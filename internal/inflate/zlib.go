package inflate

import "encoding/binary"

// Zlib decodes the zlib stream (RFC 1950) at the start of src into dst
// and returns the number of bytes written, after checking the header and
// the Adler-32 of the output. Streams with a preset dictionary (FDICT) are
// rejected, as no Zarr codec sets one. Bytes after the Adler-32 trailer
// are ignored, as Python's zlib.decompress (numcodecs Zlib), zlib's
// uncompress (c-blosc) and Go's compress/zlib do. Sizes behave as in Raw.
func Zlib(dst, src []byte) (n int, err error) {
	n, _, err = zlibDecode(dst, src)
	return n, err
}

func zlibDecode(dst, src []byte) (n, used int, err error) {
	if len(src) < 2 {
		return 0, 0, errAt(ErrTruncated, len(src), "input ends in the 2-byte zlib header")
	}
	cmf, flg := src[0], src[1]
	switch {
	case cmf&0x0f != 8:
		return 0, 0, errAt(ErrCorrupt, 0, "zlib compression method %d, want 8 (deflate)", cmf&0x0f)
	case cmf>>4 > 7:
		return 0, 0, errAt(ErrCorrupt, 0, "zlib window size 2^%d exceeds 2^15", cmf>>4+8)
	case (uint(cmf)<<8|uint(flg))%31 != 0:
		return 0, 0, errAt(ErrCorrupt, 1, "zlib header check bits do not match")
	case flg&0x20 != 0:
		return 0, 0, errAt(ErrCorrupt, 1, "zlib stream needs a preset dictionary")
	}
	n, used, err = raw(dst, src[2:])
	if err != nil {
		return n, 0, shift(err, 2)
	}
	end := 2 + used
	if len(src)-end < 4 {
		return n, 0, errAt(ErrTruncated, len(src), "input ends in the Adler-32 trailer")
	}
	want := binary.BigEndian.Uint32(src[end:])
	if got := adler32(dst[:n]); got != want {
		return n, 0, errAt(ErrChecksum, end, "Adler-32 %08x of the output, trailer says %08x", got, want)
	}
	return n, end + 4, nil
}

// shift moves an error's input offset by the header bytes before the
// deflate data.
func shift(err error, by int) error {
	if e, ok := err.(*Error); ok {
		e.Offset += by
	}
	return err
}
