package zarr

import (
	"context"
	"encoding/json"
	"math"
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

// TestCFTimeFillValueOverridesAttribute: the array's fill value is the
// _FillValue (xarray's Zarr backend sets the attribute to it), so an
// attribute that disagrees masks nothing: xarray 2023.01 decodes float64
// [0, 1, 2, 3] "days since 2000-01-01" with fill_value 0, _FillValue 1
// and missing_value 2 as [NaT, 2000-01-02, NaT, 2000-01-04]. With a null
// fill value the attribute is the _FillValue.
func TestCFTimeFillValueOverridesAttribute(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		fillNull bool
		missing  []float64
	}{{false, []float64{0, 2}}, {true, []float64{1, 2}}} {
		s := storage.NewMemory()
		a, err := Create(ctx, s, Metadata{Format: 2, Shape: []int64{4}, ChunkShape: []int64{4}, Numeric: NumericType{Kind: Float, Size: 8},
			FillNull:   c.fillNull,
			Attributes: json.RawMessage(`{"units": "days since 2000-01-01", "_FillValue": 1.0, "missing_value": 2.0}`)})
		if err != nil {
			t.Fatal(err)
		}
		ct, err := a.CFTime()
		if err != nil {
			t.Fatal(err)
		}
		var got []float64
		for _, m := range ct.MissingValues() {
			got = append(got, math.Float64frombits(m))
		}
		slices.Sort(got)
		if !slices.Equal(got, c.missing) {
			t.Errorf("fill value null %v: missing values %v, want %v", c.fillNull, got, c.missing)
		}
	}
}
