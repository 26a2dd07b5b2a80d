package zarr

import (
	"context"
	"fmt"
	"testing"

	"github.com/zarr-dt64/dt64/storage"
)

// listedStore answers List with a listing made once, so a benchmark
// measures the walk over it and not the store's listing.
type listedStore struct {
	storage.Store
	keys []string
}

func (s listedStore) List(ctx context.Context, prefix string) ([]string, error) { return s.keys, nil }

// BenchmarkWalk walks a hierarchy of 10 arrays with 100 000 chunk keys in
// all (the planning target): listing=fixed over a listing made
// once (the walk's own cost), listing=memory with a storage.Memory's List
// (a map's keys, sorted) each time, and list=only that List alone.
func BenchmarkWalk(b *testing.B) {
	ctx := context.Background()
	const arrays, chunks = 10, 100_000
	st := storage.NewMemory()
	doc, err := storage.NewDir(groupFixtures+"dataset_v3.zarr").Get(ctx, "time/zarr.json")
	if err != nil {
		b.Fatal(err)
	}
	_ = st.Set(ctx, "zarr.json", []byte(`{"zarr_format": 3, "node_type": "group", "attributes": {}}`))
	for a := range arrays {
		name := fmt.Sprintf("var%d", a)
		_ = st.Set(ctx, name+"/zarr.json", doc)
		for c := range chunks / arrays {
			_ = st.Set(ctx, fmt.Sprintf("%s/c/%d/%d", name, c/100, c%100), nil)
		}
	}
	keys, _ := st.List(ctx, "")
	fixed := listedStore{st, keys}
	walk := func(b *testing.B, s storage.Store) {
		for b.Loop() {
			nodes, err := Walk(ctx, s)
			if err != nil || len(nodes) != arrays+1 {
				b.Fatal(len(nodes), err)
			}
		}
	}
	b.Run(fmt.Sprintf("listing=fixed/arrays=%d/chunks=%d", arrays, chunks), func(b *testing.B) { walk(b, fixed) })
	b.Run(fmt.Sprintf("listing=memory/arrays=%d/chunks=%d", arrays, chunks), func(b *testing.B) { walk(b, st) })
	b.Run("list=only", func(b *testing.B) {
		for b.Loop() {
			if _, err := st.List(ctx, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkReadConsolidated(b *testing.B) {
	ctx := context.Background()
	st := storage.NewMemory()
	doc, err := storage.NewDir(groupFixtures+"dataset_v3.zarr").Get(ctx, "zarr.json")
	if err != nil {
		b.Fatal(err)
	}
	_ = st.Set(ctx, "zarr.json", doc)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := ReadConsolidated(ctx, st); err != nil {
			b.Fatal(err)
		}
	}
}
