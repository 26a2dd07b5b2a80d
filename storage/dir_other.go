//go:build !unix

package storage

import "os"

// readFlags opens store values for reading. Systems outside the unix build
// tag have no O_NONBLOCK open of a named pipe; the fstat check in GetInto
// still refuses anything that is not a regular file.
const readFlags = os.O_RDONLY

// ignoreUnsupported: directories cannot be fsynced here (Windows refuses
// to open them for it); the values' own fsyncs stand.
func ignoreUnsupported(err error) error { return nil }

// inode: there is none in the file information here; a version is the
// size and modification time.
func inode(fi os.FileInfo) uint64 { return 0 }
