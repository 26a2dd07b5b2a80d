package transcode_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// TestStoreCFBounds: CF bounds without units of their own (time_bnds, as
// CMOR writes them; written here by xarray 2023.01) are converted with
// their coordinate's units and calendar, to the instants xarray decodes
// from the source; with CF output they get the coordinate's new units.
// Carried over as numbers they would mean nothing once time's units are
// gone (tools/xarray/cf_bounds.py). Bounds with units but no calendar
// take the coordinate's calendar (julian here), as xarray gives them.
func TestStoreCFBounds(t *testing.T) {
	dir := filepath.Join("..", "testdata", "xarray-bounds")
	raw, err := os.ReadFile(filepath.Join(dir, "bounds.values.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][]int64
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	src := storage.NewDir(filepath.Join(dir, "bounds.zarr"))
	out := filepath.Join(t.TempDir(), "out.zarr")
	sum, err := runStore(t, src, storage.NewDir(out), transcode.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ns := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}
	for name, w := range want {
		a, got := readArray(t, storage.NewDir(filepath.Join(out, name)))
		if !a.IsTime() {
			t.Errorf("%s: not converted", name)
			continue
		}
		if got = expected(t, a.DataType(), ns, got, dtype.OverflowError); !slices.Equal(got, w) {
			t.Errorf("%s: %s %v, want the instants xarray decodes %v", name, a.DataType(), got, w)
		}
	}
	for _, a := range sum.Arrays {
		if a.Path == "time_bnds" && a.Action != "transcode" {
			t.Errorf("time_bnds: %s, want transcode", a.Action)
		}
	}
	cfOut := filepath.Join(t.TempDir(), "cf.zarr")
	if _, err := runStore(t, src, storage.NewDir(cfOut), transcode.StoreOptions{Options: transcode.Options{CF: true}}); err != nil {
		t.Fatal(err)
	}
	units := func(name string) string {
		a, err := zarr.Open(ctx, storage.NewDir(filepath.Join(cfOut, name)))
		if err != nil {
			t.Fatal(err)
		}
		var attrs struct{ Units string }
		_ = json.Unmarshal(a.Metadata().Attributes, &attrs)
		return attrs.Units
	}
	if u, b := units("time"), units("time_bnds"); !strings.Contains(u, "since") || b != u {
		t.Errorf("CF output: time_bnds units %q, time's %q; want time's", b, u)
	}
}

// TestStoreImplicitGroup: an array below a path with no group metadata
// (a/b/t with no a/.zgroup, as zarr 2.13 writes an array at a nested path
// whose groups it then loses, and still reads by its path) is carried
// over, with an empty group made above it and a warning; it was left out
// without a word.
func TestStoreImplicitGroup(t *testing.T) {
	src := storage.NewMemory()
	for k, v := range map[string]string{".zgroup": `{"zarr_format": 2}`, "a/b/.zgroup": `{"zarr_format": 2}`} {
		if err := src.Set(ctx, k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	sub, _ := storage.Sub(src, "a/b/t")
	sec := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1}
	writeArray(t, sub, zarr.Metadata{Format: 2, DataType: sec, Shape: []int64{2}, ChunkShape: []int64{2}, FillValue: dtype.NaT}, []int64{1, 2}, nil)
	dst := storage.NewMemory()
	j, err := transcode.NewStore(ctx, src, dst, transcode.StoreOptions{Options: transcode.Options{Unit: dtype.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(j.Plan().Warnings, "\n"); !strings.Contains(w, "a: no group metadata in the source") {
		t.Errorf("warnings %q do not name the implicit group", w)
	}
	if _, err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	out, _ := storage.Sub(dst, "a/b/t")
	if a, got := readArray(t, out); a.DataType().Unit != dtype.Millisecond || !slices.Equal(got, []int64{1000, 2000}) {
		t.Errorf("a/b/t: %s %v, want [1000 2000] ms", a.DataType(), got)
	}
	if _, err := dst.Get(ctx, "a/.zgroup"); err != nil {
		t.Errorf("no group made at a: %v", err)
	}
}

// TestStoreNullFillNote: a v2 array with a null fill value (xarray's
// integers and bools) migrated to v3 gets the fill 0 and a note saying
// what xarray would make of it back in v2 (a _FillValue masking zeros).
func TestStoreNullFillNote(t *testing.T) {
	j, err := transcode.NewStore(ctx, eraGroup(t), storage.NewMemory(), transcode.StoreOptions{Options: transcode.Options{Format: 3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range j.Plan().Arrays {
		if a.Path == "t2m" && !strings.Contains(a.Note, "the v2 fill value null becomes 0") {
			t.Errorf("t2m: note %q", a.Note)
		}
	}
}

// TestStoreDanglingCoordinates: an array whose "coordinates" attribute
// names an array the selection leaves out gets a warning.
func TestStoreDanglingCoordinates(t *testing.T) {
	src := eraGroup(t)
	if err := src.Set(ctx, "t2m/.zattrs", []byte(`{"_ARRAY_DIMENSIONS": ["time", "step"], "coordinates": "valid_time"}`)); err != nil {
		t.Fatal(err)
	}
	j, err := transcode.NewStore(ctx, src, storage.NewMemory(), transcode.StoreOptions{Exclude: []string{"valid_time"}})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(j.Plan().Warnings, "\n"); !strings.Contains(w, "t2m: its coordinates attribute names valid_time, which the selection leaves out") {
		t.Errorf("warnings %q", w)
	}
	j, err = transcode.NewStore(ctx, src, storage.NewMemory(), transcode.StoreOptions{})
	if err != nil || len(j.Plan().Warnings) != 0 {
		t.Errorf("without a selection: %v, warnings %q", err, j.Plan().Warnings)
	}
}
