//go:build unix

package storage

import (
	"errors"
	"os"
	"syscall"
)

// readFlags opens store values for reading. O_NONBLOCK makes opening a
// named pipe (FIFO) return at once instead of waiting for a writer, so
// GetInto can refuse it after fstat; on regular files it changes nothing.
const readFlags = os.O_RDONLY | syscall.O_NONBLOCK

// ignoreUnsupported: some file systems cannot fsync a directory (EINVAL);
// there nothing more can be done, and the values' own fsyncs stand.
func ignoreUnsupported(err error) error {
	if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		return nil
	}
	return err
}

// inode is the file's inode number, part of its version.
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
