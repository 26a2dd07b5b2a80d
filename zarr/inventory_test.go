package zarr_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// inventoryArray writes a 10-element datetime64[s] array in chunks of 2
// (grid of 5) with chunks 1, 3 and 4 stored, in a directory store.
func inventoryArray(t *testing.T) (string, *zarr.Array) {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "a.zarr")
	a, err := zarr.Create(ctx, storage.NewDir(dir), zarr.Metadata{
		DataType:   dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1},
		Shape:      []int64{10},
		ChunkShape: []int64{2},
		FillValue:  dtype.NaT,
		Codecs:     []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int64{4, 1, 3} {
		if err := a.WriteChunk(ctx, []int64{i}, []int64{10 * i, 10*i + 1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	return dir, a
}

func TestInventory(t *testing.T) {
	ctx := context.Background()
	dir, _ := inventoryArray(t)
	for name, content := range map[string]string{
		"c/9":                            "outside the grid",
		"notes.txt":                      "stray",
		"c/.dt64-tmp-0123456789abcdef-2": "a killed write's temporary",
	} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "c", "0", "x"), 0o755); err != nil { // a directory at chunk 0's key
		t.Fatal(err)
	}
	a, err := zarr.Open(ctx, storage.NewDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := a.Inventory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	var index []int64
	for _, c := range inv.Chunks {
		keys, index = append(keys, c.Key), append(index, c.Index)
		if c.Size != 16 {
			t.Errorf("%s: size %d, want 16", c.Key, c.Size)
		}
	}
	if !slices.Equal(keys, []string{"c/1", "c/3", "c/4"}) || !slices.Equal(index, []int64{1, 3, 4}) || inv.StoredBytes != 48 {
		t.Errorf("chunks %v at %v, %d bytes; want c/1 c/3 c/4 at 1 3 4, 48 bytes", keys, index, inv.StoredBytes)
	}
	if !slices.Equal(inv.Temps, []string{"c/.dt64-tmp-0123456789abcdef-2"}) {
		t.Errorf("temps %v", inv.Temps)
	}
	if !slices.Equal(inv.Outside, []string{"c/9"}) || !slices.Equal(inv.Stray, []string{"notes.txt"}) {
		t.Errorf("outside %v, stray %v", inv.Outside, inv.Stray)
	}
	if len(inv.NotValues) != 1 || inv.NotValues[0].Key != "c/0" || inv.NotValues[0].NotValue != "a directory" {
		t.Fatalf("not values %+v, want c/0 a directory", inv.NotValues)
	}
	if err := zarr.NotValueError("a.zarr", inv.NotValues[0]); err.Error() != `array a.zarr: chunk "c/0": is a directory, not a regular file` {
		t.Errorf("NotValueError: %q", err)
	}
}

// TestInventoryNeedsListing: a store that cannot list is refused by name,
// as unsupported, not listed as empty.
func TestInventoryNeedsListing(t *testing.T) {
	_, a := inventoryArray(t) // on a storage.Dir: lists
	ctx := context.Background()
	mem := storage.NewMemory() // lists keys but no entries
	b, err := zarr.Create(ctx, mem, a.Metadata())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Inventory(ctx); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Inventory of a store without entries: %v, want an ErrUnsupported", err)
	}
}

func TestReadStored(t *testing.T) {
	ctx := context.Background()
	_, a := inventoryArray(t)
	inv, err := a.Inventory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2, 5} {
		var sum atomic.Int64
		errs := a.ReadStored(ctx, inv.Chunks, workers, false, func(_ int, c zarr.StoredChunk, raw []byte, order binary.ByteOrder) error {
			for i := 0; i < len(raw); i += 8 {
				sum.Add(int64(order.Uint64(raw[i:])))
			}
			if c.Index == 3 {
				return fmt.Errorf("refused")
			}
			return nil
		})
		if want := int64(10 + 11 + 30 + 31 + 40 + 41); sum.Load() != want {
			t.Errorf("%d workers: sum %d, want %d", workers, sum.Load(), want)
		}
		for i, err := range errs {
			var ce *zarr.ChunkError
			if (i == 1) != (err != nil) || (err != nil && (!errors.As(err, &ce) || ce.Key != "c/3")) {
				t.Errorf("%d workers: chunk %d: %v", workers, i, err)
			}
		}
	}
	// A context that has ended: every chunk says so.
	ended, cancel := context.WithCancel(ctx)
	cancel()
	for i, err := range a.ReadStored(ended, inv.Chunks, 2, false, func(int, zarr.StoredChunk, []byte, binary.ByteOrder) error { return nil }) {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("chunk %d after cancel: %v", i, err)
		}
	}
	// stopEarly: the first failure stops the rest.
	var calls atomic.Int64
	errs := a.ReadStored(ctx, inv.Chunks, 1, true, func(int, zarr.StoredChunk, []byte, binary.ByteOrder) error {
		calls.Add(1)
		return errors.New("stop")
	})
	if calls.Load() != 1 || errs[0] == nil || errs[1] != nil || errs[2] != nil {
		t.Errorf("stopEarly: %d calls, errors %v", calls.Load(), errs)
	}
}
