package zarr

import (
	"context"
	"os"
	"testing"

	"github.com/zarr-dt64/dt64/storage"
)

// FuzzReadConsolidated reads arbitrary .zmetadata and root zarr.json
// documents: errors, never a panic, and whatever reads must build a
// consolidated document again.
func FuzzReadConsolidated(f *testing.F) {
	for _, p := range []string{"xarray_v2.zarr/.zmetadata", "dataset_v3.zarr/zarr.json"} {
		b, err := os.ReadFile(groupFixtures + p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, p == "dataset_v3.zarr/zarr.json")
	}
	f.Add(consolidatedV3(`"sub": {"zarr_format": 3, "node_type": "group", "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {"a": `+v3ArrayDoc+`}}}`), true)
	f.Fuzz(func(t *testing.T, doc []byte, v3 bool) {
		ctx := context.Background()
		st := storage.NewMemory()
		key := ".zmetadata"
		if v3 {
			key = "zarr.json"
		}
		_ = st.Set(ctx, key, doc)
		nodes, err := ReadConsolidated(ctx, st)
		if err != nil || nodes[0].Kind != GroupNode {
			return
		}
		if _, _, err := ConsolidatedDocument(nodes); err != nil {
			t.Fatalf("read %d nodes, but cannot consolidate them: %v", len(nodes), err)
		}
	})
}
