package transcode

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// A CF time array whose v2 fill value is null has no fill value: a chunk
// it does not store has no values. zarr-python 2.13 hands back
// uninitialized memory for such a chunk (xarray then decodes whatever was
// in it: stale numbers, heap addresses, or zeros, which are the reference
// instant). dt64 writes NaT there and counts the elements
// (Summary.Unfilled); an exact run refuses the source instead, before
// writing anything (MissingChunksError). It never decodes the zero bits
// the zarr package reads a null-fill chunk as.

// unfilledChunk sets buf, the region slot (8 bytes an element) of the
// source chunk at coords that is not stored, to NaT, and returns how many
// of its elements lie inside the array.
func (t *Job) unfilledChunk(buf []byte, coords []int64) int64 {
	nat := t.decodedNaT()
	for i := 0; i+8 <= len(buf); i += 8 {
		copy(buf[i:i+8], nat[:])
	}
	_, inside := t.src.Grid().Extent(coords)
	return inside
}

// unfilledNote is the plan's note for a null-fill CF source.
const unfilledNote = "the source's fill value is null (none defined): elements of chunks it does not store have no value and become NaT, counted"

// MissingChunksError refuses an exact conversion of a CF time array
// whose fill value is null (none defined) and some of whose chunks are
// not stored: their elements have no value.
type MissingChunksError struct {
	Array   string   // the source array's location
	Missing int64    // chunks of the grid that are not stored
	Keys    []string // the first of them (at most maxNamedChunks), in grid order
}

const maxNamedChunks = 8

func (e *MissingChunksError) Error() string {
	keys := strings.Join(e.Keys, ", ")
	if e.Missing > int64(len(e.Keys)) {
		keys += ", ..."
	}
	return fmt.Sprintf("%v: source %s: a CF time array whose fill value is null (none defined) does not store %d of its chunks (%s): their elements have no value, so an exact conversion refuses them (otherwise they become NaT, counted)",
		ErrPlan, e.Array, e.Missing, keys)
}

func (e *MissingChunksError) Unwrap() error { return ErrPlan }

// checkUnfilled refuses, for an exact run, a null-fill CF source that
// does not store every chunk of its grid. It lists the source (or asks
// for each chunk key, where it cannot be listed).
func (t *Job) checkUnfilled(ctx context.Context) error {
	if !t.nullFill || !t.opts.Exact {
		return nil
	}
	stored, err := t.storedChunks(ctx)
	if err != nil {
		return err
	}
	grid := t.src.Grid()
	e := &MissingChunksError{Array: storage.Name(t.srcStore)}
	for i := range t.src.NumChunks() {
		k, err := t.src.ChunkKey(grid.CoordsAt(i))
		if err != nil {
			return err
		}
		if stored[k] {
			continue
		}
		if e.Missing++; len(e.Keys) < maxNamedChunks {
			e.Keys = append(e.Keys, k)
		}
	}
	if e.Missing > 0 {
		return e
	}
	return nil
}

// storedChunks returns the chunk keys the source stores: from a listing,
// or from each key's version where the source cannot be listed.
func (t *Job) storedChunks(ctx context.Context) (map[string]bool, error) {
	stored := map[string]bool{}
	keys, err := t.srcStore.List(ctx, "")
	if err == nil {
		for _, k := range keys {
			if b := path.Base(k); !strings.HasPrefix(b, ".") && b != "zarr.json" {
				stored[k] = true
			}
		}
		return stored, nil
	}
	v, ok := storage.Find[storage.Versioner](t.srcStore)
	if !ok || errors.Is(err, context.Canceled) || t.src.NumChunks() > zarr.MaxProbedChunks {
		return nil, fmt.Errorf("listing the source for its missing chunks: %w", err)
	}
	found, perr := t.src.ProbeChunks(ctx, func(ctx context.Context, key string) (int64, error) {
		ver, err := v.Version(ctx, key)
		if err == nil && ver == "" {
			err = fs.ErrNotExist
		}
		return 0, err
	})
	if perr != nil {
		return nil, fmt.Errorf("finding the source's missing chunks: %w", perr)
	}
	for _, e := range found {
		stored[e.Key] = true
	}
	return stored, nil
}
