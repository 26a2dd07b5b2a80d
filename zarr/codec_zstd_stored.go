package zarr

import "github.com/klauspost/compress/zstd"

// Data that does not compress (timestamps with sub-second jitter, at the
// fast levels) is kept by a zstd encoder as it is: the frame is a list of
// raw blocks (and RLE blocks, for a run of one byte). Decoding such a
// frame is only copying, yet klauspost's decoder copies each block twice,
// into its history and then out, and a conversion after it reads the
// chunk a third time. storedBlocks recognises these frames, so that the
// chain copies their blocks straight into the chunk, or hands them to a
// caller's pass (Array.ReadChunkFunc) that reads them once.

// zstdBlockMax is the largest block content zstd allows (Block_Maximum_Size
// is at most 128 KiB).
const zstdBlockMax = 128 << 10

// storedBlocks reports whether the zstd frame with header h (read by
// DecodeAndStrip) and blocks, what follows the header to the end of the
// stored value, is the whole value: one frame, with no dictionary and no
// checksum, made only of raw and RLE blocks that regenerate at most limit
// bytes, n in all. Anything else (a compressed block, another frame after
// it, a checksum to verify, a skippable, malformed or truncated frame, a
// size beyond limit) is left to the full decoder, which decodes it or
// names what is wrong, so this function accepts nothing that decoder
// refuses.
func storedBlocks(h *zstd.Header, blocks []byte, limit int) (n int, ok bool) {
	if h.Skippable || h.DictionaryID != 0 || h.HasCheckSum {
		return 0, false
	}
	// The window bounds a block, as klauspost's decoder checks: for a
	// single-segment frame it is the content size (at least 1 KiB).
	window := h.WindowSize
	if h.SingleSegment {
		window = max(h.FrameContentSize, zstd.MinWindowSize)
	}
	if window > zstd.MaxWindowSize {
		return 0, false
	}
	bmax := int(min(window, zstdBlockMax))
	for b := blocks; ; {
		if len(b) < 3 {
			return 0, false
		}
		hdr := int(b[0]) | int(b[1])<<8 | int(b[2])<<16
		last, size := hdr&1 != 0, hdr>>3
		if size > bmax || size > limit-n {
			return 0, false
		}
		switch hdr >> 1 & 3 {
		case 0: // raw: size bytes follow
			if len(b) < 3+size {
				return 0, false
			}
			b = b[3+size:]
		case 1: // RLE: one byte, size times
			if len(b) < 4 {
				return 0, false
			}
			b = b[4:]
		default: // compressed, or reserved
			return 0, false
		}
		n += size
		if last {
			return n, len(b) == 0 && (!h.HasFCS || h.FrameContentSize == uint64(n))
		}
	}
}

// eachBlock calls fn for each block of a frame storedBlocks accepted: with
// a raw block's bytes as they lie in blocks, or with an RLE block's one
// byte and its length.
func eachBlock(blocks []byte, fn func(p []byte, rle bool, size int) error) error {
	for b := blocks; len(b) > 0; {
		hdr := int(b[0]) | int(b[1])<<8 | int(b[2])<<16
		size, rle := hdr>>3, hdr>>1&3 == 1
		var err error
		if rle {
			err, b = fn(b[3:4], true, size), b[4:]
		} else {
			err, b = fn(b[3:3+size], false, size), b[3+size:]
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// copyStored decodes a frame storedBlocks accepted into dst (len n).
func copyStored(dst, blocks []byte) {
	off := 0
	eachBlock(blocks, func(p []byte, rle bool, size int) error {
		if rle {
			setFill(dst[off:off+size], p[:1])
		} else {
			copy(dst[off:], p)
		}
		off += size
		return nil
	})
}

// pieces hands a chunk's bytes to fn in order (Array.ReadChunkFunc), cut
// so that every piece but the last starts and ends at a multiple of align
// bytes of the chunk: bytes that straddle a cut are gathered in carry.
type pieces struct {
	fn    func(off int, p []byte) error
	align int
	off   int    // chunk bytes handed on so far
	carry []byte // cap align: the bytes from off on, until their piece is whole
}

func (w *pieces) write(p []byte) error {
	if len(w.carry) > 0 {
		k := copy(w.carry[len(w.carry):w.align], p)
		w.carry, p = w.carry[:len(w.carry)+k], p[k:]
		if len(w.carry) < w.align {
			return nil
		}
		if err := w.emit(w.carry); err != nil {
			return err
		}
		w.carry = w.carry[:0]
	}
	if whole := len(p) - len(p)%w.align; whole > 0 {
		if err := w.emit(p[:whole]); err != nil {
			return err
		}
		p = p[whole:]
	}
	w.carry = append(w.carry, p...)
	return nil
}

func (w *pieces) emit(p []byte) error {
	err := w.fn(w.off, p)
	w.off += len(p)
	return err
}

// close hands on the last, short piece.
func (w *pieces) close() error {
	if len(w.carry) == 0 {
		return nil
	}
	return w.emit(w.carry)
}

// passStored hands the blocks of a frame storedBlocks accepted to fn as
// pieces; an RLE block is written out first. (The carry and RLE buffers
// are allocated, small or rare, rather than taken from the chunk-sized
// pool.)
func passStored(blocks []byte, align int, fn func(off int, p []byte) error) error {
	w := pieces{fn: fn, align: align, carry: make([]byte, 0, align)}
	var rleBuf []byte
	err := eachBlock(blocks, func(p []byte, rle bool, size int) error {
		if rle {
			if rleBuf == nil {
				rleBuf = make([]byte, zstdBlockMax)
			}
			c := p[:1]
			p = rleBuf[:size]
			setFill(p, c)
		}
		return w.write(p)
	})
	if err != nil {
		return err
	}
	return w.close()
}
