package zarr

import (
	"context"
	"sync"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
)

// Workers reading and writing different chunks at once share the buffer
// pools and the zstd encoders/decoders; run with -race.
func TestConcurrentChunks(t *testing.T) {
	ctx := context.Background()
	a, err := Create(ctx, storage.NewDir(t.TempDir()), Metadata{DataType: ns, Shape: []int64{64 * 1000}, ChunkShape: []int64{1000},
		FillValue: dtype.NaT, Codecs: []Codec{ShardingCodec{ChunkShape: []int64{250},
			Codecs: []Codec{be(), ZstdCodec{Checksum: true}}, IndexCodecs: []Codec{le(), CRC32CCodec{}}}, GzipCodec{Level: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for w := range 8 {
		wg.Go(func() {
			src := make([]int64, a.ChunkLen())
			dst := make([]int64, a.ChunkLen())
			for i := int64(w); i < a.NumChunks(); i += 8 {
				for j := range src {
					src[j] = i*1_000_000 + int64(j)
				}
				c := a.ChunkCoordsAt(i)
				if err := a.WriteChunk(ctx, c, src); err != nil {
					errs <- err
					return
				}
				if err := a.ReadChunk(ctx, c, dst); err != nil {
					errs <- err
					return
				}
				for j := range dst {
					if dst[j] != src[j] {
						t.Errorf("chunk %d[%d] = %d, want %d", i, j, dst[j], src[j])
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
