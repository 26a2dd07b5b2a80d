package zarrow

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/zarr-dt64/dt64/storage"
)

// With MaskAndScale every numeric column holds what xarray.open_zarr
// shows of it, bit for bit, on a group xarray and zarr-python wrote
// (tools/xarray/mask_and_scale.py): xarray's NaN for a missing value is a
// null, and integers masked but not scaled stay integers of the same
// values. Without it the columns hold the stored numbers.
func TestMaskAndScaleMatchesXarray(t *testing.T) {
	py := requireXarray(t)
	dir := filepath.Join(t.TempDir(), "packed.zarr")
	cmd := exec.Command(py, filepath.Join("..", "tools", "xarray", "mask_and_scale.py"), dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("mask_and_scale.py: %v", err)
	}
	var oracle map[string]struct {
		DType  string `json:"dtype"`
		Values []any  `json:"values"`
	}
	if err := json.Unmarshal(out, &oracle); err != nil {
		t.Fatal(err)
	}
	store := storage.NewDir(dir)
	ctx := context.Background()
	// The Arrow type of each column: xarray's dtype, but the integers
	// xarray makes floats only to hold NaN stay integers.
	want := map[string]arrow.DataType{
		"counts": arrow.PrimitiveTypes.Int16, "ubyte": arrow.PrimitiveTypes.Uint8, "missing": arrow.PrimitiveTypes.Int32,
		"land": arrow.FixedWidthTypes.Boolean, "plain": arrow.PrimitiveTypes.Uint16,
	}
	for o, f := range map[string]arrow.DataType{"float32": arrow.PrimitiveTypes.Float32, "float64": arrow.PrimitiveTypes.Float64} {
		for name, v := range oracle {
			if _, ok := want[name]; !ok && v.DType == o {
				want[name] = f
			}
		}
	}
	tab, err := OpenTable(ctx, store, TableOptions{Options: Options{MaskAndScale: true}})
	if err != nil {
		t.Fatal(err)
	}
	if notes := tab.Notes(); len(notes) != 0 {
		t.Errorf("decoded columns have notes: %q", notes)
	}
	got := readColumns(t, tab)
	checked := 0
	for name, o := range oracle {
		col, ok := got[name]
		if !ok {
			t.Errorf("%s: no column", name)
			continue
		}
		if !arrow.TypeEqual(col.DataType(), want[name]) {
			t.Errorf("%s: column of %s, want %s (xarray: %s)", name, col.DataType(), want[name], o.DType)
		}
		if col.Len() != len(o.Values) {
			t.Fatalf("%s: %d rows, xarray %d", name, col.Len(), len(o.Values))
		}
		for i, w := range o.Values {
			if g := cell(col, i, o.DType); g != fmt.Sprint(w) {
				t.Errorf("%s[%d] = %s, xarray %v", name, i, g, w)
			}
		}
		checked++
	}
	if checked != 14 {
		t.Errorf("checked %d variables, want 14", checked)
	}
	// The long layout decodes its variables so too.
	long, err := OpenLongTable(ctx, store, LongOptions{Options: Options{MaskAndScale: true}, Vars: []string{"t2m", "counts", "land"}})
	if err != nil {
		t.Fatal(err)
	}
	lc := readColumns(t, long)
	for _, name := range []string{"t2m", "counts", "land"} {
		for i, w := range oracle[name].Values {
			if g := cell(lc[name], i, oracle[name].DType); g != fmt.Sprint(w) {
				t.Errorf("long layout: %s[%d] = %s, xarray %v", name, i, g, w)
			}
		}
	}

	// Without MaskAndScale: the stored numbers, and a note for each
	// column xarray would decode.
	raw, err := OpenTable(ctx, store, TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := readColumns(t, raw)["t2m"]; c.DataType().ID() != arrow.INT16 || c.NullN() != 0 {
		t.Errorf("t2m read raw: %s with %d nulls, want int16 without", c.DataType(), c.NullN())
	}
	if len(raw.Notes()) == 0 {
		t.Error("raw columns without notes")
	}
}

// readColumns reads every column of tab whole.
func readColumns(t *testing.T, tab *Table) map[string]arrow.Array {
	t.Helper()
	r := tab.RecordReader(context.Background())
	defer r.Release()
	if !r.Next() {
		t.Fatalf("no batch: %v", r.Err())
	}
	rec := r.RecordBatch()
	cols := map[string]arrow.Array{}
	for j, f := range rec.Schema().Fields() {
		c := rec.Column(j)
		c.Retain()
		t.Cleanup(c.Release)
		cols[f.Name] = c
	}
	if r.Next() {
		t.Fatal("more than one batch")
	}
	return cols
}

// cell prints element i as the oracle's JSON does: null as <nil>, floats
// as the hex of their bits, integers as they are; an integer column
// against an xarray float column (xarrayType) prints that float's bits.
func cell(c arrow.Array, i int, xarrayType string) string {
	if c.IsNull(i) {
		return "<nil>"
	}
	if _, isFloat := c.(interface{ Value(int) float32 }); !isFloat && c.DataType().ID() != arrow.BOOL && c.DataType().ID() != arrow.FLOAT64 {
		v, err := strconv.ParseFloat(c.ValueStr(i), 64)
		switch {
		case err != nil:
			return err.Error()
		case xarrayType == "float32":
			return fmt.Sprintf("%x", math.Float32bits(float32(v)))
		case xarrayType == "float64":
			return fmt.Sprintf("%x", math.Float64bits(v))
		}
	}
	switch c := c.(type) {
	case *array.Float32:
		return fmt.Sprintf("%x", math.Float32bits(c.Value(i)))
	case *array.Float64:
		return fmt.Sprintf("%x", math.Float64bits(c.Value(i)))
	case *array.Boolean:
		return fmt.Sprint(c.Value(i))
	}
	return c.ValueStr(i)
}
