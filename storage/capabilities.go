package storage

import "context"

// The capabilities a Store may have beyond the four calls of Store, in
// one place. A caller asks for one with Find, which looks through
// wrappers: a store that wraps another to count, log or delay calls
// implements Unwrapper, and keeps every capability of the store it wraps
// without forwarding a single method. (Sub cannot be looked through, since
// it changes keys; it forwards the capabilities itself.)

// Unwrapper is implemented by a Store that wraps another without changing
// its keys (to count, log, delay or fault its calls). Find looks through
// it.
type Unwrapper interface {
	Unwrap() Store
}

// Find returns s as a T (a capability interface, or a concrete store
// type), looking through Unwrappers: the first store of the chain that is
// a T.
func Find[T any](s Store) (T, bool) {
	for range 100 { // a wrapper that wraps itself must not hang the caller
		if v, ok := s.(T); ok {
			return v, true
		}
		u, ok := s.(Unwrapper)
		if !ok {
			break
		}
		s = u.Unwrap()
	}
	var zero T
	return zero, false
}

// BufferGetter is implemented by stores that can read a value into a
// caller's buffer. GetInto returns the value, in buf when it fits
// (otherwise in a new slice), and refuses a value longer than limit bytes
// with an error wrapping ErrTooLarge, before reading it. The array uses it
// to keep memory bounded and buffers reused.
type BufferGetter interface {
	GetInto(ctx context.Context, key string, buf []byte, limit int) ([]byte, error)
}

// Resize returns buf resized to n bytes, for a BufferGetter reading a
// value of n bytes: buf itself when its capacity holds n, else a new
// buffer with an eighth more capacity than n. The caller passes a
// pooled buffer and the pool keeps what GetInto returned, so the
// headroom lets one buffer serve the next values of about the same size,
// as a chunk's compressed sizes are, where a buffer exactly as large as
// its first value would be replaced by the next that is one byte longer;
// each new buffer costs a page fault per page when first written
// (`dt64 export` of the demo's 32 Mi timestamps: a quarter fewer faults, a
// sixth less CPU time; docs/engines.md).
func Resize(buf []byte, n int) []byte {
	if cap(buf) >= n {
		return buf[:n]
	}
	return make([]byte, n, n+n/8)
}

// A Syncer is a Store whose writes may sit in volatile memory (a
// directory's page cache) until synced. Sync makes every Set and Delete
// that returned before it durable: after a power loss or an OS crash they
// are all there, whoever made them. Values are atomic either way: a crash
// before Sync loses some of the writes before it, whole, never part of one.
//
// A writer that must never look complete with data missing (the transcode
// engine) syncs before the write that declares the others done (metadata,
// a marker), and again after it.
type Syncer interface {
	Sync(ctx context.Context) error
}

// A Versioner tells versions of a stored value apart. Version returns a
// string that changes whenever the value under key does (a file: its size
// and modification time in nanoseconds; an object: its ETag or
// generation), or "" with a nil error when key holds no value. The
// transcode engine records the versions of the source chunks it reads, so
// that a resumed run notices a source rewritten in between.
type Versioner interface {
	Version(ctx context.Context, key string) (string, error)
}

// A RangeGetter is a Store that reads part of a value: GetRange returns
// the n bytes at offset off of the value at key, or, when off is
// negative, its last n bytes (an HTTP suffix range). A value shorter than
// the range is an error; a missing key satisfies errors.Is(err,
// fs.ErrNotExist). Regions of sharded arrays are read with it one inner
// chunk at a time instead of whole shards.
type RangeGetter interface {
	GetRange(ctx context.Context, key string, off, n int64) ([]byte, error)
}

// An EntryLister lists everything a store holds under a key prefix, sorted
// by key: every value List returns, with its size, and every object that
// is not a value. Temporary files of writes in progress (see
// Dir.Temps) are not listed.
type EntryLister interface {
	Entries(ctx context.Context, prefix string) ([]Entry, error)
}

// A VersionLister is a Versioner that can also tell the versions of
// every value under a key prefix at once, as Version would give them
// (keys not stored are absent): an object store's listing carries each
// object's ETag, so one LIST of up to 1000 keys replaces as many HEADs.
type VersionLister interface {
	Versions(ctx context.Context, prefix string) (map[string]string, error)
}

// A ReadVersioner is a source store that can tell the version of the
// value a read returned, from the read's own answer (an object's GET
// carries its ETag), so that checking a chunk just read needs no second
// request. After TrackReadVersions, the store remembers the version of
// each value Get (or GetInto) returns, and "" for a key it found missing;
// ReadVersion hands one out, once, and forgets it. A store may remember a
// bounded number and report false for the others: the engine then asks
// Version.
type ReadVersioner interface {
	TrackReadVersions()
	ReadVersion(key string) (version string, ok bool)
}

// A ConditionalSetter is a store that can create a value only where none
// is: SetIfAbsent reports whether it created it (an object store's PUT
// with If-None-Match: *). It fails with an error wrapping
// errors.ErrUnsupported when the store turns out not to support it.
type ConditionalSetter interface {
	SetIfAbsent(ctx context.Context, key string, value []byte) (bool, error)
}

// A TempLister is a store that can leave temporary values behind when a
// process dies between writing a value and putting it in place (Dir, whose
// Set writes a temporary file and renames it). Temps maps each temporary's
// store-relative path to the key it was meant for; RemoveTemp deletes one
// and refuses any other path, so it cannot remove a value. A checker
// reports them (zarr's Array.Inventory) and an engine that resumes removes
// its own (the transcode engine); an object store, whose PUT is atomic,
// leaves none and does not implement it.
type TempLister interface {
	Temps(ctx context.Context) (map[string]string, error)
	RemoveTemp(tempPath string) error
}
