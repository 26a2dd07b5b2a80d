//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestChunkKeyFIFO: a named pipe at a chunk key is a problem too, and
// listing or reading it never blocks.
func TestChunkKeyFIFO(t *testing.T) {
	dir := copyV3Fixture(t, "dt64_ns_le_zstd0.zarr")
	c2 := filepath.Join(dir, "c", "2")
	if err := os.Remove(c2); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(c2, 0o644); err != nil {
		t.Fatal(err)
	}
	checkValidateProblems(t, dir, map[string]string{"c/2": "is a named pipe (FIFO), not a regular file"})
}
