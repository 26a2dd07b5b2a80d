//go:build unix

package storage

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDirFIFO: a named pipe at a key must be refused at once, not
// block the reader until some process opens it for writing.
func TestDirFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"zarr.json", "c/0"} {
		if err := syscall.Mkfifo(filepath.Join(dir, filepath.FromSlash(key)), 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
	}
	st := NewDir(dir)
	defer st.Close()
	for _, key := range []string{"zarr.json", "c/0"} {
		done := make(chan error, 1)
		go func() {
			_, err := st.Get(context.Background(), key)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), key) ||
				!strings.Contains(err.Error(), "named pipe") || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("Get(%q) = %v, want an error naming the key and the named pipe", key, err)
			}
		case <-time.After(5 * time.Second):
			// Unblock the reader so the test can end.
			if f, err := os.OpenFile(filepath.Join(dir, filepath.FromSlash(key)), os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
			t.Fatalf("Get(%q) blocked on a named pipe", key)
		}
	}
}
