package zarr

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/zarr-dt64/dt64/blosc"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
)

// demoTimestamps are like `dt64 demo`'s data: nanoseconds from 2024-01-01
// at a 1 s cadence with up to ±5 ms of jitter, 0.5% NaT.
func demoTimestamps(n int, seed uint64) []int64 {
	r := rand.New(rand.NewPCG(seed, 2))
	v := make([]int64, n)
	for i := range v {
		v[i] = 1704067200e9 + int64(i)*1e9 + r.Int64N(10_000_001) - 5_000_000
		if r.IntN(200) == 0 {
			v[i] = dtype.NaT
		}
	}
	return v
}

func TestBloscFixtureMetadata(t *testing.T) {
	a, err := Open(context.Background(), storage.NewDir("../testdata/zarr/v3/dt64_us_le_blosc_lz4.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	m := a.Metadata()
	want := BloscCodec{CName: "lz4", CLevel: 5, Shuffle: "shuffle", TypeSize: 8}
	if len(m.Codecs) != 2 || !reflect.DeepEqual(m.Codecs[1], want) {
		t.Fatalf("codecs %#v, want bytes + %#v", m.Codecs, want)
	}
	got := readAll(t, a)
	exp := readValuesJSONL(t, "../testdata/zarr/v3/dt64_us_le_blosc_lz4.zarr.values.jsonl")
	if !reflect.DeepEqual(got, exp) {
		t.Fatalf("values %v, zarr-python read %v", got, exp)
	}
	b, err := marshalV3(&m)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"name": "blosc"`)) || !bytes.Contains(b, []byte(`"typesize": 8`)) || !bytes.Contains(b, []byte(`"shuffle": "shuffle"`)) {
		t.Errorf("zarr.json written back:\n%s", b)
	}
	m2, err := parseV3(b)
	if err != nil || !reflect.DeepEqual(m2.Codecs, m.Codecs) {
		t.Errorf("re-parsed codecs %#v, %v", m2.Codecs, err)
	}
}

var bloscWritable = []string{"lz4", "lz4hc", "zstd", "zlib", "snappy"}

func TestBloscRoundTripV3(t *testing.T) {
	ctx := context.Background()
	truth := demoTimestamps(5000, 1)
	for _, cname := range bloscWritable {
		for _, sh := range []string{"noshuffle", "shuffle", "bitshuffle"} {
			for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
				name := fmt.Sprintf("%s/%s/%v", cname, sh, order)
				codec := BloscCodec{CName: cname, CLevel: 5, Shuffle: sh}
				st := storage.NewMemory()
				a, err := Create(ctx, st, Metadata{DataType: ns, Shape: []int64{5000}, ChunkShape: []int64{1500}, FillValue: dtype.NaT,
					Codecs: []Codec{BytesCodec{Endian: order}, codec}})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				writeAll(t, a, truth)
				if err := a.WriteMetadata(ctx); err != nil {
					t.Fatal(err)
				}
				b, _ := st.Get(ctx, "c/0")
				h, err := blosc.ParseHeader(b)
				if err != nil || h.TypeSize != 8 || h.Shuffle().String() != sh {
					t.Fatalf("%s: stored frame header %+v, %v", name, h, err)
				}
				a2, err := Open(ctx, st)
				if err != nil {
					t.Fatal(err)
				}
				// A zero TypeSize is written as the element size.
				if got, want := a2.Metadata().Codecs[1], (BloscCodec{CName: cname, CLevel: 5, Shuffle: sh, TypeSize: 8}); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: codec read back as %#v", name, got)
				}
				checkAll(t, a2, truth)
			}
		}
	}
}

func TestBloscInsideSharding(t *testing.T) {
	ctx := context.Background()
	truth := demoTimestamps(4000, 2)
	a, err := Create(ctx, storage.NewMemory(), Metadata{DataType: ns, Shape: []int64{4000}, ChunkShape: []int64{2000}, FillValue: dtype.NaT,
		Codecs: []Codec{ShardingCodec{ChunkShape: []int64{500},
			Codecs:      []Codec{BytesCodec{Endian: binary.LittleEndian}, BloscCodec{CName: "zstd", CLevel: 5, Shuffle: "shuffle"}},
			IndexCodecs: []Codec{BytesCodec{Endian: binary.LittleEndian}, CRC32CCodec{}}}}})
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, a, truth)
	checkAll(t, a, truth)
}

func TestBloscChunkErrors(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	a, err := Create(ctx, st, Metadata{DataType: ns, Shape: []int64{4000}, ChunkShape: []int64{4000}, FillValue: dtype.NaT,
		Codecs: []Codec{BytesCodec{Endian: binary.LittleEndian}, BloscCodec{CName: "lz4", CLevel: 5, Shuffle: "shuffle", BlockSize: 8000}}})
	if err != nil {
		t.Fatal(err)
	}
	truth := demoTimestamps(4000, 3)
	writeAll(t, a, truth)
	good, _ := st.Get(ctx, "c/0")
	buf := make([]int64, 4000)

	check := func(name string, frame []byte, sentinel error, msg string) {
		t.Helper()
		if err := st.Set(ctx, "c/0", frame); err != nil {
			t.Fatal(err)
		}
		err := a.ReadChunk(ctx, []int64{0}, buf)
		var ce *ChunkError
		if !errors.Is(err, sentinel) || !errors.As(err, &ce) || ce.Key != "c/0" {
			t.Errorf("%s: got %v, want a *ChunkError for c/0 wrapping %v", name, err, sentinel)
			return
		}
		if !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %q does not mention %q", name, err, msg)
		}
	}
	bad := bytes.Clone(good)
	bad[0] = 0
	check("version 0", bad, ErrCorrupt, "version 0")
	if !errors.Is(a.ReadChunk(ctx, []int64{0}, buf), blosc.ErrCorrupt) {
		t.Error("error does not wrap blosc.ErrCorrupt as well")
	}
	check("truncated", good[:len(good)-3], ErrCorrupt, "header says the frame is")

	// A frame for 8 more bytes than the chunk holds: refused from its
	// header.
	big, err := blosc.Encode(nil, make([]byte, 8*4001), blosc.Options{Compressor: "lz4", Level: 5, Shuffle: blosc.ByteShuffle, TypeSize: 8})
	if err != nil {
		t.Fatal(err)
	}
	check("too large", big, ErrTooLarge, "frame declares 32008 decoded bytes")
	// A frame for fewer bytes than the chunk: a wrong decoded size.
	small, _ := blosc.Encode(nil, make([]byte, 8*3999), blosc.Options{Compressor: "lz4", Level: 5, Shuffle: blosc.ByteShuffle, TypeSize: 8})
	check("too small", small, ErrCorrupt, "decoded chunk is 31992 bytes, want 32000")

	// Stream damage: the constant top-byte stream of block 0.
	h, _ := blosc.ParseHeader(good)
	if h.Memcpyed() {
		t.Fatal("timestamps did not compress")
	}
	pos := int(binary.LittleEndian.Uint32(good[16:]))
	for s := 0; ; s++ {
		n := int(binary.LittleEndian.Uint32(good[pos:]))
		if n < h.BlockSize/8 {
			break
		}
		pos += 4 + n
	}
	bad = bytes.Clone(good)
	for i := pos + 4; i < pos+12; i++ {
		bad[i] = 0xff
	}
	check("stream damaged", bad, ErrCorrupt, "(lz4,")

	// blosclz arrays read but are not written.
	a2, err := Create(ctx, storage.NewMemory(), Metadata{DataType: ns, Shape: []int64{10}, ChunkShape: []int64{10}, FillValue: dtype.NaT,
		Codecs: []Codec{BytesCodec{Endian: binary.LittleEndian}, BloscCodec{CName: "blosclz", CLevel: 5, Shuffle: "shuffle"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := a2.WriteChunk(ctx, []int64{0}, make([]int64, 10)); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "blosclz") {
		t.Errorf("writing blosclz: %v, want ErrUnsupported naming blosclz", err)
	}
}

func TestBloscMalformedConfig(t *testing.T) {
	v3 := func(cfg string) []byte {
		return edit(t, "codecs", `[{"name":"bytes","configuration":{"endian":"little"}},{"name":"blosc","configuration":`+cfg+`}]`)
	}
	cases := []struct {
		name, key  string
		doc        []byte
		field, msg string
	}{
		{"v3 cname", "zarr.json", v3(`{"cname":"lz5","clevel":5,"shuffle":"shuffle","typesize":8,"blocksize":0}`), "codecs[1].configuration", `cname "lz5"`},
		{"v3 clevel", "zarr.json", v3(`{"cname":"lz4","clevel":10,"shuffle":"shuffle","typesize":8,"blocksize":0}`), "codecs[1].configuration", "clevel 10"},
		{"v3 shuffle int", "zarr.json", v3(`{"cname":"lz4","clevel":5,"shuffle":1,"typesize":8,"blocksize":0}`), "codecs[1].configuration", "blosc codec"},
		{"v3 shuffle name", "zarr.json", v3(`{"cname":"lz4","clevel":5,"shuffle":"byteshuffle","typesize":8,"blocksize":0}`), "codecs[1].configuration", `shuffle "byteshuffle"`},
		{"v3 typesize", "zarr.json", v3(`{"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":0,"blocksize":0}`), "codecs[1].configuration.typesize", "want 1-255"},
		{"v3 typesize big", "zarr.json", v3(`{"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":256,"blocksize":0}`), "codecs[1].configuration", "typesize 256"},
		{"v3 blocksize", "zarr.json", v3(`{"cname":"lz4","clevel":5,"shuffle":"shuffle","typesize":8,"blocksize":-1}`), "codecs[1].configuration", "blocksize -1"},
		{"v3 unknown field", "zarr.json", v3(`{"cname":"lz4","clevel":5,"shuffle":"shuffle","level":3}`), "codecs[1].configuration", "unknown field"},
		{"v3 no shuffle", "zarr.json", v3(`{"cname":"lz4","clevel":5}`), "codecs[1].configuration.shuffle", "required"},
		{"v2 shuffle", ".zarray", v2doc(t, `{"id":"blosc","cname":"lz4","clevel":5,"shuffle":3,"blocksize":0}`), "compressor.shuffle", "want 0 noshuffle"},
		{"v2 clevel", ".zarray", v2doc(t, `{"id":"blosc","cname":"zstd","clevel":-1,"shuffle":1,"blocksize":0}`), "compressor", "clevel -1"},
		{"v2 unknown field", ".zarray", v2doc(t, `{"id":"blosc","cname":"zstd","clevel":1,"shuffle":1,"blocksize":0,"nthreads":4}`), "compressor", "unknown field"},
	}
	for _, c := range cases {
		_, err := openDoc(t, c.key, c.doc)
		var me *MetadataError
		if !errors.As(err, &me) || me.Field != c.field || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %v (field %q), want field %q and %q", c.name, err, fieldOf(err), c.field, c.msg)
		}
	}
	// numcodecs' defaults and AUTOSHUFFLE.
	a, err := openDoc(t, ".zarray", v2doc(t, `{"id":"blosc","shuffle":-1}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.Metadata().Codecs[1], (BloscCodec{CName: "lz4", CLevel: 5, Shuffle: "shuffle", TypeSize: a.ElementSize()}); !reflect.DeepEqual(got, want) {
		t.Errorf("defaults: %#v, want %#v", got, want)
	}
}

func fieldOf(err error) string {
	var me *MetadataError
	if errors.As(err, &me) {
		return me.Field
	}
	return ""
}

func v2doc(t *testing.T, compressor string) []byte {
	t.Helper()
	return []byte(`{"zarr_format": 2, "shape": [10], "chunks": [5], "dtype": "<M8[ns]", "compressor": ` + compressor +
		`, "fill_value": null, "order": "C", "filters": null}`)
}

// TestBloscReadZarrPythonV2 reads arrays zarr-python 2.13 wrote with every
// Blosc compressor and shuffle.
func TestBloscReadZarrPythonV2(t *testing.T) {
	requireZarrPython(t)
	dir := t.TempDir()
	if out, err := exec.Command(python, "../tools/zarrpy/blosc_write_v2.py", dir).CombinedOutput(); err != nil {
		t.Fatalf("blosc_write_v2.py: %v\n%s", err, out)
	}
	var exp map[string]pyExpected
	readJSONFile(t, filepath.Join(dir, "expected.json"), &exp)
	if len(exp) < 22 {
		t.Fatalf("expected.json has %d arrays", len(exp))
	}
	for name, e := range exp {
		t.Run(name, func(t *testing.T) {
			a, err := Open(context.Background(), storage.NewDir(filepath.Join(dir, name+".zarr")))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := a.Metadata().Codecs[1].(BloscCodec); !ok {
				t.Fatalf("compressor read as %#v", a.Metadata().Codecs[1])
			}
			got := readFlat(t, a)
			if len(got) != len(e.Values) {
				t.Fatalf("%d values, want %d", len(got), len(e.Values))
			}
			bad := 0
			for i := range got {
				if got[i] != e.Values[i] && bad < 5 {
					bad++
					t.Errorf("[%d] = %d, zarr-python read %d", i, got[i], e.Values[i])
				}
			}
		})
	}
}

// TestBloscWriteForZarrPythonV2 has zarr-python 2.13 read Blosc arrays dt64
// wrote.
func TestBloscWriteForZarrPythonV2(t *testing.T) {
	requireZarrPython(t)
	ctx := context.Background()
	dir := t.TempDir()
	truths := map[string][]int64{}
	var paths []string
	i := 0
	for _, cname := range bloscWritable {
		for _, sh := range []string{"noshuffle", "shuffle", "bitshuffle"} {
			for _, dt := range []string{"<M8[ns]", ">m8[us]"} {
				i++
				d, order, err := dtype.ParseNumPy(dt)
				if err != nil {
					t.Fatal(err)
				}
				path := filepath.Join(dir, fmt.Sprintf("%s_%s_%s.zarr", cname, sh, strings.NewReplacer("<", "le", ">", "be", "[", "_", "]", "").Replace(dt)))
				a, err := Create(ctx, storage.NewDir(path), Metadata{Format: 2, DataType: d, Shape: []int64{7000}, ChunkShape: []int64{3000},
					FillValue: dtype.NaT, Codecs: []Codec{BytesCodec{Endian: order}, BloscCodec{CName: cname, CLevel: 5, Shuffle: sh}},
					Attributes: json.RawMessage(`{"written_by":"dt64"}`)})
				if err != nil {
					t.Fatal(err)
				}
				truth := demoTimestamps(7000, uint64(i))
				writeAll(t, a, truth)
				if err := a.WriteMetadata(ctx); err != nil {
					t.Fatal(err)
				}
				truths[path] = truth
				paths = append(paths, path)
			}
		}
	}
	out, err := exec.Command(python, append([]string{"../tools/zarrpy/read_v2.py"}, paths...)...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("read_v2.py: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var got map[string]pyRead
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("read_v2.py output: %v\n%.500s", err, out)
	}
	for path, truth := range truths {
		r, ok := got[path]
		if !ok {
			t.Errorf("%s: not read by zarr-python", path)
			continue
		}
		if !reflect.DeepEqual(r.Values, truth) {
			t.Errorf("%s: zarr-python read different values", filepath.Base(path))
		}
	}
}

// TestBloscCompressionFigures logs the stored size of realistic timestamps
// (see demoTimestamps) under plain zstd and blosc, one 1 MiB chunk, and
// checks blosc zstd with byte shuffle stores at most half of what plain zstd
// at a comparable level does (measured: 2.3x smaller).
func TestBloscCompressionFigures(t *testing.T) {
	vals := demoTimestamps(1<<17, 11)
	raw := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(3)))
	if err != nil {
		t.Fatal(err)
	}
	plain := len(enc.EncodeAll(raw, nil))
	t.Logf("%d timestamps, %d bytes raw", len(vals), len(raw))
	t.Logf("%-28s %8d bytes  %.2f bytes/value  ratio %.2f", "zstd level 3", plain, float64(plain)/float64(len(vals)), float64(len(raw))/float64(plain))
	sizes := map[string]int{}
	for _, c := range []BloscCodec{
		{CName: "zstd", CLevel: 3, Shuffle: "shuffle"},
		{CName: "zstd", CLevel: 5, Shuffle: "shuffle"},
		{CName: "zstd", CLevel: 5, Shuffle: "bitshuffle"},
		{CName: "lz4", CLevel: 5, Shuffle: "shuffle"},
		{CName: "lz4", CLevel: 5, Shuffle: "bitshuffle"},
		{CName: "zstd", CLevel: 5, Shuffle: "noshuffle"},
	} {
		s, err := newBloscStage(c, 8)
		if err != nil {
			t.Fatal(err)
		}
		out, err := s.encode(nil, raw)
		if err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("blosc %s:%d:%s", c.CName, c.CLevel, c.Shuffle)
		sizes[key] = len(out)
		t.Logf("%-28s %8d bytes  %.2f bytes/value  ratio %.2f  (%.2fx smaller than zstd)", key, len(out), float64(len(out))/float64(len(vals)), float64(len(raw))/float64(len(out)), float64(plain)/float64(len(out)))
	}
	if s := sizes["blosc zstd:3:shuffle"]; 2*s > plain {
		t.Errorf("blosc zstd:3:shuffle stores %d bytes, plain zstd level 3 %d: want at most half", s, plain)
	}
}

// TestBloscBitshuffleTail: crc32c before blosc makes the frame 4 bytes
// longer than the elements, so its last block ends past the last whole
// element; bit-unshuffle must keep those bytes (it dropped them for
// typesize 8, and every such chunk failed its checksum).
func TestBloscBitshuffleTail(t *testing.T) {
	ctx := context.Background()
	for _, cname := range []string{"lz4", "zstd"} {
		a, err := Create(ctx, storage.NewMemory(), Metadata{
			DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1},
			Shape:    []int64{31, 19}, ChunkShape: []int64{16, 10},
			Codecs: []Codec{BytesCodec{Endian: binary.BigEndian}, CRC32CCodec{},
				BloscCodec{CName: cname, CLevel: 1, Shuffle: "bitshuffle", BlockSize: 64}},
		})
		if err != nil {
			t.Fatal(err)
		}
		want := make([]int64, a.ChunkLen())
		for i := range want {
			want[i] = int64(i) * 1000
		}
		if err := a.WriteChunk(ctx, []int64{0, 0}, want); err != nil {
			t.Fatal(err)
		}
		got := make([]int64, a.ChunkLen())
		if err := a.ReadChunk(ctx, []int64{0, 0}, got); err != nil {
			t.Fatalf("%s: %v", cname, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: read back differs", cname)
		}
	}
}

// A v2 Blosc compressor has no typesize: numcodecs takes the dtype's item
// size, and so does the codec dt64 reads (it was shown as 8 for a 4-byte
// array).
func TestBloscV2TypeSizeIsItemSize(t *testing.T) {
	for _, c := range []struct {
		dtype string
		size  int
	}{{"<f4", 4}, {"<i2", 2}, {"<M8[ns]", 8}, {"|u1", 1}} {
		doc := `{"zarr_format": 2, "shape": [8], "chunks": [4], "dtype": "` + c.dtype + `", "fill_value": 0, "order": "C", "filters": null,
			"compressor": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}}`
		m, err := parseV2([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		var got int
		for _, codec := range m.Codecs {
			if b, ok := codec.(BloscCodec); ok {
				got = b.TypeSize
			}
		}
		if got != c.size {
			t.Errorf("%s: blosc typesize %d, want %d", c.dtype, got, c.size)
		}
	}
}
