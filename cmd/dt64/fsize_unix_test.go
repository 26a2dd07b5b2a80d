//go:build unix

package main

import (
	"syscall"
	"testing"
)

// limitFileSize sets RLIMIT_FSIZE: a write past n bytes fails with EFBIG.
func limitFileSize(n uint64) error {
	lim := syscall.Rlimit{Cur: n, Max: n}
	return syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim)
}

// needFileSizeLimit: Unix has RLIMIT_FSIZE (fsize_other_test.go skips).
func needFileSizeLimit(*testing.T) {}
