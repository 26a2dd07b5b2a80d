package zarr

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/storage"
)

// consolidatedV2 returns a .zmetadata with the given metadata members (a
// JSON object's inside).
func consolidatedV2(members string) []byte {
	return []byte(`{"metadata": {".zgroup": {"zarr_format": 2}` + members + `}, "zarr_consolidated_format": 1}`)
}

func consolidatedV3(members string) []byte {
	return []byte(`{"zarr_format": 3, "node_type": "group", "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {` + members + `}}}`)
}

const (
	v2ArrayDoc = `{"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "<M8[s]", "compressor": null, "fill_value": null, "filters": null, "order": "C"}`
	v3GroupDoc = `{"zarr_format": 3, "node_type": "group"}`
	v3ArrayDoc = `{"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "int8", "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}}}`
)

func TestConsolidatedMalformed(t *testing.T) {
	ctx := context.Background()
	type tcase struct {
		key   string
		doc   []byte
		field string // the MetadataError's field, "" for the document
		is    error  // also wrapped, when set
		hier  bool   // a *HierarchyError instead
	}
	cases := map[string]tcase{
		"v2 not JSON":           {".zmetadata", []byte(`{"metadata": {`), "", nil, false},
		"v2 not an object":      {".zmetadata", []byte(`[1, 2]`), "", nil, false},
		"v2 BOM":                {".zmetadata", append([]byte("\xef\xbb\xbf"), consolidatedV2("")...), "", nil, false},
		"v2 no root":            {".zmetadata", []byte(`{"metadata": {"a/.zarray": ` + v2ArrayDoc + `}, "zarr_consolidated_format": 1}`), "metadata", nil, false},
		"v2 format":             {".zmetadata", []byte(`{"metadata": {}, "zarr_consolidated_format": 2}`), "zarr_consolidated_format", nil, false},
		"v2 no metadata":        {".zmetadata", []byte(`{"zarr_consolidated_format": 1}`), "metadata", nil, false},
		"v2 metadata list":      {".zmetadata", []byte(`{"metadata": [], "zarr_consolidated_format": 1}`), "metadata", nil, false},
		"v2 dot dot":            {".zmetadata", consolidatedV2(`, "../x/.zarray": ` + v2ArrayDoc), `metadata["../x/.zarray"]`, storage.ErrInvalidKey, false},
		"v2 inner dot dot":      {".zmetadata", consolidatedV2(`, "a/../../.zarray": ` + v2ArrayDoc), `metadata["a/../../.zarray"]`, storage.ErrInvalidKey, false},
		"v2 absolute":           {".zmetadata", consolidatedV2(`, "/etc/.zarray": ` + v2ArrayDoc), `metadata["/etc/.zarray"]`, storage.ErrInvalidKey, false},
		"v2 not a document":     {".zmetadata", consolidatedV2(`, "a/0.0": {}`), `metadata["a/0.0"]`, nil, false},
		"v2 member not object":  {".zmetadata", consolidatedV2(`, "a/.zarray": "x"`), `metadata["a/.zarray"]`, nil, false},
		"v2 bad member":         {".zmetadata", consolidatedV2(`, "a/.zarray": {"zarr_format": 2, "shape": "x"}`), `metadata["a/.zarray"].shape`, nil, false},
		"v2 bad attrs":          {".zmetadata", consolidatedV2(`, "a/.zarray": ` + v2ArrayDoc + `, "a/.zattrs": {"x": 1, "x": 2}`), `metadata.a/.zattrs.x`, nil, false},
		"v2 conflict":           {".zmetadata", consolidatedV2(`, "a/.zarray": ` + v2ArrayDoc + `, "a/.zgroup": {"zarr_format": 2}`), "", ErrConflict, true},
		"v2 duplicate":          {".zmetadata", consolidatedV2(`, "a/.zarray": ` + v2ArrayDoc + `, "a/.zarray": ` + v2ArrayDoc), `metadata.a/.zarray`, nil, false},
		"v3 not JSON":           {"zarr.json", []byte(`{"zarr_format": 3, "consolidated_metadata": {`), "", nil, false},
		"v3 cm not object":      {"zarr.json", []byte(`{"zarr_format": 3, "node_type": "group", "consolidated_metadata": 7}`), "consolidated_metadata", nil, false},
		"v3 cm kind":            {"zarr.json", []byte(`{"zarr_format": 3, "node_type": "group", "consolidated_metadata": {"kind": "external", "must_understand": false, "metadata": {}}}`), "consolidated_metadata.kind", ErrUnsupported, false},
		"v3 no must_understand": {"zarr.json", []byte(`{"zarr_format": 3, "node_type": "group", "consolidated_metadata": {"kind": "inline", "metadata": {}}}`), "consolidated_metadata.must_understand", nil, false},
		"v3 metadata null":      {"zarr.json", []byte(`{"zarr_format": 3, "node_type": "group", "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": null}}`), "consolidated_metadata.metadata", nil, false},
		"v3 dot dot":            {"zarr.json", consolidatedV3(`"..": ` + v3GroupDoc), `consolidated_metadata.metadata[".."]`, storage.ErrInvalidKey, false},
		"v3 nested dot dot":     {"zarr.json", consolidatedV3(`"sub": {"zarr_format": 3, "node_type": "group", "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {"../../x": ` + v3ArrayDoc + `}}}`), `consolidated_metadata.metadata["sub"].consolidated_metadata.metadata["../../x"]`, storage.ErrInvalidKey, false},
		"v3 empty name":         {"zarr.json", consolidatedV3(`"": ` + v3GroupDoc), `consolidated_metadata.metadata[""]`, storage.ErrInvalidKey, false},
		"v3 listed twice":       {"zarr.json", consolidatedV3(`"sub": {"zarr_format": 3, "node_type": "group", "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {"a": ` + v3ArrayDoc + `}}}, "sub/a": ` + v3ArrayDoc), "", ErrConflict, false},
		"v3 bad member":         {"zarr.json", consolidatedV3(`"a": {"zarr_format": 3, "node_type": "array", "shape": [1.5]}`), `consolidated_metadata.metadata["a"].shape`, nil, false},
		"v3 member v2":          {"zarr.json", consolidatedV3(`"a": {"zarr_format": 2}`), `consolidated_metadata.metadata["a"].zarr_format`, nil, false},
		"v3 under an array":     {"zarr.json", consolidatedV3(`"a": ` + v3ArrayDoc + `, "a/b": ` + v3GroupDoc), "", nil, true},
		"v3 no parent":          {"zarr.json", consolidatedV3(`"a/b": ` + v3GroupDoc), "", nil, true},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			st := storage.NewMemory()
			_ = st.Set(ctx, c.key, c.doc)
			if c.key == ".zmetadata" {
				_ = st.Set(ctx, ".zgroup", []byte(`{"zarr_format": 2}`))
			}
			nodes, err := ReadConsolidated(ctx, st)
			if err == nil {
				t.Fatalf("read %d nodes, want an error", len(nodes))
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("%v, want one wrapping %v", err, c.is)
			}
			if c.hier {
				var he *HierarchyError
				if !errors.As(err, &he) {
					t.Errorf("%v (%T), want a *HierarchyError", err, err)
				}
				return
			}
			var me *MetadataError
			if !errors.As(err, &me) {
				if c.field != "" || c.is != ErrConflict {
					t.Fatalf("%v (%T), want a *MetadataError", err, err)
				}
				return
			}
			if me.File != "memory/"+c.key || (c.field != "" && me.Field != c.field) {
				t.Errorf("%v: file %q field %q, want %q %q", err, me.File, me.Field, "memory/"+c.key, c.field)
			}
		})
	}
}

func TestConsolidatedTooLarge(t *testing.T) {
	ctx := context.Background()
	for _, key := range []string{".zmetadata", "zarr.json"} {
		st := storage.NewMemory()
		_ = st.Set(ctx, key, append(consolidatedV2(""), bytes.Repeat([]byte(" "), maxConsolidatedBytes)...))
		if _, err := ReadConsolidated(ctx, st); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), key) {
			t.Errorf("%s over the limit: %v", key, err)
		}
	}
	// Through a BufferGetter the size is refused before reading.
	dir := t.TempDir()
	st := storage.NewDir(dir)
	_ = st.Set(ctx, ".zmetadata", append(consolidatedV2(""), bytes.Repeat([]byte(" "), maxConsolidatedBytes)...))
	if _, err := ReadConsolidated(ctx, st); !errors.Is(err, ErrTooLarge) {
		t.Errorf("directory store: %v", err)
	}
}

// TestConsolidatedTruncations reads every prefix of real consolidated
// documents (every 5th), and each with one byte changed: errors, never
// a panic.
func TestConsolidatedTruncations(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ dir, key string }{
		{"xarray_v2.zarr", ".zmetadata"},
		{"dataset_v3.zarr", "zarr.json"},
	} {
		doc, err := storage.NewDir(groupFixtures+c.dir).Get(ctx, c.key)
		if err != nil {
			t.Fatal(err)
		}
		step := 5 // every prefix takes 12 s here; 5 keeps a cut in every token
		if testing.Short() {
			step = 37
		}
		for i := 0; i < len(doc); i += step {
			st := storage.NewMemory()
			_ = st.Set(ctx, c.key, doc[:i])
			if _, err := ReadConsolidated(ctx, st); err == nil {
				t.Errorf("%s cut at %d: no error", c.key, i)
			}
			mod := bytes.Clone(doc)
			mod[i] ^= 0x20
			_ = st.Set(ctx, c.key, mod)
			_, _ = ReadConsolidated(ctx, st)
		}
	}
}

func TestConsolidatedRootErrorNamesDocument(t *testing.T) {
	st := storage.NewMemory()
	_ = st.Set(context.Background(), "zarr.json", []byte(`{"zarr_format": 3, "node_type": "group", "attributes": [], "consolidated_metadata": {"kind": "inline", "must_understand": false, "metadata": {}}}`))
	_, err := ReadConsolidated(context.Background(), st)
	var me *MetadataError
	if !errors.As(err, &me) || me.File != "memory/zarr.json" || me.Field != "attributes" {
		t.Errorf("bad root attributes: %v", err)
	}
}
