package zarr

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/zarr-dt64/dt64/storage"
)

// A StoredChunk is a chunk (a shard, in a sharded array) present in the
// store.
type StoredChunk struct {
	Index  int64   // C-order index in the chunk grid
	Coords []int64 // chunk grid coordinates
	Key    string
	Size   int64 // stored bytes
}

// An Inventory sorts what an array's store holds by role: what a checker
// reports and what a reader of every stored chunk iterates over.
type Inventory struct {
	Chunks      []StoredChunk // in C order
	StoredBytes int64         // the chunks' total size
	// Temps are the temporary files an interrupted write left
	// (storage.TempLister), as store-relative paths.
	Temps []string
	// NotValues are chunk keys at which the store holds something that is
	// not a value (a directory holding files, a named pipe): every read of
	// such a chunk fails. NotValue says what it is.
	NotValues []storage.Entry
	Outside   []string // chunk keys outside the chunk grid
	Stray     []string // anything else that is neither chunk nor metadata
}

// NotValueError is the error a read of e's chunk reports, for the array
// named array.
func NotValueError(array string, e storage.Entry) error {
	return &ChunkError{Array: array, Key: e.Key, Err: fmt.Errorf("is %s, not a regular file", e.NotValue)}
}

// metadataFiles are the documents of a Zarr v2 or v3 node.
var metadataFiles = map[string]bool{
	"zarr.json": true, ".zarray": true, ".zattrs": true, ".zgroup": true, ".zmetadata": true,
}

// Inventory lists what the array's store holds and classifies it. The
// store must list its entries (storage.EntryLister); the result is in
// proportion to what is stored, not to the chunk grid, which for a sparse
// array may have billions of chunks.
func (a *Array) Inventory(ctx context.Context) (*Inventory, error) {
	lister, ok := storage.Find[storage.EntryLister](a.store)
	if !ok {
		return nil, fmt.Errorf("%s: %w: the store cannot list its entries", a, ErrUnsupported)
	}
	out := &Inventory{}
	if tl, ok := storage.Find[storage.TempLister](a.store); ok {
		temps, err := tl.Temps(ctx)
		if err != nil {
			return nil, err
		}
		for p := range temps {
			out.Temps = append(out.Temps, p)
		}
		sort.Strings(out.Temps)
	}
	entries, err := lister.Entries(ctx, "")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		coords, ok := a.ChunkOf(e.Key)
		switch {
		case e.NotValue != "":
			// Directories are how keys nest; anything else is stray.
			if ok {
				out.NotValues = append(out.NotValues, e)
			} else if e.NotValue != "a directory" {
				out.Stray = append(out.Stray, e.Key)
			}
		case metadataFiles[e.Key]:
		case ok:
			index, _ := a.Grid().Index(coords)
			out.Chunks = append(out.Chunks, StoredChunk{Index: index, Coords: coords, Key: e.Key, Size: e.Size})
			out.StoredBytes += e.Size
		case coords != nil:
			out.Outside = append(out.Outside, e.Key)
		default:
			out.Stray = append(out.Stray, e.Key)
		}
	}
	sort.Slice(out.Chunks, func(i, j int) bool { return out.Chunks[i].Index < out.Chunks[j].Index })
	return out, nil
}

// StoredReaders is the number of goroutines ReadStored uses by default for
// n chunks: one per CPU, with the decode buffers together under 1 GiB
// however large the chunks are.
func (a *Array) StoredReaders(n int) int {
	const memoryBudget = 1 << 30
	w := min(runtime.NumCPU(), n)
	if per := 8 * int64(a.chunkLen); per > 0 {
		w = min(w, int(max(1, memoryBudget/per)))
	}
	return max(w, 1)
}

// ReadStored decodes chunks (from Inventory) on workers goroutines, each
// with its own buffer, and calls fn(worker, chunk, raw, order) for every
// chunk that decodes: raw holds the chunk's elements as stored (ReadChunkRaw)
// in a buffer of 8 bytes an element, so that narrower elements can be
// widened in place, and is valid only during the call. fn runs
// concurrently for different workers. ReadStored returns one error per
// chunk, nil where the chunk read and fn succeeded; fn's error is wrapped
// in a *ChunkError naming the chunk. With stopEarly the first failure stops
// the rest, which keep a nil error; without it, when ctx ends, the chunks
// never read report ctx's cause.
func (a *Array) ReadStored(ctx context.Context, chunks []StoredChunk, workers int, stopEarly bool,
	fn func(worker int, c StoredChunk, raw []byte, order binary.ByteOrder) error) []error {
	errs := make([]error, len(chunks))
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	var wg sync.WaitGroup
	for w := range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 8*a.chunkLen)[:a.ChunkBytes()]
			for i := range next {
				c := chunks[i]
				order, _, err := a.ReadChunkRaw(ctx, c.Coords, buf)
				if err == nil {
					if err = fn(w, c, buf, order); err != nil {
						err = &ChunkError{Key: c.Key, Err: err}
					}
				}
				if err != nil {
					if stopEarly && parent.Err() == nil && ctx.Err() != nil && errors.Is(err, context.Canceled) {
						// A casualty of our own cancel, not a fault of
						// this chunk: the failure that caused it is kept.
						continue
					}
					errs[i] = err
					if stopEarly {
						cancel()
					}
				}
			}
		}()
	}
feed:
	for i := range chunks {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !stopEarly {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
	}
	return errs
}
