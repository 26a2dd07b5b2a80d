package zarr

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/storage"
)

// TestCFBounds finds the bounds of testdata/xarray-bounds with what each
// lacks (time_bnds: units and calendar; jtime_bnds: the calendar only;
// other_bnds, with both of its own, and the coordinates: nothing), and
// WithAttributes reads them as CF time without writing anything.
func TestCFBounds(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join("..", "testdata", "xarray-bounds", "bounds.zarr")
	nodes, err := Walk(ctx, storage.NewDir(root))
	if err != nil {
		t.Fatal(err)
	}
	got := CFBounds(nodes)
	want := map[string][]string{"time_bnds": {"calendar", "units"}, "jtime_bnds": {"calendar"}}
	if len(got) != len(want) {
		t.Errorf("CFBounds = %v, want %v", got, want)
	}
	for p, keys := range want {
		b := got[p]
		var have []string
		for k := range b.Attributes {
			have = append(have, k)
		}
		slices.Sort(have)
		if !slices.Equal(have, keys) || b.Coordinate != p[:len(p)-len("_bnds")] {
			t.Errorf("%s: %+v, want the coordinate's %v", p, b, keys)
		}
	}

	before, err := storage.NewDir(root).Get(ctx, "time_bnds/.zattrs")
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(ctx, storage.NewDir(filepath.Join(root, "time_bnds")))
	if err != nil {
		t.Fatal(err)
	}
	if ct, err := a.CFTime(); ct != nil || err != nil {
		t.Fatalf("time_bnds alone: %v, %v; want no CF time", ct, err)
	}
	b, err := a.WithAttributes(got["time_bnds"].Attributes)
	if err != nil {
		t.Fatal(err)
	}
	ct, err := b.CFTime()
	if err != nil || ct == nil || ct.Units.Text != "days since 1850-01-01" || ct.Calendar != cf.Standard {
		t.Errorf("time_bnds with time's attributes: %+v, %v", ct, err)
	}
	if ct, _ := a.CFTime(); ct != nil {
		t.Error("WithAttributes changed the array it was called on")
	}
	after, err := storage.NewDir(root).Get(ctx, "time_bnds/.zattrs")
	if err != nil || string(after) != string(before) {
		t.Errorf("WithAttributes wrote to the store: %v", err)
	}
}
