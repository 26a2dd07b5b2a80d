//go:build unix

package fuzz

import (
	"os"
	"syscall"
)

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }

// openFIFOWriter opens a FIFO for writing without waiting for a reader.
func openFIFOWriter(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
}
