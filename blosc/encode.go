package blosc

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

// Options configure Encode.
type Options struct {
	// Compressor is the library for each stream: "lz4", "lz4hc", "zstd",
	// "zlib" or "snappy". ("blosclz" frames decode but are not written.)
	Compressor string
	// Level is 0-9: 0 stores the data uncompressed, 9 compresses most.
	Level int
	// Shuffle is the filter applied to each block first.
	Shuffle Shuffle
	// TypeSize is the element size in bytes the filter works on, 1-255
	// (8 for datetime64 and timedelta64).
	TypeSize int
	// BlockSize is the decoded size of a block; 0 picks one from the
	// compressor and level.
	BlockSize int
}

// MaxEncodedLen is the largest frame Encode writes for n input bytes: data
// that does not compress is stored as it is behind the header.
func MaxEncodedLen(n int) int { return n + HeaderSize }

// maxNBytes is the largest input a frame can describe (c-blosc's
// BLOSC_MAX_BUFFERSIZE: the frame size must fit an int32).
const maxNBytes = 1<<31 - 1 - HeaderSize

// cname is a Blosc compressor name ("cname" in Zarr metadata) and the
// library its frames record. cnames is the one list of them dt64 knows:
// every one decodes; encodes says whether dt64 writes it.
type cname struct {
	name    string
	code    Compressor
	encodes bool
}

var cnames = []cname{
	{"blosclz", BloscLZ, false}, {"lz4", LZ4, true}, {"lz4hc", LZ4, true},
	{"snappy", Snappy, true}, {"zlib", Zlib, true}, {"zstd", Zstd, true},
}

// CNames returns every Blosc compressor name dt64 reads.
func CNames() []string {
	out := make([]string, len(cnames))
	for i, c := range cnames {
		out[i] = c.name
	}
	return out
}

// EncodedCNames returns the Blosc compressor names dt64 also writes.
func EncodedCNames() []string {
	var out []string
	for _, c := range cnames {
		if c.encodes {
			out = append(out, c.name)
		}
	}
	return out
}

// Encodes reports whether dt64 writes frames with compressor name.
func Encodes(name string) bool { return slices.Contains(EncodedCNames(), name) }

// encoding is Options checked and resolved.
type encoding struct {
	cname    string
	code     Compressor
	clevel   int
	shuffle  Shuffle
	typesize int
}

func (o Options) check() (encoding, error) {
	e := encoding{cname: o.Compressor, clevel: o.Level, shuffle: o.Shuffle, typesize: o.TypeSize}
	i := slices.IndexFunc(cnames, func(c cname) bool { return c.name == o.Compressor })
	switch {
	case i < 0:
		return e, fmt.Errorf("blosc: unknown compressor %q (want %s)", o.Compressor, strings.Join(EncodedCNames(), ", "))
	case !cnames[i].encodes:
		return e, fmt.Errorf("blosc: encoding with %s: %w (it decodes; write lz4 or zstd)", o.Compressor, ErrUnsupported)
	}
	e.code = cnames[i].code
	if o.Level < 0 || o.Level > 9 {
		return e, fmt.Errorf("blosc: level %d out of range [0, 9]", o.Level)
	}
	if o.Shuffle > BitShuffle {
		return e, fmt.Errorf("blosc: unknown shuffle %d", o.Shuffle)
	}
	if o.TypeSize < 1 || o.TypeSize > 255 {
		return e, fmt.Errorf("blosc: typesize %d out of range [1, 255]", o.TypeSize)
	}
	if o.BlockSize < 0 || o.BlockSize > maxNBytes {
		return e, fmt.Errorf("blosc: blocksize %d out of range [0, %d]", o.BlockSize, maxNBytes)
	}
	return e, nil
}

// Validate reports whether Encode accepts o.
func (o Options) Validate() error {
	_, err := o.check()
	return err
}

// Encode appends the Blosc1 frame of src to dst[:0] and returns it. The
// frame is what c-blosc 1.x writes (format version 2), so numcodecs and
// zarr-python read it: typesize as given, blocks split into typesize
// streams whenever c-blosc's readers before 1.14 would expect that, each
// stream that does not shrink stored raw, and the whole input stored raw
// behind the header when compression does not pay (or Level is 0, or the
// input is under 128 bytes). The result is at most MaxEncodedLen(len(src))
// bytes; dst grows only if its capacity is smaller.
func Encode(dst, src []byte, o Options) ([]byte, error) {
	e, err := o.check()
	if err != nil {
		return nil, err
	}
	if len(src) > maxNBytes {
		return nil, fmt.Errorf("blosc: %d bytes exceed the %d a frame holds", len(src), maxNBytes)
	}
	nbytes := len(src)
	limit := MaxEncodedLen(nbytes)
	if cap(dst) < limit {
		dst = make([]byte, 0, limit)
	}
	blocksize := o.BlockSize
	if blocksize == 0 {
		blocksize = autoBlockSize(e, nbytes)
	}
	blocksize = min(blocksize, nbytes)
	if blocksize > e.typesize {
		blocksize -= blocksize % e.typesize
	}
	blocksize = max(blocksize, 1)

	flags := uint8(e.code) << 5
	switch e.shuffle {
	case ByteShuffle:
		flags |= flagByteShuffle
	case BitShuffle:
		flags |= flagBitShuffle
	}
	// Split exactly when pre-1.14 readers, which ignore flagDontSplit,
	// would assume it: then every c-blosc reads the frame.
	split := e.typesize <= maxSplits && blocksize/e.typesize >= minBufferSize
	if !split {
		flags |= flagDontSplit
	}
	if nbytes < minBufferSize || e.clevel == 0 {
		return memcpyFrame(dst, src, flags, e.typesize, blocksize), nil
	}

	nb := (nbytes + blocksize - 1) / blocksize
	out := dst[:HeaderSize+4*nb]
	var tmp []byte
	if e.shuffle != NoShuffle {
		p := getBlockBuf(blocksize)
		defer putBlockBuf(p)
		tmp = *p
	}
	// The largest stream: a split block's, or a short last block, which is
	// never split.
	neblockMax := blocksize
	if split {
		neblockMax = max(blocksize/e.typesize, nbytes%blocksize)
	}
	sp := getBlockBuf(streamBound(neblockMax))
	defer putBlockBuf(sp)
	scratch := *sp

	for j := range nb {
		binary.LittleEndian.PutUint32(out[HeaderSize+4*j:], uint32(len(out)))
		block := src[j*blocksize : min((j+1)*blocksize, nbytes)]
		bsize := len(block)
		filtered := block
		switch e.shuffle {
		case ByteShuffle:
			filtered = tmp[:bsize]
			shuffle(filtered, block, e.typesize)
		case BitShuffle:
			filtered = tmp[:bsize]
			bitShuffle(filtered, block, e.typesize)
		}
		ns := 1
		if split && bsize == blocksize {
			ns = e.typesize
		}
		neblock := bsize / ns
		for s := range ns {
			part := filtered[s*neblock : (s+1)*neblock]
			c, err := compressStream(scratch[:0], part, &e)
			if err != nil {
				return nil, fmt.Errorf("blosc: block %d stream %d: %w", j, s, err)
			}
			if len(c) == 0 || len(c) >= neblock {
				c = part // incompressible: stored raw, marked by its size
			}
			if len(out)+4+len(c) > limit {
				return memcpyFrame(dst, src, flags, e.typesize, blocksize), nil
			}
			out = binary.LittleEndian.AppendUint32(out, uint32(len(c)))
			out = append(out, c...)
		}
	}
	putHeader(out, flags, e.typesize, nbytes, blocksize, len(out))
	return out, nil
}

// memcpyFrame writes src uncompressed and unshuffled behind a header.
func memcpyFrame(dst, src []byte, flags uint8, typesize, blocksize int) []byte {
	out := append(dst[:HeaderSize], src...)
	putHeader(out, flags|flagMemcpyed, typesize, len(src), blocksize, len(out))
	return out
}

func putHeader(out []byte, flags uint8, typesize, nbytes, blocksize, cbytes int) {
	out[0] = 2 // Blosc1 format version, as c-blosc 1.x writes
	out[1] = 1 // every compressor's format version in c-blosc 1.x
	out[2] = flags
	out[3] = uint8(typesize)
	binary.LittleEndian.PutUint32(out[4:], uint32(nbytes))
	binary.LittleEndian.PutUint32(out[8:], uint32(blocksize))
	binary.LittleEndian.PutUint32(out[12:], uint32(cbytes))
}

// autoBlockSize picks a block size: larger blocks compress better, smaller
// ones stay in cache while they are shuffled and compressed. Levels scale a
// 32 KiB base from a quarter up to 16 times; the slower, stronger
// compressors (zstd, zlib, lz4hc) get twice as much, and split blocks,
// which compress each byte stream on its own, get typesize times as much
// so each stream keeps the base size.
func autoBlockSize(e encoding, nbytes int) int {
	bs := 32 << 10
	switch e.code {
	case Zstd, Zlib:
		bs *= 2
	}
	if e.cname == "lz4hc" {
		bs *= 2
	}
	switch {
	case e.clevel <= 1:
		bs /= 2
	case e.clevel <= 3:
	case e.clevel <= 5:
		bs *= 2
	case e.clevel <= 8:
		bs *= 4
	default:
		bs *= 8
	}
	if e.typesize <= maxSplits {
		bs *= e.typesize
	}
	return min(bs, 4<<20, nbytes)
}
