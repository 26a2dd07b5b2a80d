package inflate

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error the decoders return is an *Error whose
// Kind is one of these, so callers test with errors.Is.
var (
	// ErrCorrupt: the input is not a valid stream (bad block type, bad
	// Huffman code, distance beyond the output start, bad header, ...).
	ErrCorrupt = errors.New("inflate: corrupt input")
	// ErrTruncated: the input ends before the stream does. It also
	// matches ErrCorrupt.
	ErrTruncated = errors.New("inflate: truncated input")
	// ErrChecksum: the data decoded but a trailer (Adler-32, CRC-32,
	// ISIZE) or the gzip header CRC does not match. It also matches
	// ErrCorrupt.
	ErrChecksum = errors.New("inflate: checksum mismatch")
	// ErrTooLarge: the stream decodes to more bytes than dst holds.
	ErrTooLarge = errors.New("inflate: output larger than destination")
)

// Error is the error type of the package: what went wrong (Kind, one of the
// sentinels), a detail, and the byte offset in the input where decoding
// stopped (for a bit-level error, the byte holding the offending bit).
type Error struct {
	Kind   error
	Offset int
	Detail string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%v: %s (at input byte %d)", e.Kind, e.Detail, e.Offset)
}

// Unwrap lets errors.Is see the Kind and, for truncation and checksum
// errors, ErrCorrupt too: all three mean the chunk is unusable.
func (e *Error) Unwrap() []error {
	if e.Kind == ErrTruncated || e.Kind == ErrChecksum {
		return []error{e.Kind, ErrCorrupt}
	}
	return []error{e.Kind}
}

func errAt(kind error, off int, format string, args ...any) error {
	return &Error{Kind: kind, Offset: off, Detail: fmt.Sprintf(format, args...)}
}
