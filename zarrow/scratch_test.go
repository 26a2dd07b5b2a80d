package zarrow

import (
	"context"
	"encoding/binary"
	"runtime"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// Batches that take part of a time column's chunk reuse a pooled chunk
// buffer: each read allocated a whole chunk before, garbage that let an
// export's heap grow past its plan.
func TestPartialChunkReadsReuseScratch(t *testing.T) {
	ctx := context.Background()
	const n = 64 << 10 // elements a chunk: 512 KiB
	a, err := zarr.Create(ctx, storage.NewDir(t.TempDir()), zarr.Metadata{Format: 3, DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Microsecond, Scale: 1},
		Shape: []int64{n}, ChunkShape: []int64{n}, FillValue: dtype.NaT, Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}, zarr.ZstdCodec{Level: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.WriteChunkRaw(ctx, []int64{0}, make([]byte, 8*n)); err != nil {
		t.Fatal(err)
	}
	tab, err := ArrayTable(a, "t", TableOptions{BatchRows: 1000})
	if err != nil {
		t.Fatal(err)
	}
	read := func(batches int) {
		r := tab.RecordReader(ctx)
		defer r.Release()
		for i := 0; i < batches && r.Next(); i++ {
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
	}
	read(4)
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	const batches = 50
	read(batches)
	runtime.ReadMemStats(&m1)
	if got := m1.TotalAlloc - m0.TotalAlloc; got > 8*8*n {
		t.Errorf("%d batches of 1000 rows of one chunk allocated %d bytes, more than 8 chunks' worth (%d)", batches, got, 8*8*n)
	}
}
