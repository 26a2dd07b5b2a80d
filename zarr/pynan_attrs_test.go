package zarr

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/internal/pyjson"
	"github.com/zarr-dt64/dt64/storage"
)

// TestPythonNaNAttributes: zarr-python 2 and xarray write non-finite
// float attributes as bare tokens; an array and a hierarchy holding them
// open, and dt64 writes them back as Python does.
func TestPythonNaNAttributes(t *testing.T) {
	ctx := context.Background()
	s := storage.NewMemory()
	zarray := `{"chunks": [2], "compressor": null, "dimension_separator": ".", "dtype": "<M8[s]", "fill_value": 0, "filters": null, "order": "C", "shape": [4], "zarr_format": 2}`
	zattrs := "{\n    \"bad\": -Infinity,\n    \"calibration\": NaN,\n    \"name\": \"NaN\"\n}"
	for k, v := range map[string]string{".zgroup": `{"zarr_format": 2}`, "t/.zarray": zarray, "t/.zattrs": zattrs} {
		if err := s.Set(ctx, k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	nodes, err := Walk(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 2 || string(nodes[1].AttrsDoc) != zattrs {
		t.Fatalf("nodes %+v: want the .zattrs document as stored", nodes)
	}
	sub, _ := storage.Sub(s, "t")
	a, err := Open(ctx, sub)
	if err != nil {
		t.Fatal(err)
	}
	m := a.Metadata()
	for _, format := range []int{2, 3} {
		m.Format = format
		out := storage.NewMemory()
		b, err := Create(ctx, out, m)
		if err == nil {
			err = b.WriteMetadata(ctx)
		}
		if err != nil {
			t.Fatalf("v%d: %v", format, err)
		}
		za, _ := out.Get(ctx, v2AttrsKey)
		zj, _ := out.Get(ctx, v3MetadataKey)
		all := string(za) + string(zj)
		if !strings.Contains(all, "NaN") || !strings.Contains(all, "-Infinity") || strings.Contains(all, `\u0000`) || !strings.Contains(all, `"NaN"`) {
			t.Errorf("v%d documents: %s", format, all)
		}
		// v2 as Python writes it (bare tokens); v3 must be JSON, with the
		// strings zarr-python 3 writes ("NaN", "-Infinity").
		if format == 3 && (!json.Valid(zj) || !strings.Contains(string(zj), `"calibration": "NaN"`) || !strings.Contains(string(zj), `"bad": "-Infinity"`)) {
			t.Errorf("v3 zarr.json is not JSON with the strings zarr-python 3 writes:\n%s", zj)
		}
		if format == 2 && !strings.Contains(string(za), `"calibration": NaN`) {
			t.Errorf("v2 .zattrs not as Python writes it:\n%s", za)
		}
	}
	// Migrated (non-time arrays and groups) the same way.
	for _, n := range nodes {
		var doc []byte
		var err error
		if n.Kind == GroupNode {
			doc, err = MigrateV2Group(n)
		} else {
			n.DataType = "<i8" // migration is for numbers; the attributes are what matter here
			n.Metadata = []byte(strings.Replace(string(n.Metadata), "<M8[s]", "<i8", 1))
			doc, err = MigrateV2Array(n)
		}
		if err != nil || !json.Valid(doc) {
			t.Errorf("%q migrated: %v\n%s", n.Path, err, doc)
		}
	}
	_, doc, err := ConsolidatedDocument(nodes)
	if err != nil || !strings.Contains(string(doc), `"calibration": NaN`) {
		t.Errorf("consolidated: %v %s", err, doc)
	}
	if got := string(pyjson.Strict(nodes[1].Attributes)); !strings.Contains(got, `"calibration":"NaN"`) && !strings.Contains(got, `"calibration": "NaN"`) {
		t.Errorf("StrictJSON = %s", got)
	}
}

// TestPythonNaNMissingValue: a CF time array whose missing_value Python
// wrote as a bare NaN decodes, NaN counted missing.
func TestPythonNaNMissingValue(t *testing.T) {
	ctx := context.Background()
	s := storage.NewMemory()
	zarray := `{"chunks": [2], "compressor": null, "dimension_separator": ".", "dtype": "<f8", "fill_value": "NaN", "filters": null, "order": "C", "shape": [2], "zarr_format": 2}`
	zattrs := `{"calendar": "standard", "missing_value": NaN, "units": "days since 2000-01-01"}`
	for k, v := range map[string]string{".zarray": zarray, ".zattrs": zattrs} {
		if err := s.Set(ctx, k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	a, err := Open(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	ct, err := a.CFTime()
	if err != nil || ct == nil {
		t.Fatalf("CFTime = %v, %v", ct, err)
	}
}
