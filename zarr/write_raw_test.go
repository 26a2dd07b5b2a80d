package zarr

import (
	"context"
	"encoding/binary"
	"errors"
	"io/fs"
	"runtime"
	"testing"
	"unsafe"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
)

// sameArrayStore records the value of each Set without copying it, so a
// test can tell whether the store got the caller's buffer itself.
type sameArrayStore struct {
	*storage.Memory
	last []byte
}

func (s *sameArrayStore) Set(ctx context.Context, key string, value []byte) error {
	s.last = value
	return s.Memory.Set(ctx, key, value)
}

// TestWriteChunkRaw: the call takes the buffer as it is (no copy on the
// way to the codecs), pads an edge chunk in place and says whether it
// stored the chunk.
func TestWriteChunkRaw(t *testing.T) {
	ctx := context.Background()
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		st := &sameArrayStore{Memory: storage.NewMemory()}
		const fill = -5
		fillValue := int64(fill)
		a, err := Create(ctx, st, Metadata{
			DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1},
			Shape:    []int64{3, 5}, ChunkShape: []int64{2, 4}, FillValue: fill,
			Codecs: []Codec{BytesCodec{Endian: order}},
		})
		if err != nil {
			t.Fatal(err)
		}
		raw := make([]byte, 8*a.ChunkLen())
		for i := range a.ChunkLen() {
			order.PutUint64(raw[8*i:], uint64(100+i))
		}
		// Chunk [1, 1] holds array rows 2..3 and columns 4..7: only
		// element (0, 0) is inside.
		stored, err := a.WriteChunkRaw(ctx, []int64{1, 1}, raw)
		if err != nil || !stored {
			t.Fatalf("%v: edge chunk: stored %v, %v", order, stored, err)
		}
		if unsafe.SliceData(st.last) != unsafe.SliceData(raw) {
			t.Errorf("%v: the store got a copy of the chunk, not the caller's buffer", order)
		}
		for i := range a.ChunkLen() {
			want := int64(fill)
			if i == 0 {
				want = 100
			}
			if got := int64(order.Uint64(raw[8*i:])); got != want {
				t.Errorf("%v: element %d after the write: %d, want %d (padded in place)", order, i, got, want)
			}
		}
		// All fill: not stored, and the stored chunk is deleted.
		for i := range a.ChunkLen() {
			order.PutUint64(raw[8*i:], uint64(fillValue))
		}
		stored, err = a.WriteChunkRaw(ctx, []int64{1, 1}, raw)
		if err != nil || stored {
			t.Fatalf("%v: all-fill chunk: stored %v, %v", order, stored, err)
		}
		if _, err := st.Get(ctx, "c/1/1"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%v: all-fill chunk left the stored one: %v", order, err)
		}
		a.SetWriteEmptyChunks(true)
		if stored, err = a.WriteChunkRaw(ctx, []int64{1, 1}, raw); err != nil || !stored {
			t.Errorf("%v: all-fill chunk with write-empty: stored %v, %v", order, stored, err)
		}
	}
}

// TestWriteChunkRawAllocs: writing a chunk allocates nothing proportional
// to its size once the pools are warm. (crc32c, not zstd: klauspost's zstd
// encoder allocates window history of its own.)
func TestWriteChunkRawAllocs(t *testing.T) {
	ctx := context.Background()
	a, err := Create(ctx, discardStore{}, Metadata{
		DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1},
		Shape:    []int64{1 << 16}, ChunkShape: []int64{1 << 16},
		Codecs: []Codec{BytesCodec{Endian: binary.LittleEndian}, CRC32CCodec{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 8*a.ChunkLen())
	for i := range a.ChunkLen() {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(i))
	}
	coords := []int64{0}
	write := func() {
		if _, err := a.WriteChunkRaw(ctx, coords, raw); err != nil {
			t.Fatal(err)
		}
	}
	write() // warm the pools
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	allocs := testing.AllocsPerRun(20, write)
	runtime.ReadMemStats(&m1)
	// Under the race detector sync.Pool drops buffers at random.
	if per := (m1.TotalAlloc - m0.TotalAlloc) / 21; per > uint64(len(raw))/4 && !raceEnabled {
		t.Errorf("WriteChunkRaw allocates %d bytes per call (%.0f allocations) for a %d-byte chunk", per, allocs, len(raw))
	}
}

// discardStore accepts every value and keeps none.
type discardStore struct{}

func (discardStore) Get(context.Context, string) ([]byte, error) { return nil, fs.ErrNotExist }
func (discardStore) Set(context.Context, string, []byte) error   { return nil }
func (discardStore) Delete(context.Context, string) error        { return nil }
func (discardStore) List(context.Context, string) ([]string, error) {
	return nil, nil
}
