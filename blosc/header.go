package blosc

import (
	"encoding/binary"
	"fmt"
)

// HeaderSize is the size of a Blosc1 frame header; it is also the most a
// frame adds to its data (a frame that does not compress is stored as the
// header followed by the bytes as they are).
const HeaderSize = 16

// Header flag bits (byte 2 of the frame).
const (
	flagByteShuffle = 0x01 // blocks were byte-shuffled
	flagMemcpyed    = 0x02 // data follows the header uncompressed, unshuffled
	flagBitShuffle  = 0x04 // blocks were bit-shuffled
	flagReserved    = 0x08 // never set by Blosc1; Blosc2 uses it (delta)
	flagDontSplit   = 0x10 // blocks are not split into typesize streams
)

// Blocks are split into typesize streams, one per byte of an element, only
// when elements are small and numerous enough; readers and writers must
// agree on this rule for frames without flagDontSplit (c-blosc before 1.14
// had no such flag and always applied it).
const (
	maxSplits     = 16
	minBufferSize = 128
)

// Compressor is the compression library inside a frame, numbered as in the
// frame header's top three flag bits.
type Compressor uint8

const (
	BloscLZ Compressor = 0
	LZ4     Compressor = 1 // lz4 and lz4hc share the format
	Snappy  Compressor = 2
	Zlib    Compressor = 3
	Zstd    Compressor = 4
)

func (c Compressor) String() string {
	switch c {
	case BloscLZ:
		return "blosclz"
	case LZ4:
		return "lz4"
	case Snappy:
		return "snappy"
	case Zlib:
		return "zlib"
	case Zstd:
		return "zstd"
	}
	return fmt.Sprintf("compressor(%d)", uint8(c))
}

// Shuffle is the filter applied to each block before compression.
type Shuffle uint8

const (
	NoShuffle   Shuffle = 0
	ByteShuffle Shuffle = 1 // byte j of every element is stored together
	BitShuffle  Shuffle = 2 // bit i of byte j of every element is stored together
)

func (s Shuffle) String() string {
	switch s {
	case NoShuffle:
		return "noshuffle"
	case ByteShuffle:
		return "shuffle"
	case BitShuffle:
		return "bitshuffle"
	}
	return fmt.Sprintf("shuffle(%d)", uint8(s))
}

// Header is the 16-byte header of a Blosc1 frame.
type Header struct {
	Version   uint8 // format version: 1 or 2 (c-blosc 1.x writes 2)
	VersionLZ uint8 // version of the compressor's format
	Flags     uint8
	TypeSize  int // bytes per element, for shuffling
	NBytes    int // decoded size
	BlockSize int // decoded size of each block but the last
	CBytes    int // size of the whole frame, header included
}

// Compressor returns the compression library the frame was written with.
func (h Header) Compressor() Compressor { return Compressor(h.Flags >> 5) }

// Shuffle returns the frame's shuffle filter.
func (h Header) Shuffle() Shuffle {
	switch {
	case h.Flags&flagByteShuffle != 0:
		return ByteShuffle
	case h.Flags&flagBitShuffle != 0:
		return BitShuffle
	}
	return NoShuffle
}

// Memcpyed reports whether the data follows the header uncompressed.
func (h Header) Memcpyed() bool { return h.Flags&flagMemcpyed != 0 }

// numBlocks is the number of blocks, the last one possibly shorter.
func (h Header) numBlocks() int {
	if h.NBytes == 0 {
		return 0
	}
	return (h.NBytes + h.BlockSize - 1) / h.BlockSize
}

// splits is the number of streams a block of size bsize is stored as.
func (h Header) splits(bsize int, leftover bool) int {
	if h.Flags&flagDontSplit == 0 && h.TypeSize <= maxSplits &&
		bsize/h.TypeSize >= minBufferSize && !leftover {
		return h.TypeSize
	}
	return 1
}

// ParseHeader reads and checks the header at the start of frame: the format
// version, flags and compressor are known, the sizes are consistent with
// each other, and the frame's (CBytes) fits in frame: bytes after it are
// not the frame's, and ignored as c-blosc ignores them. Block offsets
// are checked by Decode.
func ParseHeader(frame []byte) (Header, error) {
	if len(frame) < HeaderSize {
		return Header{}, fmt.Errorf("%w: %d bytes, shorter than the %d-byte header", ErrCorrupt, len(frame), HeaderSize)
	}
	h := Header{
		Version:   frame[0],
		VersionLZ: frame[1],
		Flags:     frame[2],
		TypeSize:  int(frame[3]),
	}
	nbytes := binary.LittleEndian.Uint32(frame[4:])
	blocksize := binary.LittleEndian.Uint32(frame[8:])
	cbytes := binary.LittleEndian.Uint32(frame[12:])
	// c-blosc's sizes are int32; anything above is no frame it wrote.
	if nbytes > 1<<31-1 || blocksize > 1<<31-1 || cbytes > 1<<31-1 {
		return h, fmt.Errorf("%w: header sizes nbytes=%d blocksize=%d cbytes=%d exceed 2^31-1", ErrCorrupt, nbytes, blocksize, cbytes)
	}
	h.NBytes, h.BlockSize, h.CBytes = int(nbytes), int(blocksize), int(cbytes)
	switch {
	case h.Version == 0:
		return h, fmt.Errorf("%w: format version 0", ErrCorrupt)
	case h.Version > 2:
		// Blosc2 writes 3 and up, and may add a 32-byte extended header.
		return h, fmt.Errorf("blosc format version %d (Blosc2): %w; only Blosc1 frames (versions 1, 2) are read", h.Version, ErrUnsupported)
	}
	if h.Flags&(flagByteShuffle|flagBitShuffle) == flagByteShuffle|flagBitShuffle {
		return h, fmt.Errorf("flags %#02x set byte and bit shuffle together, Blosc2's extended-header marker: %w", h.Flags, ErrUnsupported)
	}
	if h.Flags&flagReserved != 0 {
		return h, fmt.Errorf("flags %#02x have reserved bit 3 set (a Blosc2 filter): %w", h.Flags, ErrUnsupported)
	}
	if c := h.Compressor(); c > Zstd {
		return h, fmt.Errorf("compressor code %d: %w (known: 0 blosclz, 1 lz4, 2 snappy, 3 zlib, 4 zstd)", uint8(c), ErrUnsupported)
	}
	if h.TypeSize == 0 {
		return h, fmt.Errorf("%w: typesize 0", ErrCorrupt)
	}
	if h.CBytes > len(frame) {
		return h, fmt.Errorf("%w: header says the frame is %d bytes, it is %d", ErrCorrupt, h.CBytes, len(frame))
	}
	// Bytes after the frame are ignored, as c-blosc ignores them (numcodecs
	// reads such chunks): the frame is its first CBytes.
	frame = frame[:h.CBytes]
	if h.Memcpyed() {
		if h.CBytes != HeaderSize+h.NBytes {
			return h, fmt.Errorf("%w: uncompressed frame of %d bytes holds %d data bytes, header says %d", ErrCorrupt, h.CBytes, h.CBytes-HeaderSize, h.NBytes)
		}
		return h, nil
	}
	if h.NBytes == 0 {
		if h.CBytes != HeaderSize {
			return h, fmt.Errorf("%w: empty frame of %d bytes (want %d)", ErrCorrupt, h.CBytes, HeaderSize)
		}
		return h, nil
	}
	if h.BlockSize == 0 || h.BlockSize > h.NBytes {
		return h, fmt.Errorf("%w: blocksize %d for %d bytes", ErrCorrupt, h.BlockSize, h.NBytes)
	}
	// Every block needs a 4-byte offset and at least one 4-byte stream
	// size; checking this first bounds the work Decode does per frame
	// byte.
	if nb := h.numBlocks(); nb > (h.CBytes-HeaderSize)/8 {
		return h, fmt.Errorf("%w: %d blocks of %d bytes cannot fit in a %d-byte frame", ErrCorrupt, nb, h.BlockSize, h.CBytes)
	}
	return h, nil
}
