package zarr

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/internal/pyjson"
	"github.com/zarr-dt64/dt64/storage"
)

// Sentinel errors. Errors returned by this package wrap them, so callers can
// tell a corrupt chunk from an unsupported feature with errors.Is.
var (
	// ErrUnsupported marks a valid Zarr feature dt64 does not implement yet
	// (for example the lz4 codec). It wraps errors.ErrUnsupported, as every
	// dt64 package's "not supported" does, so one errors.Is finds any.
	ErrUnsupported error = unsupportedError("not supported yet")
	// ErrChecksum marks a checksum mismatch (crc32c codec, zstd or gzip
	// frame checksums).
	ErrChecksum = errors.New("checksum mismatch")
	// ErrTooLarge marks data that is, or would decode to, more bytes than a
	// valid chunk can hold. Decoding stops before allocating for it. It is
	// storage.ErrTooLarge, which a store's bounded read returns, so one
	// errors.Is finds both.
	ErrTooLarge = storage.ErrTooLarge
	// ErrCorrupt marks stored bytes that no valid encoder produces: a wrong
	// decoded size, a truncated frame, a shard index pointing outside its
	// shard, and so on.
	ErrCorrupt = errors.New("corrupt data")
)

// MetadataError is an error in an array's metadata: File is the metadata
// document ("data/t.zarr/zarr.json", ".zarray"), Field the JSON field
// ("codecs[1].configuration.level"), empty when the document as a whole is
// at fault.
type MetadataError struct {
	File  string
	Field string
	Err   error
}

func (e *MetadataError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", e.File, e.Field, e.Err)
}

func (e *MetadataError) Unwrap() error { return e.Err }

// ChunkError is an error reading or writing one chunk: Array is the array's
// location (the store's String(), when it has one), Key the chunk's store key.
type ChunkError struct {
	Array string
	Key   string
	Err   error
}

func (e *ChunkError) Error() string {
	if e.Array == "" {
		return fmt.Sprintf("chunk %q: %v", e.Key, e.Err)
	}
	return fmt.Sprintf("array %s: chunk %q: %v", e.Array, e.Key, e.Err)
}

func (e *ChunkError) Unwrap() error { return e.Err }

// fieldError prefixes err with a field name so nested parsers can build
// paths like "codecs[0].configuration.chunk_shape" and the top level can
// split them into a MetadataError.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.field + ": " + e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

// inField wraps err (if non-nil) as belonging to field, joining with an
// enclosing field path when err already names one.
func inField(field string, err error) error {
	if err == nil {
		return nil
	}
	if fe, ok := err.(*fieldError); ok {
		sep := "."
		if len(fe.field) > 0 && fe.field[0] == '[' {
			sep = ""
		}
		return &fieldError{field: field + sep + fe.field, err: fe.err}
	}
	return &fieldError{field: field, err: err}
}

// metadataError turns a (possibly field-tagged) error into a MetadataError
// for file.
func metadataError(file string, err error) error {
	if err == nil {
		return nil
	}
	var me *MetadataError
	if errors.As(err, &me) {
		return err
	}
	if fe, ok := err.(*fieldError); ok {
		return &MetadataError{File: file, Field: fe.field, Err: fe.err}
	}
	return &MetadataError{File: file, Err: err}
}

// unsupportedError is a sentinel that wraps errors.ErrUnsupported without
// repeating its text.
type unsupportedError string

func (e unsupportedError) Error() string { return string(e) }
func (e unsupportedError) Unwrap() error { return errors.ErrUnsupported }

// ElementError places an element a conversion refused in its array: Err
// is the kernel's or CF decoder's *dtype.ElementError (an overflow under
// the error policy, or a value floored in exact mode), whose Index counts
// the slice it converted; this adds the array, the chunk's key, the
// element's index in the chunk and in the whole array. The transcode
// engine and the Arrow bridge both report it.
type ElementError struct {
	Array      string  // the array's location
	Key        string  // the chunk's store key
	Index      int     // the element's index within the chunk, C order
	ArrayIndex []int64 // the element's index in the whole array
	Value      int64   // the stored value (Err's Text for CF numbers)
	Err        *dtype.ElementError
}

func (e *ElementError) Error() string {
	typ, val := e.Err.Describe()
	what := fmt.Sprintf("%s value %s overflows int64 when converted to %s", typ, val, e.Err.To)
	switch e.Err.Reason {
	case dtype.ReasonLoss:
		how := "floored away"
		if strings.HasPrefix(e.Err.Source, "float") {
			how = "dropped" // CF floats round (half to even) by default
		}
		what = fmt.Sprintf("%s value %s is not a whole number of %s (exact mode: a non-zero remainder would be %s)", typ, val, e.Err.To, how)
	case dtype.ReasonNoDate:
		what = e.Err.NoDateText()
	}
	return fmt.Sprintf("array %s chunk %q element %d (array index %v): %s", e.Array, e.Key, e.Index, e.ArrayIndex, what)
}

func (e *ElementError) Unwrap() error { return e.Err }

// DocumentTooLargeError reports a metadata document dt64 would write but
// could not read back: larger than its 16 MiB limit, or nested deeper than
// 512 levels. Nothing is written.
type DocumentTooLargeError = pyjson.DocumentTooLargeError

// noArrayError is Open's error for a store without array metadata. It
// says so once ("NAME: no Zarr array here (neither zarr.json nor
// .zarray)", or that NAME is a v2 group), and is fs.ErrNotExist for
// errors.Is, without repeating that error's own words.
type noArrayError struct {
	name  string
	group bool // a .zgroup is there
}

func (e noArrayError) Error() string {
	if e.group {
		return fmt.Sprintf("%s: a Zarr v2 group (%s), not an array: open it with OpenGroup", e.name, v2GroupKey)
	}
	return fmt.Sprintf("%s: no Zarr array here (neither %s nor %s)", e.name, v3MetadataKey, v2ArrayKey)
}

func (noArrayError) Is(target error) bool { return target == fs.ErrNotExist }
