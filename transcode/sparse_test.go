package transcode_test

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// A source declaring a grid far beyond what it stores ([2^62] in chunks
// of one, two chunks stored) is refused at once with a SparseError, array
// or hierarchy, instead of running until killed.
func TestSparseGridRefused(t *testing.T) {
	dir := t.TempDir()
	root := storage.NewDir(dir)
	if err := root.Set(ctx, ".zgroup", []byte(`{"zarr_format": 2}`)); err != nil {
		t.Fatal(err)
	}
	sub, _ := storage.Sub(root, "big")
	a, err := zarr.Create(ctx, sub, zarr.Metadata{Format: 2, DataType: ns, Shape: []int64{1 << 62}, ChunkShape: []int64{1}, FillValue: dtype.NaT,
		Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []int64{0, 1000} {
		if err := a.WriteChunk(ctx, []int64{c}, []int64{c}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = transcode.New(ctx, sub, storage.NewDir(filepath.Join(t.TempDir(), "a.zarr")), transcode.Options{Unit: dtype.Microsecond})
	var se *transcode.SparseError
	if !errors.As(err, &se) || se.StoredChunks != 2 || se.Units != 1<<62 || !errors.Is(err, transcode.ErrPlan) {
		t.Errorf("array: %v, want a SparseError", err)
	}
	_, err = runStore(t, root, storage.NewDir(filepath.Join(t.TempDir(), "g.zarr")), transcode.StoreOptions{})
	se = nil
	if !errors.Is(err, transcode.ErrPlan) || !errors.As(err, &se) || se.StoredChunks != 2 || !strings.Contains(err.Error(), "big: ") || !strings.Contains(err.Error(), "stores 2 chunks") {
		t.Errorf("hierarchy: %v, want the array's SparseError", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("refusing took %s", el)
	}
}
