package zarr

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
)

var ns = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}

// truthValues returns n values with NaT sprinkled in and a run equal to
// fill (so some chunks or inner chunks are all fill).
func truthValues(n int, seed uint64) []int64 {
	r := rand.New(rand.NewPCG(seed, 1))
	v := make([]int64, n)
	for i := range v {
		switch r.IntN(8) {
		case 0:
			v[i] = dtype.NaT
		case 1:
			v[i] = r.Int64() // any bit pattern
		default:
			v[i] = r.Int64N(1<<50) - 1<<49
		}
	}
	return v
}

// flatIndex maps chunk-local C-order element j of chunk coords to the flat
// index in an array of shape, or -1 for padding.
func flatIndex(shape, chunk, coords []int64, j int) int {
	nd := len(shape)
	idx := 0
	stride := 1
	for d := nd - 1; d >= 0; d-- {
		local := int64(j) % chunk[d]
		j /= int(chunk[d])
		g := coords[d]*chunk[d] + local
		if g >= shape[d] {
			return -1
		}
		idx += int(g) * stride
		stride *= int(shape[d])
	}
	return idx
}

func writeAll(t *testing.T, a *Array, truth []int64) {
	t.Helper()
	ctx := context.Background()
	m := a.Metadata()
	buf := make([]int64, a.ChunkLen())
	for _, c := range a.ChunkCoords() {
		for j := range buf {
			if k := flatIndex(m.Shape, m.ChunkShape, c, j); k >= 0 {
				buf[j] = truth[k]
			} else {
				buf[j] = 12345 // garbage the writer must replace by fill
			}
		}
		if err := a.WriteChunk(ctx, c, buf); err != nil {
			t.Fatal(err)
		}
	}
}

func checkAll(t *testing.T, a *Array, truth []int64) {
	t.Helper()
	ctx := context.Background()
	m := a.Metadata()
	buf := make([]int64, a.ChunkLen())
	raw := make([]byte, 8*a.ChunkLen())
	for _, c := range a.ChunkCoords() {
		if err := a.ReadChunk(ctx, c, buf); err != nil {
			t.Fatal(err)
		}
		order, _, err := a.ReadChunkRaw(ctx, c, raw)
		if err != nil {
			t.Fatal(err)
		}
		if order != a.ByteOrder() {
			t.Fatalf("ReadChunkRaw order %v, array order %v", order, a.ByteOrder())
		}
		for j := range buf {
			want := m.FillValue
			if k := flatIndex(m.Shape, m.ChunkShape, c, j); k >= 0 {
				want = truth[k]
			}
			if buf[j] != want {
				t.Fatalf("chunk %v element %d = %d, want %d", c, j, buf[j], want)
			}
			if got := int64(order.Uint64(raw[j*8:])); got != want {
				t.Fatalf("raw chunk %v element %d = %d, want %d", c, j, got, want)
			}
		}
	}
}

func le() BytesCodec { return BytesCodec{Endian: binary.LittleEndian} }
func be() BytesCodec { return BytesCodec{Endian: binary.BigEndian} }

func TestRoundTripV3Chains(t *testing.T) {
	chains := map[string][]Codec{
		"bytes-le":            {le()},
		"bytes-be":            {be()},
		"zstd0":               {le(), ZstdCodec{}},
		"zstd-checksum-be":    {be(), ZstdCodec{Level: 5, Checksum: true}},
		"zstd-negative-level": {le(), ZstdCodec{Level: -3}},
		"gzip":                {le(), GzipCodec{Level: 6}},
		"crc32c":              {be(), CRC32CCodec{}},
		"zstd-crc32c":         {le(), ZstdCodec{Level: 3}, CRC32CCodec{}},
		"transpose":           {TransposeCodec{Order: []int{1, 0}}, le(), ZstdCodec{}},
		"transpose-twice":     {TransposeCodec{Order: []int{1, 0}}, TransposeCodec{Order: []int{1, 0}}, be()},
		"shard-end": {ShardingCodec{ChunkShape: []int64{2, 3},
			Codecs:      []Codec{le(), ZstdCodec{}},
			IndexCodecs: []Codec{le(), CRC32CCodec{}}}},
		"shard-start-be": {ShardingCodec{ChunkShape: []int64{2, 3}, IndexLocation: IndexStart,
			Codecs:      []Codec{be(), GzipCodec{Level: 1}},
			IndexCodecs: []Codec{be()}}},
		"shard-transposed-index": {ShardingCodec{ChunkShape: []int64{2, 2},
			Codecs:      []Codec{TransposeCodec{Order: []int{1, 0}}, le()},
			IndexCodecs: []Codec{TransposeCodec{Order: []int{2, 0, 1}}, le(), CRC32CCodec{}}}},
		"shard-nested": {ShardingCodec{ChunkShape: []int64{2, 6},
			Codecs: []Codec{ShardingCodec{ChunkShape: []int64{1, 3}, IndexLocation: IndexStart,
				Codecs:      []Codec{be(), CRC32CCodec{}},
				IndexCodecs: []Codec{le()}}},
			IndexCodecs: []Codec{le(), CRC32CCodec{}}}, ZstdCodec{Checksum: true}, CRC32CCodec{}},
	}
	for name, codecs := range chains {
		for _, sep := range []KeyEncoding{{"default", "/"}, {"default", "."}, {"v2", "."}, {"v2", "/"}} {
			t.Run(fmt.Sprintf("%s/%s%s", name, sep.Name, sep.Separator), func(t *testing.T) {
				roundTrip(t, Metadata{Format: 3, DataType: ns, Shape: []int64{7, 10}, ChunkShape: []int64{4, 6},
					FillValue: dtype.NaT, KeyEncoding: sep, Codecs: codecs})
			})
		}
	}
}

func TestRoundTripV2(t *testing.T) {
	comps := map[string]Codec{"none": nil, "zstd": ZstdCodec{Level: 1}, "zlib": ZlibCodec{Level: 5}, "gzip": GzipCodec{Level: 9}}
	for cname, comp := range comps {
		for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			for _, sep := range []string{".", "/"} {
				codecs := []Codec{BytesCodec{Endian: order}}
				if comp != nil {
					codecs = append(codecs, comp)
				}
				t.Run(fmt.Sprintf("%s/%v/%s", cname, order, sep), func(t *testing.T) {
					roundTrip(t, Metadata{Format: 2, DataType: dtype.DataType{Kind: dtype.Timedelta, Unit: dtype.Hour, Scale: 25},
						Shape: []int64{7, 10}, ChunkShape: []int64{4, 6}, FillValue: 0,
						KeyEncoding: KeyEncoding{"v2", sep}, Codecs: codecs,
						Attributes: []byte(`{"units": "25 hours",  "spaced" : [1, 2]}`)})
				})
			}
		}
	}
}

func roundTrip(t *testing.T, m Metadata) {
	ctx := context.Background()
	dir := t.TempDir()
	a, err := Create(ctx, storage.NewDir(dir), m)
	if err != nil {
		t.Fatal(err)
	}
	n := int(m.Shape[0] * m.Shape[1])
	truth := truthValues(n, uint64(len(dir)))
	// Rows 4..6 all fill: chunk (1, 0) and (1, 1) are all fill.
	for i := 4 * 10; i < n; i++ {
		truth[i] = m.FillValue
	}
	writeAll(t, a, truth)
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	b, err := Open(ctx, storage.NewDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	checkAll(t, b, truth)
	key, _ := b.ChunkKey([]int64{1, 0})
	if _, err := storage.NewDir(dir).Get(ctx, key); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("all-fill chunk %s was stored (err %v)", key, err)
	}
	if m.Attributes != nil && !bytes.Equal(b.Metadata().Attributes, m.Attributes) {
		t.Errorf("attributes %s, want %s byte for byte", b.Metadata().Attributes, m.Attributes)
	}
	// Metadata survives a rewrite.
	got := b.Metadata()
	if got.DataType != m.DataType || got.FillValue != m.FillValue || got.KeyEncoding != a.Metadata().KeyEncoding ||
		fmt.Sprint(got.Codecs) != fmt.Sprint(a.Metadata().Codecs) {
		t.Errorf("metadata changed on reopen:\n got %+v\nwant %+v", got, a.Metadata())
	}
	// With empty chunks written, the all-fill chunk appears and reads back.
	b.SetWriteEmptyChunks(true)
	writeAll(t, b, truth)
	if _, err := storage.NewDir(dir).Get(ctx, key); err != nil {
		t.Errorf("all-fill chunk %s not stored with SetWriteEmptyChunks(true): %v", key, err)
	}
	checkAll(t, b, truth)
}

func TestChunkKeys(t *testing.T) {
	cases := []struct {
		enc    KeyEncoding
		coords []int64
		want   string
	}{
		{KeyEncoding{"default", "/"}, []int64{0, 1}, "c/0/1"},
		{KeyEncoding{"default", "."}, []int64{0, 1}, "c.0.1"},
		{KeyEncoding{"default", "/"}, nil, "c"},
		{KeyEncoding{"v2", "."}, []int64{3, 12}, "3.12"},
		{KeyEncoding{"v2", "/"}, []int64{3, 12}, "3/12"},
		{KeyEncoding{"v2", "."}, nil, "0"},
	}
	for _, c := range cases {
		if got := c.enc.Key(c.coords); got != c.want {
			t.Errorf("%+v %v: %q, want %q", c.enc, c.coords, got, c.want)
		}
	}
}

func TestZeroDimensional(t *testing.T) {
	ctx := context.Background()
	for _, format := range []int{2, 3} {
		st := storage.NewMemory()
		a, err := Create(ctx, st, Metadata{Format: format, DataType: ns, Shape: []int64{}, ChunkShape: []int64{}, FillValue: dtype.NaT})
		if err != nil {
			t.Fatal(err)
		}
		if a.NumChunks() != 1 || a.ChunkLen() != 1 {
			t.Fatalf("0-d: %d chunks of %d", a.NumChunks(), a.ChunkLen())
		}
		if err := a.WriteChunk(ctx, []int64{}, []int64{42}); err != nil {
			t.Fatal(err)
		}
		if err := a.WriteMetadata(ctx); err != nil {
			t.Fatal(err)
		}
		want := map[int]string{2: "0", 3: "c"}[format]
		if _, err := st.Get(ctx, want); err != nil {
			t.Errorf("v%d 0-d chunk key %q: %v", format, want, err)
		}
		b, err := Open(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		v := []int64{0}
		if err := b.ReadChunk(ctx, nil, v); err != nil || v[0] != 42 {
			t.Errorf("0-d read %v %v", v, err)
		}
	}
}

// Frames must carry their content size: numcodecs before 0.13 cannot
// decompress a frame without it.
func TestZstdFrameContentSize(t *testing.T) {
	for _, n := range []int{1, 3, 31, 32, 200, 5000, 300000} {
		for _, checksum := range []bool{false, true} {
			st, _ := newBytesStage(ZstdCodec{Level: 3, Checksum: checksum}, 8)
			src := make([]byte, n*8)
			for i := range src {
				src[i] = byte(i * 7 / 13)
			}
			enc, err := st.encode(nil, src)
			if err != nil {
				t.Fatal(err)
			}
			var h zstd.Header
			if err := h.Decode(enc); err != nil {
				t.Fatal(err)
			}
			if !h.HasFCS || h.FrameContentSize != uint64(len(src)) || h.HasCheckSum != checksum {
				t.Errorf("%d bytes: header %+v", len(src), h)
			}
			dec, err := st.decode(make([]byte, 0, len(src)), enc)
			if err != nil || !bytes.Equal(dec, src) {
				t.Errorf("%d bytes: round trip failed: %v", len(src), err)
			}
		}
	}
}

// A v2 null fill value reads as NaT, for missing chunks and padding, and is
// written back as null.
func TestV2FillNull(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	a, err := Create(ctx, st, Metadata{Format: 2, DataType: ns, Shape: []int64{5}, ChunkShape: []int64{3}, FillNull: true,
		Codecs: []Codec{le()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WriteChunk(ctx, []int64{1}, []int64{7, 8, 9}); err != nil {
		t.Fatal(err)
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	doc, _ := st.Get(ctx, ".zarray")
	if !bytes.Contains(doc, []byte(`"fill_value": null`)) {
		t.Errorf(".zarray lacks a null fill_value:\n%s", doc)
	}
	b, err := Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, b)
	want := []int64{dtype.NaT, dtype.NaT, dtype.NaT, 7, 8}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("read %v, want %v", got, want)
	}
	v := make([]int64, 3)
	_ = b.ReadChunk(ctx, []int64{1}, v)
	if v[2] != dtype.NaT {
		t.Errorf("padding %d, want NaT", v[2])
	}
}
