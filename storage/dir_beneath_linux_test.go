package storage

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestDirLinkUpUnderRenames: a value that is a symbolic link through ".."
// (a store deduplicated with links) reads while other renames run on the
// machine. openat2's RESOLVE_BENEATH answers EAGAIN when a rename
// anywhere races its ".." check; that is a retry, never the read's error
// (CI once failed a copy with "open …/lat/0: resource temporarily
// unavailable" while other tests renamed their temporary files).
func TestDirLinkUpUnderRenames(t *testing.T) {
	t.Run("retried", testLinkUpUnderRenames)
	// Every race handed to os.Root at once: that path reads it too.
	t.Run("handed-over", func(t *testing.T) {
		was := maxBeneathRaces
		maxBeneathRaces = 0
		defer func() { maxBeneathRaces = was }()
		testLinkUpUnderRenames(t)
	})
}

func testLinkUpUnderRenames(t *testing.T) {
	dir := t.TempDir()
	want := []byte("linked value")
	if err := os.WriteFile(filepath.Join(dir, "shared"), want, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "shared"), filepath.Join(dir, "a", "0")); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	x, y := filepath.Join(other, "x"), filepath.Join(other, "y")
	if err := os.WriteFile(x, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // renames elsewhere, as a busy machine's are
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.Rename(x, y)
			_ = os.Rename(y, x)
		}
	}()
	defer func() { close(stop); wg.Wait() }()
	d := NewDir(dir)
	defer d.Close()
	n := 200000
	if testing.Short() {
		n = 20000
	}
	for i := range n {
		got, err := d.Get(context.Background(), "a/0")
		if err != nil {
			t.Fatalf("read %d of a linked value: %v", i, err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("read %d: %q, want %q", i, got, want)
		}
	}
}
