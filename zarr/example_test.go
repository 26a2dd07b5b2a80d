package zarr_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "dt64-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	store := storage.NewDir(filepath.Join(dir, "times.zarr"))

	// Five datetime64[s] values in chunks of 3, big-endian, zstd-compressed.
	a, err := zarr.Create(ctx, store, zarr.Metadata{
		DataType:   dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1},
		Shape:      []int64{5},
		ChunkShape: []int64{3},
		FillValue:  dtype.NaT,
		Codecs:     []zarr.Codec{zarr.BytesCodec{Endian: binary.BigEndian}, zarr.ZstdCodec{Level: 3}},
	})
	if err != nil {
		log.Fatal(err)
	}
	// The second chunk is partial: its last element is padding.
	chunks := [][]int64{{0, 86400, dtype.NaT}, {1700000000, 1, 0}}
	for i, c := range chunks {
		if err := a.WriteChunk(ctx, []int64{int64(i)}, c); err != nil {
			log.Fatal(err)
		}
	}
	if err := a.WriteMetadata(ctx); err != nil { // last: the array is complete
		log.Fatal(err)
	}

	b, err := zarr.Open(ctx, store)
	if err != nil {
		log.Fatal(err)
	}
	vals := make([]int64, b.ChunkLen())
	for _, coords := range b.ChunkCoords() {
		key, _ := b.ChunkKey(coords)
		if err := b.ReadChunk(ctx, coords, vals); err != nil {
			log.Fatal(err)
		}
		fmt.Println(key, vals)
	}
	fmt.Println(b.DataType(), b.ByteOrder(), b.NumChunks())
	// Output:
	// c/0 [0 86400 -9223372036854775808]
	// c/1 [1700000000 1 -9223372036854775808]
	// datetime64[s] BigEndian 2
}
