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
	for _, c := range []struct{ rows, want int64 }{{64, 60}, {10, 10}, {5, 10}, {0, 1 << 20 / 10 * 10}} {
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
