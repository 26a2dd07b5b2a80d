package transcode_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// surrogateAttrs sets attributes holding lone UTF-16 surrogates (which
// Python's json writes and reads back) with zarr-python 2.13 on the root
// and on an array of the xarray dataset at src, and consolidates again.
const surrogateAttrs = `
import sys, zarr
g = zarr.open_group(sys.argv[1])
for node in (g, g[sorted(g.array_keys())[0]]):
    node.attrs.update({"lone": "\ud800", "low": "a\udc00b", "pair": "\U0001F600", "mixed": ["\udfff\ud800", {"k\ud801": 1}]})
zarr.consolidate_metadata(sys.argv[1])
`

// readAttrs prints, with zarr-python 2.13, the ascii() of the attributes
// surrogateAttrs set, as open_consolidated reads them.
const readAttrs = `
import sys, zarr
g = zarr.open_consolidated(sys.argv[1])
for node in (g, g[sorted(g.array_keys())[0]]):
    print(ascii({k: node.attrs[k] for k in ("lone", "low", "pair", "mixed")}))
`

func python3(t *testing.T, script string, args ...string) string {
	t.Helper()
	out, err := exec.Command(python, append([]string{"-c", script}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	return string(out)
}

// TestStoreSurrogateAttributesPython: attributes holding lone surrogates
// come through v2 -> v3 -> v2 as zarr-python 2.13 wrote them: the v3
// documents keep each escape byte for byte (not U+FFFD), and zarr-python
// reads the same attribute values from the result as from the source.
func TestStoreSurrogateAttributesPython(t *testing.T) {
	requireXarray(t)
	tmp := t.TempDir()
	src, v3, back := filepath.Join(tmp, "ds.zarr"), filepath.Join(tmp, "v3.zarr"), filepath.Join(tmp, "back.zarr")
	storesPy(t, "write", src)
	python3(t, surrogateAttrs, src)
	want := python3(t, readAttrs, src)
	if !strings.Contains(want, `'\ud800'`) {
		t.Fatalf("zarr-python did not keep the lone surrogate: %s", want)
	}
	o := transcode.StoreOptions{Options: transcode.Options{Format: 3, Workers: 2}}
	if _, err := runStore(t, storage.NewDir(src), storage.NewDir(v3), o); err != nil {
		t.Fatal(err)
	}
	root, err := os.ReadFile(filepath.Join(v3, "zarr.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, esc := range []string{`"lone": "\ud800"`, `"low": "a\udc00b"`, `"pair": "\ud83d\ude00"`, `"\udfff\ud800"`, `"k\ud801": 1`} {
		if !bytes.Contains(root, []byte(esc)) {
			t.Errorf("v3 zarr.json lacks %s:\n%s", esc, root)
		}
	}
	o.Format = 2
	if _, err := runStore(t, storage.NewDir(v3), storage.NewDir(back), o); err != nil {
		t.Fatal(err)
	}
	if got := python3(t, readAttrs, back); got != want {
		t.Fatalf("zarr-python 2.13 reads from v2 -> v3 -> v2\n%s\nwant, as from the source,\n%s", got, want)
	}
	srcAttrs, _ := os.ReadFile(filepath.Join(src, ".zattrs"))
	backAttrs, _ := os.ReadFile(filepath.Join(back, ".zattrs"))
	if !bytes.Equal(srcAttrs, backAttrs) {
		t.Errorf("root .zattrs not kept byte for byte:\n got %s\nwant %s", backAttrs, srcAttrs)
	}
}

// deepList is JSON lists nested depth deep.
func deepList(depth int) string {
	return strings.Repeat("[", depth) + strings.Repeat("]", depth)
}

// TestStoreDeepAttributes: a small .zattrs nested deeper than dt64's
// bound is refused on read with an error naming the document and the
// bound; one within the bound whose consolidated (v2) or migrated (v3) document
// would be larger than dt64 reads (indentation grows with depth) is
// refused before anything is written, naming the document, without
// building the document in memory.
func TestStoreDeepAttributes(t *testing.T) {
	tmp := t.TempDir()
	src := filepath.Join(tmp, "src.zarr")
	writeGroupWithAttrs(t, src, `{"deep": `+deepList(9000)+`}`)
	_, err := transcode.NewStore(ctx, storage.NewDir(src), storage.NewDir(filepath.Join(tmp, "a.zarr")), transcode.StoreOptions{})
	var de *zarr.DepthError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), ".zattrs") || !strings.Contains(err.Error(), "512") {
		t.Fatalf("9000 deep: got %v, want a DepthError naming .zattrs and the limit", err)
	}
	// 200 lists 500 deep: 200 KB of .zattrs, indented more than 200 MB.
	var b strings.Builder
	b.WriteString(`{"deep": [`)
	for i := range 200 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(deepList(500))
	}
	b.WriteString("]}")
	writeGroupWithAttrs(t, src, b.String())
	for _, format := range []int{2, 3} {
		dst := filepath.Join(tmp, "out"+string(rune('0'+format))+".zarr")
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := runStore(t, storage.NewDir(src), storage.NewDir(dst), transcode.StoreOptions{Options: transcode.Options{Format: format}})
		runtime.ReadMemStats(&after)
		var tl *zarr.DocumentTooLargeError
		if !errors.As(err, &tl) || !errors.Is(err, zarr.ErrTooLarge) {
			t.Fatalf("format %d: got %v, want a DocumentTooLargeError", format, err)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 160<<20 {
			t.Errorf("format %d: allocated %d MB to refuse the document", format, alloc>>20)
		}
		if _, err := os.Stat(dst); err == nil {
			if left := treeFiles(t, dst); len(left) > 0 {
				t.Errorf("format %d: wrote %v", format, left)
			}
		}
		t.Logf("format %d: %v", format, err)
	}
}

// writeGroupWithAttrs makes dir a v2 group with one small array, the
// group's .zattrs being attrs, and consolidated metadata written compact
// (so it is no larger than its members).
func writeGroupWithAttrs(t *testing.T, dir, attrs string) {
	t.Helper()
	os.RemoveAll(dir)
	zarray := `{"chunks": [4], "compressor": null, "dtype": "<i4", "fill_value": 0, "filters": null, "order": "C", "shape": [4], "zarr_format": 2}`
	files := map[string]string{
		".zgroup":   `{"zarr_format": 2}`,
		".zattrs":   attrs,
		"x/.zarray": zarray,
		".zmetadata": `{"metadata": {".zgroup": {"zarr_format": 2}, ".zattrs": ` + attrs +
			`, "x/.zarray": ` + zarray + `}, "zarr_consolidated_format": 1}`,
	}
	for name, doc := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
