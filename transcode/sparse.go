package transcode

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/zarr-dt64/dt64/storage"
)

const (
	// freeUnits is how many work units any plan may have, whatever the
	// source stores: the engine walks every unit of the declared grid
	// (versions, temporary files, parts), at a cost per unit far below a
	// chunk's I/O.
	freeUnits = 1 << 22
	// unitsPerStoredChunk bounds a larger grid by what the source stores:
	// a grid declared far beyond its stored chunks ([2^62] in chunks of
	// one) would otherwise keep a run busy, on nothing, until killed.
	unitsPerStoredChunk = 1 << 10
)

// SparseError is a source whose declared chunk grid is far larger than
// what it stores: planning it would take time proportional to the grid.
type SparseError struct {
	Source       string
	Units        int64 // work units of the declared grid
	StoredChunks int   // keys the source stores (chunks)
	LimitUnits   int64 // the most units a source storing that much may have
}

func (e *SparseError) Error() string {
	return fmt.Sprintf("source %s declares a chunk grid of %d work units but stores %d chunks; dt64 plans work per unit of the grid, so it refuses more than %d units here (%d, or %d per stored chunk)",
		e.Source, e.Units, e.StoredChunks, e.LimitUnits, freeUnits, unitsPerStoredChunk)
}

func (e *SparseError) Unwrap() error { return ErrPlan }

// CheckSparse refuses work over more units (chunks of the declared grid)
// than freeUnits and unitsPerStoredChunk times the chunks src stores: a
// SparseError. The source is listed only for such large grids. Commands
// that walk a declared grid (export) check through it too.
func CheckSparse(ctx context.Context, src storage.Store, units int64) error {
	if units <= freeUnits {
		return nil
	}
	keys, err := src.List(ctx, "")
	if err != nil {
		return fmt.Errorf("listing the source: %w", err)
	}
	stored := 0
	for _, k := range keys {
		if b := path.Base(k); !strings.HasPrefix(b, ".") && b != "zarr.json" {
			stored++
		}
	}
	limit := max(int64(freeUnits), int64(stored)*unitsPerStoredChunk)
	if units > limit {
		return &SparseError{Source: storage.Name(src), Units: units, StoredChunks: stored, LimitUnits: limit}
	}
	return nil
}
