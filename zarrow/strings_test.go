package zarrow

import (
	"context"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/storage"
)

// A dataset with string arrays (a station-name coordinate on another
// dimension, a label variable along time, as xarray writes them) exports
// its other columns: the string arrays are left out and named, in the
// wide and in the long layout, instead of failing the export.
func TestStringArraysLeftOut(t *testing.T) {
	ctx := context.Background()
	s := storage.NewMemory()
	set := func(k, v string) {
		if err := s.Set(ctx, k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	array := func(name, dtype string, n int, dim string) {
		set(name+"/.zarray", `{"chunks":[`+string(rune('0'+n))+`],"compressor":null,"dtype":"`+dtype+`","fill_value":null,"filters":null,"order":"C","shape":[`+string(rune('0'+n))+`],"zarr_format":2}`)
		set(name+"/.zattrs", `{"_ARRAY_DIMENSIONS":["`+dim+`"]}`)
	}
	set(".zgroup", `{"zarr_format":2}`)
	array("time", "<M8[s]", 3, "time")
	array("v", "<f8", 3, "time")
	array("lab", "<U1", 3, "time")
	array("station", "<U2", 2, "s")
	array("obj", "|O", 3, "time")
	var tb []byte
	for i := range 3 {
		tb = binary.LittleEndian.AppendUint64(tb, uint64(3600*i))
	}
	set("time/0", string(tb))
	set("v/0", string(make([]byte, 24)))
	set("lab/0", "x\x00\x00\x00y\x00\x00\x00z\x00\x00\x00")
	set("station/0", strings.Repeat("\x00", 16))

	wide, err := OpenTable(ctx, s, TableOptions{})
	if err != nil {
		t.Fatalf("wide: %v", err)
	}
	if got := wide.Skipped(); !slices.Contains(got, "lab") || !slices.Contains(got, "obj") || wide.Columns() != 2 {
		t.Errorf("wide: %d columns, skipped %v; want time and v, lab and obj skipped", wide.Columns(), got)
	}
	long, err := OpenLongTable(ctx, s, LongOptions{})
	if err != nil {
		t.Fatalf("long: %v", err)
	}
	notes := strings.Join(long.Notes(), "\n")
	if !strings.Contains(notes, "lab: left out: a <U1 array") || !strings.Contains(notes, "obj: left out") {
		t.Errorf("long: notes %q; want lab and obj left out", notes)
	}
}
