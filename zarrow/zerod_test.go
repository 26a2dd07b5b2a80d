package zarrow

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// TestZeroDimensional: a 0-d array (shape [], one element) is one value,
// as transcode and inspect read it: Read with an empty box gives a
// column of one element, and its ArrayTable one row, exported to Parquet
// and Arrow IPC; for datetime64, for a CF time array, and for a CF time
// array with no fill value whose one chunk is not stored (null). The
// read once indexed the chunk shape's first dimension, which a 0-d array
// has not, and panicked.
func TestZeroDimensional(t *testing.T) {
	ctx := context.Background()
	const day = int64(18262) // 2020-01-01, days since 1970-01-01
	for _, c := range []struct {
		name   string
		meta   zarr.Metadata
		stored []byte // the one chunk's bytes; nil: not stored
		want   int64  // ns; NaT: null
	}{
		{"datetime64", zarr.Metadata{Format: 2, DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}, FillValue: dtype.NaT,
			Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}}}, le64(day * 86400e9), day * 86400e9},
		{"datetime64-fill", zarr.Metadata{Format: 3, DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1}, FillValue: dtype.NaT,
			Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.BigEndian}}}, nil, dtype.NaT},
		{"cf", zarr.Metadata{Format: 2, Numeric: zarr.NumericType{Kind: zarr.Int, Size: 8}, Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}},
			Attributes: json.RawMessage(`{"units": "days since 1970-01-01"}`)}, le64(day), day * 86400e9},
		{"cf-unfilled", zarr.Metadata{Format: 2, Numeric: zarr.NumericType{Kind: zarr.Int, Size: 8}, FillNull: true, Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}},
			Attributes: json.RawMessage(`{"units": "days since 1970-01-01"}`)}, nil, dtype.NaT},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.meta.Shape, c.meta.ChunkShape = []int64{}, []int64{}
			a, err := zarr.Create(ctx, storage.NewMemory(), c.meta)
			if err != nil {
				t.Fatal(err)
			}
			if err := a.WriteMetadata(ctx); err != nil {
				t.Fatal(err)
			}
			if c.stored != nil {
				if _, err := a.WriteChunkRaw(ctx, []int64{}, c.stored); err != nil {
					t.Fatal(err)
				}
			}
			check := func(what string, col arrow.Array) {
				t.Helper()
				ts, ok := col.(*array.Timestamp)
				switch {
				case !ok || col.Len() != 1:
					t.Fatalf("%s: %d values of %s, want one timestamp", what, col.Len(), col.DataType())
				case c.want == dtype.NaT && !ts.IsNull(0):
					t.Fatalf("%s: %d, want null", what, ts.Value(0))
				case c.want != dtype.NaT && (ts.IsNull(0) || int64(ts.Value(0)) != c.want):
					t.Fatalf("%s: %d (null %v), want %d", what, ts.Value(0), ts.IsNull(0), c.want)
				}
			}
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			for _, par := range []int{0, 2} {
				col, st, err := Read(ctx, a, nil, nil, Options{Unit: dtype.Nanosecond, Parallel: par, Allocator: mem})
				if err != nil {
					t.Fatalf("read: %v", err)
				}
				check("read", col)
				col.Release()
				if nulls := map[bool]int{true: 1}[c.want == dtype.NaT]; st.Elements != 1 || st.NaT != nulls {
					t.Errorf("read: stats %+v, want 1 element, %d null", st, nulls)
				}
			}
			for _, f := range []ExportFormat{Parquet, IPC} {
				o := Options{Unit: dtype.Nanosecond, Parquet: f == Parquet, Allocator: mem}
				tab, err := ArrayTable(a, "t", TableOptions{Options: o, Prefetch: 1})
				if err != nil {
					t.Fatal(err)
				}
				if tab.Rows() != 1 {
					t.Fatalf("%d rows, want 1", tab.Rows())
				}
				r := tab.RecordReader(ctx)
				var buf bytes.Buffer
				n, err := Export(r, &buf, ExportOptions{Format: f, Allocator: mem})
				r.Release()
				if err != nil || n != 1 {
					t.Fatalf("export %v: %d rows, %v", f, n, err)
				}
				if f == Parquet {
					tbl := readParquet(t, buf.Bytes(), "parquet")
					if tbl.NumRows() != 1 {
						t.Fatalf("parquet: %d rows", tbl.NumRows())
					}
					check("parquet", tbl.Column(0).Data().Chunk(0))
					tbl.Release()
					continue
				}
				fr, err := ipc.NewFileReader(bytes.NewReader(buf.Bytes()))
				if err != nil {
					t.Fatal(err)
				}
				rec, err := fr.RecordBatch(0)
				if err != nil {
					t.Fatal(err)
				}
				check("ipc", rec.Column(0))
				fr.Close()
			}
		})
	}
}

func le64(v int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(v)) }
