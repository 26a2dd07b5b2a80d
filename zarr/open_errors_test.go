package zarr

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/storage"
)

// Open, Create and OpenGroup refuse a nil store with an error instead of
// a panic; Open of a v2 group says it is a group (and is still
// fs.ErrNotExist, no array), of an empty store that nothing is there.
func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, nil); err == nil || !strings.Contains(err.Error(), "nil store") {
		t.Errorf("Open(nil): %v", err)
	}
	if _, err := Create(ctx, nil, Metadata{}); err == nil || !strings.Contains(err.Error(), "nil store") {
		t.Errorf("Create(nil): %v", err)
	}
	if _, err := OpenGroup(ctx, nil); err == nil || !strings.Contains(err.Error(), "nil store") {
		t.Errorf("OpenGroup(nil): %v", err)
	}
	m := storage.NewMemory()
	_, err := Open(ctx, m)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "no Zarr array here") {
		t.Errorf("Open(empty): %v", err)
	}
	if err := m.Set(ctx, ".zgroup", []byte(`{"zarr_format":2}`)); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, m)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "a Zarr v2 group (.zgroup), not an array: open it with OpenGroup") {
		t.Errorf("Open(v2 group): %v", err)
	}
}
