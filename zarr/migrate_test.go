package zarr

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/zarr-dt64/dt64/storage"
)

// TestMigrateV2MatchesZarrPython translates every array and group of the
// v2 source of testdata/zarr/groups/migrated_v3.zarr and compares the
// result with what zarr-python 3.1.3's migration wrote, member for member;
// the one intended difference is _ARRAY_DIMENSIONS, which dt64 makes the
// v3 dimension_names.
func TestMigrateV2MatchesZarrPython(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("..", "testdata", "zarr", "groups")
	nodes, err := Walk(ctx, storage.NewDir(filepath.Join(dir, "migrated_v3.source_v2.zarr")))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, n := range nodes {
		var got []byte
		if n.Kind == GroupNode {
			got, err = MigrateV2Group(n)
		} else {
			if n.DataType[1] == 'M' {
				continue // a time array: transcoded, not migrated
			}
			got, err = MigrateV2Array(n)
		}
		if err != nil {
			t.Fatalf("%q: %v", n.Path, err)
		}
		want, err := os.ReadFile(filepath.Join(dir, "migrated_v3.zarr", n.Path, "zarr.json"))
		if err != nil {
			t.Fatal(err)
		}
		var g, w map[string]any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%q: %v\n%s", n.Path, err, got)
		}
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		if attrs, ok := w["attributes"].(map[string]any); ok && attrs["_ARRAY_DIMENSIONS"] != nil {
			w["dimension_names"] = attrs["_ARRAY_DIMENSIONS"]
			delete(attrs, "_ARRAY_DIMENSIONS")
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%q:\n got %s\nwant %s", n.Path, got, want)
		}
		checked++
	}
	if checked < 6 {
		t.Fatalf("checked %d nodes", checked)
	}
}

func TestMigrateV2Refuses(t *testing.T) {
	for _, tc := range []struct{ name, zarray string }{
		{"object", `{"chunks":[2],"compressor":null,"dtype":"|O","fill_value":0,"filters":[{"id":"vlen-utf8"}],"order":"C","shape":[2],"zarr_format":2}`},
		{"filter", `{"chunks":[2],"compressor":null,"dtype":"<f8","fill_value":0,"filters":[{"id":"mystery"}],"order":"C","shape":[2],"zarr_format":2}`},
	} {
		n := Node{Path: "x", Kind: ArrayNode, Format: 2, Metadata: []byte(tc.zarray), Shape: []int64{2}}
		var m struct{ Dtype string }
		_ = json.Unmarshal(n.Metadata, &m)
		n.DataType = m.Dtype
		if _, err := MigrateV2Array(n); !errors.Is(err, ErrUntranslatable) {
			t.Errorf("%s: %v, want ErrUntranslatable", tc.name, err)
		}
	}
}
