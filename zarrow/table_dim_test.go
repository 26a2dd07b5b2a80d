package zarrow

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// TestOpenTableDimension: with two time coordinates the wide table is
// refused, not built along the first in path order with the other's
// arrays left out without a word (a tester's group: x along zz, y along
// aa); with --dim it is built, and Outside names every array it leaves
// out.
func TestOpenTableDimension(t *testing.T) {
	ctx := context.Background()
	store := storage.NewMemory()
	if err := store.Set(ctx, "zarr.json", []byte(`{"zarr_format":3,"node_type":"group","attributes":{}}`)); err != nil {
		t.Fatal(err)
	}
	ms := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Millisecond, Scale: 1}
	f8 := zarr.NumericType{Kind: zarr.Float, Size: 8}
	for _, a := range []struct {
		path string
		dims []string
		m    zarr.Metadata
	}{
		{"aa", []string{"aa"}, zarr.Metadata{DataType: ms, FillValue: dtype.NaT}},
		{"y", []string{"aa"}, zarr.Metadata{Numeric: f8}},
		{"zz", []string{"zz"}, zarr.Metadata{DataType: ms, FillValue: dtype.NaT}},
		{"x", []string{"zz"}, zarr.Metadata{Numeric: f8}},
		{"grid", []string{"aa", "zz"}, zarr.Metadata{Numeric: f8}},
	} {
		sub, _ := storage.Sub(store, a.path)
		m := a.m
		m.Format, m.Shape, m.ChunkShape = 3, make([]int64, len(a.dims)), make([]int64, len(a.dims))
		for i := range a.dims {
			m.Shape[i], m.ChunkShape[i] = 3, 3
		}
		d, _ := json.Marshal(a.dims)
		m.DimensionNames = d
		m.Codecs = []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}}
		arr, err := zarr.Create(ctx, sub, m)
		if err != nil {
			t.Fatal(err)
		}
		if err := arr.WriteMetadata(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := OpenTable(ctx, store, TableOptions{}); err == nil || !strings.Contains(err.Error(), `several time coordinates ["aa" "zz"]`) {
		t.Fatalf("two time coordinates: %v, want a refusal naming both", err)
	}
	tab, err := OpenTable(ctx, store, TableOptions{Dim: "zz"})
	if err != nil {
		t.Fatal(err)
	}
	var cols []string
	for _, f := range tab.Schema().Fields() {
		cols = append(cols, f.Name)
	}
	dim, notOneD, offDim := tab.Outside()
	if !slices.Equal(cols, []string{"x", "zz"}) || dim != "zz" || !slices.Equal(notOneD, []string{"grid"}) || !slices.Equal(offDim, []string{"aa", "y"}) {
		t.Errorf("--dim zz: columns %v, outside %q %v %v; want [x zz], zz [grid] [aa y]", cols, dim, notOneD, offDim)
	}
}
