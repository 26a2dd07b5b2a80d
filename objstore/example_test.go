package objstore_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/objstore"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// An array published by a plain web server, read over HTTP as from a
// directory: chunks by GET, a missing chunk by its 404 (fill).
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "dt64-objstore-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	a, err := zarr.Create(ctx, storage.NewDir(filepath.Join(dir, "t.zarr")), zarr.Metadata{
		DataType:   dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Hour, Scale: 1},
		Shape:      []int64{4},
		ChunkShape: []int64{2},
		FillValue:  dtype.NaT,
		Codecs:     []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}, zarr.ZstdCodec{Level: 1}},
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := a.WriteChunk(ctx, []int64{0}, []int64{0, 24}); err != nil { // chunk 1 stays missing
		log.Fatal(err)
	}
	if err := a.WriteMetadata(ctx); err != nil {
		log.Fatal(err)
	}

	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	store, err := objstore.OpenHTTP(srv.URL+"/t.zarr", nil, objstore.Retry{})
	if err != nil {
		log.Fatal(err)
	}
	b, err := zarr.Open(ctx, store)
	if err != nil {
		log.Fatal(err)
	}
	vals := make([]int64, b.ChunkLen())
	for _, c := range b.ChunkCoords() {
		if err := b.ReadChunk(ctx, c, vals); err != nil {
			log.Fatal(err)
		}
		fmt.Println(c, vals)
	}
	// Output:
	// [0] [0 24]
	// [1] [-9223372036854775808 -9223372036854775808]
}
