package transcode

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// maxProbedChunks bounds the chunk keys asked for, one request each, to
// list a source that cannot be listed.
const maxProbedChunks = 1 << 20

// consolidatedListing lists a source that cannot be listed (http(s)) as
// xarray reads it: the nodes from its consolidated metadata, each array's
// chunks by asking for every key of its grid (storage.Versioner: a HEAD over
// http(s); a missing one is not stored, read as the fill value). ok is
// false when the source cannot be asked or has no consolidated metadata
// it reads (err then says why).
func consolidatedListing(ctx context.Context, src storage.Store) (keys []string, ok bool, err error) {
	v, isVersioner := src.(storage.Versioner)
	if !isVersioner {
		return nil, false, nil
	}
	nodes, err := zarr.ReadConsolidated(ctx, src)
	if err != nil {
		return nil, false, err
	}
	if nodes[0].Format == 2 {
		keys = append(keys, ".zmetadata")
	}
	var total int64
	for _, n := range nodes {
		keys = append(keys, nodeDocKeys(n)...)
		if n.Kind != zarr.ArrayNode {
			continue
		}
		sub, err := storage.Sub(src, n.Path)
		if err != nil {
			return nil, true, err
		}
		a, err := zarr.Open(ctx, sub)
		if err != nil {
			return nil, true, fmt.Errorf("array %q: the source cannot be listed, and dt64 cannot find its chunks without opening it: %w", n.Path, err)
		}
		if total += a.NumChunks(); total > maxProbedChunks {
			return nil, true, fmt.Errorf("%s cannot be listed, and its arrays have more than the %d chunks dt64 asks for one by one", storage.Name(src), maxProbedChunks)
		}
		found, err := probeChunks(ctx, v, n.Path, a)
		if err != nil {
			return nil, true, err
		}
		keys = append(keys, found...)
	}
	return keys, true, nil
}

// nodeDocKeys are the metadata documents of node n, from the store's root.
func nodeDocKeys(n zarr.Node) []string {
	var docs []string
	switch {
	case n.Format == 3:
		docs = []string{"zarr.json"}
	case n.Kind == zarr.ArrayNode:
		docs = []string{".zarray"}
	default:
		docs = []string{".zgroup"}
	}
	if n.Format == 2 && n.AttrsDoc != nil {
		docs = append(docs, ".zattrs")
	}
	for i, d := range docs {
		docs[i] = path.Join(n.Path, d)
	}
	return docs
}

// probeChunks returns the keys (from the store's root) of array a's
// chunks that are stored, asking for each of its grid, a few at a time.
func probeChunks(ctx context.Context, v storage.Versioner, arrayPath string, a *zarr.Array) ([]string, error) {
	n, grid := a.NumChunks(), a.Grid()
	stored := make([]string, n)
	var next atomic.Int64
	var first error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < n; i = next.Add(1) - 1 {
				key, err := a.ChunkKey(grid.CoordsAt(i))
				full := path.Join(arrayPath, key)
				var ver string
				if err == nil {
					ver, err = v.Version(ctx, full)
				}
				if err != nil {
					mu.Lock()
					first = cmpOr(first, err)
					mu.Unlock()
					next.Store(n)
					return
				}
				if ver != "" {
					stored[i] = full
				}
			}
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	var keys []string
	for _, k := range stored {
		if k != "" {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// under returns the keys below prefix p ("" for all), relative to it.
func under(keys []string, p string) []string {
	if p == "" {
		return keys
	}
	var out []string
	for _, k := range keys {
		if rest, ok := strings.CutPrefix(k, p+"/"); ok {
			out = append(out, rest)
		}
	}
	return out
}
