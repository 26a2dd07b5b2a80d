package blosc

import (
	"encoding/binary"
	"fmt"
	"sync"
)

// Decode decodes the Blosc1 frame src into dst[:0] and returns the result.
// It never grows dst: a frame whose header declares more than cap(dst)
// bytes is an ErrTooLarge error, found from the header before any work, so
// a caller that knows the decoded size bounds the memory a hostile frame
// can cost. dst must not overlap src.
//
// Every known c-blosc 1.x frame decodes: compressors blosclz, lz4 and lz4hc,
// snappy, zlib and zstd; filters noshuffle, shuffle and bitshuffle; split
// and unsplit blocks; uncompressed (memcpyed) frames. Errors wrap
// ErrCorrupt, ErrTooLarge or ErrUnsupported and name the block and stream
// at fault.
func Decode(dst, src []byte) ([]byte, error) {
	h, err := ParseHeader(src)
	if err != nil {
		return nil, err
	}
	src = src[:h.CBytes] // what follows the frame is not its own
	if h.NBytes > cap(dst) {
		return nil, fmt.Errorf("frame declares %d decoded bytes: %w (at most %d)", h.NBytes, ErrTooLarge, cap(dst))
	}
	out := dst[:h.NBytes]
	if err := decodeBlocks(out, src, h); err != nil {
		return nil, err
	}
	return out, nil
}

// Buffers for shuffled blocks. A block is at most the frame's decoded size,
// which the caller bounded, so the pool never holds more than its callers'
// buffers do.
var blockPool = sync.Pool{New: func() any { return new([]byte) }}

func getBlockBuf(n int) *[]byte {
	p := blockPool.Get().(*[]byte)
	if cap(*p) < n {
		*p = make([]byte, n)
	}
	*p = (*p)[:n]
	return p
}

func putBlockBuf(p *[]byte) {
	if cap(*p) <= 64<<20 {
		blockPool.Put(p)
	}
}

// decodeBlocks decodes the blocks of the frame src (header h) into out.
func decodeBlocks(out, src []byte, h Header) error {
	if h.Memcpyed() {
		copy(out, src[HeaderSize:])
		return nil
	}
	nb := h.numBlocks()
	if nb == 0 {
		return nil
	}
	filter := h.Shuffle()
	if filter == ByteShuffle && h.TypeSize == 1 {
		filter = NoShuffle // c-blosc skips shuffling single bytes
	}
	var tmp []byte
	if filter != NoShuffle {
		p := getBlockBuf(h.BlockSize)
		defer putBlockBuf(p)
		tmp = *p
	}
	comp := h.Compressor()
	dataStart := HeaderSize + 4*nb // ParseHeader checked it is inside src
	for j := range nb {
		start := int(binary.LittleEndian.Uint32(src[HeaderSize+4*j:]))
		if start < dataStart || start >= len(src) {
			return fmt.Errorf("%w: block %d of %d starts at offset %d, outside the data [%d, %d)", ErrCorrupt, j, nb, start, dataStart, len(src))
		}
		bsize, leftover := h.BlockSize, false
		if j == nb-1 && h.NBytes%h.BlockSize != 0 {
			bsize, leftover = h.NBytes%h.BlockSize, true
		}
		block := out[j*h.BlockSize : j*h.BlockSize+bsize]
		target := block
		if filter != NoShuffle {
			target = tmp[:bsize]
		}
		ns := h.splits(bsize, leftover)
		if bsize%ns != 0 {
			return fmt.Errorf("%w: block %d of %d bytes cannot split into %d streams (blocksize must be a multiple of typesize)", ErrCorrupt, j, bsize, ns)
		}
		neblock := bsize / ns
		pos := start
		for s := range ns {
			if len(src)-pos < 4 {
				return fmt.Errorf("%w: block %d stream %d: size field at offset %d runs past the %d-byte frame", ErrCorrupt, j, s, pos, len(src))
			}
			csize := int32(binary.LittleEndian.Uint32(src[pos:]))
			pos += 4
			if csize <= 0 || int(csize) > len(src)-pos {
				return fmt.Errorf("%w: block %d stream %d: %d compressed bytes at offset %d (frame ends at %d)", ErrCorrupt, j, s, csize, pos, len(src))
			}
			stream := src[pos : pos+int(csize)]
			pos += int(csize)
			part := target[s*neblock : (s+1)*neblock]
			if int(csize) == neblock {
				// Streams that did not compress are stored as they are.
				copy(part, stream)
				continue
			}
			if err := decompressStream(comp, part, stream); err != nil {
				return fmt.Errorf("block %d stream %d (%s, %d bytes): %w", j, s, comp, csize, err)
			}
		}
		switch filter {
		case ByteShuffle:
			unshuffle(block, target, h.TypeSize)
		case BitShuffle:
			bitUnshuffle(block, target, h.TypeSize)
		}
	}
	return nil
}
