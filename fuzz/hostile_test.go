package fuzz

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// The hostile-input suite: stores and metadata crafted to crash, hang,
// exhaust memory, escape the store directory or be silently misread. Every
// case must end in an error that names the file or chunk key and the field
// at fault, within a bounded number of allocated bytes, without a hang, and
// without changing the store or anything outside it.

var ns = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}

// hostileCase is one malicious store.
type hostileCase struct {
	name string
	// build writes the store into dir; outside is a directory next to it
	// holding a file "secret" that nothing may read or change.
	build func(t *testing.T, dir, outside string)
	// coords are the chunks read after a successful Open (default: chunk 0).
	coords [][]int64
	// want are substrings the error must contain (file or key, field).
	want []string
	// is, if set, must match the error with errors.Is.
	is error
	// bound is the most Open plus the reads may allocate (default 16 MiB).
	bound uint64
	// accept marks an input that is valid and must open and read without
	// error (within bound): limits that must not be too strict.
	accept bool
	// either allows both: a clear error containing want, or acceptance.
	either bool
}

// makeArray writes a valid array (metadata and every chunk, values 1..n)
// into dir.
func makeArray(t *testing.T, dir string, m zarr.Metadata) *zarr.Array {
	t.Helper()
	ctx := context.Background()
	if m.Shape == nil {
		m.Shape, m.ChunkShape = []int64{16}, []int64{8}
	}
	if m.DataType == (dtype.DataType{}) {
		m.DataType = ns
	}
	st := storage.NewDir(dir)
	defer st.Close()
	a, err := zarr.Create(ctx, st, m)
	if err != nil {
		t.Fatalf("makeArray: %v", err)
	}
	for _, c := range a.ChunkCoords() {
		v := make([]int64, a.ChunkLen())
		for i := range v {
			v[i] = int64(i + 1)
		}
		if err := a.WriteChunk(ctx, c, v); err != nil {
			t.Fatalf("makeArray: %v", err)
		}
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatalf("makeArray: %v", err)
	}
	return a
}

func codecs(cs ...zarr.Codec) zarr.Metadata { return zarr.Metadata{Codecs: cs} }

func le() zarr.Codec { return zarr.BytesCodec{Endian: binary.LittleEndian} }

// v3 writes a valid array with the given codecs and replaces top-level
// fields of its zarr.json (raw JSON; "" deletes the field).
func v3(cs []zarr.Codec, fields ...string) func(t *testing.T, dir, outside string) {
	return func(t *testing.T, dir, outside string) {
		makeArray(t, dir, codecs(cs...))
		if len(fields) > 0 {
			editJSON(t, filepath.Join(dir, "zarr.json"), fields...)
		}
	}
}

// v2 writes a valid v2 array (zstd) and replaces fields of its .zarray.
func v2(fields ...string) func(t *testing.T, dir, outside string) {
	return func(t *testing.T, dir, outside string) {
		makeArray(t, dir, zarr.Metadata{Format: 2})
		editJSON(t, filepath.Join(dir, ".zarray"), fields...)
	}
}

func editJSON(t *testing.T, file string, fields ...string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(fields); i += 2 {
		if fields[i+1] == "" {
			delete(obj, fields[i])
		} else {
			obj[fields[i]] = json.RawMessage(fields[i+1])
		}
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // keep "<M8[ns]" readable for replaceIn
	if err := enc.Encode(obj); err != nil {
		t.Fatal(err)
	}
	writeFile(t, file, out.Bytes())
}

// replaceIn replaces text in a store file (for documents json.Marshal
// would not write: duplicates, BOM, escapes).
func replaceIn(t *testing.T, file, old, new string) {
	t.Helper()
	editJSON(t, file) // compact: no spaces after colons
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s does not contain %q", file, old)
	}
	writeFile(t, file, bytes.Replace(b, []byte(old), []byte(new), 1))
}

func writeFile(t *testing.T, file string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// chunk writes a valid array with codecs cs, then replaces the stored
// chunk c/0 by what edit returns from the valid encoding.
func chunk(m zarr.Metadata, edit func(t *testing.T, enc []byte) []byte) func(t *testing.T, dir, outside string) {
	return func(t *testing.T, dir, outside string) {
		a := makeArray(t, dir, m)
		key, _ := a.ChunkKey(make([]int64, len(a.Shape())))
		file := filepath.Join(dir, filepath.FromSlash(key))
		enc, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, file, edit(t, bytes.Clone(enc)))
	}
}

func constant(b []byte) func(*testing.T, []byte) []byte {
	return func(*testing.T, []byte) []byte { return b }
}

// bigChunk is a 64 KiB chunk, large enough that a compression bomb fits
// under the stored-size bound and reaches the decoder.
func bigChunk(cs ...zarr.Codec) zarr.Metadata {
	return zarr.Metadata{Shape: []int64{16384}, ChunkShape: []int64{8192}, Codecs: cs}
}

func zstdFrame(t *testing.T, n int, withSize bool) []byte {
	var buf bytes.Buffer
	if withSize {
		e, _ := zstd.NewWriter(nil)
		return e.EncodeAll(make([]byte, n), nil)
	}
	w, err := zstd.NewWriter(&buf) // streaming: no content size
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(make([]byte, n))
	_ = w.Close()
	return buf.Bytes()
}

// zstdRLEBomb is a hand-made frame without a content size, with window
// log windowLog, made of RLE blocks of 128 KiB each: blocks × 128 KiB of
// output from 4 bytes per block.
func zstdRLEBomb(windowLog uint, blocks int) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, byte((windowLog - 10) << 3)}
	for i := 0; i < blocks; i++ {
		last := 0
		if i == blocks-1 {
			last = 1
		}
		h := uint32(last) | 1<<1 | (128<<10)<<3
		b = append(b, byte(h), byte(h>>8), byte(h>>16), 0)
	}
	return b
}

func gzipOf(n int, multi int) []byte {
	var buf bytes.Buffer
	for range multi {
		w, _ := gzip.NewWriterLevel(&buf, 9)
		_, _ = w.Write(make([]byte, n))
		_ = w.Close()
	}
	return buf.Bytes()
}

func zlibOf(n int) []byte {
	var buf bytes.Buffer
	w, _ := zlib.NewWriterLevel(&buf, 9)
	_, _ = w.Write(make([]byte, n))
	_ = w.Close()
	return buf.Bytes()
}

func bloscLZ4() zarr.Codec { return zarr.BloscCodec{CName: "lz4", CLevel: 5, Shuffle: "shuffle"} }

// bloscHeader overwrites the sizes in a Blosc1 frame header (nbytes at
// byte 4, blocksize at 8, cbytes at 12, little-endian); 0 keeps a field.
func bloscHeader(enc []byte, nbytes, blocksize, cbytes uint32) []byte {
	for i, v := range []uint32{nbytes, blocksize, cbytes} {
		if v != 0 {
			binary.LittleEndian.PutUint32(enc[4+4*i:], v)
		}
	}
	return enc
}

// shard is a 16-element shard of 4 inner chunks of 4, index at the end.
func shard(loc zarr.IndexLocation, index ...zarr.Codec) zarr.Metadata {
	return zarr.Metadata{Shape: []int64{32}, ChunkShape: []int64{16}, Codecs: []zarr.Codec{zarr.ShardingCodec{ChunkShape: []int64{4}, IndexLocation: loc,
		Codecs: []zarr.Codec{le()}, IndexCodecs: append([]zarr.Codec{le()}, index...)}}}
}

// editIndex changes entry q (offset, nbytes) of an end-located index of
// 4 entries without checksum.
func editIndex(q int, off, nbytes uint64) func(*testing.T, []byte) []byte {
	return func(t *testing.T, enc []byte) []byte {
		idx := enc[len(enc)-64:]
		binary.LittleEndian.PutUint64(idx[q*16:], off)
		binary.LittleEndian.PutUint64(idx[q*16+8:], nbytes)
		return enc
	}
}

// unit returns a build whose data_type has the given unit (raw JSON text,
// escapes allowed).
func unit(rawUnit string) func(t *testing.T, dir, outside string) {
	return func(t *testing.T, dir, outside string) {
		makeArray(t, dir, zarr.Metadata{})
		replaceIn(t, filepath.Join(dir, "zarr.json"), `"unit":"ns"`, `"unit":`+rawUnit)
	}
}

// attributes writes a valid array whose attributes are raw (any text).
func attributes(raw string) func(t *testing.T, dir, outside string) {
	return func(t *testing.T, dir, outside string) {
		makeArray(t, dir, zarr.Metadata{})
		replaceIn(t, filepath.Join(dir, "zarr.json"), `"attributes":{}`, `"attributes":`+raw)
	}
}

// nestedSharding is depth sharding codecs, each the single inner codec of
// the one before, around a bytes codec.
// nestedShardingJSON is a v3 codec list with sharding nested depth deep,
// as JSON: more than Create would write.
func nestedShardingJSON(depth int) string {
	const bytesLE = `[{"name":"bytes","configuration":{"endian":"little"}}]`
	s := bytesLE
	for range depth {
		s = `[{"name":"sharding_indexed","configuration":{"chunk_shape":[8],"codecs":` + s +
			`,"index_codecs":` + bytesLE + `,"index_location":"end"}}]`
	}
	return s
}

func nested(depth int) string {
	return `{"x":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`
}

func hostileCases() []hostileCase {
	const mib = 1 << 20
	plain := []zarr.Codec{le()}
	return []hostileCase{
		// ---- shapes and grids ----
		{name: "shape negative", build: v3(plain, "shape", `[-16]`), want: []string{"zarr.json", "shape", "negative"}},
		{name: "shape float", build: v3(plain, "shape", `[16.5]`), want: []string{"zarr.json", "shape"}},
		{name: "shape beyond int64", build: v3(plain, "shape", `[1e30]`), want: []string{"zarr.json", "shape"}},
		{name: "shape element count overflows", build: v3(plain, "shape", `[4611686018427387904, 4]`, "chunk_grid", `{"name":"regular","configuration":{"chunk_shape":[1,1]}}`),
			want: []string{"zarr.json", "shape"}},
		{name: "chunk shape product overflows", build: v3(plain, "shape", `[4294967296, 4294967296]`, "chunk_grid", `{"name":"regular","configuration":{"chunk_shape":[4294967296, 4294967296]}}`),
			want: []string{"zarr.json", "chunk"}},
		{name: "chunk shape zero", build: v3(plain, "chunk_grid", `{"name":"regular","configuration":{"chunk_shape":[0]}}`), want: []string{"zarr.json", "chunk_grid.configuration.chunk_shape", "positive"}},
		{name: "chunk shape negative", build: v3(plain, "chunk_grid", `{"name":"regular","configuration":{"chunk_shape":[-8]}}`), want: []string{"zarr.json", "chunk_grid.configuration.chunk_shape"}},
		{name: "chunk beyond 1 TiB", build: v3(plain, "shape", `[137438953473]`, "chunk_grid", `{"name":"regular","configuration":{"chunk_shape":[137438953473]}}`),
			want: []string{"zarr.json", "chunk"}},
		{name: "rank mismatch", build: v3(plain, "chunk_grid", `{"name":"regular","configuration":{"chunk_shape":[8, 8]}}`), want: []string{"zarr.json", "chunk_shape", "dimensions"}},
		{name: "v2 chunks negative", build: v2("chunks", `[-1]`), want: []string{".zarray", "chunks"}},
		{name: "v2 shape huge", build: v2("shape", `[9223372036854775807, 9223372036854775807]`, "chunks", `[1, 1]`), want: []string{".zarray", "shape"}},

		// ---- JSON structure ----
		{name: "deeply nested attributes", build: attributes(nested(100000)), want: []string{"zarr.json", "deeper", "512"}},
		{name: "nested attributes under the limit", build: attributes(nested(500)), accept: true},
		{name: "nested attributes over the limit", build: attributes(nested(600)), want: []string{"zarr.json", "deeper", "512"}},
		{name: "BOM before zarr.json", build: func(t *testing.T, dir, _ string) {
			makeArray(t, dir, zarr.Metadata{})
			replaceIn(t, filepath.Join(dir, "zarr.json"), "{", "\ufeff{")
		}, want: []string{"zarr.json", "byte"}},
		{name: "BOM before .zarray", build: func(t *testing.T, dir, _ string) {
			makeArray(t, dir, zarr.Metadata{Format: 2})
			replaceIn(t, filepath.Join(dir, ".zarray"), "{", "\ufeff{")
		}, want: []string{".zarray", "byte"}},
		{name: "duplicate key in data_type", build: func(t *testing.T, dir, _ string) {
			makeArray(t, dir, zarr.Metadata{})
			replaceIn(t, filepath.Join(dir, "zarr.json"), `"unit":"ns"`, `"unit":"ns","unit":"s"`)
		}, want: []string{"zarr.json", "data_type", "unit"}},
		{name: "duplicate top-level key", build: func(t *testing.T, dir, _ string) {
			makeArray(t, dir, zarr.Metadata{})
			// Readers that keep the first "shape" and readers that keep the
			// last disagree on the array: refuse it.
			replaceIn(t, filepath.Join(dir, "zarr.json"), `"shape":[16]`, `"shape":[16],"shape":[32]`)
		}, want: []string{"zarr.json", "shape", "duplicate"}},
		{name: "duplicate key in .zarray", build: func(t *testing.T, dir, _ string) {
			makeArray(t, dir, zarr.Metadata{Format: 2})
			// zarr writes "<M8[ns]" unescaped, as zarr-python does.
			replaceIn(t, filepath.Join(dir, ".zarray"), `"dtype":"<M8[ns]"`, `"dtype":"<M8[ns]","dtype":"<M8[s]"`)
		}, want: []string{".zarray", "dtype", "duplicate"}},
		{name: "enormous zarr.json", build: attributes(`{"x":"` + strings.Repeat("a", 17*mib) + `"}`),
			want: []string{"zarr.json"}, is: zarr.ErrTooLarge, bound: 8 * mib},
		{name: "enormous .zattrs", build: func(t *testing.T, dir, _ string) {
			makeArray(t, dir, zarr.Metadata{Format: 2})
			writeFile(t, filepath.Join(dir, ".zattrs"), []byte(`{"x":"`+strings.Repeat("a", 17*mib)+`"}`))
		}, want: []string{".zattrs"}, is: zarr.ErrTooLarge, bound: 8 * mib},
		{name: ".zattrs not an object", build: func(t *testing.T, dir, _ string) {
			makeArray(t, dir, zarr.Metadata{Format: 2})
			writeFile(t, filepath.Join(dir, ".zattrs"), []byte(`[1,2]`))
		}, want: []string{".zattrs", "object"}},
		{name: "zarr.json not an object", build: func(t *testing.T, dir, _ string) {
			writeFile(t, filepath.Join(dir, "zarr.json"), []byte(`"array"`))
		}, want: []string{"zarr.json", "object"}},
		{name: "zarr.json empty", build: func(t *testing.T, dir, _ string) {
			writeFile(t, filepath.Join(dir, "zarr.json"), nil)
		}, want: []string{"zarr.json"}},
		{name: "NUL bytes in zarr.json", build: func(t *testing.T, dir, _ string) {
			makeArray(t, dir, zarr.Metadata{})
			replaceIn(t, filepath.Join(dir, "zarr.json"), `"node_type"`, "\x00\"node_type\"")
		}, want: []string{"zarr.json"}},

		// ---- fill values ----
		{name: "fill value float", build: v3(plain, "fill_value", `1.5`), want: []string{"zarr.json", "fill_value", "1.5"}},
		{name: "fill value NaN string", build: v3(plain, "fill_value", `"NaN"`), want: []string{"zarr.json", "fill_value", "NaN"}},
		{name: "fill value Infinity", build: v3(plain, "fill_value", `"Infinity"`), want: []string{"zarr.json", "fill_value", "Infinity"}},
		{name: "fill value -inf", build: v3(plain, "fill_value", `"-inf"`), want: []string{"zarr.json", "fill_value", "-inf"}},
		{name: "fill value nat lowercase", build: v3(plain, "fill_value", `"nat"`), want: []string{"zarr.json", "fill_value", "nat"}},
		{name: "fill value boolean", build: v3(plain, "fill_value", `true`), want: []string{"zarr.json", "fill_value", "true"}},
		{name: "fill value beyond int64", build: v3(plain, "fill_value", `9223372036854775808`), want: []string{"zarr.json", "fill_value", "9223372036854775808"}},
		{name: "fill value date string", build: v3(plain, "fill_value", `"1970-01-01"`), want: []string{"zarr.json", "fill_value", "1970-01-01"}},
		{name: "fill value null in v3", build: v3(plain, "fill_value", `null`), want: []string{"zarr.json", "fill_value"}},
		{name: "v2 fill value NaN", build: v2("fill_value", `"NaN"`), want: []string{".zarray", "fill_value", "NaN"}},
		{name: "v2 fill value float", build: v2("fill_value", `0.0`), want: []string{".zarray", "fill_value"}},

		// ---- units and unicode ----
		{name: "unit micro sign U+00B5", build: unit(`"µs"`), want: []string{"zarr.json", "data_type", "unit", "U+00B5"}},
		{name: "unit micro sign escaped", build: unit(`"\u00b5s"`), want: []string{"zarr.json", "data_type", "unit"}},
		{name: "unit fullwidth letters", build: unit(`"ｎｓ"`), want: []string{"zarr.json", "data_type", "unit"}},
		{name: "unit zero-width space", build: unit(`"n\u200bs"`), want: []string{"zarr.json", "data_type", "unit"}},
		{name: "unit trailing space", build: unit(`"ns "`), want: []string{"zarr.json", "data_type", "unit"}},
		{name: "unit uppercase", build: unit(`"NS"`), want: []string{"zarr.json", "data_type", "unit", "NS"}},
		{name: "unit Greek mu accepted", build: unit(`"μs"`), accept: true},
		{name: "scale factor zero", build: func(t *testing.T, dir, _ string) {
			makeArray(t, dir, zarr.Metadata{})
			replaceIn(t, filepath.Join(dir, "zarr.json"), `"scale_factor":1`, `"scale_factor":0`)
		}, want: []string{"zarr.json", "scale_factor"}},
		{name: "scale factor 2^31", build: func(t *testing.T, dir, _ string) {
			makeArray(t, dir, zarr.Metadata{})
			replaceIn(t, filepath.Join(dir, "zarr.json"), `"scale_factor":1`, `"scale_factor":2147483648`)
		}, want: []string{"zarr.json", "scale_factor", "2147483648"}},
		{name: "v2 dtype micro sign", build: v2("dtype", `"<M8[µs]"`), want: []string{".zarray", "dtype"}},
		{name: "v2 dtype fullwidth", build: v2("dtype", `"<M8[ｎｓ]"`), want: []string{".zarray", "dtype"}},

		// ---- keys, separators, paths ----
		{name: "separator escapes the store", build: v3(plain, "chunk_key_encoding", `{"name":"default","configuration":{"separator":"/../"}}`),
			want: []string{"zarr.json", "chunk_key_encoding", "separator"}},
		{name: "separator backslash", build: v3(plain, "chunk_key_encoding", `{"name":"default","configuration":{"separator":"\\"}}`),
			want: []string{"zarr.json", "chunk_key_encoding", "separator"}},
		{name: "v2 separator escapes the store", build: v2("dimension_separator", `"/../../"`), want: []string{".zarray", "dimension_separator"}},
		{name: "chunk symlink outside the store", build: func(t *testing.T, dir, outside string) {
			makeArray(t, dir, zarr.Metadata{})
			_ = os.Remove(filepath.Join(dir, "c", "0"))
			if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "c", "0")); err != nil {
				t.Fatal(err)
			}
		}, want: []string{"c/0"}},
		{name: "chunk directory symlink outside", build: func(t *testing.T, dir, outside string) {
			makeArray(t, dir, zarr.Metadata{})
			_ = os.RemoveAll(filepath.Join(dir, "c"))
			writeFile(t, filepath.Join(outside, "c", "0"), make([]byte, 64))
			if err := os.Symlink(filepath.Join(outside, "c"), filepath.Join(dir, "c")); err != nil {
				t.Fatal(err)
			}
		}, want: []string{"c/0"}},
		{name: "metadata symlink outside", build: func(t *testing.T, dir, outside string) {
			makeArray(t, dir, zarr.Metadata{})
			b, _ := os.ReadFile(filepath.Join(dir, "zarr.json"))
			writeFile(t, filepath.Join(outside, "zarr.json"), b)
			_ = os.Remove(filepath.Join(dir, "zarr.json"))
			if err := os.Symlink(filepath.Join(outside, "zarr.json"), filepath.Join(dir, "zarr.json")); err != nil {
				t.Fatal(err)
			}
		}, want: []string{"zarr.json"}},
		{name: "chunk is a directory", build: func(t *testing.T, dir, _ string) {
			makeArray(t, dir, zarr.Metadata{})
			_ = os.Remove(filepath.Join(dir, "c", "0"))
			if err := os.MkdirAll(filepath.Join(dir, "c", "0", "x"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, want: []string{"c/0"}},
		{name: "chunk is a FIFO", build: func(t *testing.T, dir, _ string) {
			makeArray(t, dir, zarr.Metadata{})
			_ = os.Remove(filepath.Join(dir, "c", "0"))
			if err := mkfifo(filepath.Join(dir, "c", "0")); err != nil {
				t.Skip("mkfifo:", err)
			}
		}, want: []string{"c/0", "regular"}},
		{name: "zarr.json is a FIFO", build: func(t *testing.T, dir, _ string) {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := mkfifo(filepath.Join(dir, "zarr.json")); err != nil {
				t.Skip("mkfifo:", err)
			}
		}, want: []string{"zarr.json", "regular"}},
		{name: "chunk coordinates out of range", build: v3(plain), coords: [][]int64{{2}}, want: []string{"2"}},
		{name: "chunk coordinates negative", build: v3(plain), coords: [][]int64{{-1}}, want: []string{"-1"}},

		// ---- compression bombs and bad frames ----
		{name: "zstd bomb without content size", build: chunk(bigChunk(le(), zarr.ZstdCodec{}), func(t *testing.T, _ []byte) []byte { return zstdFrame(t, 64*mib, false) }),
			want: []string{"c/0", "zstd"}, is: zarr.ErrTooLarge},
		{name: "zstd frame declaring 64 MiB", build: chunk(bigChunk(le(), zarr.ZstdCodec{}), func(t *testing.T, _ []byte) []byte { return zstdFrame(t, 64*mib, true) }),
			want: []string{"c/0", "zstd", "67108864"}, is: zarr.ErrTooLarge},
		{name: "zstd RLE bomb with 2 TiB window", build: chunk(bigChunk(le(), zarr.ZstdCodec{}), constant(zstdRLEBomb(41, 512))),
			want: []string{"c/0", "zstd"}},
		{name: "zstd RLE bomb with 128 MiB window", build: chunk(bigChunk(le(), zarr.ZstdCodec{}), constant(zstdRLEBomb(27, 512))),
			want: []string{"c/0", "zstd"}},
		{name: "zstd truncated", build: chunk(bigChunk(le(), zarr.ZstdCodec{}), func(_ *testing.T, enc []byte) []byte { return enc[:len(enc)/2] }),
			want: []string{"c/0", "zstd"}, is: zarr.ErrCorrupt},
		{name: "zstd frame of the wrong size", build: chunk(bigChunk(le(), zarr.ZstdCodec{}), func(t *testing.T, _ []byte) []byte { return zstdFrame(t, 65528, true) }),
			want: []string{"c/0", "65528"}, is: zarr.ErrCorrupt},
		{name: "zstd checksum mismatch", build: chunk(codecs(le(), zarr.ZstdCodec{Checksum: true}), func(_ *testing.T, enc []byte) []byte { enc[len(enc)-1] ^= 0xff; return enc }),
			want: []string{"c/0", "zstd"}, is: zarr.ErrChecksum},
		{name: "gzip bomb", build: chunk(bigChunk(le(), zarr.GzipCodec{Level: 1}), constant(gzipOf(64*mib, 1))),
			want: []string{"c/0", "gzip"}, is: zarr.ErrTooLarge},
		{name: "gzip multi-member bomb", build: chunk(bigChunk(le(), zarr.GzipCodec{Level: 1}), constant(gzipOf(8*mib, 4))),
			want: []string{"c/0", "gzip"}, is: zarr.ErrTooLarge},
		{name: "gzip truncated", build: chunk(codecs(le(), zarr.GzipCodec{Level: 1}), func(_ *testing.T, enc []byte) []byte { return enc[:len(enc)-6] }),
			want: []string{"c/0", "gzip"}, is: zarr.ErrCorrupt},
		{name: "gzip CRC mismatch", build: chunk(codecs(le(), zarr.GzipCodec{Level: 1}), func(_ *testing.T, enc []byte) []byte { enc[len(enc)-6] ^= 1; return enc }),
			want: []string{"c/0", "gzip"}, is: zarr.ErrChecksum},
		{name: "v2 zlib bomb", build: func(t *testing.T, dir, _ string) {
			makeArray(t, dir, zarr.Metadata{Format: 2, Shape: []int64{16384}, ChunkShape: []int64{8192}, Codecs: []zarr.Codec{le(), zarr.ZlibCodec{Level: 1}}})
			writeFile(t, filepath.Join(dir, "0"), zlibOf(64*mib))
		}, want: []string{"0", "zlib"}, is: zarr.ErrTooLarge},

		{name: "blosc frame declaring 2 GiB", build: chunk(bigChunk(le(), bloscLZ4()), func(_ *testing.T, enc []byte) []byte { return bloscHeader(enc, 1<<31, 0, 0) }),
			want: []string{"c/0", "blosc"}},
		{name: "blosc block size 2 GiB", build: chunk(bigChunk(le(), bloscLZ4()), func(_ *testing.T, enc []byte) []byte { return bloscHeader(enc, 0, 1<<31, 0) }),
			want: []string{"c/0", "blosc"}},
		{name: "blosc compressed size beyond the file", build: chunk(bigChunk(le(), bloscLZ4()), func(_ *testing.T, enc []byte) []byte { return bloscHeader(enc, 0, 0, 1<<30) }),
			want: []string{"c/0", "blosc"}},
		{name: "blosc block start outside", build: chunk(bigChunk(le(), bloscLZ4()), func(_ *testing.T, enc []byte) []byte {
			binary.LittleEndian.PutUint32(enc[16:], 1<<30)
			return enc
		}), want: []string{"c/0", "blosc"}},
		{name: "blosc truncated", build: chunk(bigChunk(le(), bloscLZ4()), func(_ *testing.T, enc []byte) []byte { return enc[:len(enc)/2] }),
			want: []string{"c/0", "blosc"}},
		{name: "blosc header only", build: chunk(bigChunk(le(), bloscLZ4()), func(_ *testing.T, enc []byte) []byte { return enc[:16] }),
			want: []string{"c/0", "blosc"}},

		// ---- sizes and checksums ----
		{name: "chunk truncated", build: chunk(codecs(le()), func(_ *testing.T, enc []byte) []byte { return enc[:len(enc)-3] }),
			want: []string{"c/0", "61"}, is: zarr.ErrCorrupt},
		{name: "chunk empty file", build: chunk(codecs(le()), constant(nil)), want: []string{"c/0"}, is: zarr.ErrCorrupt},
		{name: "chunk too large", build: chunk(codecs(le()), func(_ *testing.T, enc []byte) []byte { return append(enc, 0) }),
			want: []string{"c/0", "65"}, is: zarr.ErrTooLarge},
		{name: "chunk 64 MiB on disk", build: chunk(codecs(le()), constant(make([]byte, 64*mib))),
			want: []string{"c/0"}, is: zarr.ErrTooLarge},
		{name: "crc32c mismatch", build: chunk(codecs(le(), zarr.CRC32CCodec{}), func(_ *testing.T, enc []byte) []byte { enc[0] ^= 1; return enc }),
			want: []string{"c/0", "crc32c"}, is: zarr.ErrChecksum},
		{name: "crc32c shorter than checksum", build: chunk(codecs(le(), zarr.CRC32CCodec{}), constant([]byte{1, 2, 3})),
			want: []string{"c/0", "crc32c"}, is: zarr.ErrCorrupt},

		// ---- shards ----
		{name: "shard index points outside", build: chunk(shard(zarr.IndexEnd), editIndex(1, 1<<40, 32)),
			want: []string{"c/0", "index entry 1", "outside"}, is: zarr.ErrCorrupt},
		{name: "shard index offset+nbytes overflows", build: chunk(shard(zarr.IndexEnd), editIndex(2, 1<<63, 1<<63)),
			want: []string{"c/0", "index entry 2"}, is: zarr.ErrCorrupt},
		{name: "shard index into the index", build: chunk(shard(zarr.IndexEnd), editIndex(3, 128+8, 32)),
			want: []string{"c/0", "index entry 3"}, is: zarr.ErrCorrupt},
		{name: "shard inner chunks overlap", build: chunk(shard(zarr.IndexEnd), editIndex(1, 16, 32)),
			want: []string{"c/0", "overlap"}, is: zarr.ErrCorrupt},
		{name: "shard inner chunk of 0 bytes", build: chunk(shard(zarr.IndexEnd), editIndex(0, 0, 0)),
			want: []string{"c/0", "inner chunk 0"}, is: zarr.ErrCorrupt},
		{name: "shard shorter than its index", build: chunk(shard(zarr.IndexEnd), constant(make([]byte, 63))),
			want: []string{"c/0", "index"}, is: zarr.ErrCorrupt},
		{name: "shard index crc32c mismatch", build: chunk(shard(zarr.IndexStart, zarr.CRC32CCodec{}), func(_ *testing.T, enc []byte) []byte { enc[5] ^= 1; return enc }),
			want: []string{"c/0", "shard index", "crc32c"}, is: zarr.ErrChecksum},
		{name: "shard of many tiny gzip chunks, tiny file", build: func(t *testing.T, dir, _ string) {
			// A 128 KiB chunk of 16384 one-element gzip inner chunks: the
			// bound on a stored shard is ~4 KiB per inner chunk (gzip's
			// worst case), 67 MB; a 100-byte file must not make the
			// reader allocate that bound up front.
			ctx := context.Background()
			a, err := zarr.Create(ctx, storage.NewDir(dir), zarr.Metadata{DataType: ns, Shape: []int64{16384}, ChunkShape: []int64{16384},
				Codecs: []zarr.Codec{zarr.ShardingCodec{ChunkShape: []int64{1}, Codecs: []zarr.Codec{le(), zarr.GzipCodec{Level: 1}}, IndexCodecs: []zarr.Codec{le()}}}})
			if err != nil {
				t.Fatal(err)
			}
			if err := a.WriteMetadata(ctx); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, "c", "0"), make([]byte, 100))
		}, want: []string{"c/0", "index"}, is: zarr.ErrCorrupt, bound: 8 * mib},

		// ---- unsupported and unknown ----
		{name: "unknown codec", build: v3(nil, "codecs", `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"evil"}]`), want: []string{"zarr.json", "codecs[1]", "evil"}},
		{name: "must_understand extension", build: v3(plain, "evil", `{"must_understand":true}`), want: []string{"zarr.json", "evil"}},
		{name: "storage transformer", build: v3(plain, "storage_transformers", `[{"name":"evil"}]`), want: []string{"zarr.json", "storage_transformers"}, is: zarr.ErrUnsupported},
		{name: "group node", build: v3(plain, "node_type", `"group"`), want: []string{"zarr.json", "node_type"}},
		// 150 levels is a 23 KB zarr.json; it must open quickly or be
		// refused (a nesting limit), not take seconds.
		{name: "sharding nested 150 deep", build: v3(plain, "codecs", nestedShardingJSON(150)), either: true, want: []string{"zarr.json", "codecs"}},
	}
}

// treeHash hashes a directory tree without following symbolic links or
// opening anything but regular files: names, types, link targets, contents.
func treeHash(t *testing.T, root string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%v\x00", rel, info.Mode())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "->%s\x00", target)
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("hashing %s: %v", root, err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// openAndRead opens the store and reads the given chunks (chunk 0 when
// coords is nil), measuring allocation outside the caller's buffers.
func openAndRead(dir string, coords [][]int64) (alloc uint64, err error) {
	ctx := context.Background()
	st := storage.NewDir(dir)
	defer st.Close()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	a, err := zarr.Open(ctx, st)
	runtime.ReadMemStats(&m1)
	alloc = m1.TotalAlloc - m0.TotalAlloc
	if err != nil {
		return alloc, err
	}
	if coords == nil {
		coords = [][]int64{make([]int64, len(a.Shape()))}
	}
	if a.ChunkLen() > 64<<20 {
		return alloc, fmt.Errorf("chunk of %d elements: test refuses to allocate it", a.ChunkLen())
	}
	dst := make([]byte, 8*a.ChunkLen())
	for _, c := range coords {
		runtime.ReadMemStats(&m0)
		_, _, err = a.ReadChunkRaw(ctx, c, dst)
		runtime.ReadMemStats(&m1)
		alloc += m1.TotalAlloc - m0.TotalAlloc
		if err != nil {
			return alloc, err
		}
	}
	return alloc, nil
}

// unblockFIFOs opens every FIFO under dir for writing and closes it, so
// that a reader stuck opening one returns (after a hang was detected).
func unblockFIFOs(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type()&fs.ModeNamedPipe != 0 {
			if f, err := openFIFOWriter(p); err == nil {
				_ = f.Close()
			}
		}
		return nil
	})
}

func TestHostileInputs(t *testing.T) {
	cases := hostileCases()
	if len(cases) < 40 {
		t.Fatalf("only %d hostile cases", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir, outside := filepath.Join(base, "a.zarr"), filepath.Join(base, "outside")
			writeFile(t, filepath.Join(outside, "secret"), []byte("do not read"))
			tc.build(t, dir, outside)
			before, beforeOut := treeHash(t, dir), treeHash(t, outside)

			type result struct {
				alloc uint64
				err   error
			}
			done := make(chan result, 1)
			go func() {
				alloc, err := openAndRead(dir, tc.coords)
				done <- result{alloc, err}
			}()
			var r result
			select {
			case r = <-done:
			case <-time.After(5 * time.Second):
				t.Errorf("Open/ReadChunkRaw did not return within 5 s (hangs)")
				// Let it finish: a reader left running would allocate
				// during the next cases' measurements.
				unblockFIFOs(dir)
				select {
				case <-done:
				case <-time.After(5 * time.Minute):
				}
				return
			}

			bound := tc.bound
			if bound == 0 {
				bound = 16 << 20
			}
			if r.alloc > bound {
				t.Errorf("allocated %d bytes (bound %d); error: %v", r.alloc, bound, r.err)
			}
			if tc.either && r.err == nil {
				// accepted: fine
			} else if tc.accept {
				if r.err != nil {
					t.Errorf("valid input refused: %v", r.err)
				}
			} else if r.err == nil {
				t.Errorf("accepted; want an error containing %q", tc.want)
			} else {
				msg := r.err.Error()
				for _, w := range tc.want {
					if !strings.Contains(msg, w) {
						t.Errorf("error %q does not contain %q", msg, w)
					}
				}
				if tc.is != nil && !errors.Is(r.err, tc.is) {
					t.Errorf("error %q is not %v", msg, tc.is)
				}
			}
			if after := treeHash(t, dir); after != before {
				t.Errorf("the store changed")
			}
			if after := treeHash(t, outside); after != beforeOut {
				t.Errorf("the directory outside the store changed")
			}
		})
	}
}
