package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// exportGroup writes a v2 group as xarray lays one out: a datetime64[ns]
// time coordinate with NaT, a float32 variable along it and a 2-D one.
func exportGroup(t *testing.T) string {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "ds.zarr")
	store := storage.NewDir(dir)
	if err := store.Set(ctx, ".zgroup", []byte(`{"zarr_format": 2}`)); err != nil {
		t.Fatal(err)
	}
	mk := func(p string, m zarr.Metadata, dims string) *zarr.Array {
		sub, _ := storage.Sub(store, p)
		m.Format, m.ChunkShape = 2, m.Shape
		m.Codecs = []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}, zarr.ZstdCodec{Level: 1}}
		m.Attributes = json.RawMessage(`{"_ARRAY_DIMENSIONS": ` + dims + `}`)
		a, err := zarr.Create(ctx, sub, m)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	tm := mk("time", zarr.Metadata{DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}, Shape: []int64{6}, FillValue: dtype.NaT}, `["time"]`)
	if err := tm.WriteChunk(ctx, []int64{0}, []int64{-1_500_000_000, 0, dtype.NaT, 1_000_000_001, 86400e9, 2e18}); err != nil {
		t.Fatal(err)
	}
	tp := mk("temp", zarr.Metadata{Numeric: zarr.NumericType{Kind: zarr.Float, Size: 4}, Shape: []int64{6}}, `["time"]`)
	raw := make([]byte, 24)
	for i := range 6 {
		binary.LittleEndian.PutUint32(raw[4*i:], uint32(0x3f800000+i)) // ~1.0
	}
	if _, err := tp.WriteChunkRaw(ctx, []int64{0}, raw); err != nil {
		t.Fatal(err)
	}
	mk("grid", zarr.Metadata{Numeric: zarr.NumericType{Kind: zarr.Float, Size: 8}, Shape: []int64{6, 2}}, `["time", "x"]`)
	for _, a := range []*zarr.Array{tm, tp} {
		if err := a.WriteMetadata(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// dt64 export of a group writes its 1-D arrays along time as a Parquet
// file DuckDB reads (timestamps floored to s as NumPy floors, NaT null),
// and of one array an Arrow file; a refused export leaves no file.
func TestExport(t *testing.T) {
	src := exportGroup(t)
	out := filepath.Join(t.TempDir(), "ds.parquet")
	stdout, _, err := run(t, nil, "export", src, out, "--unit", "s", "-q")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "exported 6 rows × 2 columns") || !strings.Contains(stdout, "1 null (NaT)") || !strings.Contains(stdout, "2 lossy") {
		t.Fatalf("summary: %s", stdout)
	}
	js, _ := filepath.Abs("../../tools/js")
	if _, err := os.Stat(filepath.Join(js, "node_modules", "@duckdb", "node-api")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("the JavaScript clients are not installed: run make js-deps")
		}
		t.Skip("the JavaScript clients are not installed: run make js-deps")
	}
	b, err := exec.Command("node", filepath.Join(js, "duckdb_parquet.mjs"), out, "s", "time").Output()
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Rows    string
		Columns map[string]struct{ Type, Nulls, Min, Max, Sum string }
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	// -1.5 s floors to -2 s; 1.000000001 s to 1 s; 2e18 ns is 2e9 s.
	c := got.Columns["time"]
	if got.Rows != "6" || c.Type != "TIMESTAMP" || c.Nulls != "1" || c.Min != "-2" || c.Max != "2000000000" || c.Sum != "2000086399" {
		t.Fatalf("DuckDB read %+v, %s rows", c, got.Rows)
	}

	bad := filepath.Join(t.TempDir(), "bad.parquet")
	if _, _, err := run(t, nil, "export", filepath.Join(src, "time"), bad, "--unit", "s", "--exact", "-q"); err == nil {
		t.Fatal("--exact accepted -1.5 s")
	}
	if entries, _ := os.ReadDir(filepath.Dir(bad)); len(entries) != 0 {
		t.Fatalf("a failed export left %v", entries)
	}
	if _, _, err := run(t, nil, "export", src, filepath.Join(t.TempDir(), "x.csv")); !isUsage(err) {
		t.Fatalf(".csv: %v, want a usage error", err)
	}

	arrowOut := filepath.Join(t.TempDir(), "time.arrow")
	if _, _, err := run(t, nil, "export", filepath.Join(src, "time"), arrowOut, "-q"); err != nil {
		t.Fatal(err)
	}
	b, err = exec.Command("node", filepath.Join(js, "arrow_ipc.mjs"), arrowOut).Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"time":{"type":"Timestamp<NANOSECOND>","nulls":1,"values":["-1500000000","0",null,"1000000001","86400000000000","2000000000000000000"]}`) {
		t.Fatalf("apache-arrow read %s", b)
	}

}
