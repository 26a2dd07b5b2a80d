package storage

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
