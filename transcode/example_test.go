package transcode_test

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// Re-encode a legacy v2 array of big-endian nanoseconds as a v3 array of
// little-endian microseconds compressed with zstd.
func Example() {
	ctx := context.Background()
	src, dst := storage.NewMemory(), storage.NewMemory()

	// A small v2 source: ">M8[ns]", gzip, chunks of 4.
	a, _ := zarr.Create(ctx, src, zarr.Metadata{
		Format:     2,
		DataType:   dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1},
		Shape:      []int64{10},
		ChunkShape: []int64{4},
		FillValue:  dtype.NaT,
		Codecs:     []zarr.Codec{zarr.BytesCodec{Endian: binary.BigEndian}, zarr.GzipCodec{Level: 1}},
	})
	vals := []int64{1_700_000_000_123_456_789, dtype.NaT, 1_700_000_001_000_000_999, -1}
	_ = a.WriteChunk(ctx, []int64{0}, vals)
	_ = a.WriteMetadata(ctx)

	us := dtype.Microsecond
	t, err := transcode.New(ctx, src, dst, transcode.Options{
		Unit:        us,
		Endian:      binary.LittleEndian,
		Compression: &transcode.Compression{Codec: zarr.ZstdCodec{Level: 3}},
		Format:      3,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, err := t.Run(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("elements %d, NaT %d, lossy %d, complete %v\n", sum.Elements, sum.NaT, sum.Lossy, sum.Complete)

	b, _ := zarr.Open(ctx, dst)
	out := make([]int64, b.ChunkLen())
	_ = b.ReadChunk(ctx, []int64{0}, out)
	fmt.Println(b.DataType(), out)
	// Output:
	// elements 10, NaT 7, lossy 3, complete true
	// datetime64[us] [1700000000123456 -9223372036854775808 1700000001000000 -1]
}
