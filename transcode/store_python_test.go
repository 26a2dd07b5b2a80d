package transcode_test

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

const python = "/usr/bin/python3"

// requireXarray fails the test (skips it under -short) when Debian's
// python3 cannot import xarray and zarr: interop is what the store tests
// are about, so a missing xarray must not pass silently.
func requireXarray(t *testing.T) {
	t.Helper()
	out, err := exec.Command(python, "-c", "import xarray, zarr, numcodecs").CombinedOutput()
	if err == nil {
		return
	}
	msg := "the xarray interop test needs " + python + " with xarray and zarr 2 (apt-get install python3-xarray python3-zarr): " + err.Error() + ": " + string(out)
	if testing.Short() {
		t.Skip(msg)
	}
	t.Fatal(msg)
}

func storesPy(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(python, append([]string{filepath.Join("..", "tools", "xarray", "stores.py")}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("stores.py %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

// TestStoreXarray transcodes an xarray 2023.01 dataset (a CF time
// coordinate, float32, float64, int16 and bool variables, a 2-D variable,
// attributes, a subgroup with a native datetime64 array, consolidated
// metadata) as a whole store: zarr-python 2.13's open_consolidated and
// xarray.open_zarr read dt64's v2 output, equal to the source apart from
// the time encoding; and the v3 output has the structure zarr-python 3.1
// gives such a dataset.
func TestStoreXarray(t *testing.T) {
	requireXarray(t)
	tmp := t.TempDir()
	src := filepath.Join(tmp, "ds.zarr")
	storesPy(t, "write", src)

	v2 := filepath.Join(tmp, "v2.zarr")
	o := transcode.StoreOptions{Options: transcode.Options{Unit: dtype.Microsecond, Workers: 2}}
	if _, err := runStore(t, storage.NewDir(src), storage.NewDir(v2), o); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Nodes    []string `json:"zarr_nodes"`
		Problems []string `json:"problems"`
	}
	if err := json.Unmarshal(storesPy(t, "compare", src, v2), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) > 0 || len(res.Nodes) != 10 {
		t.Fatalf("xarray and zarr-python see differences: %v (nodes %v)", res.Problems, res.Nodes)
	}
	for _, p := range []string{"sub/stamp", "time"} { // native, and CF
		a, err := zarr.Open(ctx, mustSub(t, storage.NewDir(v2), p))
		if err != nil || !a.IsTime() || a.DataType().Unit != dtype.Microsecond {
			t.Fatalf("%s not converted to datetime64[us]: %v", p, err)
		}
	}

	// Every array re-encoded with zstd, big-endian: still the same
	// dataset.
	rec := filepath.Join(tmp, "recoded.zarr")
	zstd := transcode.Compression{Codec: zarr.ZstdCodec{Level: 3}}
	ro := transcode.StoreOptions{Options: transcode.Options{Compression: &zstd, Workers: 2, Endian: binary.BigEndian}, RecodeAll: true}
	if _, err := runStore(t, storage.NewDir(src), storage.NewDir(rec), ro); err != nil {
		t.Fatal(err)
	}
	res.Problems = nil
	if err := json.Unmarshal(storesPy(t, "compare", src, rec), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) > 0 {
		t.Fatalf("re-encoded: xarray and zarr-python see differences: %v", res.Problems)
	}
	if b, err := os.ReadFile(filepath.Join(rec, "temp", ".zarray")); err != nil || !strings.Contains(string(b), `"zstd"`) || !strings.Contains(string(b), `">f4"`) {
		t.Fatalf("temp not re-encoded with zstd, big-endian: %v %s", err, b)
	}
	if b, err := os.ReadFile(filepath.Join(rec, "valid", ".zarray")); err != nil || !strings.Contains(string(b), `"|i1"`) { // xarray stores bools as int8
		t.Fatalf("a one-byte array (xarray's bool) has no byte order: %v %s", err, b)
	}

	v3 := filepath.Join(tmp, "v3.zarr")
	o.Format = 3
	if _, err := runStore(t, storage.NewDir(src), storage.NewDir(v3), o); err != nil {
		t.Fatal(err)
	}
	checkV3Structure(t, v3)
}

func mustSub(t *testing.T, s storage.Store, p string) storage.Store {
	t.Helper()
	v, err := storage.Sub(s, p)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// checkV3Structure checks a v3 hierarchy has the shape of one zarr-python
// 3.1.3 writes (testdata/zarr/groups/dataset_v3.zarr): a root group whose
// consolidated metadata lists every node with its own document, arrays
// with v3 data type names, dimension_names and no _ARRAY_DIMENSIONS
// attribute, the bytes codec first; every document JSON.
func checkV3Structure(t *testing.T, dir string) {
	t.Helper()
	nodes, err := zarr.Walk(ctx, storage.NewDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	cons, err := zarr.ReadConsolidated(ctx, storage.NewDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	if len(cons) != len(nodes) {
		t.Fatalf("consolidated metadata lists %d nodes, the store has %d", len(cons), len(nodes))
	}
	byPath := map[string]zarr.Node{}
	for _, n := range cons {
		byPath[n.Path] = n
	}
	for _, n := range nodes {
		c, ok := byPath[n.Path]
		if !ok || c.Kind != n.Kind || c.DataType != n.DataType {
			t.Errorf("%q: consolidated %+v, stored %+v", n.Path, c, n)
		}
		if n.Format != 3 {
			t.Errorf("%q: format %d", n.Path, n.Format)
		}
		if n.Kind != zarr.ArrayNode {
			continue
		}
		var doc struct {
			DataType       json.RawMessage   `json:"data_type"`
			DimensionNames []string          `json:"dimension_names"`
			Attributes     map[string]any    `json:"attributes"`
			Codecs         []json.RawMessage `json:"codecs"`
			NodeType       string            `json:"node_type"`
		}
		// v3 documents are JSON: attributes Python wrote as bare NaN and
		// -Infinity become the strings zarr-python 3 writes for them
		// (_replace_special_floats); a strict reader (zarrs, tensorstore,
		// zarr.js) refuses the bare tokens.
		if err := json.Unmarshal(n.Metadata, &doc); err != nil {
			t.Fatalf("%q: not JSON: %v", n.Path, err)
		}
		if n.Path == "pressure" && (!strings.Contains(string(n.Metadata), `"valid_max": "NaN"`) || !strings.Contains(string(n.Metadata), `"valid_min": "-Infinity"`)) {
			t.Errorf("%q: the NaN attributes are not the strings zarr-python 3 writes: %s", n.Path, n.Metadata)
		}
		if len(doc.DimensionNames) != len(n.Shape) || doc.Attributes["_ARRAY_DIMENSIONS"] != nil {
			t.Errorf("%q: dimension_names %v, attributes %v", n.Path, doc.DimensionNames, doc.Attributes)
		}
		if !strings.Contains(string(doc.Codecs[0]), `"bytes"`) {
			t.Errorf("%q: codecs %s", n.Path, doc.Codecs)
		}
		if strings.HasPrefix(n.DataType, "<") || strings.HasPrefix(n.DataType, "|") {
			t.Errorf("%q: v2 data type %s", n.Path, n.DataType)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".zmetadata")); err == nil {
		t.Error("v2 .zmetadata in a v3 store")
	}
}

// TestStoreV3LikeZarrPython copies zarr-python 3.1.3's v3 dataset fixture
// (consolidated) and finds every chunk file byte for byte and every
// document, the consolidated root included, member for member as
// zarr-python wrote them; the native time arrays, re-encoded by their
// Jobs, value for value, and the CF one converted.
func TestStoreV3LikeZarrPython(t *testing.T) {
	fixture := groupFixture("dataset_v3.zarr")
	dir := filepath.Join(t.TempDir(), "out.zarr")
	sum, err := runStore(t, storage.NewDir(fixture), storage.NewDir(dir), transcode.StoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// The CF array sub/obs_time becomes native datetime64; the native
	// ones are re-encoded: their values are compared below.
	converted := transcodedArrays(sum)
	if !slices.Equal(converted, []string{"sub/obs_time", "sub/stamp", "time"}) {
		t.Fatalf("converted %v", converted)
	}
	nodes, err := zarr.Walk(ctx, storage.NewDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	if key, doc, err := zarr.ConsolidatedDocument(nodes); err != nil || key != "zarr.json" {
		t.Fatal(key, err)
	} else if stored, _ := storage.NewDir(dir).Get(ctx, key); string(stored) != string(doc) {
		t.Error("the consolidated root is not what WriteConsolidated writes")
	}
	want, got := treeFiles(t, fixture), treeFiles(t, dir)
	for k, v := range want {
		if underAny(k, converted) {
			continue
		}
		if filepath.Base(k) == "zarr.json" {
			var w, g map[string]any
			for f, m := range map[string]*map[string]any{filepath.Join(fixture, k): &w, filepath.Join(dir, k): &g} {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal(b, m); err != nil {
					t.Fatal(err)
				}
			}
			for _, doc := range []map[string]any{w, g} {
				if cm, ok := doc["consolidated_metadata"].(map[string]any); ok {
					members, _ := cm["metadata"].(map[string]any)
					for _, a := range converted {
						delete(members, a)
					}
				}
			}
			wb, _ := json.Marshal(w)
			gb, _ := json.Marshal(g)
			if string(wb) != string(gb) {
				t.Errorf("%s:\n got %s\nwant %s", k, gb, wb)
			}
			continue
		}
		if got[k] != v {
			t.Errorf("%s: differs from zarr-python's", k)
		}
	}
	for _, p := range []string{"time", "sub/stamp"} {
		_, w := readArray(t, mustSub(t, storage.NewDir(fixture), p))
		_, g := readArray(t, mustSub(t, storage.NewDir(dir), p))
		if !slices.Equal(w, g) {
			t.Errorf("%s: values differ", p)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d files, zarr-python's has %d", len(got), len(want))
	}
	checkV3Structure(t, dir)
}
