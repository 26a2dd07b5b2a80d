// Package blosc reads and writes Blosc1 frames, the chunk format of the
// Blosc meta-compressor as c-blosc 1.x, numcodecs and zarr-python write it
// (the Zarr "blosc" codec), in pure Go.
//
// # Frames
//
// A frame is a 16-byte header (format version, compressor version, flags,
// typesize, then the decoded size, block size and frame size as
// little-endian uint32), then one uint32 offset per block, then the blocks.
// Each block is filtered (byte shuffle, bit shuffle or none) and stored as
// typesize streams (one per byte of an element) or as one, each stream
// preceded by its compressed size; a stream whose size equals its decoded
// size is stored raw. A frame with the memcpyed flag holds the data as it
// is after the header.
//
// Decode reads every c-blosc 1.x frame: blosclz (this package's own
// decoder), lz4 and lz4hc (github.com/pierrec/lz4/v4), snappy, zlib and
// zstd (github.com/klauspost/compress). Encode writes lz4, lz4hc, zstd,
// zlib and snappy frames that c-blosc reads; blosclz is decode-only.
//
// # Safety
//
// Decode never writes past, or grows, the buffer it is given: the header's
// decoded size is checked against cap(dst) before anything else, every
// offset and size is checked against the frame, and every stream must
// decode to exactly its share of the block. Errors wrap ErrCorrupt,
// ErrTooLarge or ErrUnsupported; no input makes Decode panic (FuzzDecode).
//
// # Shuffle
//
// Byte shuffle turns n elements into typesize planes of n bytes; for
// timestamps the high planes are nearly constant and compress to almost
// nothing, which is why blosc with shuffle stores timestamps in well under
// half the bytes plain zstd needs. The typesize-8 kernels (shuffle8,
// unshuffle8) are where SIMD versions plug in.
package blosc
