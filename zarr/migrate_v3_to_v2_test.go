package zarr

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/storage"
)

// TestMigrateV3InvertsZarrPython translates back every numeric array of
// testdata/zarr/groups/migrated_v3.zarr (zarr-python 3.1.3's migration of
// a zarr 2.13 store, v2 chunk keys) and finds the .zarray and .zattrs that
// zarr-python 2.13 wrote for the source, byte for byte.
func TestMigrateV3InvertsZarrPython(t *testing.T) {
	dir := filepath.Join("..", "testdata", "zarr", "groups")
	nodes, err := Walk(context.Background(), storage.NewDir(filepath.Join(dir, "migrated_v3.zarr")))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, n := range nodes {
		if n.Kind != ArrayNode || n.DataType == "numpy.datetime64" {
			continue
		}
		got, err := MigrateV3Array(n)
		if err != nil {
			t.Fatalf("%q: %v", n.Path, err)
		}
		for name, doc := range map[string][]byte{".zarray": got.Zarray, ".zattrs": got.Zattrs} {
			want, err := os.ReadFile(filepath.Join(dir, "migrated_v3.source_v2.zarr", n.Path, name))
			if err != nil {
				t.Fatal(err)
			}
			if string(doc) != string(want) {
				t.Errorf("%s/%s:\n got %s\nwant %s", n.Path, name, doc, want)
			}
		}
		if want := (KeyEncoding{"v2", "."}); got.SourceKeys != want || got.Keys != want {
			t.Errorf("%q: keys %v -> %v, want v2 keys kept", n.Path, got.SourceKeys, got.Keys)
		}
		checked++
	}
	if checked != 6 {
		t.Fatalf("checked %d arrays, want 6", checked)
	}
}

// TestMigrateV3RoundTrip: MigrateV2Array then MigrateV3Array gives every
// numeric v2 array of the xarray fixture its .zarray back, member for
// member, apart from xarray's null fill, which v3 has not and becomes zero.
func TestMigrateV3RoundTrip(t *testing.T) {
	dir := filepath.Join("..", "testdata", "zarr", "groups")
	for _, fixture := range []string{"xarray_v2.zarr", "migrated_v3.source_v2.zarr"} {
		nodes, err := Walk(context.Background(), storage.NewDir(filepath.Join(dir, fixture)))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range nodes {
			if n.Kind != ArrayNode || strings.Contains(n.DataType, "M8") {
				continue
			}
			v3doc, err := MigrateV2Array(n)
			if err != nil {
				t.Fatalf("%s %q: %v", fixture, n.Path, err)
			}
			v3 := Node{Path: n.Path, Kind: ArrayNode, Format: 3, Metadata: v3doc}
			var m struct {
				DataType string `json:"data_type"`
			}
			if err := json.Unmarshal(v3doc, &m); err != nil {
				t.Fatal(err)
			}
			v3.DataType = m.DataType
			back, err := MigrateV3Array(v3)
			if err != nil {
				t.Fatalf("%s %q: %v", fixture, n.Path, err)
			}
			var want, got, wantAttrs, gotAttrs map[string]any
			mustUnmarshal(t, n.Metadata, &want)
			mustUnmarshal(t, back.Zarray, &got)
			if want["fill_value"] == nil {
				want["fill_value"] = map[bool]any{true: false, false: 0.0}[n.DataType == "|b1"]
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %q .zarray:\n got %s\nwant %s", fixture, n.Path, back.Zarray, n.Metadata)
			}
			mustUnmarshal(t, n.AttrsDoc, &wantAttrs)
			mustUnmarshal(t, back.Zattrs, &gotAttrs)
			if !reflect.DeepEqual(gotAttrs, wantAttrs) {
				t.Errorf("%s %q .zattrs:\n got %s\nwant %s", fixture, n.Path, back.Zattrs, n.AttrsDoc)
			}
		}
	}
}

func mustUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if b == nil {
		return
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}

// v3Doc is a zarr.json of a 2-D array with the given data type, codecs,
// fill value and chunk key encoding; extra members are appended.
func v3Doc(dataType, codecs, fill, keys, extra string) Node {
	if keys == "" {
		keys = `{"name": "default", "configuration": {"separator": "/"}}`
	}
	doc := `{"shape": [4, 6], "data_type": "` + dataType + `",
	  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2, 3]}},
	  "chunk_key_encoding": ` + keys + `, "fill_value": ` + fill + `,
	  "codecs": ` + codecs + `, "attributes": {"units": "K"}` + extra + `,
	  "zarr_format": 3, "node_type": "array", "storage_transformers": []}`
	return Node{Path: "a", Kind: ArrayNode, Format: 3, Metadata: []byte(doc), DataType: dataType, Shape: []int64{4, 6}, ChunkShape: []int64{2, 3}}
}

const (
	bytesLE = `{"name": "bytes", "configuration": {"endian": "little"}}`
	bytesBE = `{"name": "bytes", "configuration": {"endian": "big"}}`
	bytes1  = `{"name": "bytes"}`
)

// TestMigrateV3Codecs translates each codec, data type family and fill
// value form dt64 migrates and checks the .zarray members.
func TestMigrateV3Codecs(t *testing.T) {
	for _, tc := range []struct {
		name, dataType, codecs, fill string
		want                         map[string]any // .zarray members
	}{
		{"float32 LE, no compressor", "float32", `[` + bytesLE + `]`, `"NaN"`,
			map[string]any{"dtype": "<f4", "compressor": nil, "filters": nil, "order": "C", "fill_value": "NaN"}},
		{"float64 BE, +inf", "float64", `[` + bytesBE + `]`, `"Infinity"`,
			map[string]any{"dtype": ">f8", "fill_value": "Infinity"}},
		{"float16, -inf", "float16", `[` + bytesLE + `]`, `"-Infinity"`,
			map[string]any{"dtype": "<f2", "fill_value": "-Infinity"}},
		{"float32 hex fill", "float32", `[` + bytesLE + `]`, `"0x3fc00000"`,
			map[string]any{"fill_value": 1.5}},
		{"float32 NaN with a payload", "float32", `[` + bytesLE + `]`, `"0x7fc00001"`,
			map[string]any{"fill_value": "NaN"}},
		{"float32 decimal fill as float32", "float32", `[` + bytesLE + `]`, `0.1`,
			map[string]any{"fill_value": 0.10000000149011612}},
		{"bool", "bool", `[` + bytes1 + `]`, `true`,
			map[string]any{"dtype": "|b1", "fill_value": true}},
		{"int8", "int8", `[` + bytes1 + `]`, `-1`,
			map[string]any{"dtype": "|i1", "fill_value": -1.0}},
		{"uint8", "uint8", `[` + bytes1 + `]`, `255`,
			map[string]any{"dtype": "|u1", "fill_value": 255.0}},
		{"int16 BE", "int16", `[` + bytesBE + `]`, `-32768`, map[string]any{"dtype": ">i2", "fill_value": -32768.0}},
		{"uint64", "uint64", `[` + bytesLE + `]`, `18446744073709551615`, map[string]any{"dtype": "<u8"}},
		{"int64", "int64", `[` + bytesLE + `]`, `0`, map[string]any{"dtype": "<i8", "fill_value": 0.0}},
		{"complex64", "complex64", `[` + bytesLE + `]`, `["NaN", 1.0]`,
			map[string]any{"dtype": "<c8", "fill_value": []any{"NaN", 1.0}}},
		{"complex128 BE", "complex128", `[` + bytesBE + `]`, `[0.0, "-Infinity"]`,
			map[string]any{"dtype": ">c16", "fill_value": []any{0.0, "-Infinity"}}},
		{"blosc", "float32", `[` + bytesLE + `, {"name": "blosc", "configuration": {"typesize": 4, "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "blocksize": 0}}]`, `0.0`,
			map[string]any{"compressor": map[string]any{"id": "blosc", "cname": "lz4", "clevel": 5.0, "shuffle": 1.0, "blocksize": 0.0}}},
		{"blosc bitshuffle", "int32", `[` + bytesLE + `, {"name": "blosc", "configuration": {"typesize": 4, "cname": "zstd", "clevel": 3, "shuffle": "bitshuffle", "blocksize": 65536}}]`, `0`,
			map[string]any{"compressor": map[string]any{"id": "blosc", "cname": "zstd", "clevel": 3.0, "shuffle": 2.0, "blocksize": 65536.0}}},
		{"blosc noshuffle", "uint8", `[` + bytes1 + `, {"name": "blosc", "configuration": {"typesize": 1, "cname": "blosclz", "clevel": 9, "shuffle": "noshuffle", "blocksize": 0}}]`, `0`,
			map[string]any{"compressor": map[string]any{"id": "blosc", "cname": "blosclz", "clevel": 9.0, "shuffle": 0.0, "blocksize": 0.0}}},
		{"zstd", "float64", `[` + bytesLE + `, {"name": "zstd", "configuration": {"level": 3, "checksum": false}}]`, `0.0`,
			map[string]any{"compressor": map[string]any{"id": "zstd", "level": 3.0}}},
		{"zstd checksum", "float64", `[` + bytesLE + `, {"name": "zstd", "configuration": {"level": 0, "checksum": true}}]`, `0.0`,
			map[string]any{"compressor": map[string]any{"id": "zstd", "level": 0.0, "checksum": true}}},
		{"gzip", "int16", `[` + bytesLE + `, {"name": "gzip", "configuration": {"level": 5}}]`, `0`,
			map[string]any{"compressor": map[string]any{"id": "gzip", "level": 5.0}}},
		{"numcodecs compressor", "int16", `[` + bytesLE + `, {"name": "numcodecs.zlib", "configuration": {"level": 2}}]`, `0`,
			map[string]any{"compressor": map[string]any{"id": "zlib", "level": 2.0}}},
		{"numcodecs filters", "float64", `[{"name": "numcodecs.delta", "configuration": {"dtype": "<f8"}}, {"name": "numcodecs.fixedscaleoffset", "configuration": {"offset": 0, "scale": 10, "dtype": "<f8", "astype": "<i4"}}, ` + bytesLE + `, {"name": "numcodecs.lz4", "configuration": {"acceleration": 1}}]`, `0.0`,
			map[string]any{"filters": []any{map[string]any{"id": "delta", "dtype": "<f8"}, map[string]any{"id": "fixedscaleoffset", "offset": 0.0, "scale": 10.0, "dtype": "<f8", "astype": "<i4"}},
				"compressor": map[string]any{"id": "lz4", "acceleration": 1.0}}},
		{"transpose as order F", "float32", `[{"name": "transpose", "configuration": {"order": [1, 0]}}, ` + bytesLE + `]`, `0.0`,
			map[string]any{"order": "F"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := MigrateV3Array(v3Doc(tc.dataType, tc.codecs, tc.fill, "", ""))
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]any
			mustUnmarshal(t, got.Zarray, &m)
			for k, w := range tc.want {
				if !reflect.DeepEqual(m[k], w) {
					t.Errorf("%s = %#v, want %#v\n%s", k, m[k], w, got.Zarray)
				}
			}
			for k, w := range map[string]any{"zarr_format": 2.0, "shape": []any{4.0, 6.0}, "chunks": []any{2.0, 3.0}, "dimension_separator": "/"} {
				if !reflect.DeepEqual(m[k], w) {
					t.Errorf("%s = %v, want %v", k, m[k], w)
				}
			}
			if len(m) != 9 {
				t.Errorf("%d members: %s", len(m), got.Zarray)
			}
			if string(got.Zattrs) != "{\n    \"units\": \"K\"\n}" {
				t.Errorf(".zattrs %s", got.Zattrs)
			}
		})
	}
}

// TestMigrateV3Keys: "default" keys become v2 keys with the same
// separator (the chunk bytes are renamed, not rewritten); "v2" keys stay.
func TestMigrateV3Keys(t *testing.T) {
	for _, tc := range []struct {
		keys     string
		src, dst KeyEncoding
		sep      any
	}{
		{`{"name": "default", "configuration": {"separator": "/"}}`, KeyEncoding{"default", "/"}, KeyEncoding{"v2", "/"}, "/"},
		{`{"name": "default"}`, KeyEncoding{"default", "/"}, KeyEncoding{"v2", "/"}, "/"},
		{`{"name": "default", "configuration": {"separator": "."}}`, KeyEncoding{"default", "."}, KeyEncoding{"v2", "."}, nil},
		{`{"name": "v2", "configuration": {"separator": "."}}`, KeyEncoding{"v2", "."}, KeyEncoding{"v2", "."}, nil},
		{`{"name": "v2"}`, KeyEncoding{"v2", "."}, KeyEncoding{"v2", "."}, nil},
		{`{"name": "v2", "configuration": {"separator": "/"}}`, KeyEncoding{"v2", "/"}, KeyEncoding{"v2", "/"}, "/"},
	} {
		got, err := MigrateV3Array(v3Doc("int32", `[`+bytesLE+`]`, "0", tc.keys, ""))
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		mustUnmarshal(t, got.Zarray, &m)
		if got.SourceKeys != tc.src || got.Keys != tc.dst || m["dimension_separator"] != tc.sep {
			t.Errorf("%s: %v -> %v, dimension_separator %v", tc.keys, got.SourceKeys, got.Keys, m["dimension_separator"])
		}
	}
}

// TestMigrateV3Dimensions: dimension_names become _ARRAY_DIMENSIONS; an
// attribute of that name that agrees is kept, one that does not is an
// error; no attributes and no names, no .zattrs.
func TestMigrateV3Dimensions(t *testing.T) {
	n := v3Doc("float32", `[`+bytesLE+`]`, "0.0", "", `, "dimension_names": ["time", "lat"]`)
	got, err := MigrateV3Array(n)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n    \"_ARRAY_DIMENSIONS\": [\n        \"time\",\n        \"lat\"\n    ],\n    \"units\": \"K\"\n}"; string(got.Zattrs) != want {
		t.Errorf(".zattrs %s, want %s", got.Zattrs, want)
	}
	n.Metadata = []byte(strings.Replace(string(n.Metadata), `{"units": "K"}`, `{"_ARRAY_DIMENSIONS": ["time", "lat"]}`, 1))
	if again, err := MigrateV3Array(n); err != nil || !strings.Contains(string(again.Zattrs), "time") {
		t.Errorf("agreeing attribute: %v %s", err, again.Zattrs)
	}
	n.Metadata = []byte(strings.Replace(string(n.Metadata), `["time", "lat"]}`, `["t", "y"]}`, 1))
	if _, err := MigrateV3Array(n); !errors.Is(err, ErrUntranslatable) || !strings.Contains(err.Error(), "differs") {
		t.Errorf("disagreeing attribute: %v", err)
	}
	bare := v3Doc("float32", `[`+bytesLE+`]`, "0.0", "", "")
	bare.Metadata = []byte(strings.Replace(string(bare.Metadata), `{"units": "K"}`, `{}`, 1))
	if got, err := MigrateV3Array(bare); err != nil || got.Zattrs != nil {
		t.Errorf("no attributes: %v %q", err, got.Zattrs)
	}
}

// TestMigrateV3Refuses: what has no v2 form is an error wrapping
// ErrUntranslatable that names the array and what has none.
func TestMigrateV3Refuses(t *testing.T) {
	shard := `[{"name": "sharding_indexed", "configuration": {"chunk_shape": [1, 3], "codecs": [` + bytesLE + `], "index_codecs": [` + bytesLE + `, {"name": "crc32c"}]}}]`
	for _, tc := range []struct {
		name string
		n    Node
		want string
	}{
		{"sharding", v3Doc("float32", shard, "0.0", "", ""), "sharding_indexed"},
		{"crc32c", v3Doc("float32", `[`+bytesLE+`, {"name": "zstd", "configuration": {"level": 1, "checksum": false}}, {"name": "crc32c"}]`, "0.0", "", ""), `"crc32c" has no v2 form`},
		{"two compressors", v3Doc("float32", `[`+bytesLE+`, {"name": "numcodecs.shuffle", "configuration": {"elementsize": 4}}, {"name": "zstd", "configuration": {"level": 1, "checksum": false}}]`, "0.0", "", ""), "one compressor"},
		{"another transpose", v3Doc("float32", `[{"name": "transpose", "configuration": {"order": [0, 1]}}, `+bytesLE+`]`, "0.0", "", ""), "transpose"},
		{"transpose after a filter", v3Doc("float32", `[{"name": "numcodecs.delta", "configuration": {"dtype": "<f4"}}, {"name": "transpose", "configuration": {"order": [1, 0]}}, `+bytesLE+`]`, "0.0", "", ""), "transpose"},
		{"unknown compressor", v3Doc("float32", `[`+bytesLE+`, {"name": "mystery"}]`, "0.0", "", ""), "mystery"},
		{"no bytes codec", v3Doc("float32", `[{"name": "numcodecs.pcodec"}]`, "0.0", "", ""), "no bytes codec"},
		{"blosc autoshuffle", v3Doc("float32", `[`+bytesLE+`, {"name": "blosc", "configuration": {"typesize": 4, "cname": "lz4", "clevel": 5, "shuffle": "auto", "blocksize": 0}}]`, "0.0", "", ""), "shuffle"},
		{"datetime", v3Doc("numpy.datetime64", `[`+bytesLE+`]`, "0", "", ""), "numpy.datetime64"},
		{"storage transformer", func() Node {
			n := v3Doc("float32", `[`+bytesLE+`]`, "0.0", "", "")
			n.Metadata = []byte(strings.Replace(string(n.Metadata), `"storage_transformers": []`, `"storage_transformers": [{"name": "x"}]`, 1))
			return n
		}(), "storage transformers"},
		{"unknown field", v3Doc("float32", `[`+bytesLE+`]`, "0.0", "", `, "my_extension": {"must_understand": false}`), "my_extension"},
		{"null dimension name", v3Doc("float32", `[`+bytesLE+`]`, "0.0", "", `, "dimension_names": ["time", null]`), "null name"},
		{"other chunk grid", func() Node {
			n := v3Doc("float32", `[`+bytesLE+`]`, "0.0", "", "")
			n.Metadata = []byte(strings.Replace(string(n.Metadata), `"name": "regular"`, `"name": "rectilinear"`, 1))
			return n
		}(), "regular chunk grid"},
		{"bad fill", v3Doc("int8", `[`+bytes1+`]`, "300", "", ""), "fill_value"},
	} {
		_, err := MigrateV3Array(tc.n)
		if !errors.Is(err, ErrUntranslatable) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"a"`) {
			t.Errorf("%s: %v, want ErrUntranslatable naming %q and the array", tc.name, err, tc.want)
		}
	}
}

func TestNodeKeyEncoding(t *testing.T) {
	for doc, want := range map[string]KeyEncoding{
		`{"zarr_format": 2, "dimension_separator": "/"}`: {"v2", "/"},
		`{"zarr_format": 2}`:                             {"v2", "."},
	} {
		got, err := Node{Path: "a", Kind: ArrayNode, Format: 2, Metadata: []byte(doc)}.KeyEncoding()
		if err != nil || got != want {
			t.Errorf("%s: %v %v, want %v", doc, got, err, want)
		}
	}
	n := v3Doc("int8", `[`+bytes1+`]`, "0", `{"name": "default", "configuration": {"separator": ":"}}`, "")
	if _, err := n.KeyEncoding(); err == nil {
		t.Error("separator \":\" accepted")
	}
}
