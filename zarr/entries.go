package zarr

import "context"

// An Entry is something a store holds at a key: a value, or, in a
// directory store, a file system object that is not one (a directory, a
// named pipe) at a path where a reader may look for a value. Get on such a
// key fails; a checker lists Entries to report it rather than take the key
// for missing.
type Entry struct {
	Key  string
	Size int64 // of a value, in bytes
	// NotValue is empty for a value, else what the object is instead,
	// for messages: "a directory", "a named pipe (FIFO)".
	NotValue string
}

// An EntryLister lists everything a store holds under a key prefix, sorted
// by key: every value List returns, with its size, and every object that
// is not a value. Temporary files of writes in progress (see
// DirStore.Temps) are not listed.
type EntryLister interface {
	Entries(ctx context.Context, prefix string) ([]Entry, error)
}
