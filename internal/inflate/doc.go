// Package inflate decodes DEFLATE data (RFC 1951) in its raw, zlib (RFC
// 1950) and gzip (RFC 1952) framings, whole, into a caller's buffer.
//
// It is made for Zarr chunks, whose decoded size is known before decoding
// (the chunk size): there is no streaming, no window and no history copy.
// Output goes straight into dst, back-references are copied within it.
//
//	n, err := inflate.Gzip(dst, src)  // gzip, all members
//	n, err := inflate.Zlib(dst, src)  // zlib
//	n, err := inflate.Raw(dst, src)   // raw DEFLATE
//
// Each returns the number of bytes written to dst. Output that would not
// fit in dst fails with ErrTooLarge, having written at most len(dst)
// bytes; output that is shorter returns n < len(dst), and callers that
// expect an exact size compare. What Zlib and Raw accept after their
// stream, and Gzip between and after members, is described with each.
//
// Errors are *Error values carrying the input byte offset where decoding
// stopped; errors.Is matches their kind: ErrCorrupt (any invalid input),
// ErrTruncated and ErrChecksum (both also ErrCorrupt), or ErrTooLarge.
// Hostile input never makes the decoders read or write out of bounds,
// loop, or panic: every loop consumes input or produces bounded output.
//
// Why by hand: no Go library decodes DEFLATE at libdeflate's speed.
// compress/flate and klauspost/compress are streaming decoders, built
// around an io.Reader and a 32 KiB window with copies into and out of it;
// a Zarr chunk is whole in memory with a known decoded size, so none of
// that is needed, and output goes straight into the chunk buffer.
//
// The decoder follows libdeflate's design, in Go: a 64-bit bit
// buffer refilled branch-free from unaligned 8-byte loads while at least
// 16 input bytes remain (a byte-wise path, padding with zeros and
// detecting over-read, serves the end); one table lookup of 11 bits (8 for
// distances), with subtables for longer codes, decodes a literal or a
// length base with its extra-bit count, or the whole length or distance
// where its extra bits fit in the index; the next symbol's entry is
// looked up before each refill, and each distance's entry together with
// the length before it, as if the length took the bits of the shortest
// length code; up to four literals per refill; matches
// are copied as overlapping 8-byte words, distance 1 as a repeated byte,
// while a match of 258 bytes plus 16 still fits in dst (a checked
// byte-wise path serves the end). Trailers are checked: Adler-32 with a
// 16-bytes-per-step implementation, CRC-32 with hash/crc32.
//
// The fast loop (huffFast) has an amd64 assembly twin (huffFastBMI2,
// block_amd64.s), used where the CPU has BMI2: the same tables, margins
// and exits, with every variable in a register, no bounds checks, BMI2
// shifts and masks, lookups from a copy of the bit buffer shifted left by
// 2 (a table load without a scaled index is a cycle shorter), and 16-byte
// match copies. Go handles everything the loop returns for, so errors are
// the same. DT64_DISABLE=bmi2, the purego build tag and other
// architectures use the Go loop; the tests and fuzzers run both and
// compare them.
//
// Measured (2026-12-03, 2-vCPU AMD EPYC VM at load 1.6-2.1, Go 1.26,
// GOAMD64=v1) on 1 MiB gzip:5 chunks of the end-to-end benchmark's
// timestamps (big-endian ns, ±0.5 ms jitter): 581 MB/s per CPU second
// with the assembly loop (best of 100 decodes; median 552), 509 (493)
// with the Go loop, against klauspost's 265 (259): 2.19x; on ±0.5 s
// jittered little-endian ns, 675 (655) and 605 (588) against 296 (289),
// 2.28x. Method, all figures, the end-to-end job and what did not pay:
// docs/inflate.md.
//
// What is accepted matches compress/flate: Huffman codes must be complete,
// except a code of a single 1-bit codeword and an empty distance code;
// at most 286 literal/length and 30 distance codes.
//
// The zarr package decodes gzip and zlib chunks, and blosc zlib streams,
// with this package; setting the environment variable DT64_INFLATE to
// "klauspost" (read once, at start) makes them use
// github.com/klauspost/compress instead, for comparison or as a fallback.
package inflate
