package zarr

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
)

type sinkCase struct {
	name    string
	codecs  []Codec
	streams bool // pieces are Blosc blocks, not the whole chunk once
}

func sinkCases() []sinkCase {
	le := BytesCodec{Endian: binary.LittleEndian}
	be := BytesCodec{Endian: binary.BigEndian}
	bl := func(cname, shuffle string, level, typesize, blocksize int) BloscCodec {
		return BloscCodec{CName: cname, CLevel: level, Shuffle: shuffle, TypeSize: typesize, BlockSize: blocksize}
	}
	return []sinkCase{
		{"lz4-shuffle-16k", []Codec{le, bl("lz4", "shuffle", 5, 8, 16<<10)}, true},
		{"zstd-shuffle-be-256k", []Codec{be, bl("zstd", "shuffle", 3, 8, 256<<10)}, true},
		{"lz4-bitshuffle", []Codec{le, bl("lz4", "bitshuffle", 5, 8, 96<<10)}, true},
		{"lz4-noshuffle", []Codec{le, bl("lz4", "noshuffle", 5, 8, 80<<10)}, true},
		{"memcpyed", []Codec{le, bl("lz4", "shuffle", 0, 8, 0)}, true},
		// Blocks ending inside an element: pieces still end on elements.
		{"typesize3-blocks", []Codec{le, bl("zstd", "shuffle", 1, 3, 70001)}, true},
		{"blosc-crc32c", []Codec{le, bl("lz4", "shuffle", 5, 8, 64<<10), CRC32CCodec{}}, true},
		{"zstd", []Codec{le, ZstdCodec{Level: 1}}, false},
		{"transpose-blosc", []Codec{TransposeCodec{Order: []int{1, 0}}, le, bl("lz4", "shuffle", 5, 8, 16<<10)}, false},
		{"shard-blosc", []Codec{ShardingCodec{ChunkShape: []int64{64, 160}, Codecs: []Codec{le, bl("lz4", "shuffle", 5, 8, 0)}, IndexCodecs: []Codec{le, CRC32CCodec{}}}}, false},
	}
}

// TestReadChunkRawFunc reads every chunk with and without a sink: same
// bytes, pieces consecutive whole elements covering the chunk, seen final.
func TestReadChunkRawFunc(t *testing.T) {
	ctx := context.Background()
	shape, chunk := []int64{300, 500}, []int64{128, 320} // 40960 elements: 320 KiB chunks, edges in both dimensions
	for _, tc := range sinkCases() {
		t.Run(tc.name, func(t *testing.T) {
			s := NewMemory()
			m := Metadata{
				DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1},
				Shape:    shape, ChunkShape: chunk, FillValue: dtype.NaT, Codecs: tc.codecs,
			}
			a, err := Create(ctx, s, m)
			if err != nil {
				t.Fatal(err)
			}
			n := a.ChunkLen()
			vals := demoTimestamps(n, 3)
			for i, c := range [][]int64{{0, 0}, {0, 1}, {1, 0}} { // {1, 1} and {2, *} missing
				for j := range vals {
					vals[j] += int64(i)
				}
				if err := a.WriteChunk(ctx, c, vals); err != nil {
					t.Fatal(err)
				}
			}
			want, got := make([]byte, 8*n), make([]byte, 8*n)
			for _, c := range [][]int64{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 1}} {
				order, present, err := a.ReadChunkRaw(ctx, c, want)
				if err != nil {
					t.Fatal(err)
				}
				var seen []byte
				next, calls := 0, 0
				order2, present2, err := a.ReadChunkRawFunc(ctx, c, got, func(off int, piece []byte) error {
					if off != next || len(piece)%8 != 0 || len(piece) == 0 {
						t.Errorf("chunk %v: piece [%d, %d), want one starting at %d of whole elements", c, off, off+len(piece), next)
					}
					if &piece[0] != &got[off] {
						t.Errorf("chunk %v: piece at %d is not dst[%d:]", c, off, off)
					}
					if off+len(piece) < len(got) && len(piece) < minSinkPiece {
						t.Errorf("chunk %v: piece of %d bytes before the end, want at least %d", c, len(piece), minSinkPiece)
					}
					next = off + len(piece)
					calls++
					seen = append(seen, piece...)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if order2 != order || present2 != present {
					t.Errorf("chunk %v: order %v present %v, want %v %v", c, order2, present2, order, present)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("chunk %v: bytes differ from ReadChunkRaw", c)
				}
				switch {
				case !present && calls != 0:
					t.Errorf("chunk %v is not stored: sink called %d times, want 0", c, calls)
				case present && next != len(got):
					t.Errorf("chunk %v: pieces cover %d bytes, want %d", c, next, len(got))
				case present && !bytes.Equal(seen, want):
					t.Errorf("chunk %v: a piece changed after the sink saw it", c)
				case present && tc.streams != (calls > 1):
					t.Errorf("chunk %v: %d sink calls; streaming %v", c, calls, tc.streams)
				}
			}
		})
	}
}

// A sink's error comes back as it is, after the chunk is decoded to the
// end; a damaged chunk is reported as without a sink.
func TestReadChunkRawFuncErrors(t *testing.T) {
	ctx := context.Background()
	s := NewMemory()
	a, err := Create(ctx, s, Metadata{
		DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1},
		Shape:    []int64{1 << 16}, ChunkShape: []int64{1 << 16},
		Codecs: []Codec{BytesCodec{Endian: binary.LittleEndian}, BloscCodec{CName: "lz4", CLevel: 5, Shuffle: "shuffle", BlockSize: 64 << 10}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WriteChunk(ctx, []int64{0}, demoTimestamps(1<<16, 4)); err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, 8<<16)
	stop := errors.New("stop")
	calls := 0
	sink := func(off int, piece []byte) error {
		calls++
		if off > 0 {
			return stop
		}
		return nil
	}
	if _, _, err := a.ReadChunkRawFunc(ctx, []int64{0}, dst, sink); err != stop || calls != 2 {
		t.Fatalf("error %v after %d calls, want the sink's own after 2", err, calls)
	}
	if _, _, err := a.ReadChunkRawFunc(ctx, []int64{0}, dst, nil); err == nil {
		t.Fatal("nil sink accepted")
	}

	// Damage the last block: ReadChunkRaw's error, not the sink's.
	key, _ := a.ChunkKey([]int64{0})
	enc, _ := s.Get(ctx, key)
	bad := bytes.Clone(enc)
	nb := (8 << 16) / (64 << 10)
	last := int(binary.LittleEndian.Uint32(bad[16+4*(nb-1):]))
	binary.LittleEndian.PutUint32(bad[last:], 0x7fffffff)
	if err := s.Set(ctx, key, bad); err != nil {
		t.Fatal(err)
	}
	_, _, want := a.ReadChunkRaw(ctx, []int64{0}, dst)
	var ce *ChunkError
	if !errors.As(want, &ce) || !errors.Is(want, ErrCorrupt) {
		t.Fatalf("damaged chunk: %v, want a ChunkError wrapping ErrCorrupt", want)
	}
	calls = 0
	_, _, err = a.ReadChunkRawFunc(ctx, []int64{0}, dst, sink)
	if err == nil || err.Error() != want.Error() {
		t.Fatalf("damaged chunk with a failing sink: %v, want %v", err, want)
	}
	// A frame of the wrong size takes the plain path's error.
	short, err := bloscEncodeForTest(demoTimestamps(100, 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, key, short); err != nil {
		t.Fatal(err)
	}
	_, _, want = a.ReadChunkRaw(ctx, []int64{0}, dst)
	calls = 0
	_, _, err = a.ReadChunkRawFunc(ctx, []int64{0}, dst, sink)
	if want == nil || err == nil || err.Error() != want.Error() || calls != 0 {
		t.Fatalf("short frame: %v after %d sink calls, want %v and none", err, calls, want)
	}
}

func bloscEncodeForTest(v []int64) ([]byte, error) {
	st, err := newBloscStage(BloscCodec{CName: "lz4", CLevel: 5, Shuffle: "shuffle"})
	if err != nil {
		return nil, err
	}
	raw := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(x))
	}
	return st.encode(nil, raw)
}
