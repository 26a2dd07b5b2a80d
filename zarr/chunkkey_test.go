package zarr

import (
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
)

func TestKeyEncodingParse(t *testing.T) {
	def := KeyEncoding{Name: "default", Separator: "/"}
	dot := KeyEncoding{Name: "default", Separator: "."}
	v2 := KeyEncoding{Name: "v2", Separator: "."}
	v2s := KeyEncoding{Name: "v2", Separator: "/"}
	cases := []struct {
		enc  KeyEncoding
		ndim int
		key  string
		ok   bool
	}{
		{def, 2, "c/0/1", true}, {def, 2, "c/0", false}, {def, 2, "c/0/01", false},
		{def, 2, "c/0/+1", false}, {def, 2, "c/0/-1", false}, {def, 1, "c/12", true},
		{def, 0, "c", true}, {def, 1, "c", false}, {dot, 2, "c.3.4", true}, {dot, 2, "c/3/4", false},
		{v2, 2, "0.1", true}, {v2, 2, "0.1.2", false}, {v2, 0, "0", true}, {v2s, 3, "1/2/3", true},
		{v2, 1, "99999999999999999999", false}, {def, 1, "zarr.json", false},
	}
	for _, c := range cases {
		if _, ok := c.enc.Parse(c.key, c.ndim); ok != c.ok {
			t.Errorf("%v.Parse(%d, %q) ok = %v, want %v", c.enc, c.ndim, c.key, ok, c.ok)
		}
	}
}

func TestArrayChunkOf(t *testing.T) {
	a, err := Create(t.Context(), storage.NewMemory(), Metadata{Shape: []int64{10, 4}, ChunkShape: []int64{3, 4}, DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]bool{"c/0/0": true, "c/3/0": true, "c/4/0": false, "c/0/1": false, "c/0": false, "zarr.json": false} {
		if _, ok := a.ChunkOf(key); ok != want {
			t.Errorf("ChunkOf(%q) = %v, want %v", key, ok, want)
		}
	}
}
