//go:build unix

package storage

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestDirEntries: values with their sizes, and what is not a value.
func TestDirEntries(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := NewDir(dir)
	defer s.Close()
	for k, v := range map[string]string{"zarr.json": "{}", "c/0/1": "abc", "c/1": "x"} {
		if err := s.Set(ctx, k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "c", ".dt64-tmp-0123456789abcdef-2"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("1", filepath.Join(dir, "c", "2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../..", filepath.Join(dir, "c", "3")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "c", "4"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := s.Entries(ctx, "c/")
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Key: "c/0", NotValue: "a directory"},
		{Key: "c/0/1", Size: 3},
		{Key: "c/1", Size: 1},
		{Key: "c/2", Size: 1},
		{Key: "c/3", NotValue: "a symbolic link that leads nowhere inside the store"},
		{Key: "c/4", NotValue: "a named pipe (FIFO)"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Entries:\n got %v\nwant %v", got, want)
	}
}
