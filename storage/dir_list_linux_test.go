package storage

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDirWalkRemovedDir: a directory another process removes between
// the walk opening it and reading it (a concurrent part's cleanup of
// .dt64-sources/) holds no keys; Linux reports reading it as ENOENT,
// which must not fail the listing.
func TestDirWalkRemovedDir(t *testing.T) {
	root := filepath.Join(t.TempDir(), "s")
	d := NewDir(root)
	if err := d.Set(context.Background(), "keep", []byte("x")); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(root, "gone")
	if err := os.Mkdir(gone, 0o755); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(gone, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	var seen []string
	err = d.walkFd(context.Background(), "gone", fd, func(p string, e walkEntry) error {
		seen = append(seen, p)
		return nil
	})
	if err != nil || len(seen) != 0 {
		t.Fatalf("walk of a removed directory: %v, keys %v", err, seen)
	}
}
