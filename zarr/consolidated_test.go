package zarr

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/zarr-dt64/dt64/internal/pyjson"
	"github.com/zarr-dt64/dt64/storage"
)

// withoutConsolidated returns a v3 group document with its
// consolidated_metadata member dropped, for comparing a group read from
// consolidated metadata (which has one) with its own zarr.json.
func withoutConsolidated(t *testing.T, doc []byte) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "consolidated_metadata")
	b, _ := json.Marshal(m)
	return b
}

// sameNodes checks that consolidated metadata read (got) describes the
// nodes a walk found (want), document for document.
func sameNodes(t *testing.T, got, want []Node) {
	t.Helper()
	if !slices.Equal(nodePaths(got), nodePaths(want)) {
		t.Fatalf("consolidated metadata lists %q, the walk finds %q", nodePaths(got), nodePaths(want))
	}
	for i, g := range got {
		w := want[i]
		gm, wm := g.Metadata, w.Metadata
		if g.Kind == GroupNode && g.Format == 3 {
			gm, wm = withoutConsolidated(t, gm), withoutConsolidated(t, wm)
		}
		if g.Kind != w.Kind || g.Format != w.Format || !jsonEqual(t, gm, wm) {
			t.Errorf("%q: consolidated %v v%d %s\nwalk %v v%d %s", g.Path, g.Kind, g.Format, gm, w.Kind, w.Format, wm)
		}
		if !jsonEqual(t, g.Attributes, w.Attributes) || (g.AttrsDoc == nil) != (w.AttrsDoc == nil) {
			t.Errorf("%q: attributes %s, walk %s", g.Path, g.Attributes, w.Attributes)
		}
		if !slices.Equal(g.Shape, w.Shape) || !slices.Equal(g.ChunkShape, w.ChunkShape) || g.DataType != w.DataType || !slices.Equal(g.DimensionNames, w.DimensionNames) {
			t.Errorf("%q: consolidated %+v, walk %+v", g.Path, g, w)
		}
	}
}

func TestReadConsolidatedFixtures(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"dataset_v3.zarr", "xarray_v2.zarr"} {
		t.Run(name, func(t *testing.T) {
			st := storage.NewDir(groupFixtures + name)
			walked, err := Walk(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadConsolidated(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			sameNodes(t, got, walked)
		})
	}
	for _, name := range []string{"migrated_v3.zarr", "migrated_v3.source_v2.zarr"} {
		if _, err := ReadConsolidated(ctx, storage.NewDir(groupFixtures+name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s has no consolidated metadata: %v", name, err)
		}
	}
	checkAgainstValues(t, mustReadConsolidated(t, storage.NewDir(groupFixtures+"dataset_v3.zarr")), groupFixtures+"dataset_v3.values.json", 3)
}

func mustReadConsolidated(t *testing.T, st storage.Store) []Node {
	t.Helper()
	n, err := ReadConsolidated(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWriteConsolidatedV3 removes dataset_v3.zarr's consolidated metadata
// (as zarr-python writes a group without it: "consolidated_metadata":
// null) and has dt64 write it again: the root zarr.json must be
// zarr-python's, byte for byte.
func TestWriteConsolidatedV3(t *testing.T) {
	ctx := context.Background()
	want, err := os.ReadFile(groupFixtures + "dataset_v3.zarr/zarr.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"null", "absent"} {
		t.Run(mode, func(t *testing.T) {
			st := memoryCopy(t, groupFixtures+"dataset_v3.zarr")
			root, err := pyjson.Parse(want)
			if err != nil {
				t.Fatal(err)
			}
			if mode == "null" {
				root.Set("consolidated_metadata", pyjson.NewLiteral("null"), "")
			} else {
				i := slices.Index(root.Keys, "consolidated_metadata")
				root.Keys = slices.Delete(root.Keys, i, i+1)
				root.Vals = slices.Delete(root.Vals, i, i+1)
			}
			_ = st.Set(ctx, "zarr.json", pyjson.Dumps(root, 2, false))
			if _, err := ReadConsolidated(ctx, st); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("consolidated metadata not removed: %v", err)
			}
			if _, err := WriteConsolidated(ctx, st); err != nil {
				t.Fatal(err)
			}
			got, _ := st.Get(ctx, "zarr.json")
			if !jsonEqual(t, got, want) {
				t.Fatalf("dt64 wrote\n%s\nzarr-python\n%s", got, want)
			}
			if string(got) != string(want) {
				t.Errorf("same JSON value, other bytes:\n%s\nzarr-python\n%s", got, want)
			}
			walked, err := Walk(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			sameNodes(t, mustReadConsolidated(t, st), walked)
		})
	}
}

// TestWriteConsolidatedV2 has dt64 write .zmetadata for a copy of the
// xarray store without one: it must be xarray's, byte for byte.
func TestWriteConsolidatedV2(t *testing.T) {
	ctx := context.Background()
	want, err := os.ReadFile(groupFixtures + "xarray_v2.zarr/.zmetadata")
	if err != nil {
		t.Fatal(err)
	}
	st := memoryCopy(t, groupFixtures+"xarray_v2.zarr")
	_ = st.Delete(ctx, ".zmetadata")
	if _, err := WriteConsolidated(ctx, st); err != nil {
		t.Fatal(err)
	}
	got, _ := st.Get(ctx, ".zmetadata")
	if string(got) != string(want) {
		t.Errorf("dt64 wrote\n%s\nxarray\n%s", got, want)
	}
}

// copyDir copies directory src to dst, leaving out the files named in
// skip (slash-separated, relative to src).
func copyDir(t *testing.T, src, dst string, skip ...string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if slices.Contains(skip, filepath.ToSlash(rel)) {
			return nil
		}
		if e.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// pyGroups is what tools/xarray/groups_v2.py read prints.
type pyGroups struct {
	Zarr map[string]struct {
		Kind  string          `json:"kind"`
		Attrs json.RawMessage `json:"attrs"`
		Shape []int64         `json:"shape"`
		Dtype string          `json:"dtype"`
	} `json:"zarr"`
	Xarray map[string]struct {
		Attrs json.RawMessage `json:"attrs"`
		Vars  map[string]struct {
			Dims   []string          `json:"dims"`
			Values []json.RawMessage `json:"values"`
		} `json:"vars"`
	} `json:"xarray"`
}

func runGroupsPy(t *testing.T, store string) pyGroups {
	t.Helper()
	out, err := exec.Command(python, "../tools/xarray/groups_v2.py", "read", store).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("groups_v2.py read %s: %v\n%s", store, err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var g pyGroups
	if err := json.Unmarshal(out, &g); err != nil {
		t.Fatalf("groups_v2.py output: %v\n%.500s", err, out)
	}
	return g
}

// TestConsolidatedV2ForZarrPython writes .zmetadata with dt64 for a copy
// of the xarray store without one, and has zarr-python 2.13's
// open_consolidated and xarray's open_zarr(consolidated=True) read it.
// The copy also lacks sub's .zattrs, so they can only have read sub's
// attributes from dt64's .zmetadata.
func TestConsolidatedV2ForZarrPython(t *testing.T) {
	requireZarrPython(t)
	ctx := context.Background()
	src := groupFixtures + "xarray_v2.zarr"
	want := runGroupsPy(t, src)
	if len(want.Zarr) != 8 || len(want.Xarray["sub"].Vars) != 2 {
		t.Fatalf("groups_v2.py read the fixture as %+v", want)
	}
	dst := filepath.Join(t.TempDir(), "copy.zarr")
	copyDir(t, src, dst, ".zmetadata")
	nodes, err := WriteConsolidated(ctx, storage.NewDir(dst))
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != len(want.Zarr) {
		t.Errorf("dt64 consolidated %d nodes, zarr-python sees %d", len(nodes), len(want.Zarr))
	}
	if err := os.Remove(filepath.Join(dst, "sub", ".zattrs")); err != nil {
		t.Fatal(err)
	}
	got := runGroupsPy(t, dst)
	wb, _ := json.Marshal(want)
	gb, _ := json.Marshal(got)
	if string(wb) != string(gb) {
		t.Errorf("zarr-python and xarray read dt64's .zmetadata as\n%s\nand xarray's as\n%s", gb, wb)
	}
	for _, n := range nodes {
		p, ok := want.Zarr[n.Path]
		if !ok || p.Kind != n.Kind.String() || !jsonEqual(t, p.Attrs, n.Attributes) || (n.Kind == ArrayNode && (!slices.Equal(p.Shape, n.Shape) || p.Dtype != n.DataType)) {
			t.Errorf("%q: dt64 walked %+v, zarr-python %+v", n.Path, n, p)
		}
	}
}

// TestWriteConsolidatedRoundTrip consolidates the fixtures that have no
// consolidated metadata: what ReadConsolidated reads back is what Walk
// finds, and consolidating again changes nothing.
func TestWriteConsolidatedRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ dir, key string }{
		{"migrated_v3.zarr", "zarr.json"},
		{"migrated_v3.source_v2.zarr", ".zmetadata"},
	} {
		t.Run(c.dir, func(t *testing.T) {
			st := memoryCopy(t, groupFixtures+c.dir)
			walked, err := WriteConsolidated(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			sameNodes(t, mustReadConsolidated(t, st), walked)
			first, _ := st.Get(ctx, c.key)
			if _, err := WriteConsolidated(ctx, st); err != nil {
				t.Fatal(err)
			}
			if again, _ := st.Get(ctx, c.key); string(again) != string(first) {
				t.Errorf("consolidating twice changed %s", c.key)
			}
			nodes, err := ReadConsolidated(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			key, doc, err := ConsolidatedDocument(nodes)
			if err != nil || key != c.key || string(doc) != string(first) {
				t.Errorf("from the consolidated nodes: %s %v, other bytes", key, err)
			}
		})
	}
	if _, _, err := ConsolidatedDocument(nil); err == nil {
		t.Error("ConsolidatedDocument(nil) did not fail")
	}
	st := memoryCopy(t, groupFixtures+"dataset_v3.zarr")
	sub, _ := storage.Sub(st, "time")
	if _, err := WriteConsolidated(ctx, sub); err == nil {
		t.Error("consolidated an array")
	}
}
