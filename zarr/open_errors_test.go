package zarr

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/internal/sysmem"
	"github.com/zarr-dt64/dt64/storage"
)

// Open, Create and OpenGroup refuse a nil store with an error instead of
// a panic; Open of a v2 group says it is a group (and is still
// fs.ErrNotExist, no array), of an empty store that nothing is there.
func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	if _, err := Open(ctx, nil); err == nil || !strings.Contains(err.Error(), "nil store") {
		t.Errorf("Open(nil): %v", err)
	}
	if _, err := Create(ctx, nil, Metadata{}); err == nil || !strings.Contains(err.Error(), "nil store") {
		t.Errorf("Create(nil): %v", err)
	}
	if _, err := OpenGroup(ctx, nil); err == nil || !strings.Contains(err.Error(), "nil store") {
		t.Errorf("OpenGroup(nil): %v", err)
	}
	m := storage.NewMemory()
	_, err := Open(ctx, m)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "no Zarr array here") {
		t.Errorf("Open(empty): %v", err)
	}
	if err := m.Set(ctx, ".zgroup", []byte(`{"zarr_format":2}`)); err != nil {
		t.Fatal(err)
	}
	_, err = Open(ctx, m)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "a Zarr v2 group (.zgroup), not an array: open it with OpenGroup") {
		t.Errorf("Open(v2 group): %v", err)
	}
}

// CoordsAt of an index outside the grid panics naming it, instead of
// wrapping to another chunk's coordinates ([2 0] for 100 of a 3 × 2
// grid); Origin of coordinates of the wrong rank names both ranks.
func TestGridMisuse(t *testing.T) {
	g, err := NewGrid([]int64{6, 4}, []int64{2, 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want string
		f          func()
	}{
		{"CoordsAt(100)", "chunk index 100 outside the chunk grid [3 2]", func() { g.CoordsAt(100) }},
		{"CoordsAt(-1)", "chunk index -1 outside", func() { g.CoordsAt(-1) }},
		{"Origin([1])", "have 1 dimensions, the grid 2", func() { g.Origin([]int64{1}) }},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Errorf("%s: panic %v, want %q", tc.name, r, tc.want)
				}
			}()
			tc.f()
		}()
	}
	if c := g.CoordsAt(5); c[0] != 2 || c[1] != 1 {
		t.Errorf("CoordsAt(5) = %v", c)
	}
}

// A chunk larger than the machine's memory is refused when the array is
// opened or created, naming its size: dt64 decodes whole chunks, and the
// runtime's "out of memory" at the first read was fatal (a stack trace,
// exit 2) for a 150-byte .zarray declaring one chunk of 2^32 elements.
func TestChunkBeyondMemory(t *testing.T) {
	lim := sysmem.Total()
	if lim == 0 {
		t.Skip("memory size unknown here")
	}
	n := int64(lim/8) + 1 // int64 elements: one byte more than the memory
	zarray := fmt.Sprintf(`{"zarr_format":2,"shape":[%d],"chunks":[%d],"dtype":"<M8[s]","compressor":null,"fill_value":0,"filters":null,"order":"C"}`, n, n)
	m := storage.NewMemory()
	if err := m.Set(context.Background(), ".zarray", []byte(zarray)); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), m)
	if err == nil || !strings.Contains(err.Error(), "of memory this machine gives dt64") || !strings.Contains(err.Error(), fmt.Sprintf("(%d elements)", n)) {
		t.Fatalf("Open: %v", err)
	}
}

// An array with both zarr.json and .zarray is refused, naming both: it
// read as the v3 one (all fill values, a stray document without chunks)
// where zarr-python 2 reads the v2 data.
func TestOpenBothFormats(t *testing.T) {
	ctx := context.Background()
	m := storage.NewMemory()
	for k, v := range map[string]string{
		".zarray":   `{"zarr_format":2,"shape":[2],"chunks":[2],"dtype":"<M8[s]","compressor":null,"fill_value":0,"filters":null,"order":"C"}`,
		"zarr.json": `{"zarr_format":3,"node_type":"array","shape":[2],"data_type":"int64","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},"chunk_key_encoding":{"name":"default"},"fill_value":0,"codecs":[{"name":"bytes","configuration":{"endian":"little"}}]}`,
	} {
		if err := m.Set(ctx, k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Open(ctx, m)
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "both zarr.json (Zarr v3) and .zarray (Zarr v2)") {
		t.Fatalf("Open: %v", err)
	}
}

// Messages of malformed metadata name what is wrong in the document's own
// terms: a bare NaN fill value as NaN (not dt64's placeholder for it), a
// chunk shape too large under chunks, a codec after the array->bytes
// codec as after it.
func TestMalformedMessages(t *testing.T) {
	ctx := context.Background()
	h := `"zarr_format":3,"node_type":"array","shape":[10],"data_type":{"name":"numpy.datetime64","configuration":{"unit":"s","scale_factor":1}},"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[5]}},"chunk_key_encoding":{"name":"default"},"fill_value":0`
	b := `{"name":"bytes","configuration":{"endian":"little"}}`
	for _, tc := range []struct{ key, doc, want string }{
		{".zarray", `{"zarr_format":2,"shape":[10],"chunks":[5],"dtype":"<M8[s]","compressor":null,"fill_value":NaN,"filters":null,"order":"C"}`, `fill_value: invalid fill_value NaN: not a datetime64 fill value`},
		{".zarray", `{"zarr_format":2,"shape":[1099511627776],"chunks":[1099511627776],"dtype":"<M8[s]","compressor":null,"fill_value":0,"filters":null,"order":"C"}`, `chunks: chunk shape [1099511627776] has more than`},
		{"zarr.json", `{` + h + `,"codecs":[` + b + `,` + b + `]}`, `codecs[1]: array->bytes codec "bytes" cannot follow the array->bytes codec "bytes"`},
	} {
		m := storage.NewMemory()
		if err := m.Set(ctx, tc.key, []byte(tc.doc)); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(ctx, m); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.doc, err, tc.want)
		}
	}
}
