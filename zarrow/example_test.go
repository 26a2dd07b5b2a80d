package zarrow_test

import (
	"bytes"
	"context"
	"fmt"
	"log"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
	"github.com/zarr-dt64/dt64/zarrow"
)

// A datetime64[s] array read as an Arrow timestamp column in
// milliseconds: NaT becomes null, and arrow-go's arrow package imports
// beside zarrow without an alias.
func Example() {
	ctx := context.Background()
	store := storage.NewMemory()
	a, err := zarr.Create(ctx, store, zarr.Metadata{
		DataType:   dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1},
		Shape:      []int64{4},
		ChunkShape: []int64{4},
		FillValue:  dtype.NaT,
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := a.WriteChunk(ctx, []int64{0}, []int64{0, -1, dtype.NaT, 1700000000}); err != nil {
		log.Fatal(err)
	}
	if err := a.WriteMetadata(ctx); err != nil {
		log.Fatal(err)
	}

	col, stats, err := zarrow.Read(ctx, a, []int64{0}, []int64{4}, zarrow.Options{Unit: dtype.Millisecond})
	if err != nil {
		log.Fatal(err)
	}
	defer col.Release()
	ts := col.(*array.Timestamp)
	fmt.Println(col.DataType().(*arrow.TimestampType).Unit, ts.Len(), "values,", stats.NaT, "null")
	for i := range ts.Len() {
		if ts.IsNull(i) {
			fmt.Println("null")
			continue
		}
		fmt.Println(ts.Value(i).ToTime(arrow.Millisecond).UTC().Format("2006-01-02T15:04:05.000"))
	}
	// Output:
	// ms 4 values, 1 null
	// 1970-01-01T00:00:00.000
	// 1969-12-31T23:59:59.000
	// null
	// 2023-11-14T22:13:20.000
}

// A Recycler shared by a reader and an export: each batch's buffers go
// back to the next batch once the writer released them.
func ExampleRecycler() {
	ctx := context.Background()
	store := storage.NewMemory()
	const n = 1 << 20 // 8 MiB of timestamps, in 16 chunks
	a, err := zarr.Create(ctx, store, zarr.Metadata{
		DataType:   dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Microsecond, Scale: 1},
		Shape:      []int64{n},
		ChunkShape: []int64{n / 16},
		FillValue:  dtype.NaT,
	})
	if err != nil {
		log.Fatal(err)
	}
	vals := make([]int64, n/16)
	for c := range int64(16) {
		for i := range vals {
			vals[i] = 1_700_000_000_000_000 + (c*n/16+int64(i))*1_000_000
		}
		if err := a.WriteChunk(ctx, []int64{c}, vals); err != nil {
			log.Fatal(err)
		}
	}
	if err := a.WriteMetadata(ctx); err != nil {
		log.Fatal(err)
	}

	rec := zarrow.NewRecycler(64 << 20) // keeps at most 64 MiB of freed buffers
	tab, err := zarrow.ArrayTable(a, "time", zarrow.TableOptions{BatchRows: n / 16, Options: zarrow.Options{Allocator: rec}})
	if err != nil {
		log.Fatal(err)
	}
	r := tab.RecordReader(ctx)
	defer r.Release()
	var out bytes.Buffer
	rows, err := zarrow.Export(r, &out, zarrow.ExportOptions{Format: zarrow.Parquet, Allocator: rec})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rows, "rows; buffers kept for reuse:", rec.Held() > 0)
	// Output:
	// 1048576 rows; buffers kept for reuse: true
}
