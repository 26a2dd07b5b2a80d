package kernels

import "errors"

// ErrLength is wrapped by every error about slice lengths.
var ErrLength = errors.New("bad slice length")

// ErrOverlap is returned when dst and src overlap without being identical.
var ErrOverlap = errors.New("dst and src overlap partially (in place needs identical slices)")

// An element a kernel cannot store is reported as a *dtype.ElementError,
// the one element error of dt64.
