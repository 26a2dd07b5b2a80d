package fuzz

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// seedV3 are zarr.json documents covering every codec and field: the
// fixtures written by zarr-python plus hand-made variants.
var seedV3 = []string{
	`{"shape":[16],"data_type":{"name":"numpy.datetime64","configuration":{"unit":"us","scale_factor":10}},"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[5]}},"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},"fill_value":-9223372036854775808,"codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":3,"checksum":false}},{"name":"crc32c"}],"attributes":{},"zarr_format":3,"node_type":"array","storage_transformers":[]}`,
	`{"shape":[16],"data_type":{"name":"numpy.datetime64","configuration":{"unit":"D","scale_factor":1}},"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[8]}},"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},"fill_value":-9223372036854775808,"codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[4],"codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"zstd","configuration":{"level":3,"checksum":false}}],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}],"index_location":"end"}}],"attributes":{},"zarr_format":3,"node_type":"array","storage_transformers":[]}`,
	`{"shape":[16],"data_type":{"name":"numpy.timedelta64","configuration":{"unit":"h","scale_factor":25}},"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[8]}},"chunk_key_encoding":{"name":"default","configuration":{"separator":"/"}},"fill_value":"NaT","codecs":[{"name":"bytes","configuration":{"endian":"big"}},{"name":"gzip","configuration":{"level":5}}],"attributes":{"a":[1,{"b":null}]},"zarr_format":3,"node_type":"array"}`,
	`{"zarr_format":3,"node_type":"array","shape":[6,4],"data_type":{"name":"numpy.datetime64","configuration":{"unit":"μs","scale_factor":1}},"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[3,2]}},"chunk_key_encoding":{"name":"v2","configuration":{"separator":"."}},"fill_value":0,"codecs":[{"name":"transpose","configuration":{"order":[1,0]}},{"name":"bytes","configuration":{"endian":"little"}}],"dimension_names":["t",null],"my_ext":{"must_understand":false,"x":1}}`,
	`{"zarr_format":3,"node_type":"array","shape":[],"data_type":{"name":"numpy.datetime64","configuration":{"unit":"generic","scale_factor":1}},"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[]}},"chunk_key_encoding":{"name":"default"},"fill_value":7,"codecs":[{"name":"bytes","configuration":{"endian":"big"}}]}`,
	`{"zarr_format":3,"node_type":"array","shape":[8,8],"data_type":{"name":"numpy.datetime64","configuration":{"unit":"Y","scale_factor":2147483647}},"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[8,8]}},"chunk_key_encoding":{"name":"default","configuration":{"separator":"."}},"fill_value":-1,"codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[4,4],"index_location":"start","codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[2,2],"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],"index_codecs":[{"name":"bytes","configuration":{"endian":"big"}}]}}],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}},{"name":"crc32c"}]}},{"name":"zstd","configuration":{"level":-5,"checksum":true}}]}`,
	// Numeric data types: every fill value form.
	`{"zarr_format":3,"node_type":"array","shape":[5],"data_type":"float32","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},"chunk_key_encoding":{"name":"default"},"fill_value":"0x7fc00001","codecs":[{"name":"bytes","configuration":{"endian":"big"}},{"name":"blosc","configuration":{"cname":"lz4","clevel":5,"shuffle":"shuffle","blocksize":0}}]}`,
	`{"zarr_format":3,"node_type":"array","shape":[5,3],"data_type":"uint8","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2,2]}},"chunk_key_encoding":{"name":"default"},"fill_value":255,"codecs":[{"name":"transpose","configuration":{"order":[1,0]}},{"name":"bytes"}]}`,
	`{"zarr_format":3,"node_type":"array","shape":[4],"data_type":"complex128","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[4]}},"chunk_key_encoding":{"name":"default"},"fill_value":[1.5,"-Infinity"],"codecs":[{"name":"sharding_indexed","configuration":{"chunk_shape":[2],"codecs":[{"name":"bytes","configuration":{"endian":"little"}}],"index_codecs":[{"name":"bytes","configuration":{"endian":"little"}}]}}]}`,
	`{"zarr_format":3,"node_type":"array","shape":[4],"data_type":"bool","chunk_grid":{"name":"regular","configuration":{"chunk_shape":[3]}},"chunk_key_encoding":{"name":"default"},"fill_value":true,"codecs":[{"name":"bytes"}],"attributes":{"units":"days since 2000-01-01"}}`,
	`{"zarr_format":3,"node_type":"array","shape":[9223372036854775807],"data_type":{"name":"numpy.timedelta64","configuration":{"unit":"as","scale_factor":1}},"chunk_grid":{"name":"regular","configuration":{"chunk_shape":[1]}},"chunk_key_encoding":{"name":"default"},"fill_value":9223372036854775807,"codecs":[{"name":"bytes","configuration":{"endian":"little"}}]}`,
}

var seedV2 = []string{
	`{"chunks":[5],"compressor":{"id":"zstd","level":1},"dtype":"<M8[ns]","fill_value":null,"filters":null,"order":"C","shape":[16],"zarr_format":2}`,
	`{"chunks":[5,5],"compressor":{"id":"zlib","level":9},"dtype":">m8[25h]","fill_value":"NaT","filters":null,"order":"C","shape":[16,3],"zarr_format":2,"dimension_separator":"/"}`,
	`{"chunks":[5],"compressor":{"id":"gzip","level":1},"dtype":"<M8[s/4]","fill_value":-9223372036854775808,"filters":[],"order":"C","shape":[0],"zarr_format":2,"extra":{"x":[1]}}`,
	`{"chunks":[5],"compressor":null,"dtype":"M8","fill_value":0,"order":"C","shape":[16],"zarr_format":2}`,
	`{"chunks":[5],"compressor":{"id":"zstd","level":22,"checksum":true},"dtype":"<m8[2generic]","fill_value":3,"filters":null,"order":"C","shape":[16],"zarr_format":2}`,
	`{"chunks":[5],"compressor":{"blocksize":0,"clevel":5,"cname":"lz4","id":"blosc","shuffle":1},"dtype":"<f8","fill_value":"NaN","filters":null,"order":"C","shape":[16],"zarr_format":2}`,
	`{"chunks":[5],"compressor":null,"dtype":"|b1","fill_value":false,"filters":null,"order":"C","shape":[16],"zarr_format":2}`,
	`{"chunks":[5],"compressor":null,"dtype":">c8","fill_value":[0.0,"Infinity"],"filters":null,"order":"C","shape":[16],"zarr_format":2}`,
	`{"chunks":[5],"compressor":{"id":"zlib","level":1},"dtype":">i2","fill_value":-999,"filters":null,"order":"C","shape":[16],"zarr_format":2}`,
}

// memoryBound is what parsing a metadata document of n bytes may allocate:
// generous (JSON decoding copies every value a few times), but linear.
func memoryBound(n int) uint64 { return 64*uint64(n) + 4<<20 }

// openDoc opens a store holding the given documents, measuring the bytes
// Open allocates.
func openDoc(t *testing.T, docs map[string][]byte) (*zarr.Array, error) {
	t.Helper()
	ctx := context.Background()
	st := storage.NewMemory()
	total := 0
	for k, v := range docs {
		if v == nil {
			continue
		}
		if err := st.Set(ctx, k, v); err != nil {
			t.Fatal(err)
		}
		total += len(v)
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	a, err := zarr.Open(ctx, st)
	runtime.ReadMemStats(&m1)
	// storage.Memory.Get copies the value, hence 2× the documents at least.
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > memoryBound(total) {
		t.Fatalf("Open of %d bytes of metadata allocated %d bytes", total, alloc)
	}
	if err != nil {
		if err.Error() == "" {
			t.Fatal("empty error message")
		}
		var me *zarr.MetadataError
		if !errors.As(err, &me) && !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("Open error %q is neither a *zarr.MetadataError nor fs.ErrNotExist", err)
		}
		return nil, err
	}
	return a, nil
}

// checkReopen writes a's metadata to a fresh store, opens that, and
// requires the same Metadata and byte-identical documents on a second write.
func checkReopen(t *testing.T, a *zarr.Array) {
	t.Helper()
	ctx := context.Background()
	m := a.Metadata()
	st := storage.NewMemory()
	b, err := zarr.Create(ctx, st, m)
	if err != nil {
		t.Fatalf("Create with the metadata Open returned: %v\n%+v", err, m)
	}
	if err := b.WriteMetadata(ctx); err != nil {
		t.Fatalf("WriteMetadata: %v\n%+v", err, m)
	}
	c, err := zarr.Open(ctx, st)
	if err != nil {
		keys, _ := st.List(ctx, "")
		docs := map[string]string{}
		for _, k := range keys {
			v, _ := st.Get(ctx, k)
			docs[k] = string(v)
		}
		t.Fatalf("reopening written metadata: %v\n%v", err, docs)
	}
	if got := c.Metadata(); !reflect.DeepEqual(normalize(got), normalize(m)) {
		t.Fatalf("metadata changed through write+open:\n was %+v\n now %+v", m, got)
	}
	st2 := storage.NewMemory()
	d, err := zarr.Create(ctx, st2, c.Metadata())
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	k1, _ := st.List(ctx, "")
	k2, _ := st2.List(ctx, "")
	if !reflect.DeepEqual(k1, k2) {
		t.Fatalf("documents %v then %v", k1, k2)
	}
	for _, k := range k1 {
		v1, _ := st.Get(ctx, k)
		v2, _ := st2.Get(ctx, k)
		if !bytes.Equal(v1, v2) {
			t.Fatalf("%s not stable:\n%s\n%s", k, v1, v2)
		}
	}
	// The grid is usable: the last chunk has a key.
	if n := a.NumChunks(); n > 0 {
		if _, err := a.ChunkKey(a.ChunkCoordsAt(n - 1)); err != nil {
			t.Fatalf("ChunkKey of the last chunk: %v", err)
		}
	}
	if a.ChunkLen() < 0 || a.MaxEncodedSize() < 0 {
		t.Fatalf("ChunkLen %d, MaxEncodedSize %d", a.ChunkLen(), a.MaxEncodedSize())
	}
}

// normalize maps empty and nil slices together, and absent v3 attributes to
// the {} Create writes, so DeepEqual compares values.
func normalize(m zarr.Metadata) zarr.Metadata {
	m = m.Clone()
	if len(m.Attributes) == 0 {
		m.Attributes = nil
		if m.Format == 3 {
			m.Attributes = []byte("{}") // Create's documented default
		}
	}
	if len(m.DimensionNames) == 0 {
		m.DimensionNames = nil
	}
	return m
}

// FuzzMetadataV3 opens arbitrary zarr.json documents: never a panic, errors
// are *zarr.MetadataError, memory linear in the document, and whatever
// opens writes back to metadata that opens to the same value.
func FuzzMetadataV3(f *testing.F) {
	for _, s := range seedV3 {
		f.Add([]byte(s))
	}
	f.Add([]byte("\xef\xbb\xbf" + seedV3[0]))
	f.Add([]byte(`{"zarr_format":3,"zarr_format":3}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		a, err := openDoc(t, map[string][]byte{"zarr.json": doc})
		if err != nil {
			return
		}
		if a.Format() != 3 {
			t.Fatalf("format %d from zarr.json", a.Format())
		}
		checkReopen(t, a)
	})
}

// FuzzMetadataV2 opens arbitrary .zarray (and .zattrs) documents, with the
// same checks as FuzzMetadataV3.
func FuzzMetadataV2(f *testing.F) {
	for _, s := range seedV2 {
		f.Add([]byte(s), []byte(nil))
		f.Add([]byte(s), []byte(`{"units":"ns","n":[1,2]}`))
		f.Add([]byte(s), []byte(`{"units":"hours since 1900-01-01","calendar":"julian","missing_value":[-1,2],"scale_factor":0.5}`))
	}
	f.Add([]byte(seedV2[0]), []byte(`[]`))
	f.Fuzz(func(t *testing.T, zarray, zattrs []byte) {
		a, err := openDoc(t, map[string][]byte{".zarray": zarray, ".zattrs": zattrs})
		if err != nil {
			return
		}
		if a.Format() != 2 {
			t.Fatalf("format %d from .zarray", a.Format())
		}
		if o := a.ByteOrder(); o != binary.LittleEndian && o != binary.BigEndian {
			t.Fatalf("byte order %v", o)
		}
		// The CF description of whatever opened: never a panic, errors
		// naming an attribute.
		if _, err := a.CFTime(); err != nil {
			var ae *cf.AttributeError
			if !errors.As(err, &ae) || ae.Attribute == "" {
				t.Fatalf("CFTime: %v is not a *cf.AttributeError", err)
			}
		}
		checkReopen(t, a)
	})
}

// FuzzDataTypeForms checks that the NumPy and Zarr v3 forms of a data type
// agree: a NumPy dtype string that parses writes a data_type JSON that
// parses to the same DataType, and a v2 array with that dtype opens with it.
// (dtype's own targets fuzz each parser alone.)
func FuzzDataTypeForms(f *testing.F) {
	for _, s := range []string{"<M8[10us]", ">m8[ns]", "M8", "M8[s/4]", "<m8[2generic]", "M8[μs]", "<M8[2147483647Y]", "m8[W/7]", "timedelta64[25h]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, order, err := dtype.ParseNumPy(s)
		if err != nil {
			var pe *dtype.ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("ParseNumPy(%q): %v is not a *dtype.ParseError", s, err)
			}
			return
		}
		js, err := d.MarshalJSON()
		if err != nil {
			t.Fatalf("MarshalJSON(%+v): %v", d, err)
		}
		back, err := dtype.ParseJSON(js)
		if err != nil || back != d {
			t.Fatalf("%q -> %s -> %+v, %v", s, js, back, err)
		}
		if d.String() == "" || d.Kind.ZarrName() == "" {
			t.Fatalf("%+v has an empty name", d)
		}
		doc := []byte(`{"chunks":[2],"compressor":null,"dtype":` + quoteJSON(d.NumPy(order)) + `,"fill_value":null,"filters":null,"order":"C","shape":[3],"zarr_format":2}`)
		a, err := openDoc(t, map[string][]byte{".zarray": doc})
		if err != nil {
			t.Fatalf("v2 array with dtype %q: %v", d.NumPy(order), err)
		}
		if a.DataType() != d || a.ByteOrder() != order {
			t.Fatalf("v2 dtype %q opened as %+v %v, want %+v %v", d.NumPy(order), a.DataType(), a.ByteOrder(), d, order)
		}
	})
}

func quoteJSON(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestSeedFixturesOpen makes sure the seeds stay meaningful: every v3
// fixture zarr-python wrote opens (blosc aside), as do the v3 seeds.
func TestSeedFixturesOpen(t *testing.T) {
	dirs, _ := filepath.Glob("../testdata/zarr/v3/*.zarr")
	if len(dirs) == 0 {
		t.Fatal("no fixtures in ../testdata/zarr/v3: the committed zarr-python arrays are missing")
	}
	for _, d := range dirs {
		doc, err := os.ReadFile(filepath.Join(d, "zarr.json"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := openDoc(t, map[string][]byte{"zarr.json": doc}); err != nil && !errors.Is(err, zarr.ErrUnsupported) {
			t.Errorf("%s: %v", d, err)
		}
	}
	for i, s := range seedV3 {
		if _, err := openDoc(t, map[string][]byte{"zarr.json": []byte(s)}); err != nil {
			t.Errorf("seedV3[%d]: %v", i, err)
		}
	}
	for i, s := range seedV2 {
		if _, err := openDoc(t, map[string][]byte{".zarray": []byte(s)}); err != nil {
			t.Errorf("seedV2[%d]: %v", i, err)
		}
	}
}

// FuzzMetadataV3Fields fuzzes zarr.json one field at a time: each argument
// is the raw JSON text of one member (empty: the member is left out), so
// mutations stay inside well-formed documents and reach the field parsers
// and the codec chain compiler rather than the JSON scanner.
func FuzzMetadataV3Fields(f *testing.F) {
	bytesLE := `{"name":"bytes","configuration":{"endian":"little"}}`
	add := func(shape, chunks, dataType, fill, codecs, extra string) {
		f.Add(shape, chunks, dataType, fill, codecs, extra)
	}
	dt := `{"name":"numpy.datetime64","configuration":{"unit":"ns","scale_factor":1}}`
	add(`[16]`, `[5]`, dt, `"NaT"`, `[`+bytesLE+`]`, ``)
	add(`[16,4]`, `[8,2]`, `{"name":"numpy.timedelta64","configuration":{"unit":"μs","scale_factor":10}}`, `-1`,
		`[{"name":"transpose","configuration":{"order":[1,0]}},`+bytesLE+`,{"name":"zstd","configuration":{"level":3,"checksum":true}},{"name":"crc32c"}]`, `"dimension_names":["a","b"]`)
	add(`[16]`, `[8]`, dt, `0`, `[{"name":"sharding_indexed","configuration":{"chunk_shape":[4],"codecs":[`+bytesLE+`,{"name":"gzip","configuration":{"level":1}}],"index_codecs":[`+bytesLE+`,{"name":"crc32c"}],"index_location":"start"}}]`, ``)
	add(`[16]`, `[8]`, dt, `7`, `[`+bytesLE+`,{"name":"blosc","configuration":{"typesize":8,"cname":"lz4","clevel":5,"shuffle":"shuffle","blocksize":0}}]`, `"x":{"must_understand":false}`)
	add(`[]`, `[]`, dt, `9223372036854775807`, `["bytes"]`, `"attributes":{"a":1}`)
	f.Fuzz(func(t *testing.T, shape, chunks, dataType, fill, codecs, extra string) {
		var b bytes.Buffer
		b.WriteString(`{"zarr_format":3,"node_type":"array"`)
		member := func(name, raw string) {
			if raw != "" {
				b.WriteString(`,"` + name + `":` + raw)
			}
		}
		member("shape", shape)
		if chunks != "" {
			member("chunk_grid", `{"name":"regular","configuration":{"chunk_shape":`+chunks+`}}`)
		}
		member("chunk_key_encoding", `{"name":"default"}`)
		member("data_type", dataType)
		member("fill_value", fill)
		member("codecs", codecs)
		if extra != "" {
			b.WriteString("," + extra)
		}
		b.WriteString("}")
		a, err := openDoc(t, map[string][]byte{"zarr.json": b.Bytes()})
		if err != nil {
			t.Logf("refused: %v", err)
			return
		}
		checkReopen(t, a)
	})
}
