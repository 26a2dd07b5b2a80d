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
	return DecodeFunc(dst, src, nil)
}

// DecodeFunc is Decode that also hands each block of the result to sink
// the moment the block is final (decompressed and unshuffled), while it is
// still in cache, so a caller can convert the frame block by block instead
// of in a second pass over the whole buffer.
//
// sink gets consecutive, non-overlapping pieces of the result in order,
// together covering all of it: piece is out[off:off+len(piece)], one block
// of the frame (the last may be shorter), or for a memcpyed frame, which
// has no blocks, a slice of at most memcpyPiece bytes. sink may modify the
// piece in place; it must not keep it. Piece boundaries are where the
// frame puts them: a frame's block size need not be a multiple of any
// element size.
//
// When sink returns an error it is not called again, but the rest of the
// frame is still decoded, so that damage later in the frame is reported
// the same way with or without a sink: a decode error wins, otherwise
// DecodeFunc returns sink's error as it is (unwrapped). With a nil sink it
// is Decode.
func DecodeFunc(dst, src []byte, sink func(off int, piece []byte) error) ([]byte, error) {
	h, err := ParseHeader(src)
	if err != nil {
		return nil, err
	}
	if h.NBytes > cap(dst) {
		return nil, fmt.Errorf("frame declares %d decoded bytes: %w (at most %d)", h.NBytes, ErrTooLarge, cap(dst))
	}
	out := dst[:h.NBytes]
	var sinkErr error
	var emit func(off int, piece []byte) // nil without a sink: no pieces
	if sink != nil {
		emit = func(off int, piece []byte) {
			if sinkErr == nil {
				sinkErr = sink(off, piece)
			}
		}
	}
	if err := decodeBlocks(out, src, h, emit); err != nil {
		return nil, err
	}
	if sinkErr != nil {
		return nil, sinkErr
	}
	return out, nil
}

// memcpyPiece is the piece size DecodeFunc copies a memcpyed frame in:
// small enough that the piece is still in L2 when sink reads it.
const memcpyPiece = 128 << 10

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

// decodeBlocks decodes the blocks of the frame src (header h) into out,
// calling emit, when not nil, on each block as soon as it is final.
func decodeBlocks(out, src []byte, h Header, emit func(off int, piece []byte)) error {
	if h.Memcpyed() {
		if emit == nil {
			copy(out, src[HeaderSize:])
			return nil
		}
		for off := 0; off < len(out); off += memcpyPiece {
			piece := out[off:min(off+memcpyPiece, len(out))]
			copy(piece, src[HeaderSize+off:])
			emit(off, piece)
		}
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
		if emit != nil {
			emit(j*h.BlockSize, block)
		}
	}
	return nil
}
