package storage

import "errors"

var (
	// ErrInvalidKey marks a store key that is empty, absolute, contains a
	// backslash or a "." or ".." segment, and so could escape the store.
	ErrInvalidKey = errors.New("invalid store key")
	// ErrTooLarge marks a value larger than a bounded read allows
	// (BufferGetter.GetInto's limit). The zarr package's ErrTooLarge is
	// this error, so a chunk that is too large to read and one too large
	// to decode are found by the same errors.Is.
	ErrTooLarge = errors.New("larger than the chunk allows")
	// ErrNoListing marks a store that cannot be listed (an http(s)
	// location, objstore.HTTP): zarr.Walk reads such a hierarchy from its
	// consolidated metadata instead.
	ErrNoListing = errors.New("an http(s) location cannot be listed")
)
