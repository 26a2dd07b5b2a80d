//go:build unix

package zarr

import (
	"os"
	"syscall"
)

// readFlags opens store values for reading. O_NONBLOCK makes opening a
// named pipe (FIFO) return at once instead of waiting for a writer, so
// GetInto can refuse it after fstat; on regular files it changes nothing.
const readFlags = os.O_RDONLY | syscall.O_NONBLOCK
