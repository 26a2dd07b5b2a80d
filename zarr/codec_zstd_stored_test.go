package zarr

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/internal/zstddec"
	"github.com/zarr-dt64/dt64/storage"
)

// zblock is one block of a hand-built zstd frame: raw data, or an RLE
// block of size copies of data[0].
type zblock struct {
	rle  bool
	data []byte
	size int
}

// zframe builds a zstd frame by the format's rules (RFC 8878 3.1.1):
// single segment or a window descriptor, a content size field (fcs < 0:
// none) and a checksum flag (the checksum itself is garbage), then the
// blocks, the last one marked.
func zframe(single bool, fcs int, window byte, checksum bool, blocks []zblock) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd}
	var fhd byte
	var field []byte
	switch {
	case fcs < 0:
	case single && fcs < 256:
		field = []byte{byte(fcs)}
	case fcs >= 256 && fcs < 256+65536:
		fhd |= 1 << 6
		field = binary.LittleEndian.AppendUint16(nil, uint16(fcs-256))
	default:
		fhd |= 2 << 6
		field = binary.LittleEndian.AppendUint32(nil, uint32(fcs))
	}
	if single {
		fhd |= 1 << 5
	}
	if checksum {
		fhd |= 1 << 2
	}
	b = append(b, fhd)
	if !single {
		b = append(b, window)
	}
	b = append(b, field...)
	for i, k := range blocks {
		hdr := 0
		if i == len(blocks)-1 {
			hdr = 1
		}
		if k.rle {
			hdr |= 1<<1 | k.size<<3
		} else {
			hdr |= len(k.data) << 3
		}
		b = append(b, byte(hdr), byte(hdr>>8), byte(hdr>>16))
		if k.rle {
			b = append(b, k.data[0])
		} else {
			b = append(b, k.data...)
		}
	}
	if checksum {
		b = append(b, 1, 2, 3, 4)
	}
	return b
}

// storedFrame reads src's frame header and asks storedBlocks, as
// zstdStage.decodeEach does.
func storedFrame(src []byte, limit int) (blocks []byte, n int, ok bool) {
	var h zstd.Header
	blocks, err := h.DecodeAndStrip(src)
	if err != nil {
		return nil, 0, false
	}
	n, ok = storedBlocks(&h, blocks, limit)
	return blocks, n, ok
}

// checkStored holds storedBlocks to its contract on src: what it accepts,
// zstd's own decoder decodes, without error and to the same bytes (as
// copyStored and passStored give them); what it refuses, that decoder
// handles. It returns whether src was accepted.
func checkStored(t testing.TB, src []byte, limit int) bool {
	blocks, n, ok := storedFrame(src, limit)
	if !ok {
		return false
	}
	want, err := zstddec.Decoder().DecodeAll(src, make([]byte, 0, limit))
	if err != nil {
		t.Fatalf("storedFrame accepted %x... (%d bytes), the decoder refuses it: %v", src[:min(len(src), 32)], n, err)
	}
	if n != len(want) || n > limit {
		t.Fatalf("storedFrame: %d bytes (limit %d), the decoder %d", n, limit, len(want))
	}
	got := make([]byte, n)
	copyStored(got, blocks)
	if !bytes.Equal(got, want) {
		t.Fatalf("copyStored of %x...: not the decoder's bytes", src[:min(len(src), 32)])
	}
	for _, align := range []int{1, 8, 24, 64} {
		var cat []byte
		err := passStored(blocks, align, func(off int, p []byte) error {
			if off != len(cat) {
				t.Fatalf("align %d: piece at %d after %d bytes", align, off, len(cat))
			}
			if off%align != 0 || len(p) == 0 {
				t.Fatalf("align %d: piece [%d, +%d)", align, off, len(p))
			}
			cat = append(cat, p...)
			if len(cat)%align != 0 && len(cat) != n {
				t.Fatalf("align %d: a piece ends at %d, neither aligned nor the end (%d)", align, len(cat), n)
			}
			return nil
		})
		if err != nil || !bytes.Equal(cat, want) {
			t.Fatalf("passStored, align %d: %v, %d bytes, equal %v", align, err, len(cat), bytes.Equal(cat, want))
		}
	}
	return true
}

func mustEncoder(o ...zstd.EOption) *zstd.Encoder {
	e, err := zstd.NewWriter(nil, o...)
	if err != nil {
		panic(err)
	}
	return e
}

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// Frames of raw and RLE blocks are read by storedBlocks exactly as zstd's
// decoder reads them, at any block size (unaligned ones included); every
// frame it must leave to the decoder (compressed blocks, a checksum, a
// dictionary, trailing bytes, a wrong content size, a block beyond the
// window or 128 KiB, truncation, a size beyond the limit) it refuses.
func TestStoredFrame(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	raw := func(n int) zblock { return zblock{data: randomBytes(r, n)} }
	rle := func(c byte, n int) zblock { return zblock{rle: true, data: []byte{c}, size: n} }
	const w1m = 10 << 3 // window descriptor: 1 MiB
	accept := []struct {
		name string
		src  []byte
	}{
		{"one raw block", zframe(false, 1000, w1m, false, []zblock{raw(1000)})},
		{"no size field", zframe(false, -1, w1m, false, []zblock{raw(77), raw(3)})},
		{"single segment", zframe(true, 200, 0, false, []zblock{raw(150), rle(9, 50)})},
		{"empty", zframe(true, 0, 0, false, []zblock{raw(0)})},
		{"unaligned blocks", zframe(false, 7+13+128<<10+1, w1m, false, []zblock{raw(7), rle(0xaa, 13), raw(128 << 10), raw(1)})},
		{"4-byte size field", zframe(false, 3<<17, w1m, false, []zblock{raw(128 << 10), rle(1, 128<<10), raw(128 << 10)})},
	}
	for _, c := range accept {
		if !checkStored(t, c.src, 1<<20) {
			t.Errorf("%s: refused", c.name)
		}
	}
	ok := zframe(false, 1000, w1m, false, []zblock{raw(1000)})
	compressed := mustEncoder(zstd.WithEncoderLevel(zstd.SpeedFastest)).EncodeAll(bytes.Repeat([]byte("time"), 1000), nil)
	withChecksum := mustEncoder(zstd.WithEncoderCRC(true)).EncodeAll(randomBytes(r, 5000), nil)
	refuse := []struct {
		name  string
		src   []byte
		limit int
	}{
		{"compressed", compressed, 1 << 20},
		{"checksum", withChecksum, 1 << 20},
		{"checksum flag", zframe(false, 1000, w1m, true, []zblock{raw(1000)}), 1 << 20},
		{"dictionary", append(append([]byte{}, ok[:4]...), append([]byte{ok[4] | 1, ok[5], 7}, ok[6:]...)...), 1 << 20},
		{"trailing byte", append(append([]byte{}, ok...), 0), 1 << 20},
		{"two frames", append(append([]byte{}, ok...), ok...), 1 << 20},
		{"content size too large", zframe(false, 1001, w1m, false, []zblock{raw(1000)}), 1 << 20},
		{"content size too small", zframe(false, 999, w1m, false, []zblock{raw(1000)}), 1 << 20},
		{"block beyond 128 KiB", zframe(false, -1, w1m, false, []zblock{raw(128<<10 + 1)}), 1 << 20},
		{"block beyond the window", zframe(false, -1, 0, false, []zblock{raw(1025)}), 1 << 20},
		{"RLE beyond the window", zframe(false, -1, 0, false, []zblock{rle(1, 1025)}), 1 << 20},
		{"beyond the limit", ok, 999},
		{"truncated", ok[:len(ok)-1], 1 << 20},
		{"no last block", ok[:6+2+3+1000-1], 1 << 20},
		{"reserved block type", func() []byte { b := append([]byte{}, ok...); b[8] |= 3 << 1; return b }(), 1 << 20},
		{"skippable", []byte{0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0}, 1 << 20},
		{"not zstd", []byte("not a frame"), 1 << 20},
	}
	for _, c := range refuse {
		if checkStored(t, c.src, c.limit) {
			t.Errorf("%s: accepted", c.name)
		}
	}
	// numcodecs (libzstd, as zarr-python writes) keeps incompressible data
	// raw, and compresses jittered timestamps (tools/zstd/gen.py).
	for name, want := range map[string]bool{"random_l1.zst": true, "jitter_l1.zst": false} {
		src, err := os.ReadFile(filepath.Join("..", "testdata", "zstd", name))
		if err != nil {
			t.Fatal(err)
		}
		if got := checkStored(t, src, 1<<20); got != want {
			t.Errorf("%s: stored %v, want %v", name, got, want)
		}
	}
	// Every zstd chunk of the zarr-python 3.1.3 fixtures: whatever is
	// accepted decodes the same. Of the 27, two (small, random values)
	// are stored frames.
	chunks, _ := filepath.Glob(filepath.Join("..", "testdata", "zarr", "*", "*", "c", "*"))
	more, _ := filepath.Glob(filepath.Join("..", "testdata", "zarr", "groups", "*", "*", "*", "c", "*"))
	frames, stored := 0, 0
	for _, f := range append(chunks, more...) {
		src, err := os.ReadFile(f)
		if err == nil && bytes.HasPrefix(src, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
			frames++
			if checkStored(t, src, 1<<20) {
				stored++
			}
		}
	}
	if frames != 27 || stored != 2 {
		t.Errorf("fixtures: %d zstd chunks, %d stored frames; want 27 and 2", frames, stored)
	}
	// What klauspost's encoder writes for data it cannot compress, at
	// every level, is a stored frame (the case it exists for).
	for _, level := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault} {
		for _, n := range []int{100, 5000, 1 << 20, 1<<20 + 5} {
			src := mustEncoder(zstd.WithEncoderLevel(level), zstd.WithEncoderCRC(false)).EncodeAll(randomBytes(r, n), nil)
			if !checkStored(t, src, n) {
				t.Errorf("level %v, %d random bytes: refused", level, n)
			}
		}
	}
}

// FuzzStoredFrame: whatever storedBlocks accepts, zstd's decoder decodes to
// the same bytes.
func FuzzStoredFrame(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 1))
	f.Add(zframe(false, 300, 10<<3, false, []zblock{{data: randomBytes(r, 100)}, {rle: true, data: []byte{5}, size: 200}}), 1000)
	f.Add(zframe(true, 10, 0, false, []zblock{{data: randomBytes(r, 10)}}), 10)
	f.Add(mustEncoder(zstd.WithEncoderCRC(false)).EncodeAll(randomBytes(r, 3000), nil), 3000)
	f.Fuzz(func(t *testing.T, src []byte, limit int) {
		checkStored(t, src, min(max(limit, 0), 1<<22))
	})
}

// pieceArray is a 1-D int64 array of 3 chunks of 1000 elements with the
// given codecs (after the bytes codec), in a memory store, chunk 1 missing;
// values with random low bytes, so zstd stores them raw.
func pieceArray(t *testing.T, codecs ...Codec) *Array {
	ctx := context.Background()
	a, err := Create(ctx, storage.NewMemory(), Metadata{Format: 3, DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1},
		Shape: []int64{2900}, ChunkShape: []int64{1000}, FillValue: dtype.NaT,
		Codecs: append([]Codec{BytesCodec{Endian: binary.BigEndian}}, codecs...)})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	buf := make([]int64, 1000)
	for _, c := range []int64{0, 2} {
		for i := range buf {
			buf[i] = r.Int64()
		}
		if err := a.WriteChunk(ctx, []int64{c}, buf); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

// ReadChunkFunc hands on exactly the bytes ReadChunkRaw reads, in aligned
// pieces; for a chunk stored as it is (uncompressed, or zstd blocks kept
// raw, behind a crc32c check or not) straight from the stored value,
// leaving buf untouched; for others, and a missing chunk, in buf, whole.
func TestReadChunkFunc(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		codecs []Codec
		stored bool // chunks 0 and 2 are read from the stored value
	}{
		{"bytes", nil, true},
		{"bytes crc32c", []Codec{CRC32CCodec{}}, true},
		{"zstd", []Codec{ZstdCodec{Level: 1}}, true},
		{"zstd crc32c", []Codec{ZstdCodec{Level: 1}, CRC32CCodec{}}, true},
		{"zstd checksum", []Codec{ZstdCodec{Level: 1, Checksum: true}}, false},
		{"gzip", []Codec{GzipCodec{Level: 1}}, false},
	} {
		a := pieceArray(t, c.codecs...)
		for i := range int64(3) {
			want := make([]byte, a.ChunkBytes())
			if _, _, err := a.ReadChunkRaw(ctx, []int64{i}, want); err != nil {
				t.Fatal(err)
			}
			buf := bytes.Repeat([]byte{0xee}, a.ChunkBytes())
			var got []byte
			inBuf := 0
			order, present, err := a.ReadChunkFunc(ctx, []int64{i}, buf, 64, func(off int, p []byte) error {
				if off != len(got) || off%64 != 0 {
					t.Fatalf("%s chunk %d: piece at %d after %d bytes", c.name, i, off, len(got))
				}
				if &p[0] == &buf[off] {
					inBuf++
				}
				got = append(got, p...)
				return nil
			})
			if err != nil || order != binary.BigEndian || present != (i != 1) || !bytes.Equal(got, want) {
				t.Fatalf("%s chunk %d: %v, %v, present %v, equal %v", c.name, i, err, order, present, bytes.Equal(got, want))
			}
			fromStore := c.stored && i != 1
			if untouched := bytes.Equal(buf, bytes.Repeat([]byte{0xee}, len(buf))); untouched != fromStore || (inBuf == 0) != fromStore {
				t.Fatalf("%s chunk %d: buf untouched %v, %d pieces in buf; want read from the stored value: %v", c.name, i, untouched, inBuf, fromStore)
			}
		}
	}

	// fn's error comes back as it is; a corrupt chunk is a ChunkError.
	a := pieceArray(t, ZstdCodec{Level: 1})
	stop := errors.New("stop")
	buf := make([]byte, a.ChunkBytes())
	if _, _, err := a.ReadChunkFunc(ctx, []int64{0}, buf, 8, func(int, []byte) error { return stop }); err != stop {
		t.Fatalf("fn's error: %v", err)
	}
	key, _ := a.ChunkKey([]int64{0})
	enc, _ := a.store.Get(ctx, key)
	a.store.Set(ctx, key, enc[:len(enc)-1])
	var ce *ChunkError
	if _, _, err := a.ReadChunkFunc(ctx, []int64{0}, buf, 8, func(int, []byte) error { return nil }); !errors.As(err, &ce) {
		t.Fatalf("truncated chunk: %v", err)
	}
	if _, _, err := a.ReadChunkFunc(ctx, []int64{0}, buf, 0, func(int, []byte) error { return nil }); err == nil {
		t.Fatal("align 0 accepted")
	}
}
