package zarr

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"

	"github.com/zarr-dt64/dt64/storage"
)

// MaxProbedChunks bounds the chunk keys ProbeChunks asks about, one
// request each.
const MaxProbedChunks = 1 << 20

// probers is how many requests ProbeChunks has in flight.
const probers = 16

// ProbeChunks finds the stored chunks of an array whose store cannot list
// (an HTTP server) by asking stat about every chunk key of its grid, 16 at
// a time. stat returns the size stored at a key (relative to the array),
// or an error wrapping fs.ErrNotExist for a chunk that is not stored (it
// reads as the fill value); any other error stops the probe. The entries
// are in C order. A grid of more than MaxProbedChunks chunks is refused
// before any request.
func (a *Array) ProbeChunks(ctx context.Context, stat func(ctx context.Context, key string) (int64, error)) ([]storage.Entry, error) {
	n, grid := a.NumChunks(), a.Grid()
	if n > MaxProbedChunks {
		return nil, fmt.Errorf("%s cannot be listed, and its grid has %d chunks, more than the %d dt64 asks for one by one", a, n, MaxProbedChunks)
	}
	entries := make([]storage.Entry, n)
	found := make([]bool, n)
	var next atomic.Int64
	var first error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(probers, max(n, 1)) {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < n; i = next.Add(1) - 1 {
				key, err := a.ChunkKey(grid.CoordsAt(i))
				var size int64
				if err == nil {
					size, err = stat(ctx, key)
				}
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					next.Store(n) // the others stop too
					return
				}
				entries[i], found[i] = storage.Entry{Key: key, Size: size}, true
			}
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	var out []storage.Entry
	for i, e := range entries {
		if found[i] {
			out = append(out, e)
		}
	}
	return out, nil
}
