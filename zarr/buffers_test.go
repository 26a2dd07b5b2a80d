package zarr

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
)

// Reading chunks whose stored sizes differ, one after another, reuses
// the pooled buffer that the largest grew: after the first reads nothing
// proportional to a chunk is allocated. (The buffer grown for a larger
// chunk once went back to the pool behind the smaller one it replaced,
// so each read of the larger chunk allocated it again.)
func TestReadChunkReusesGrownBuffer(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop buffers at random; the plain run checks this")
	}
	ctx := context.Background()
	const n = 64 << 10 // elements a chunk: 512 KiB
	a, err := Create(ctx, storage.NewDir(t.TempDir()), Metadata{Format: 3, DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1},
		Shape: []int64{2 * n}, ChunkShape: []int64{n}, FillValue: dtype.NaT, KeyEncoding: KeyEncoding{"default", "/"},
		Codecs: []Codec{BytesCodec{Endian: binary.LittleEndian}, ZstdCodec{Level: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	// Chunk 0 compresses to little, chunk 1 (random) to about its size.
	r := rand.New(rand.NewPCG(1, 2))
	raw := make([]byte, 8*n)
	for c := range int64(2) {
		for i := range n {
			v := uint64(i)
			if c == 1 {
				v = r.Uint64() >> 1
			}
			binary.LittleEndian.PutUint64(raw[8*i:], v)
		}
		if _, err := a.WriteChunkRaw(ctx, []int64{c}, raw); err != nil {
			t.Fatal(err)
		}
	}
	read := func(c int64) {
		if _, _, err := a.ReadChunkRaw(ctx, []int64{c}, raw); err != nil {
			t.Fatal(err)
		}
	}
	const rounds = 50
	if got := allocatedAfterWarmUp(rounds, func() { read(0); read(1) }); got > 8*8*n {
		t.Errorf("%d alternating reads of a small and a large chunk allocated %d bytes, more than 8 chunks' worth (%d)", 2*rounds, got, 8*8*n)
	}
}

// Region reads that take part of a chunk reuse the pooled chunk-sized
// scratch from one read to the next: a caller reading a box per batch
// (zarrow's export) allocated a whole chunk every time, and the garbage
// let its heap grow to twice the plan.
func TestRegionReadReusesChunkBuffer(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop buffers at random; the plain run checks this")
	}
	ctx := context.Background()
	const n = 64 << 10 // elements a chunk: 512 KiB
	// A directory store reads into pooled buffers too (a memory store
	// hands out a copy of the value).
	a, err := Create(ctx, storage.NewDir(t.TempDir()), Metadata{Format: 3, DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1},
		Shape: []int64{n}, ChunkShape: []int64{n}, FillValue: dtype.NaT, Codecs: []Codec{BytesCodec{Endian: binary.LittleEndian}, ZstdCodec{Level: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.WriteChunkRaw(ctx, []int64{0}, make([]byte, 8*n)); err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, 8*1000)
	read := func() {
		if _, err := a.ReadRegionRaw(ctx, []int64{10}, []int64{1000}, dst, RegionOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	const rounds = 50
	if got := allocatedAfterWarmUp(rounds, read); got > 4*8*n {
		t.Errorf("%d reads of part of a chunk allocated %d bytes, more than 4 chunks' worth (%d)", rounds, got, 4*8*n)
	}
}

// allocatedAfterWarmUp runs fn 4 times to fill the pools, collects (a
// collection in the measured loop would empty them), and returns the
// bytes rounds more runs allocate.
func allocatedAfterWarmUp(rounds int, fn func()) uint64 {
	for range 4 {
		fn()
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range rounds {
		fn()
	}
	runtime.ReadMemStats(&m1)
	return m1.TotalAlloc - m0.TotalAlloc
}
