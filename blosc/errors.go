package blosc

import "errors"

// Sentinel errors. Every error Decode and Encode return wraps one of them,
// so a caller can tell damaged data from a feature this package lacks with
// errors.Is.
var (
	// ErrCorrupt marks a frame no valid Blosc encoder produces: a bad
	// header, sizes that do not add up, an offset outside the frame, a
	// truncated or undecodable stream, a block decoding to more or fewer
	// bytes than declared.
	ErrCorrupt = errors.New("corrupt blosc frame")
	// ErrTooLarge marks a frame declaring more decoded bytes than the
	// caller's buffer holds. It is reported from the header alone, before
	// any decompression.
	ErrTooLarge = errors.New("blosc frame larger than the buffer allows")
	// ErrUnsupported marks a valid frame or option this package does not
	// implement: Blosc2 frames, unknown compressor codes, encoding with
	// blosclz.
	ErrUnsupported error = unsupportedError("not supported")
)

// unsupportedError is a sentinel that wraps errors.ErrUnsupported without
// repeating its text.
type unsupportedError string

func (e unsupportedError) Error() string { return string(e) }
func (e unsupportedError) Unwrap() error { return errors.ErrUnsupported }
