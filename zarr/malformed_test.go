package zarr

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
)

const goodV3 = `{
  "zarr_format": 3, "node_type": "array", "shape": [16],
  "data_type": {"name": "numpy.datetime64", "configuration": {"unit": "ns", "scale_factor": 1}},
  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [5]}},
  "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
  "fill_value": -9223372036854775808,
  "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
  "attributes": {}
}`

// edit returns goodV3 with field replaced by raw (or deleted when raw is "").
func edit(t *testing.T, field, raw string) []byte {
	t.Helper()
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(goodV3), &obj); err != nil {
		t.Fatal(err)
	}
	if raw == "" {
		delete(obj, field)
	} else {
		obj[field] = json.RawMessage(raw)
	}
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func edit2(t *testing.T, f1, r1, f2, r2 string) []byte {
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(edit(t, f1, r1), &obj)
	obj[f2] = json.RawMessage(r2)
	b, _ := json.Marshal(obj)
	return b
}

func openDoc(t *testing.T, key string, doc []byte) (*Array, error) {
	t.Helper()
	st := storage.NewMemory()
	if err := st.Set(context.Background(), key, doc); err != nil {
		t.Fatal(err)
	}
	return Open(context.Background(), st)
}

func TestMalformedMetadataV3(t *testing.T) {
	cases := []struct {
		name       string
		doc        []byte
		field, msg string
	}{
		{"bad JSON", []byte(`{"zarr_format": 3,`), "", "malformed JSON"},
		{"not an object", []byte(`[1, 2]`), "", "must be a JSON object"},
		{"format string", edit(t, "zarr_format", `"3"`), "zarr_format", "want int"},
		{"format 2", edit(t, "zarr_format", `2`), "zarr_format", "want 3"},
		{"group", edit(t, "node_type", `"group"`), "node_type", "not an array"},
		{"shape missing", edit(t, "shape", ""), "shape", "required"},
		{"shape string", edit(t, "shape", `"16"`), "shape", "want []int64"},
		{"shape float", edit(t, "shape", `[1.5]`), "shape", ""},
		{"shape huge", edit(t, "shape", `[1e30]`), "shape", ""},
		{"shape negative", edit(t, "shape", `[-1]`), "shape", "negative"},
		{"shape rank", edit(t, "shape", `[16, 2]`), "chunk_grid.configuration.chunk_shape", "dimensions"},
		{"element count overflow", edit2(t, "shape", `[9223372036854775807, 9223372036854775807]`, "chunk_grid", `{"name":"regular","configuration":{"chunk_shape":[1, 1]}}`), "shape", "more than"},
		{"chunk count overflow", edit2(t, "shape", `[4294967296, 4294967296]`, "chunk_grid", `{"name":"regular","configuration":{"chunk_shape":[1, 1]}}`), "", ""},
		{"data_type unknown", edit(t, "data_type", `"int24"`), "data_type", ""},
		{"chunk zero", edit(t, "chunk_grid", `{"name":"regular","configuration":{"chunk_shape":[0]}}`), "chunk_grid.configuration.chunk_shape", "positive"},
		{"chunk product overflow", edit(t, "chunk_grid", `{"name":"regular","configuration":{"chunk_shape":[4611686018427387904]}}`), "chunk_grid", "more than 1 TiB decoded"},
		{"grid name", edit(t, "chunk_grid", `{"name":"rectilinear","configuration":{}}`), "chunk_grid.name", "regular"},
		{"key encoding", edit(t, "chunk_key_encoding", `{"name":"weird"}`), "chunk_key_encoding", "unknown chunk key encoding"},
		{"separator", edit(t, "chunk_key_encoding", `{"name":"default","configuration":{"separator":"-"}}`), "chunk_key_encoding", "separator"},
		{"fill string", edit(t, "fill_value", `"2020-01-01"`), "fill_value", ""},
		{"fill null", edit(t, "fill_value", `null`), "fill_value", ""},
		{"codecs object", edit(t, "codecs", `{"name":"bytes"}`), "codecs", "want []json.RawMessage"},
		{"no codecs", edit(t, "codecs", `[]`), "codecs", "array->bytes"},
		{"unknown codec", edit(t, "codecs", `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"snazzy"}]`), "codecs[1]", `unknown codec "snazzy"`},
		{"blosc", edit(t, "codecs", `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"blosc","configuration":{}}]`), "codecs[1].configuration.cname", "required"},
		{"endian missing", edit(t, "codecs", `[{"name":"bytes"}]`), "codecs[0].configuration", "endian"},
		{"endian bad", edit(t, "codecs", `[{"name":"bytes","configuration":{"endian":"middle"}}]`), "codecs[0].configuration", "middle"},
		{"zstd level type", edit(t, "codecs", `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":"3"}}]`), "codecs[1].configuration", "zstd"},
		{"zstd unknown field", edit(t, "codecs", `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"levle":3}}]`), "codecs[1].configuration", "levle"},
		{"gzip level", edit(t, "codecs", `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"gzip","configuration":{"level":12}}]`), "codecs[1].configuration", "out of range"},
		{"codec before bytes", edit(t, "codecs", `[{"name":"crc32c"},{"name":"bytes","configuration":{"endian":"little"}}]`), "codecs[0]", "comes before"},
		{"transpose after bytes", edit(t, "codecs", `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"transpose","configuration":{"order":[0]}}]`), "codecs[1]", "cannot follow"},
		{"two array->bytes", edit(t, "codecs", `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"bytes","configuration":{"endian":"little"}}]`), "codecs[1]", "cannot follow"},
		{"zlib in v3", edit(t, "codecs", `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zlib","configuration":{"level":1}}]`), "codecs[1]", "unknown codec"},
		{"transpose not permutation", edit(t, "codecs", `[{"name":"transpose","configuration":{"order":[1]}},{"name":"bytes","configuration":{"endian":"little"}}]`), "codecs[0]", "permutation"},
		{"shard not dividing", edit(t, "codecs", `[{"name":"sharding_indexed","configuration":{"chunk_shape":[2],"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}}]}}]`), "codecs[0].configuration.chunk_shape", "divide"},
		{"shard index zstd", edit(t, "codecs", `[{"name":"sharding_indexed","configuration":{"chunk_shape":[5],"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":1}}]}}]`), "codecs[0].configuration.index_codecs[1]", "fixed encoded size"},
		{"shard inner endian missing", edit(t, "codecs", `[{"name":"sharding_indexed","configuration":{"chunk_shape":[5],"codecs":[{"name":"bytes"}],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}}]}}]`), "codecs[0].configuration.codecs[0].configuration", "endian"},
		{"storage transformer", edit(t, "storage_transformers", `[{"name":"chunk-manifest"}]`), "storage_transformers", "not supported yet"},
		{"unknown extension", edit(t, "my_ext", `{"name":"x"}`), "my_ext", "unknown extension"},
		{"must understand", edit(t, "my_ext", `{"must_understand": true}`), "my_ext", "unknown extension"},
		{"extension not object", edit(t, "my_ext", `false`), "my_ext", "unknown extension"},
		{"dimension names count", edit(t, "dimension_names", `["t", "x"]`), "dimension_names", "2 names"},
		{"attributes array", edit(t, "attributes", `[]`), "attributes", "object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := openDoc(t, "zarr.json", c.doc)
			if err == nil {
				t.Fatalf("opened %+v", a.Metadata())
			}
			var me *MetadataError
			if !errors.As(err, &me) {
				t.Fatalf("%v is not a *MetadataError", err)
			}
			if !strings.HasSuffix(me.File, "zarr.json") || (c.field != "" && me.Field != c.field) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("got %q (file %q field %q), want field %q and %q", err, me.File, me.Field, c.field, c.msg)
			}
		})
	}
}

func TestExtensionsKept(t *testing.T) {
	ctx := context.Background()
	ext := `{"must_understand": false,  "x" : [1,2]}`
	attrs := `{"b": 1,   "a": {"deep": null}}`
	doc := edit(t, "my_ext", ext)
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(doc, &obj)
	obj["attributes"] = json.RawMessage(attrs)
	obj["dimension_names"] = json.RawMessage(`[ "time" ]`)
	doc, _ = json.Marshal(obj)
	// json.Marshal compacts RawMessage; put the spacing back.
	doc = bytes.Replace(doc, []byte(`{"must_understand":false,"x":[1,2]}`), []byte(ext), 1)
	doc = bytes.Replace(doc, []byte(`{"b":1,"a":{"deep":null}}`), []byte(attrs), 1)
	doc = bytes.Replace(doc, []byte(`["time"]`), []byte(`[ "time" ]`), 1)
	a, err := openDoc(t, "zarr.json", doc)
	if err != nil {
		t.Fatal(err)
	}
	st := storage.NewMemory()
	b, err := Create(ctx, st, a.Metadata())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	out, _ := st.Get(ctx, "zarr.json")
	for _, want := range []string{`"my_ext": ` + ext, `"attributes": ` + attrs, `"dimension_names": [ "time" ]`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("rewritten zarr.json lacks %s:\n%s", want, out)
		}
	}
}

func TestMalformedMetadataV2(t *testing.T) {
	good := map[string]string{
		"zarr_format": `2`, "shape": `[10]`, "chunks": `[4]`, "dtype": `"<M8[ns]"`,
		"compressor": `null`, "fill_value": `null`, "order": `"C"`, "filters": `null`,
	}
	doc := func(field, raw string) []byte {
		m := map[string]json.RawMessage{}
		for k, v := range good {
			m[k] = json.RawMessage(v)
		}
		if raw == "" {
			delete(m, field)
		} else {
			m[field] = json.RawMessage(raw)
		}
		b, _ := json.Marshal(m)
		return b
	}
	if _, err := openDoc(t, ".zarray", doc("dimension_separator", `"/"`)); err != nil {
		t.Fatalf("good .zarray: %v", err)
	}
	cases := []struct {
		name       string
		doc        []byte
		field, msg string
	}{
		{"bad JSON", []byte(`{"zarr_format": 2`), "", "malformed JSON"},
		{"order F", doc("order", `"F"`), "order", `"F"`},
		{"blosc", doc("compressor", `{"id":"blosc","cname":"lz5","clevel":5,"shuffle":1,"blocksize":0}`), "compressor", `cname "lz5"`},
		{"lz4", doc("compressor", `{"id":"lz4","acceleration":1}`), "compressor", `compressor "lz4" is not supported yet`},
		{"unknown compressor", doc("compressor", `{"id":"brotli"}`), "compressor", `unknown compressor "brotli"`},
		{"compressor no id", doc("compressor", `{"level":1}`), "compressor", "id"},
		{"zstd level type", doc("compressor", `{"id":"zstd","level":"1"}`), "compressor", "zstd"},
		{"filters", doc("filters", `[{"id":"delta","dtype":"<M8[ns]"}]`), "filters", `"delta"`},
		{"int dtype without byte order", doc("dtype", `"|i8"`), "dtype", "byte order"},
		{"structured dtype", doc("dtype", `[["a","<M8[ns]"]]`), "dtype", ""},
		{"fill string", doc("fill_value", `"yesterday"`), "fill_value", ""},
		{"separator", doc("dimension_separator", `"-"`), "dimension_separator", "separator"},
		{"chunks zero", doc("chunks", `[0]`), "chunks", "positive"},
		{"chunks missing", doc("chunks", ""), "chunks", "required"},
		{"format", doc("zarr_format", `3`), "zarr_format", "want 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := openDoc(t, ".zarray", c.doc)
			var me *MetadataError
			if !errors.As(err, &me) {
				t.Fatalf("%v is not a *MetadataError", err)
			}
			if !strings.HasSuffix(me.File, ".zarray") || (c.field != "" && me.Field != c.field) || !strings.Contains(err.Error(), c.msg) {
				t.Errorf("got %q (field %q), want field %q and %q", err, me.Field, c.field, c.msg)
			}
		})
	}
	// A bad .zattrs names .zattrs.
	st := storage.NewMemory()
	_ = st.Set(context.Background(), ".zarray", doc("x", ""))
	_ = st.Set(context.Background(), ".zattrs", []byte(`[1]`))
	if _, err := Open(context.Background(), st); err == nil || !strings.Contains(err.Error(), ".zattrs") {
		t.Errorf("bad .zattrs: %v", err)
	}
}

// corruptArray creates a 1-D array of 4096-element chunks with codecs,
// writes chunk 0, and returns it with the store.
func corruptArray(t *testing.T, codecs ...Codec) (*Array, *storage.Memory) {
	t.Helper()
	st := storage.NewMemory()
	a, err := Create(context.Background(), st, Metadata{DataType: ns, Shape: []int64{8192}, ChunkShape: []int64{4096},
		FillValue: dtype.NaT, Codecs: codecs})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WriteChunk(context.Background(), []int64{0}, truthValues(4096, 7)); err != nil {
		t.Fatal(err)
	}
	return a, st
}

// expectChunkError reads chunk 0 after storing enc under its key and checks
// for a ChunkError naming key "c/0" and wrapping want.
func expectChunkError(t *testing.T, a *Array, st *storage.Memory, enc []byte, want error, msg string) {
	t.Helper()
	ctx := context.Background()
	if enc != nil {
		_ = st.Set(ctx, "c/0", enc)
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	err := a.ReadChunk(ctx, []int64{0}, make([]int64, a.ChunkLen()))
	runtime.ReadMemStats(&m1)
	var ce *ChunkError
	if !errors.As(err, &ce) || ce.Key != "c/0" || ce.Array != "memory" {
		t.Fatalf("got %v, want a ChunkError for c/0", err)
	}
	if !errors.Is(err, want) || !strings.Contains(err.Error(), msg) {
		t.Errorf("got %q, want %v and %q", err, want, msg)
	}
	// Decoding a bomb must not allocate for its claimed or real size.
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 8<<20 {
		t.Errorf("reading a bad chunk allocated %d bytes", alloc)
	}
}

func TestCorruptChunks(t *testing.T) {
	ctx := context.Background()
	stored := func(st *storage.Memory) []byte { b, _ := st.Get(ctx, "c/0"); return b }

	t.Run("zstd truncated", func(t *testing.T) {
		a, st := corruptArray(t, le(), ZstdCodec{})
		enc := stored(st)
		expectChunkError(t, a, st, enc[:len(enc)/2], ErrCorrupt, "zstd")
	})
	t.Run("zstd garbage", func(t *testing.T) {
		a, st := corruptArray(t, le(), ZstdCodec{})
		expectChunkError(t, a, st, []byte("not a zstd frame at all"), ErrCorrupt, "zstd")
	})
	t.Run("zstd content size too large", func(t *testing.T) {
		a, st := corruptArray(t, le(), ZstdCodec{})
		big := make([]byte, 64<<20)
		enc := zstdStage{small: zstdEncoder(ZstdCodec{}, true), large: zstdEncoder(ZstdCodec{}, false)}
		frame, _ := enc.encode(nil, big)
		expectChunkError(t, a, st, frame, ErrTooLarge, "declares 67108864 bytes")
	})
	t.Run("zstd bomb without content size", func(t *testing.T) {
		a, st := corruptArray(t, le(), ZstdCodec{})
		var buf bytes.Buffer
		w, _ := zstd.NewWriter(&buf) // streaming: no content size in the header
		_, _ = w.Write(make([]byte, 16<<20))
		_ = w.Close()
		var h zstd.Header
		if err := h.Decode(buf.Bytes()); err != nil || h.HasFCS {
			t.Fatalf("bomb frame has a content size (%+v, %v)", h, err)
		}
		expectChunkError(t, a, st, buf.Bytes(), ErrTooLarge, "zstd frame decodes to")
	})
	t.Run("zstd short", func(t *testing.T) {
		a, st := corruptArray(t, le(), ZstdCodec{})
		frame := zstdEncoder(ZstdCodec{}, true).EncodeAll(make([]byte, 100), nil)
		expectChunkError(t, a, st, frame, ErrCorrupt, "decoded chunk is 100 bytes, want 32768")
	})
	t.Run("zstd checksum", func(t *testing.T) {
		a, st := corruptArray(t, le(), ZstdCodec{Checksum: true})
		enc := bytes.Clone(stored(st))
		enc[len(enc)-1] ^= 0xff
		expectChunkError(t, a, st, enc, ErrChecksum, "zstd")
	})
	t.Run("gzip bomb", func(t *testing.T) {
		a, st := corruptArray(t, le(), GzipCodec{Level: 1})
		var buf bytes.Buffer
		w, _ := gzip.NewWriterLevel(&buf, 9)
		_, _ = w.Write(make([]byte, 16<<20))
		_ = w.Close()
		expectChunkError(t, a, st, buf.Bytes(), ErrTooLarge, "gzip stream decodes to")
	})
	t.Run("gzip truncated", func(t *testing.T) {
		a, st := corruptArray(t, le(), GzipCodec{Level: 1})
		enc := stored(st)
		expectChunkError(t, a, st, enc[:len(enc)-6], ErrCorrupt, "gzip")
	})
	t.Run("gzip checksum", func(t *testing.T) {
		a, st := corruptArray(t, le(), GzipCodec{Level: 1})
		enc := bytes.Clone(stored(st))
		enc[len(enc)-6] ^= 0xff // inside the CRC-32 trailer
		expectChunkError(t, a, st, enc, ErrChecksum, "gzip")
	})
	t.Run("stored chunk too large", func(t *testing.T) {
		a, st := corruptArray(t, le())
		expectChunkError(t, a, st, make([]byte, 32768+1), ErrTooLarge, "stored chunk of 32769 bytes")
	})
	t.Run("bytes wrong size", func(t *testing.T) {
		a, st := corruptArray(t, le())
		expectChunkError(t, a, st, make([]byte, 32760), ErrCorrupt, "decoded chunk is 32760 bytes, want 32768")
	})
	t.Run("crc32c mismatch", func(t *testing.T) {
		a, st := corruptArray(t, le(), ZstdCodec{}, CRC32CCodec{})
		enc := bytes.Clone(stored(st))
		enc[3] ^= 1
		expectChunkError(t, a, st, enc, ErrChecksum, "crc32c")
	})
	t.Run("crc32c short", func(t *testing.T) {
		a, st := corruptArray(t, le(), CRC32CCodec{})
		expectChunkError(t, a, st, []byte{1, 2}, ErrCorrupt, "shorter than the 4-byte checksum")
	})

	shard := func(loc IndexLocation) []Codec {
		return []Codec{ShardingCodec{ChunkShape: []int64{1024}, IndexLocation: loc,
			Codecs: []Codec{le(), ZstdCodec{}}, IndexCodecs: []Codec{le()}}}
	}
	// index returns the shard's index entries (end location, bytes LE).
	index := func(enc []byte) []byte { return enc[len(enc)-4*16:] }
	t.Run("shard index outside", func(t *testing.T) {
		a, st := corruptArray(t, shard(IndexEnd)...)
		enc := bytes.Clone(stored(st))
		binary.LittleEndian.PutUint64(index(enc)[16:], uint64(len(enc)))
		expectChunkError(t, a, st, enc, ErrCorrupt, "index entry 1")
	})
	t.Run("shard index offset overflow", func(t *testing.T) {
		a, st := corruptArray(t, shard(IndexEnd)...)
		enc := bytes.Clone(stored(st))
		binary.LittleEndian.PutUint64(index(enc)[16:], 1<<63)
		binary.LittleEndian.PutUint64(index(enc)[24:], 1<<63)
		expectChunkError(t, a, st, enc, ErrCorrupt, "points outside")
	})
	t.Run("shard index into index", func(t *testing.T) {
		a, st := corruptArray(t, shard(IndexStart)...)
		enc := bytes.Clone(stored(st))
		binary.LittleEndian.PutUint64(enc[0:], 0) // chunk 0 starts inside the index
		expectChunkError(t, a, st, enc, ErrCorrupt, "points outside")
	})
	t.Run("shard overlap", func(t *testing.T) {
		a, st := corruptArray(t, shard(IndexEnd)...)
		enc := bytes.Clone(stored(st))
		idx := index(enc)
		copy(idx[16:32], idx[0:16]) // chunk 1 = chunk 0's bytes
		expectChunkError(t, a, st, enc, ErrCorrupt, "overlap")
	})
	t.Run("shard overlap out of order", func(t *testing.T) {
		// Stored in reverse order (valid, see TestShardOutOfOrder), with
		// chunk 1 running into chunk 0, stored after it: only the sort finds it.
		a, st := corruptArray(t, shard(IndexEnd)...)
		enc := reversedShard(t, stored(st), 4)
		idx := index(enc)
		le := binary.LittleEndian
		le.PutUint64(idx[24:], le.Uint64(idx[24:])+1)
		expectChunkError(t, a, st, enc, ErrCorrupt, "inner chunks 1 [")
	})
	t.Run("shard half empty marker", func(t *testing.T) {
		a, st := corruptArray(t, shard(IndexEnd)...)
		enc := bytes.Clone(stored(st))
		binary.LittleEndian.PutUint64(index(enc)[0:], emptyMarker)
		expectChunkError(t, a, st, enc, ErrCorrupt, "points outside")
	})
	t.Run("shard truncated", func(t *testing.T) {
		a, st := corruptArray(t, shard(IndexEnd)...)
		expectChunkError(t, a, st, []byte{1, 2, 3}, ErrCorrupt, "shorter than its 64-byte index")
	})
	t.Run("shard index crc", func(t *testing.T) {
		a, st := corruptArray(t, ShardingCodec{ChunkShape: []int64{1024},
			Codecs: []Codec{le()}, IndexCodecs: []Codec{le(), CRC32CCodec{}}})
		enc := bytes.Clone(stored(st))
		enc[len(enc)-10] ^= 1
		expectChunkError(t, a, st, enc, ErrChecksum, "shard index: crc32c")
	})
}

// reversedShard is enc, a shard of n inner chunks with its index at the
// end (bytes LE), stored with its inner chunks in reverse order.
func reversedShard(t *testing.T, enc []byte, n int) []byte {
	t.Helper()
	le := binary.LittleEndian
	idx := enc[len(enc)-n*16:]
	out := []byte{}
	newIdx := make([]byte, n*16)
	for q := n - 1; q >= 0; q-- {
		off, nb := le.Uint64(idx[q*16:]), le.Uint64(idx[q*16+8:])
		le.PutUint64(newIdx[q*16:], uint64(len(out)))
		le.PutUint64(newIdx[q*16+8:], nb)
		out = append(out, enc[off:off+nb]...)
	}
	if q0 := le.Uint64(newIdx[0:]); q0 == 0 {
		t.Fatal("reversedShard: chunk 0 still first")
	}
	return append(out, newIdx...)
}

// A shard whose inner chunks are stored in another order than the index's
// decodes the same values.
func TestShardOutOfOrder(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	a, err := Create(ctx, st, Metadata{DataType: ns, Shape: []int64{4096}, ChunkShape: []int64{4096}, FillValue: dtype.NaT,
		Codecs: []Codec{ShardingCodec{ChunkShape: []int64{1024}, Codecs: []Codec{le(), ZstdCodec{}}, IndexCodecs: []Codec{le()}}}})
	if err != nil {
		t.Fatal(err)
	}
	want := truthValues(4096, 7)
	if err := a.WriteChunk(ctx, []int64{0}, want); err != nil {
		t.Fatal(err)
	}
	enc, err := st.Get(ctx, "c/0")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Set(ctx, "c/0", reversedShard(t, enc, 4)); err != nil {
		t.Fatal(err)
	}
	got := make([]int64, 4096)
	if err := a.ReadChunk(ctx, []int64{0}, got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Fatal("values differ after reordering the shard's inner chunks")
	}
}

// Random bytes as a stored chunk, for every chain, give errors, not panics.
func TestRandomChunksNoPanic(t *testing.T) {
	chains := [][]Codec{
		{le()}, {le(), ZstdCodec{}}, {be(), GzipCodec{Level: 1}}, {le(), CRC32CCodec{}},
		{ShardingCodec{ChunkShape: []int64{2}, Codecs: []Codec{le(), ZstdCodec{}}, IndexCodecs: []Codec{le()}}},
		{ShardingCodec{ChunkShape: []int64{4}, IndexLocation: IndexStart, Codecs: []Codec{be()}, IndexCodecs: []Codec{le()}}},
	}
	r := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	for _, codecs := range chains {
		st := storage.NewMemory()
		a, err := Create(ctx, st, Metadata{DataType: ns, Shape: []int64{8}, ChunkShape: []int64{8}, FillValue: 0, Codecs: codecs})
		if err != nil {
			t.Fatal(err)
		}
		_ = a.WriteChunk(ctx, []int64{0}, truthValues(8, 3))
		good, _ := st.Get(ctx, "c/0")
		dst := make([]int64, 8)
		for range 2000 {
			var b []byte
			if r.IntN(2) == 0 {
				b = make([]byte, r.IntN(200))
				for i := range b {
					b[i] = byte(r.Uint32())
				}
			} else { // a valid chunk with a few bytes flipped
				b = bytes.Clone(good)
				for range 1 + r.IntN(3) {
					b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
				}
			}
			_ = st.Set(ctx, "c/0", b)
			_ = a.ReadChunk(ctx, []int64{0}, dst)
		}
	}
}

func TestStoreKeys(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	d := storage.NewDir(filepath.Join(root, "a.zarr"))
	for _, key := range []string{"", "../x", "c/../../x", "/etc/passwd", `c\0`, "c//0", "./c", "c/.", "a\x00b"} {
		if _, err := d.Get(ctx, key); !errors.Is(err, storage.ErrInvalidKey) {
			t.Errorf("Get(%q): %v, want storage.ErrInvalidKey", key, err)
		}
		if err := d.Set(ctx, key, []byte("x")); !errors.Is(err, storage.ErrInvalidKey) {
			t.Errorf("Set(%q): %v, want storage.ErrInvalidKey", key, err)
		}
	}
	if err := d.Set(ctx, "c/0", []byte("v")); err != nil {
		t.Fatal(err)
	}
	// A symbolic link inside the store pointing outside is not followed.
	if err := os.Symlink(outside, filepath.Join(root, "a.zarr", "link")); err != nil {
		t.Fatal(err)
	}
	if b, err := d.Get(ctx, "link/secret"); err == nil {
		t.Errorf("read %q through a symlink escaping the store", b)
	}
	if err := d.Set(ctx, "link/new", []byte("x")); err == nil {
		t.Errorf("wrote through a symlink escaping the store")
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Errorf("file created outside the store")
	}
	// Missing keys, and keys under a file, are fs.ErrNotExist.
	for _, key := range []string{"c/1", "c/0/1", "zarr.json"} {
		if _, err := d.Get(ctx, key); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("Get(%q): %v, want fs.ErrNotExist", key, err)
		}
	}
	if _, err := storage.NewDir(filepath.Join(root, "nope")).Get(ctx, "zarr.json"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing store: %v", err)
	}
	keys, err := d.List(ctx, "c/")
	if err != nil || len(keys) != 1 || keys[0] != "c/0" {
		t.Errorf("List: %v %v", keys, err)
	}
	if err := d.Delete(ctx, "c/0"); err != nil {
		t.Fatal(err)
	}
	if err := d.Delete(ctx, "c/0"); err != nil {
		t.Errorf("deleting a missing key: %v", err)
	}
	// A stored chunk larger than the limit is refused before reading.
	_ = d.Set(ctx, "big", make([]byte, 1000))
	if _, err := d.GetInto(ctx, "big", nil, 999); !errors.Is(err, ErrTooLarge) {
		t.Errorf("GetInto over limit: %v", err)
	}
}

func TestBadCoordinatesAndBuffers(t *testing.T) {
	ctx := context.Background()
	a, _ := corruptArray(t, le())
	for _, c := range [][]int64{{2}, {-1}, {0, 0}, nil} {
		err := a.ReadChunk(ctx, c, make([]int64, 4096))
		var ce *ChunkError
		if !errors.As(err, &ce) {
			t.Errorf("coords %v: %v", c, err)
		}
	}
	if err := a.ReadChunk(ctx, []int64{0}, make([]int64, 10)); err == nil {
		t.Error("short dst accepted")
	}
	if _, _, err := a.ReadChunkRaw(ctx, []int64{0}, make([]byte, 10)); err == nil {
		t.Error("short raw dst accepted")
	}
	if err := a.WriteChunk(ctx, []int64{0}, make([]int64, 10)); err == nil {
		t.Error("short src accepted")
	}
	if _, err := a.WriteChunkRaw(ctx, []int64{0}, make([]byte, 10)); err == nil {
		t.Error("short raw src accepted")
	}
}

// zarr's "not supported" is the standard library's too, as transcode's and
// objstore's are, so a caller needs one errors.Is for any of them.
func TestErrUnsupportedWrapsStandard(t *testing.T) {
	err := fmt.Errorf("codec %q: %w", "lz4", ErrUnsupported)
	if !errors.Is(err, errors.ErrUnsupported) || !errors.Is(err, ErrUnsupported) {
		t.Fatalf("%v does not match both errors.ErrUnsupported and zarr.ErrUnsupported", err)
	}
	if err.Error() != `codec "lz4": not supported yet` {
		t.Errorf("message %q", err)
	}
}
