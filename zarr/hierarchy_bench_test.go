package zarr

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkWalk walks a hierarchy of 10 arrays with 100 000 chunk keys in
// all (the planning target) in a MemoryStore, so it measures the
// walk's own cost over the listing; list=only is the List call alone.
func BenchmarkWalk(b *testing.B) {
	ctx := context.Background()
	const arrays, chunks = 10, 100_000
	st := NewMemory()
	doc, err := Dir(groupFixtures+"dataset_v3.zarr").Get(ctx, "time/zarr.json")
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
	b.Run("list=only", func(b *testing.B) {
		for b.Loop() {
			if _, err := st.List(ctx, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(fmt.Sprintf("arrays=%d/chunks=%d", arrays, chunks), func(b *testing.B) {
		for b.Loop() {
			nodes, err := Walk(ctx, st)
			if err != nil || len(nodes) != arrays+1 {
				b.Fatal(len(nodes), err)
			}
		}
	})
}

func BenchmarkReadConsolidated(b *testing.B) {
	ctx := context.Background()
	st := NewMemory()
	doc, err := Dir(groupFixtures+"dataset_v3.zarr").Get(ctx, "zarr.json")
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
