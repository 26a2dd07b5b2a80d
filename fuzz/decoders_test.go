package fuzz

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// decodeCase is an array built from fuzz choices: its metadata, and whether
// its last codec is crc32c (then every corruption must be detected).
type decodeCase struct {
	meta     zarr.Metadata
	crcLast  bool
	describe string
}

func endianOf(bit uint32) binary.ByteOrder {
	if bit&1 == 0 {
		return binary.LittleEndian
	}
	return binary.BigEndian
}

// bytesToBytes picks up to two bytes->bytes codecs from sel.
func bytesToBytes(sel uint32, n int) []zarr.Codec {
	var out []zarr.Codec
	for i := 0; i < n; i++ {
		switch sel >> (3 * i) & 7 {
		case 1:
			out = append(out, zarr.ZstdCodec{Level: 1})
		case 2:
			out = append(out, zarr.ZstdCodec{Level: 3, Checksum: true})
		case 3:
			out = append(out, zarr.GzipCodec{Level: 1})
		case 4:
			out = append(out, zarr.CRC32CCodec{})
		case 5:
			out = append(out, zarr.BloscCodec{CName: "lz4", CLevel: 5, Shuffle: "shuffle"})
		case 6:
			out = append(out, zarr.BloscCodec{CName: "zstd", CLevel: 1, Shuffle: "bitshuffle", BlockSize: 64})
		case 7:
			out = append(out, zarr.BloscCodec{CName: "zlib", CLevel: 1, Shuffle: "noshuffle"})
		}
	}
	return out
}

// caseFrom turns two fuzz numbers into array metadata: rank 1-3, chunks of
// at most 256 elements, shape leaving partial edge chunks, any codec chain
// (transpose, bytes or sharding with any inner and index codecs, zstd,
// gzip, crc32c, blosc; v2 with zstd, zlib, gzip or blosc).
func caseFrom(shapeSel uint8, chainSel uint32) decodeCase {
	rank := int(shapeSel%3) + 1
	chunk := make([]int64, rank)
	shape := make([]int64, rank)
	budget := 256
	for d := range chunk {
		c := 1 + int(shapeSel>>(2+2*d)&3)*3 // 1, 4, 7, 10
		if d == 0 && shapeSel&0x80 != 0 {
			c = 16
		}
		c = min(c, budget)
		budget /= c
		chunk[d], shape[d] = int64(c), int64(2*c-1)
	}
	dt := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}
	m := zarr.Metadata{DataType: dt, Shape: shape, ChunkShape: chunk, FillValue: int64(chainSel>>28) - 8}
	var dc decodeCase
	if chainSel&1 == 1 { // Zarr v2
		m.Format = 2
		m.Codecs = []zarr.Codec{zarr.BytesCodec{Endian: endianOf(chainSel >> 1)}}
		switch chainSel >> 2 & 7 {
		case 1:
			m.Codecs = append(m.Codecs, zarr.ZstdCodec{Level: 1})
		case 2:
			m.Codecs = append(m.Codecs, zarr.ZlibCodec{Level: 1})
		case 3:
			m.Codecs = append(m.Codecs, zarr.GzipCodec{Level: 1})
		case 4:
			m.Codecs = append(m.Codecs, zarr.BloscCodec{CName: "lz4hc", CLevel: 9, Shuffle: "shuffle"})
		case 5:
			m.Codecs = append(m.Codecs, zarr.BloscCodec{CName: "snappy", CLevel: 3, Shuffle: "bitshuffle"})
		}
		dc.meta = m
		dc.describe = fmt.Sprintf("v2 chunks %v codecs %+v", chunk, m.Codecs)
		return dc
	}
	m.Format = 3
	// inShape is the chunk shape the array->bytes codec sees.
	inShape := chunk
	if rank > 1 && chainSel&2 != 0 {
		order := make([]int, rank)
		inShape = make([]int64, rank)
		for i := range order {
			order[i] = rank - 1 - i
			inShape[i] = chunk[rank-1-i]
		}
		m.Codecs = append(m.Codecs, zarr.TransposeCodec{Order: order})
	}
	if chainSel&4 == 0 {
		m.Codecs = append(m.Codecs, zarr.BytesCodec{Endian: endianOf(chainSel >> 3)})
	} else {
		inner := make([]int64, rank)
		for d, c := range inShape {
			inner[d] = c
			if c%2 == 0 && chainSel>>(4+d)&1 == 1 {
				inner[d] = c / 2
			}
		}
		sc := zarr.ShardingCodec{ChunkShape: inner, IndexLocation: zarr.IndexEnd,
			Codecs:      append([]zarr.Codec{zarr.BytesCodec{Endian: endianOf(chainSel >> 3)}}, bytesToBytes(chainSel>>8, 1)...),
			IndexCodecs: []zarr.Codec{zarr.BytesCodec{Endian: endianOf(chainSel >> 7)}}}
		if chainSel>>11&1 == 1 {
			sc.IndexLocation = zarr.IndexStart
		}
		if chainSel>>12&1 == 1 {
			sc.IndexCodecs = append(sc.IndexCodecs, zarr.CRC32CCodec{})
		}
		m.Codecs = append(m.Codecs, sc)
	}
	bb := bytesToBytes(chainSel>>16, 2)
	m.Codecs = append(m.Codecs, bb...)
	if len(bb) > 0 {
		_, dc.crcLast = bb[len(bb)-1].(zarr.CRC32CCodec)
	}
	dc.meta = m
	dc.describe = fmt.Sprintf("v3 chunks %v codecs %+v", chunk, m.Codecs)
	return dc
}

// readMeasured reads chunk 0 and returns the bytes the read allocated.
func readMeasured(a *zarr.Array, dst []byte) (binary.ByteOrder, bool, uint64, error) {
	var m0, m1 runtime.MemStats
	coords := make([]int64, len(a.Shape()))
	runtime.ReadMemStats(&m0)
	order, present, err := a.ReadChunkRaw(context.Background(), coords, dst)
	runtime.ReadMemStats(&m1)
	return order, present, m1.TotalAlloc - m0.TotalAlloc, err
}

// decodeBound is the most reading one chunk of a may allocate, as the
// README states it: (c + 1) × MaxEncodedSize + 256 KiB, c the number of
// codecs in the chain, those inside sharding counted. Every codec stage
// takes at most one buffer no larger than the largest valid encoding (most
// take none: bytes and crc32c work in place, the last decoder writes into
// the caller's buffer), the stored chunk itself is one more, and decoder
// state (gzip, zlib and zstd readers, from pools) stays under 256 KiB.
func decodeBound(a *zarr.Array) uint64 {
	return uint64(countCodecs(a.Metadata().Codecs)+1)*uint64(a.MaxEncodedSize()) + 256<<10
}

func countCodecs(cs []zarr.Codec) int {
	n := len(cs)
	for _, c := range cs {
		if s, ok := c.(zarr.ShardingCodec); ok {
			n += countCodecs(s.Codecs) + countCodecs(s.IndexCodecs)
		}
	}
	return n
}

// boundedStore is a store in memory that, like storage.Dir, refuses a
// value longer than the reader's limit before copying it: what a read
// allocates is then the decoder's doing, not the store's.
type boundedStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func newBoundedStore() *boundedStore { return &boundedStore{m: map[string][]byte{}} }

func (s *boundedStore) Get(ctx context.Context, key string) ([]byte, error) {
	return s.GetInto(ctx, key, nil, -1)
}

func (s *boundedStore) GetInto(ctx context.Context, key string, buf []byte, limit int) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[key]
	if !ok {
		return nil, fs.ErrNotExist
	}
	if limit >= 0 && len(v) > limit {
		return nil, fmt.Errorf("%s is %d bytes: %w", key, len(v), zarr.ErrTooLarge)
	}
	return append(buf[:0], v...), nil
}

func (s *boundedStore) Set(ctx context.Context, key string, value []byte) error {
	s.mu.Lock()
	s.m[key] = bytes.Clone(value)
	s.mu.Unlock()
	return nil
}

func (s *boundedStore) Delete(ctx context.Context, key string) error {
	s.mu.Lock()
	delete(s.m, key)
	s.mu.Unlock()
	return nil
}

func (s *boundedStore) List(ctx context.Context, prefix string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for k := range s.m {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

// FuzzChunkDecode stores bytes as chunk 0 of an array with fuzzed
// metadata and reads it raw. Mode bit 0 stores the fuzz bytes as they are;
// otherwise a valid chunk is written from values derived from them and one
// byte is optionally corrupted. Every read is an error wrapping a zarr
// sentinel inside a *zarr.ChunkError, or a result that writes back and reads
// back identically; a read of an uncorrupted chunk returns what was written;
// a corruption under a final crc32c is always detected; no read
// allocates more than decodeBound; and ReadChunkFunc hands on the same
// bytes or fails the same.
func FuzzChunkDecode(f *testing.F) {
	// Warm up package-level state (the shared zstd decoder) outside the
	// measured reads.
	warm := caseFrom(0, 1<<16|1<<19|2<<8|4)
	if a, err := zarr.Create(context.Background(), storage.NewMemory(), warm.meta); err == nil {
		_ = a.WriteChunk(context.Background(), []int64{0}, make([]int64, a.ChunkLen()))
	}
	for _, s := range []struct {
		shape uint8
		chain uint32
		mode  uint8
		pos   uint16
		xor   uint8
		data  []byte
	}{
		{0, 0, 1, 0, 0, []byte{1, 2, 3, 4, 5}},
		{0x45, 1<<16 | 2, 1, 7, 0x10, []byte{9, 9, 100, 1, 2}},
		{0x81, 4 | 1<<8 | 4<<16, 1, 3, 1, []byte{0, 150, 3, 4}},
		{0x16, 4 | 1<<11 | 1<<12 | 3<<8 | 3<<19, 1, 100, 0x80, []byte{4, 5, 6}},
		{0x22, 5 | 2<<2, 1, 0, 0, []byte{7, 8}},
		{0x22, 1 | 1<<2, 0, 0, 0, []byte("\x28\xb5\x2f\xfd\x00\x58\x00\x00\x10")},
		{0x03, 4 | 2<<8 | 1<<16, 0, 0, 0, bytes.Repeat([]byte{0xff}, 80)},
		{0x13, 1 | 3<<2, 0, 0, 0, []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff")},
		{0x05, 5 << 16, 1, 0, 0, []byte{1, 2, 3, 200, 1, 2, 3, 4, 5, 6, 7, 8}},
		{0x45, 6<<16 | 4<<19, 1, 20, 4, []byte{3, 3, 4}},
		{0x02, 1 | 4<<2, 1, 0, 0, []byte{9, 8, 7}},
		{0x02, 1 | 5<<2, 0, 0, 0, []byte("\x02\x01\x21\x08\x00\x01\x00\x00\x00\x01\x00\x00\x10\x00\x00\x00")},
		{0x81, 4 | 7<<8 | 5<<16, 1, 9, 0x40, []byte{1, 100, 1, 1}},
	} {
		f.Add(s.shape, s.chain, s.mode, s.pos, s.xor, s.data)
	}
	f.Fuzz(func(t *testing.T, shapeSel uint8, chainSel uint32, mode uint8, pos uint16, xor uint8, data []byte) {
		ctx := context.Background()
		dc := caseFrom(shapeSel, chainSel)
		st := newBoundedStore()
		a, err := zarr.Create(ctx, st, dc.meta)
		if err != nil {
			t.Fatalf("%s: Create: %v", dc.describe, err)
		}
		key, err := a.ChunkKey(make([]int64, len(a.Shape())))
		if err != nil {
			t.Fatal(err)
		}
		n := a.ChunkLen()
		var written []int64
		if mode&1 == 0 {
			if err := st.Set(ctx, key, data); err != nil {
				t.Fatal(err)
			}
		} else {
			written = valuesFrom(data, n)
			if err := a.WriteChunk(ctx, make([]int64, len(a.Shape())), written); err != nil {
				t.Fatalf("%s: WriteChunk: %v", dc.describe, err)
			}
			if xor != 0 {
				enc, err := st.Get(ctx, key)
				if err != nil {
					written = nil // all fill: nothing stored to corrupt
				} else {
					enc[int(pos)%len(enc)] ^= xor
					_ = st.Set(ctx, key, enc)
				}
			}
		}
		dst := make([]byte, 8*n)
		order, present, alloc, err := readMeasured(a, dst)
		// ReadChunkFunc hands on the same bytes (in aligned pieces, from
		// the stored value where it only holds them), or fails the same.
		align := 8 * (1 + int(mode>>1&7))
		var pieces []byte
		_, fpresent, ferr := a.ReadChunkFunc(ctx, make([]int64, len(a.Shape())), make([]byte, 8*n), align, func(off int, p []byte) error {
			if off != len(pieces) || off%align != 0 {
				t.Fatalf("%s: ReadChunkFunc piece at %d after %d bytes (align %d)", dc.describe, off, len(pieces), align)
			}
			pieces = append(pieces, p...)
			return nil
		})
		if (ferr == nil) != (err == nil) || err == nil && (fpresent != present || !bytes.Equal(pieces, dst)) {
			t.Fatalf("%s: ReadChunkFunc: %v, present %v, equal %v; ReadChunkRaw: %v, present %v", dc.describe, ferr, fpresent, bytes.Equal(pieces, dst), err, present)
		}
		if alloc > decodeBound(a) && !raceEnabled {
			t.Fatalf("%s: reading a %d-byte chunk allocated %d bytes (err %v)", dc.describe, 8*n, alloc, err)
		}
		if err != nil {
			var ce *zarr.ChunkError
			if !errors.As(err, &ce) || ce.Key != key {
				t.Fatalf("%s: error %v is not a *zarr.ChunkError for %s", dc.describe, err, key)
			}
			// ErrUnsupported: a corrupted Blosc header can name a Blosc2
			// frame or an unknown compressor.
			if !errors.Is(err, zarr.ErrCorrupt) && !errors.Is(err, zarr.ErrChecksum) && !errors.Is(err, zarr.ErrTooLarge) && !errors.Is(err, zarr.ErrUnsupported) {
				t.Fatalf("%s: error %v wraps none of ErrCorrupt, ErrChecksum, ErrTooLarge, ErrUnsupported", dc.describe, err)
			}
			if mode&1 == 1 && xor == 0 {
				t.Fatalf("%s: reading back a valid chunk: %v", dc.describe, err)
			}
			return
		}
		if order != a.ByteOrder() {
			t.Fatalf("%s: order %v, array %v", dc.describe, order, a.ByteOrder())
		}
		if mode&1 == 1 {
			if xor != 0 && written != nil && dc.crcLast {
				t.Fatalf("%s: byte %d ^= %#x under crc32c went undetected", dc.describe, int(pos), xor)
			}
			if xor == 0 {
				for i, v := range written {
					if got := int64(order.Uint64(dst[i*8:])); got != v {
						t.Fatalf("%s: element %d: wrote %d, read %d (present %v)", dc.describe, i, v, got, present)
					}
				}
			}
		}
		// Whatever decodes is a chunk: it writes back and reads back the same.
		st2 := storage.NewMemory()
		b, err := zarr.Create(ctx, st2, dc.meta)
		if err != nil {
			t.Fatal(err)
		}
		coords := make([]int64, len(a.Shape()))
		// WriteChunkRaw pads dst in place: what it stored is dst after it.
		if _, err := b.WriteChunkRaw(ctx, coords, dst); err != nil {
			t.Fatalf("%s: writing back a decoded chunk: %v", dc.describe, err)
		}
		again := make([]byte, len(dst))
		if _, _, err := b.ReadChunkRaw(ctx, coords, again); err != nil {
			t.Fatalf("%s: reading back a rewritten chunk: %v", dc.describe, err)
		}
		if !bytes.Equal(again, dst) {
			t.Fatalf("%s: decoded chunk changed through write+read", dc.describe)
		}
	})
}

// TestDecodeAllocationBound reads valid chunks of the fuzz target's chains
// at up to 512 KiB, pools emptied first (the worst case), and checks each
// read against decodeBound: the fuzz target's small chunks alone would
// let the 256 KiB of decoder state hide a per-stage term.
func TestDecodeAllocationBound(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 400 {
		dc := caseFrom(uint8(rng.IntN(256)), rng.Uint32())
		m := scaledMetadata(dc.meta, int64(1)<<rng.IntN(12))
		a, err := zarr.Create(ctx, newBoundedStore(), m)
		if err != nil {
			t.Fatalf("%s: %v", dc.describe, err)
		}
		if a.ChunkLen() > 64<<10 {
			continue
		}
		coords := make([]int64, len(m.Shape))
		if err := a.WriteChunk(ctx, coords, valuesFrom([]byte{byte(i), 3, 4, 200, 7, 1, 1, 9}, a.ChunkLen())); err != nil {
			t.Fatal(err)
		}
		dst := make([]byte, 8*a.ChunkLen())
		runtime.GC()
		runtime.GC() // the second empties the pools' victim caches too
		_, _, alloc, err := readMeasured(a, dst)
		if err != nil {
			t.Fatalf("%s: %v", dc.describe, err)
		}
		if alloc > decodeBound(a) && !raceEnabled {
			t.Errorf("%v %+v: reading a %d-byte chunk (MaxEncodedSize %d) allocated %d bytes, over the bound %d",
				m.ChunkShape, m.Codecs, len(dst), a.MaxEncodedSize(), alloc, decodeBound(a))
		}
	}
}

// scaledMetadata is m with the first chunk dimension (and the inner chunk
// dimension a shard takes from it) s times longer.
func scaledMetadata(m zarr.Metadata, s int64) zarr.Metadata {
	m.ChunkShape = slices.Clone(m.ChunkShape)
	m.Shape = slices.Clone(m.Shape)
	m.ChunkShape[0] *= s
	m.Shape[0] = 2*m.ChunkShape[0] - 1
	m.Codecs = slices.Clone(m.Codecs)
	_, transposed := m.Codecs[0].(zarr.TransposeCodec)
	for i, c := range m.Codecs {
		if sc, ok := c.(zarr.ShardingCodec); ok {
			sc.ChunkShape = slices.Clone(sc.ChunkShape)
			if transposed { // the dimension order is reversed
				sc.ChunkShape[len(sc.ChunkShape)-1] *= s
			} else {
				sc.ChunkShape[0] *= s
			}
			m.Codecs[i] = sc
		}
	}
	return m
}
