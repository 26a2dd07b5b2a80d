//go:build unix

package transcode

import (
	"errors"
	"syscall"
)

// pidRunning reports whether a process with id pid exists on this host:
// signal 0 checks without sending anything (EPERM: it exists, another
// user's).
func pidRunning(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
