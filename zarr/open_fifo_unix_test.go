//go:build unix

package zarr

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zarr-dt64/dt64/storage"
)

// TestOpenFIFO: a named pipe where zarr.json should be is a metadata
// error naming the document, at once (the store refuses to read it).
func TestOpenFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "zarr.json"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	st := storage.NewDir(dir)
	defer st.Close()
	_, err := Open(context.Background(), st)
	var me *MetadataError
	if !errors.As(err, &me) || !strings.HasSuffix(me.File, "zarr.json") {
		t.Errorf("Open with a FIFO zarr.json: got %v, want a *MetadataError", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "zarr.json")); err != nil {
		t.Fatal(err)
	}
}
