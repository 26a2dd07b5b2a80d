package zarr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/zarr-dt64/dt64/storage"
)

const groupFixtures = "../testdata/zarr/groups/"

// groupValues is a fixture's NAME.values.json (see its README).
type groupValues struct {
	ZarrFormat   int                        `json:"zarr_format"`
	Consolidated bool                       `json:"consolidated"`
	Groups       map[string]json.RawMessage `json:"groups"`
	Arrays       map[string]struct {
		Dtype          string          `json:"dtype"`
		Shape          []int64         `json:"shape"`
		DataType       json.RawMessage `json:"data_type"`
		DimensionNames []string        `json:"dimension_names"`
		Attributes     json.RawMessage `json:"attributes"`
		Values         json.RawMessage `json:"values"`
	} `json:"arrays"`
}

// jsonEqual reports whether a and b are the same JSON value.
func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%v: %.200s", err, a)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%v: %.200s", err, b)
	}
	return reflect.DeepEqual(va, vb)
}

func nodePaths(nodes []Node) []string {
	var p []string
	for _, n := range nodes {
		p = append(p, n.Path)
	}
	return p
}

// checkAgainstValues checks that nodes are exactly the groups and arrays
// zarr-python read back, with their attributes and light fields.
func checkAgainstValues(t *testing.T, nodes []Node, valuesFile string, format int) {
	t.Helper()
	var want groupValues
	readJSONFile(t, valuesFile, &want)
	var wantPaths []string
	for p := range want.Groups {
		wantPaths = append(wantPaths, p)
	}
	for p := range want.Arrays {
		wantPaths = append(wantPaths, p)
	}
	slices.SortFunc(wantPaths, comparePaths)
	if got := nodePaths(nodes); !slices.Equal(got, wantPaths) {
		t.Fatalf("walk found %q, zarr-python %q", got, wantPaths)
	}
	for _, n := range nodes {
		if n.Format != format {
			t.Errorf("%q: format %d, want %d", n.Path, n.Format, format)
		}
		if g, ok := want.Groups[n.Path]; ok {
			if n.Kind != GroupNode {
				t.Errorf("%q: %v, want a group", n.Path, n.Kind)
			}
			if !jsonEqual(t, n.Attributes, g) {
				t.Errorf("%q: attributes %s, want %s", n.Path, n.Attributes, g)
			}
			continue
		}
		a := want.Arrays[n.Path]
		if n.Kind != ArrayNode {
			t.Errorf("%q: %v, want an array", n.Path, n.Kind)
		}
		if !jsonEqual(t, n.Attributes, a.Attributes) {
			t.Errorf("%q: attributes %s, want %s", n.Path, n.Attributes, a.Attributes)
		}
		if !slices.Equal(n.Shape, a.Shape) || len(n.ChunkShape) != len(a.Shape) {
			t.Errorf("%q: shape %v chunks %v, want shape %v", n.Path, n.Shape, n.ChunkShape, a.Shape)
		}
		if format == 3 {
			if !jsonEqual(t, n.DataTypeJSON, a.DataType) {
				t.Errorf("%q: data_type %s, want %s", n.Path, n.DataTypeJSON, a.DataType)
			}
			if !slices.Equal(n.DimensionNames, a.DimensionNames) || (n.DimensionNames == nil) != (a.DimensionNames == nil) {
				t.Errorf("%q: dimension names %q, want %q", n.Path, n.DimensionNames, a.DimensionNames)
			}
		} else if n.DataType != a.Dtype || n.DimensionNames != nil {
			t.Errorf("%q: dtype %q dimension names %q, want %q and none", n.Path, n.DataType, n.DimensionNames, a.Dtype)
		}
	}
}

func TestWalkFixtures(t *testing.T) {
	for _, c := range []struct {
		store, values string
		format        int
	}{
		{"dataset_v3.zarr", "dataset_v3.values.json", 3},
		{"migrated_v3.zarr", "migrated_v3.values.json", 3},
		{"migrated_v3.source_v2.zarr", "migrated_v3.values.json", 2},
	} {
		t.Run(c.store, func(t *testing.T) {
			nodes, err := Walk(context.Background(), storage.NewDir(groupFixtures+c.store))
			if err != nil {
				t.Fatal(err)
			}
			checkAgainstValues(t, nodes, groupFixtures+c.values, c.format)
		})
	}
}

// TestSubOpensTimeArrays opens the time arrays inside the hierarchies
// through Sub and reads the values zarr-python read.
func TestSubOpensTimeArrays(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ store, values, path string }{
		{"dataset_v3.zarr", "dataset_v3.values.json", "time"},
		{"dataset_v3.zarr", "dataset_v3.values.json", "sub/stamp"},
		{"migrated_v3.zarr", "migrated_v3.values.json", "sub/stamp"},
		{"migrated_v3.source_v2.zarr", "migrated_v3.values.json", "sub/stamp"},
	} {
		t.Run(c.store+"/"+c.path, func(t *testing.T) {
			var want groupValues
			readJSONFile(t, groupFixtures+c.values, &want)
			var vals []int64
			if err := json.Unmarshal(want.Arrays[c.path].Values, &vals); err != nil || len(vals) == 0 {
				t.Fatalf("values of %s: %v", c.path, err)
			}
			g, err := OpenGroup(ctx, storage.NewDir(groupFixtures+c.store))
			if err != nil {
				t.Fatal(err)
			}
			st, err := g.Sub(c.path)
			if err != nil {
				t.Fatal(err)
			}
			a, err := Open(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			if got := readAll(t, a); !slices.Equal(got, vals) {
				t.Errorf("read %v, zarr-python %v", got, vals)
			}
		})
	}
}

func TestOpenGroupFixtures(t *testing.T) {
	ctx := context.Background()
	g, err := OpenGroup(ctx, storage.NewDir(groupFixtures+"migrated_v3.source_v2.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	if g.Format() != 2 || !jsonEqual(t, g.Attributes(), []byte(`{"Conventions": "CF-1.8", "history": "written by xarray 2023.01", "title": "dt64 migration fixture"}`)) {
		t.Errorf("v2 group: format %d attributes %s", g.Format(), g.Attributes())
	}
	g, err = OpenGroup(ctx, storage.NewDir(groupFixtures+"dataset_v3.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	if g.Format() != 3 || !jsonEqual(t, g.Attributes(), []byte(`{"title": "dt64 v3 group fixture", "Conventions": "CF-1.8", "history": "written by zarr-python 3.1.3", "version": 2}`)) {
		t.Errorf("v3 group: format %d attributes %s", g.Format(), g.Attributes())
	}
	st, _ := storage.Sub(g.Store(), "time")
	if _, err := OpenGroup(ctx, st); err == nil {
		t.Error("OpenGroup opened an array")
	}
	if _, err := OpenGroup(ctx, storage.NewMemory()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("empty store: %v, want fs.ErrNotExist", err)
	}
}

// memoryCopy copies a directory tree into a new storage.Memory.
func memoryCopy(t *testing.T, dir string) *storage.Memory {
	t.Helper()
	m := storage.NewMemory()
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		return m.Set(context.Background(), filepath.ToSlash(rel), b)
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWalkRules(t *testing.T) {
	ctx := context.Background()
	src := memoryCopy(t, groupFixtures+"dataset_v3.zarr")
	group := []byte(`{"zarr_format": 3, "node_type": "group"}`)
	t.Run("not into arrays", func(t *testing.T) {
		st := memoryCopy(t, groupFixtures+"dataset_v3.zarr")
		_ = st.Set(ctx, "time/c/zarr.json", group) // under an array: not a node
		_ = st.Set(ctx, "orphan/x/zarr.json", group)
		_ = st.Set(ctx, "sub-2/zarr.json", group)
		nodes, err := Walk(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		// orphan has no document: an implicit group, so that orphan/x
		// (which zarr-python reads by its path) is not lost.
		want := []string{"", "lat", "obs_count", "orphan", "orphan/x", "qc_flag", "sub", "sub/obs_time", "sub/pressure", "sub/stamp", "sub-2", "temp", "time"}
		if got := nodePaths(nodes); !slices.Equal(got, want) {
			t.Errorf("walk %q, want %q", got, want)
		}
		for _, n := range nodes {
			if n.Implicit != (n.Path == "orphan") || n.Implicit && (n.Kind != GroupNode || string(n.Attributes) != "{}") {
				t.Errorf("%q: implicit %v, kind %v, attributes %s", n.Path, n.Implicit, n.Kind, n.Attributes)
			}
		}
	})
	t.Run("conflict", func(t *testing.T) {
		st := memoryCopy(t, groupFixtures+"dataset_v3.zarr")
		_ = st.Set(ctx, "sub/stamp/.zarray", []byte(`{}`))
		_, err := Walk(ctx, st)
		var he *HierarchyError
		if !errors.As(err, &he) || he.Path != "sub/stamp" || !errors.Is(err, ErrConflict) {
			t.Errorf("zarr.json and .zarray: %v, want a HierarchyError at sub/stamp", err)
		}
	})
	t.Run("mixed formats", func(t *testing.T) {
		st := memoryCopy(t, groupFixtures+"dataset_v3.zarr")
		_ = st.Set(ctx, "old/.zgroup", []byte(`{"zarr_format": 2}`))
		_, err := Walk(ctx, st)
		var he *HierarchyError
		if !errors.As(err, &he) || he.Path != "old" || !errors.Is(err, ErrConflict) {
			t.Errorf("v2 group in a v3 hierarchy: %v", err)
		}
	})
	t.Run("bad node", func(t *testing.T) {
		st := memoryCopy(t, groupFixtures+"dataset_v3.zarr")
		_ = st.Set(ctx, "sub/pressure/zarr.json", []byte(`{"zarr_format": 3, "node_type": "array", "shape": [-1]}`))
		_, err := Walk(ctx, st)
		var me *MetadataError
		if !errors.As(err, &me) || me.File != "memory/sub/pressure/zarr.json" || me.Field != "shape[0]" {
			t.Errorf("bad shape: %v", err)
		}
		_ = st.Set(ctx, "sub/pressure/zarr.json", []byte(`{"zarr_format": 3, "node_type": "array", `))
		if _, err := Walk(ctx, st); !errors.As(err, &me) || me.File != "memory/sub/pressure/zarr.json" {
			t.Errorf("truncated zarr.json: %v", err)
		}
		_ = st.Set(ctx, "sub/pressure/zarr.json", []byte(`{"zarr_format": 3, "node_type": "banana"}`))
		if _, err := Walk(ctx, st); !errors.As(err, &me) || me.Field != "node_type" {
			t.Errorf("unknown node type: %v", err)
		}
		_ = st.Set(ctx, "sub/pressure/zarr.json", bytes.Repeat([]byte(" "), maxMetadataBytes+1))
		if _, err := Walk(ctx, st); !errors.Is(err, ErrTooLarge) {
			t.Errorf("huge zarr.json: %v", err)
		}
	})
	t.Run("v2 conflict", func(t *testing.T) {
		st := memoryCopy(t, groupFixtures+"migrated_v3.source_v2.zarr")
		_ = st.Set(ctx, "sub/.zarray", []byte(`{}`))
		var he *HierarchyError
		if _, err := Walk(ctx, st); !errors.As(err, &he) || he.Path != "sub" {
			t.Errorf(".zgroup and .zarray: %v", err)
		}
	})
	t.Run("no root", func(t *testing.T) {
		st := storage.NewMemory()
		_ = st.Set(ctx, "a/zarr.json", group)
		_ = st.Set(ctx, ".zattrs", []byte(`{}`))
		if _, err := Walk(ctx, st); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("no root metadata: %v", err)
		}
	})
	t.Run("array root", func(t *testing.T) {
		st, _ := storage.Sub(src, "sub/stamp")
		nodes, err := Walk(ctx, st)
		if err != nil || len(nodes) != 1 || nodes[0].Kind != ArrayNode || nodes[0].DataType != "numpy.datetime64" {
			t.Errorf("array at the root: %+v, %v", nodes, err)
		}
	})
}

func TestComparePaths(t *testing.T) {
	p := []string{"sub-2", "sub/stamp", "", "a", "sub", "sub/a/b", "sub/a"}
	slices.SortFunc(p, comparePaths)
	want := []string{"", "a", "sub", "sub/a", "sub/a/b", "sub/stamp", "sub-2"}
	if !slices.Equal(p, want) {
		t.Errorf("%q, want %q", p, want)
	}
}
