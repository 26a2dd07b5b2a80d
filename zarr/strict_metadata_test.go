package zarr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
)

var nsType = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}

// goodV2 is a valid .zarray.
const goodV2 = `{"zarr_format": 2, "shape": [10], "chunks": [5], "dtype": "<M8[ns]", "compressor": null,
 "fill_value": null, "order": "C", "filters": null}`

func TestDuplicateKeys(t *testing.T) {
	cases := []struct {
		name, key string
		doc       string
		field     string // MetadataError.Field
		dupKey    string
	}{
		{"top level", v3MetadataKey, strings.Replace(goodV3, `"shape": [16]`, `"shape": [16], "shape": [32]`, 1), "shape", "shape"},
		{"escaped spelling of the same key", v3MetadataKey, strings.Replace(goodV3, `"shape": [16]`, `"shape": [16], "\u0073hape": [32]`, 1), "shape", "shape"},
		{"codec configuration", v3MetadataKey, strings.Replace(goodV3, `{"endian": "little"}`, `{"endian": "little", "endian": "big"}`, 1),
			"codecs[0].configuration.endian", "endian"},
		{"chunk grid", v3MetadataKey, strings.Replace(goodV3, `"chunk_shape": [5]`, `"chunk_shape": [5], "chunk_shape": [8]`, 1),
			"chunk_grid.configuration.chunk_shape", "chunk_shape"},
		{"inside attributes", v3MetadataKey, strings.Replace(goodV3, `"attributes": {}`, `"attributes": {"a": [{"b": 1, "b": 2}]}`, 1),
			"attributes.a[0].b", "b"},
		{"data_type unit", v3MetadataKey, strings.Replace(goodV3, `"unit": "ns"`, `"unit": "ns", "unit": "s"`, 1),
			"data_type.configuration.unit", "unit"},
		{".zarray dtype", v2ArrayKey, strings.Replace(goodV2, `"dtype": "<M8[ns]"`, `"dtype": "<M8[ns]", "dtype": "<M8[s]"`, 1), "dtype", "dtype"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := openDoc(t, c.key, []byte(c.doc))
			var me *MetadataError
			if !errors.As(err, &me) {
				t.Fatalf("got %v, want a *MetadataError", err)
			}
			if !strings.HasSuffix(me.File, c.key) || me.Field != c.field {
				t.Errorf("File %q Field %q, want %q %q (%v)", me.File, me.Field, c.key, c.field, err)
			}
			if msg := err.Error(); !strings.Contains(msg, "duplicate key") || !strings.Contains(msg, fmt.Sprintf("%q", c.dupKey)) {
				t.Errorf("error %q does not say duplicate key %q", msg, c.dupKey)
			}
		})
	}

	// The same key in different objects, and equal values under
	// different keys, are fine.
	doc := strings.Replace(goodV3, `"attributes": {}`, `"attributes": {"a": {"x": 1}, "b": {"x": 1}, "c": [{"x": 1}, {"x": 2}]}`, 1)
	if _, err := openDoc(t, v3MetadataKey, []byte(doc)); err != nil {
		t.Errorf("valid document refused: %v", err)
	}

	// .zattrs is held to the same rule.
	st := storage.NewMemory()
	ctx := context.Background()
	_ = st.Set(ctx, v2ArrayKey, []byte(goodV2))
	_ = st.Set(ctx, v2AttrsKey, []byte(`{"units": "s", "units": "ms"}`))
	_, err := Open(ctx, st)
	var me *MetadataError
	if !errors.As(err, &me) || !strings.HasSuffix(me.File, v2AttrsKey) || me.Field != "units" {
		t.Errorf(".zattrs with a duplicate key: got %v", err)
	}
}

func TestByteOrderMark(t *testing.T) {
	bom := "\ufeff"
	for _, c := range []struct{ key, doc string }{
		{v3MetadataKey, bom + goodV3},
		{v2ArrayKey, bom + goodV2},
		{v2AttrsKey, bom + `{}`},
	} {
		st := storage.NewMemory()
		ctx := context.Background()
		if c.key == v2AttrsKey {
			_ = st.Set(ctx, v2ArrayKey, []byte(goodV2))
		}
		_ = st.Set(ctx, c.key, []byte(c.doc))
		_, err := Open(ctx, st)
		var me *MetadataError
		if !errors.As(err, &me) || !strings.HasSuffix(me.File, c.key) {
			t.Errorf("%s: got %v, want a *MetadataError for %s", c.key, err, c.key)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, "UTF-8 byte order mark") || strings.Contains(msg, "invalid character") {
			t.Errorf("%s: error %q should name the UTF-8 byte order mark", c.key, msg)
		}
	}
}

// TestMetadataNotHTMLEscaped: zarr-python writes "<M8[ns]" in .zarray, and
// so must dt64 (json.Marshal would write "\u003cM8[ns]").
func TestMetadataNotHTMLEscaped(t *testing.T) {
	ctx := context.Background()
	for _, format := range []int{2, 3} {
		st := storage.NewMemory()
		m := Metadata{Format: format, DataType: nsType, Shape: []int64{4}, ChunkShape: []int64{4}}
		key := v3MetadataKey
		if format == 2 {
			m.Extensions = map[string]json.RawMessage{"a<b>&c": json.RawMessage(`"<x>"`)}
			key = v2ArrayKey
		} else {
			m.Attributes = json.RawMessage(`{"note": "<&>"}`)
		}
		a, err := Create(ctx, st, m)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.WriteMetadata(ctx); err != nil {
			t.Fatal(err)
		}
		b, _ := st.Get(ctx, key)
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
			if bytes.Contains(b, []byte(esc)) {
				t.Errorf("v%d %s contains %s:\n%s", format, key, esc, b)
			}
		}
		if format == 2 && !bytes.Contains(b, []byte(`"dtype": "<M8[ns]"`)) {
			t.Errorf(".zarray lacks \"dtype\": \"<M8[ns]\":\n%s", b)
		}
		if format == 2 && !bytes.Contains(b, []byte(`"a<b>&c": "<x>"`)) {
			t.Errorf(".zarray lacks the extension field unescaped:\n%s", b)
		}
		if !json.Valid(b) {
			t.Errorf("v%d %s is not valid JSON:\n%s", format, key, b)
		}
		if _, err := Open(ctx, st); err != nil {
			t.Errorf("v%d: reopening: %v", format, err)
		}
	}
}

func nestedShardingCodecs(depth int) []Codec {
	cs := []Codec{le()}
	for range depth {
		cs = []Codec{ShardingCodec{ChunkShape: []int64{8}, Codecs: cs, IndexCodecs: []Codec{le()}}}
	}
	return cs
}

func TestShardingDepthLimit(t *testing.T) {
	ctx := context.Background()
	// A zarr.json with sharding nested depth deep, written by hand: Create
	// refuses what Open would.
	open := func(depth int) error {
		b, err := marshalNoEscape(must(codecListJSONV3(nestedShardingCodecs(depth), 8)), "")
		if err != nil {
			t.Fatal(err)
		}
		doc := strings.Replace(goodV3, `"chunk_shape": [5]`, `"chunk_shape": [8]`, 1)
		doc = strings.Replace(doc, `[{"name": "bytes", "configuration": {"endian": "little"}}]`, string(b), 1)
		_, err = openDoc(t, v3MetadataKey, []byte(doc))
		return err
	}
	if err := open(maxShardingDepth); err != nil {
		t.Errorf("sharding nested %d deep refused: %v", maxShardingDepth, err)
	}
	if _, err := Create(ctx, storage.NewMemory(), Metadata{DataType: nsType, Shape: []int64{16}, ChunkShape: []int64{8}, Codecs: nestedShardingCodecs(maxShardingDepth)}); err != nil {
		t.Errorf("Create, sharding nested %d deep: %v", maxShardingDepth, err)
	}
	_, err := Create(ctx, storage.NewMemory(), Metadata{DataType: nsType, Shape: []int64{16}, ChunkShape: []int64{8}, Codecs: nestedShardingCodecs(maxShardingDepth + 1)})
	if !errors.Is(err, errShardingDepth) {
		t.Errorf("Create, sharding nested %d deep: got %v, want the depth error", maxShardingDepth+1, err)
	}
	wantField := strings.Repeat("codecs[0].configuration.", maxShardingDepth+1) + "codecs"
	for _, depth := range []int{maxShardingDepth + 1, 150} {
		err := open(depth)
		var me *MetadataError
		if !errors.As(err, &me) || !strings.HasSuffix(me.File, v3MetadataKey) || me.Field != wantField || !errors.Is(err, errShardingDepth) {
			t.Errorf("depth %d: got %v, want a *MetadataError at %s", depth, err, wantField)
		}
	}

	// The parser's own check, behind the one-pass check of the document.
	b, err := marshalNoEscape(must(codecListJSONV3(nestedShardingCodecs(maxShardingDepth+1), 8)), "")
	if err != nil {
		t.Fatal(err)
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(b, &raws); err != nil {
		t.Fatal(err)
	}
	_, err = parseCodecListV3(raws, 0)
	want := "[0]" + strings.Repeat(".configuration.codecs[0]", maxShardingDepth)
	var fe *fieldError
	if !errors.As(err, &fe) || fe.field != want || !errors.Is(err, errShardingDepth) {
		t.Errorf("parseCodecListV3: got %v, want the error at %s", err, want)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestMetadataSizeLimit(t *testing.T) {
	ctx := context.Background()
	// A valid zarr.json padded with spaces to exactly n bytes.
	padded := func(n int) []byte {
		return append([]byte(goodV3), bytes.Repeat([]byte(" "), n-len(goodV3))...)
	}
	st := storage.NewMemory() // not a BufferGetter: the size is checked after Get
	_ = st.Set(ctx, v3MetadataKey, padded(maxMetadataBytes))
	if _, err := Open(ctx, st); err != nil {
		t.Errorf("zarr.json of exactly %d bytes refused: %v", maxMetadataBytes, err)
	}
	_ = st.Set(ctx, v3MetadataKey, padded(maxMetadataBytes+1))
	_, err := Open(ctx, st)
	var me *MetadataError
	if !errors.As(err, &me) || !strings.HasSuffix(me.File, v3MetadataKey) || !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "16 MiB") {
		t.Errorf("zarr.json over the limit: got %v", err)
	}

	// storage.Dir refuses before reading: Open allocates far less than the
	// document's size.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, v2ArrayKey), []byte(goodV2), 0o644); err != nil {
		t.Fatal(err)
	}
	big := append([]byte(`{"x": "`), bytes.Repeat([]byte("a"), maxMetadataBytes)...)
	if err := os.WriteFile(filepath.Join(dir, v2AttrsKey), append(big, `"}`...), 0o644); err != nil {
		t.Fatal(err)
	}
	ds := storage.NewDir(dir)
	defer ds.Close()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err = Open(ctx, ds)
	runtime.ReadMemStats(&m1)
	if !errors.As(err, &me) || !strings.HasSuffix(me.File, v2AttrsKey) || !errors.Is(err, ErrTooLarge) {
		t.Errorf(".zattrs over the limit: got %v", err)
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 1<<20 {
		t.Errorf("refusing a %d-byte .zattrs allocated %d bytes", len(big)+2, alloc)
	}
}

// TestReadSizedFromStoredObject: a shard of 16384 inner chunks under four
// gzip codecs may be ~34 MB at worst, but reading (or writing) a small one
// must allocate in proportion to its real size, not that bound.
func TestReadSizedFromStoredObject(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := storage.NewDir(dir)
	defer st.Close()
	a, err := Create(ctx, st, Metadata{DataType: nsType, Shape: []int64{16384}, ChunkShape: []int64{16384},
		Codecs: []Codec{ShardingCodec{ChunkShape: []int64{1}, Codecs: []Codec{le(), GzipCodec{Level: 1}, GzipCodec{Level: 1}, GzipCodec{Level: 1}, GzipCodec{Level: 1}}, IndexCodecs: []Codec{le()}}}})
	if err != nil {
		t.Fatal(err)
	}
	if a.MaxEncodedSize() < 32<<20 {
		t.Fatalf("MaxEncodedSize %d: the test needs a large worst case", a.MaxEncodedSize())
	}
	// Under -race, 16384 inner chunks through gzip take 20 s (sync.Pool
	// drops writers at random) and allocation figures mean nothing.
	if !raceEnabled {
		writeReadSmallShard(t, a)
	}

	// A 100-byte file: refused (shorter than the index) without
	// allocating the bound.
	if err := os.MkdirAll(filepath.Join(dir, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c", "0"), make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := make([]int64, a.ChunkLen())
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	err = a.ReadChunk(ctx, []int64{0}, dst)
	runtime.ReadMemStats(&m1)
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("100-byte shard: got %v, want ErrCorrupt", err)
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 4<<20 && !raceEnabled {
		t.Errorf("reading a 100-byte shard allocated %d bytes", alloc)
	}
}

func writeReadSmallShard(t *testing.T, a *Array) {
	t.Helper()
	ctx := context.Background()
	src := make([]int64, a.ChunkLen())
	for i := range src {
		src[i] = int64(i)
	}
	dst := make([]int64, a.ChunkLen())
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	if err := a.WriteChunk(ctx, []int64{0}, src); err != nil {
		t.Fatal(err)
	}
	if err := a.ReadChunk(ctx, []int64{0}, dst); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	alloc := m1.TotalAlloc - m0.TotalAlloc
	t.Logf("write+read allocated %d bytes", alloc)
	if alloc > 24<<20 && !raceEnabled {
		t.Errorf("writing and reading the chunk allocated %d bytes (its worst-case size is %d)", alloc, a.MaxEncodedSize())
	}
	for i := range src {
		if dst[i] != src[i] {
			t.Fatalf("element %d: read %d, wrote %d", i, dst[i], src[i])
		}
	}
}

// Keys are case-sensitive, as in every other Zarr implementation:
// encoding/json alone would take "Endian" for "endian".
func TestKeysCaseSensitive(t *testing.T) {
	cases := []struct{ name, key, from, to string }{
		{"bytes endian", v3MetadataKey, `{"endian": "little"}`, `{"Endian": "little"}`},
		{"chunk grid", v3MetadataKey, `"chunk_shape": [5]`, `"Chunk_Shape": [5]`},
		{"key encoding", v3MetadataKey, `"separator": "/"`, `"SEPARATOR": "/"`},
		{"zstd level", v3MetadataKey, `[{"name": "bytes", "configuration": {"endian": "little"}}]`,
			`[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "zstd", "configuration": {"Level": 3, "checksum": false}}]`},
		{"blosc cname", v3MetadataKey, `[{"name": "bytes", "configuration": {"endian": "little"}}]`,
			`[{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "blosc", "configuration": {"CName": "lz4", "clevel": 5, "shuffle": "shuffle", "typesize": 8, "blocksize": 0}}]`},
		{"v2 compressor", v2ArrayKey, `"compressor": null`, `"compressor": {"id": "zstd", "Level": 1}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			good := goodV3
			if c.key == v2ArrayKey {
				good = goodV2
			}
			doc := strings.Replace(good, c.from, c.to, 1)
			if doc == good {
				t.Fatalf("%q not in the document", c.from)
			}
			_, err := openDoc(t, c.key, []byte(doc))
			if err == nil || !strings.Contains(err.Error(), "case-sensitive") {
				t.Errorf("got %v, want an error saying keys are case-sensitive", err)
			}
			// The same document with the right spelling opens.
			fixed := strings.Replace(doc, c.to, strings.ToLower(c.to), 1)
			if _, err := openDoc(t, c.key, []byte(fixed)); err != nil {
				t.Errorf("the correctly spelled document: %v", err)
			}
		})
	}
}
