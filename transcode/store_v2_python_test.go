package transcode_test

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// zstd3 is the time arrays' codec in the runs zarr-python 2.13 reads: the
// v3 fixture's sub/stamp has a zstd checksum, which dt64 writes to v2 as
// "checksum": true, and Debian's numcodecs 0.11 does not take it.
var zstd3 = transcode.Compression{Codec: zarr.ZstdCodec{Level: 3}}

// TestStoreV3ToV2Python: zarr-python 2.13's open_consolidated and xarray
// 2023.01's open_zarr read dt64's v2 output of zarr-python 3.1.3's v3
// dataset equal to what zarr-python 3.1.3 read from it: every array's
// values, dtype, shape, attributes and dimension names.
func TestStoreV3ToV2Python(t *testing.T) {
	requireXarray(t)
	dir := filepath.Join(t.TempDir(), "v2.zarr")
	o := transcode.StoreOptions{Options: transcode.Options{Format: 2, Compression: &zstd3, Workers: 2}}
	if _, err := runStore(t, storage.NewDir(groupFixture("dataset_v3.zarr")), storage.NewDir(dir), o); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Arrays   []string `json:"arrays"`
		Problems []string `json:"problems"`
	}
	if err := json.Unmarshal(storesPy(t, "values", dir, groupFixture("dataset_v3.values.json")), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) > 0 || len(res.Arrays) != 8 {
		t.Fatalf("zarr-python 2.13 and xarray see differences: %v (arrays %v)", res.Problems, res.Arrays)
	}
}

// TestStoreV2V3V2Python: an xarray 2023.01 dataset written to v3 by dt64
// and back to v2 is the dataset again: zarr-python 2.13 and xarray read
// the same values (xarray without masking: a v2 fill_value is xarray's
// _FillValue, and xarray's null fill of integers and bools comes back as
// 0, since v3 has no null; and a NaN or ±Infinity attribute as the string
// the v3 document, which must be JSON, held for it, as zarr-python 3
// writes it), every .zarray of an array that is not a time
// array means what it meant, apart from that fill, and its chunk files
// are the source's byte for byte.
func TestStoreV2V3V2Python(t *testing.T) {
	requireXarray(t)
	tmp := t.TempDir()
	src, v3, back := filepath.Join(tmp, "ds.zarr"), filepath.Join(tmp, "v3.zarr"), filepath.Join(tmp, "back.zarr")
	storesPy(t, "write", src)
	o := transcode.StoreOptions{Options: transcode.Options{Format: 3, Workers: 2}}
	if _, err := runStore(t, storage.NewDir(src), storage.NewDir(v3), o); err != nil {
		t.Fatal(err)
	}
	o.Format = 2
	sum, err := runStore(t, storage.NewDir(v3), storage.NewDir(back), o)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Problems []string `json:"problems"`
	}
	if err := json.Unmarshal(storesPy(t, "compare", src, back, "--raw", "--json-floats"), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Problems) > 0 {
		t.Fatalf("xarray and zarr-python see differences: %v", res.Problems)
	}
	timeArrays := transcodedArrays(sum)
	nodes, err := zarr.Walk(ctx, storage.NewDir(src))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, n := range nodes {
		if n.Kind != zarr.ArrayNode || underAny(filepath.FromSlash(n.Path)+"/x", timeArrays) {
			continue
		}
		var want, got map[string]any
		mustJSON(t, n.Metadata, &want)
		b, err := os.ReadFile(filepath.Join(back, n.Path, ".zarray"))
		if err != nil {
			t.Fatal(err)
		}
		mustJSON(t, b, &got)
		if want["fill_value"] == nil {
			want["fill_value"] = map[bool]any{true: false, false: 0.0}[n.DataType == "|b1"]
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s/.zarray:\n got %s\nwant %s", n.Path, b, n.Metadata)
		}
		checked++
	}
	if checked != 6 {
		t.Fatalf("compared %d arrays' metadata, want 6 (time arrays %v)", checked, timeArrays)
	}
	want, got := treeFiles(t, src), treeFiles(t, back)
	for k, v := range want {
		if !underAny(k, timeArrays) && !strings.HasPrefix(filepath.Base(k), ".") && got[k] != v {
			t.Errorf("%s: not the source's chunk byte for byte", k)
		}
	}
}

func mustJSON(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}

// TestStoreV3ToV2FilterPython: a v3 array dt64 cannot open (a
// numcodecs.delta filter) is migrated all the same, its chunks copied to
// v2 keys, and zarr-python 2.13 decodes them through the filter.
func TestStoreV3ToV2FilterPython(t *testing.T) {
	requireXarray(t)
	srcDir := filepath.Join(t.TempDir(), "src.zarr")
	le := zarr.BytesCodec{Endian: binary.LittleEndian}
	writeV3Group(t, srcDir, map[string][]zarr.Codec{"delta": {le, zarr.ZstdCodec{Level: 1}}})
	// Chunk i holds the 24 int32 0x3f800000 + 1000*i + e as the delta
	// filter encodes them: the values are their running sums.
	doc := filepath.Join(srcDir, "delta", "zarr.json")
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	patched := strings.Replace(string(b), `"data_type": "float32"`, `"data_type": "int32"`, 1)
	patched = strings.Replace(patched, `"fill_value": 0.0`, `"fill_value": 0`, 1)
	patched = strings.Replace(patched, `"codecs": [`, `"codecs": [{"name": "numcodecs.delta", "configuration": {"dtype": "<i4"}}, `, 1)
	if patched == string(b) {
		t.Fatalf("zarr.json not patched: %s", b)
	}
	if err := os.WriteFile(doc, []byte(patched), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := zarr.Open(ctx, mustSub(t, storage.NewDir(srcDir), "delta")); err == nil {
		t.Fatal("dt64 opens an array with a numcodecs.delta filter: the test no longer tests that case")
	}
	dir := filepath.Join(t.TempDir(), "v2.zarr")
	runVerified(t, storage.NewDir(srcDir), storage.NewDir(dir), transcode.StoreOptions{Options: transcode.Options{Format: 2}})
	out, err := exec.Command(python, "-c", `
import sys, zarr, numpy as np
a = zarr.open_array(sys.argv[1] + "/delta", mode="r")
assert a.filters[0].codec_id == "delta", a.filters
v = a[...]
for i in range(2):
    stored = (0x3f800000 + 1000 * i + np.arange(24)).astype("i4")
    assert (v[4 * i:4 * i + 4].ravel() == np.cumsum(stored, dtype="i4")).all(), v
print(a.dtype, a.shape, a.attrs["_ARRAY_DIMENSIONS"])
`, dir).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "int32 (8, 6) ['y', 'x']" {
		t.Fatalf("zarr-python 2.13: %v\n%s", err, out)
	}
}
