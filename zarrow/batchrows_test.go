package zarrow

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// An N-D array's batches hold at most BatchRows rows (whole indices of
// its first dimension, at least one), as --rows promises, and an error
// names the rows of the output, not indices of the first dimension.
func TestArrayTableBatchRows(t *testing.T) {
	ctx := context.Background()
	a, err := zarr.Create(ctx, storage.NewMemory(), zarr.Metadata{
		Format: 2, Shape: []int64{100, 10}, ChunkShape: []int64{30, 4}, FillValue: dtype.NaT,
		DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1},
		Codecs:   []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}},
	})
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]int64, 30*4)
	vals[5*4+3] = 1 << 62 // chunk (3, 0): array index [95 3], output row 953
	if err := a.WriteChunk(ctx, []int64{3, 0}, vals); err != nil {
		t.Fatal(err)
	}
	// The default (0) is about 1 Mi rows cut at the chunks' boundaries
	// along the first dimension (30 indices), so no chunk is decoded
	// twice.
	for _, c := range []struct{ rows, want int64 }{{64, 60}, {10, 10}, {5, 10}, {0, 1 << 20 / 10 / 30 * 30 * 10}} {
		tab, err := ArrayTable(a, "t", TableOptions{BatchRows: c.rows, Options: Options{Unit: dtype.Second}})
		if err != nil {
			t.Fatal(err)
		}
		if got := tab.BatchRows(); got != c.want {
			t.Errorf("BatchRows %d: batches of %d rows, want %d", c.rows, got, c.want)
		}
		r := tab.RecordReader(ctx)
		total := int64(0)
		for r.Next() {
			if n := r.RecordBatch().NumRows(); n > c.want {
				t.Errorf("BatchRows %d: a batch of %d rows", c.rows, n)
			}
			total += r.RecordBatch().NumRows()
		}
		if r.Err() != nil || total != 1000 {
			t.Errorf("BatchRows %d: %d rows, %v", c.rows, total, r.Err())
		}
		r.Release()
	}
	tab, err := ArrayTable(a, "t", TableOptions{BatchRows: 64, Options: Options{Unit: dtype.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	r := tab.RecordReader(ctx)
	defer r.Release()
	for r.Next() {
	}
	var ee *dtype.ElementError
	if err := r.Err(); !errors.As(err, &ee) || !strings.Contains(err.Error(), "rows [900, 960)") {
		t.Errorf("overflow: %v; want it in rows [900, 960)", err)
	}
}

// By default a table whose chunks are longer than a batch of 1 Mi rows
// reads one chunk per batch: batches shorter than a chunk decoded it
// again for each of them (a 32 MiB chunk read in batches of 64 Ki rows was
// decoded 512 times; RSS and time grew as --rows shrank). A batch length
// asked for is kept, and ChunkRows tells how it cuts the chunks.
func TestDefaultBatchWholeChunks(t *testing.T) {
	a, err := zarr.Create(context.Background(), storage.NewMemory(), zarr.Metadata{
		Format: 2, Shape: []int64{10 << 20}, ChunkShape: []int64{3 << 20}, FillValue: dtype.NaT,
		DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1},
		Codecs:   []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}},
	})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := ArrayTable(a, "t", TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.BatchRows(); got != 3<<20 || tab.ChunkRows() != 3<<20 {
		t.Errorf("default batches of %d rows, chunks of %d; want one chunk, %d", got, tab.ChunkRows(), 3<<20)
	}
	tab, err = ArrayTable(a, "t", TableOptions{BatchRows: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.BatchRows(); got != 1<<16 {
		t.Errorf("asked batches of %d rows, got %d", 1<<16, got)
	}
	if n := strings.Join(tab.Notes(), "\n"); !strings.Contains(n, "batches of 65536 rows cut the chunks of 3145728 rows") {
		t.Errorf("notes %q: want the cut chunks named", n)
	}
}
