package zarr_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

func TestProbeChunks(t *testing.T) {
	ctx := context.Background()
	_, a := inventoryArray(t) // chunks 1, 3, 4 of 5 stored
	var asked atomic.Int64
	stat := func(_ context.Context, key string) (int64, error) {
		asked.Add(1)
		switch key {
		case "c/1", "c/3", "c/4":
			return 16, nil
		}
		return 0, fmt.Errorf("HEAD %s: %w", key, fs.ErrNotExist)
	}
	got, err := a.ProbeChunks(ctx, stat)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range got {
		keys = append(keys, e.Key)
	}
	if !slices.Equal(keys, []string{"c/1", "c/3", "c/4"}) || asked.Load() != 5 {
		t.Errorf("found %v after %d requests, want c/1 c/3 c/4 after 5", keys, asked.Load())
	}

	// Another error stops the probe and is returned.
	boom := errors.New("503")
	if _, err := a.ProbeChunks(ctx, func(context.Context, string) (int64, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Errorf("failing stat: %v", err)
	}

	// A grid beyond the bound is refused before any request.
	big, err := zarr.Create(ctx, storage.NewMemory(), zarr.Metadata{
		DataType:   dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1},
		Shape:      []int64{zarr.MaxProbedChunks + 1},
		ChunkShape: []int64{1},
		FillValue:  dtype.NaT,
	})
	if err != nil {
		t.Fatal(err)
	}
	asked.Store(0)
	if _, err := big.ProbeChunks(ctx, stat); err == nil || !strings.Contains(err.Error(), "cannot be listed") || asked.Load() != 0 {
		t.Errorf("grid of %d chunks: %v after %d requests", zarr.MaxProbedChunks+1, err, asked.Load())
	}
}
