package zarrow

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// TestReadUnfilled: the chunks a CF time array with a null fill value
// does not store (testdata/xarray-null-fill, written by xarray) are null
// in the column, counted with the NaT, never the reference instant: time
// (chunks of 16) through the chunk-by-chunk path, valid_time (chunks of
// 10) and unaligned ranges through the box path.
func TestReadUnfilled(t *testing.T) {
	ctx := context.Background()
	dir := "../testdata/xarray-null-fill"
	b, err := os.ReadFile(filepath.Join(dir, "null_fill.values.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]struct {
		Values []*int64 `json:"values"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, name := range []string{"time", "valid_time"} {
		want := doc[name].Values
		a, err := zarr.Open(ctx, storage.NewDir(filepath.Join(dir, "null_fill.zarr", name)))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range [][2]int64{{0, 48}, {8, 40}, {5, 30}, {16, 16}, {10, 10}, {11, 3}} {
			for _, o := range []Options{
				{Unit: dtype.Second, Parallel: 2},
				{Unit: dtype.Nanosecond},
				{Unit: dtype.Millisecond, Parquet: true, Exact: true},
			} {
				o.Allocator = mem
				col, st, err := Read(ctx, a, []int64{r[0]}, []int64{r[1]}, o)
				if err != nil {
					t.Fatalf("%s %v %+v: %v", name, r, o, err)
				}
				ts := col.(*array.Timestamp)
				unit := col.DataType().(*arrow.TimestampType).Unit
				per := int64(map[arrow.TimeUnit]int64{arrow.Second: 1e9, arrow.Millisecond: 1e6, arrow.Nanosecond: 1}[unit])
				nulls := 0
				for i := range int(r[1]) {
					w := want[int(r[0])+i]
					switch {
					case w == nil && !ts.IsNull(i):
						t.Fatalf("%s %v %+v: element %d is %d, want null (its chunk is missing)", name, r, o, i, ts.Value(i))
					case w != nil && (ts.IsNull(i) || int64(ts.Value(i))*per != *w):
						t.Fatalf("%s %v %+v: element %d is %d (null %v), want %d ns", name, r, o, i, ts.Value(i), ts.IsNull(i), *w)
					}
					if w == nil {
						nulls++
					}
				}
				if st.NaT != nulls || ts.NullN() != nulls || st.Elements != int(r[1]) || st.Valid != int(r[1])-nulls {
					t.Errorf("%s %v %+v: stats %+v, %d nulls in the column, want %d", name, r, o, st, ts.NullN(), nulls)
				}
				col.Release()
			}
		}
	}
}

// TestReadUnfilledErrors: in the box path the missing elements are given
// a stored element's bytes before converting; an error is still named at
// the element that holds the value (never a missing one before it), and
// under the nat policy the missing elements are null and counted once.
func TestReadUnfilledErrors(t *testing.T) {
	ctx := context.Background()
	s := storage.NewMemory()
	a, err := zarr.Create(ctx, s, zarr.Metadata{Format: 2, Shape: []int64{9}, ChunkShape: []int64{3}, FillNull: true,
		Numeric: zarr.NumericType{Kind: zarr.Int, Size: 8}, Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}},
		Attributes: json.RawMessage(`{"units": "days since 1970-01-01"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	// Chunk 0 missing; chunk 1 starts with a value no ns column holds.
	for c, vals := range map[int64][]int64{1: {1 << 40, 1, 2}, 2: {3, 4, 5}} {
		raw := make([]byte, 24)
		for i, v := range vals {
			binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
		}
		if _, err := a.WriteChunkRaw(ctx, []int64{c}, raw); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err = Read(ctx, a, []int64{0}, []int64{9}, Options{Unit: dtype.Nanosecond})
	var ee *zarr.ElementError
	if !errors.As(err, &ee) || ee.ArrayIndex[0] != 3 {
		t.Fatalf("overflow: %v, want an error at array element 3", err)
	}
	col, st, err := Read(ctx, a, []int64{0}, []int64{9}, Options{Unit: dtype.Nanosecond, Overflow: dtype.OverflowNaT})
	if err != nil {
		t.Fatal(err)
	}
	defer col.Release()
	ts := col.(*array.Timestamp)
	if st.NaT != 4 || st.Overflowed != 1 || st.Valid != 5 || ts.NullN() != 4 || !ts.IsNull(0) || !ts.IsNull(3) || ts.Value(4) != 86400e9 {
		t.Errorf("nat: %+v, %d nulls, element 4 = %d", st, ts.NullN(), ts.Value(4))
	}
}
