package transcode

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

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
		if total += a.NumChunks(); total > zarr.MaxProbedChunks {
			return nil, true, fmt.Errorf("%s cannot be listed, and its arrays have more than the %d chunks dt64 asks for one by one", storage.Name(src), zarr.MaxProbedChunks)
		}
		found, err := a.ProbeChunks(ctx, func(ctx context.Context, key string) (int64, error) {
			ver, err := v.Version(ctx, path.Join(n.Path, key))
			if err == nil && ver == "" {
				err = fs.ErrNotExist
			}
			return 0, err
		})
		if err != nil {
			return nil, true, err
		}
		for _, e := range found {
			keys = append(keys, path.Join(n.Path, e.Key))
		}
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
