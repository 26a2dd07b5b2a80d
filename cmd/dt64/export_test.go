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
	js := jsClients(t)
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

// A 0-d array (shape [], one element) exports as one row, as transcode
// and inspect read it as one value: datetime64, and a CF time array; to
// Parquet and to Arrow IPC, leaving OUT and nothing else. Its read once
// indexed the chunk shape's first dimension on a reader goroutine: a
// panic (exit 2) that left the temporary file.
func TestExportZeroDimensional(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	const day = int64(18262) // 2020-01-01
	for _, c := range []struct {
		name string
		meta zarr.Metadata
		raw  int64
	}{
		{"dt.zarr", zarr.Metadata{DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}, FillValue: dtype.NaT}, day * 86400e9},
		{"cf.zarr", zarr.Metadata{Numeric: zarr.NumericType{Kind: zarr.Int, Size: 8}, Attributes: json.RawMessage(`{"units": "days since 1970-01-01", "calendar": "standard"}`)}, day},
	} {
		c.meta.Format, c.meta.Shape, c.meta.ChunkShape = 2, []int64{}, []int64{}
		c.meta.Codecs = []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}}
		a, err := zarr.Create(ctx, storage.NewDir(filepath.Join(dir, c.name)), c.meta)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.WriteMetadata(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := a.WriteChunkRaw(ctx, []int64{}, binary.LittleEndian.AppendUint64(nil, uint64(c.raw))); err != nil {
			t.Fatal(err)
		}
	}
	js, _ := filepath.Abs("../../tools/js")
	_, jsErr := os.Stat(filepath.Join(js, "node_modules", "apache-arrow"))
	for _, src := range []string{"dt.zarr", "cf.zarr"} {
		for _, ext := range []string{".parquet", ".arrow"} {
			outDir := t.TempDir()
			out := filepath.Join(outDir, "t"+ext)
			stdout, _, err := run(t, nil, "export", filepath.Join(dir, src), out, "--unit", "s", "-q")
			if err != nil {
				t.Fatalf("%s to %s: %v", src, ext, err)
			}
			if !strings.Contains(stdout, "exported 1 row × 1 column") || !strings.Contains(stdout, ": 0 null (NaT)") {
				t.Errorf("%s to %s: summary %s", src, ext, stdout)
			}
			if ns := names(t, outDir); len(ns) != 1 || ns[0] != "t"+ext {
				t.Errorf("%s to %s: files %v", src, ext, ns)
			}
			if ext != ".arrow" || jsErr != nil {
				continue
			}
			b, err := exec.Command("node", filepath.Join(js, "arrow_ipc.mjs"), out).Output()
			if err != nil {
				t.Fatal(err)
			}
			col := strings.TrimSuffix(src, ".zarr") // the column is named after the array
			if !strings.Contains(string(b), `"`+col+`":{"type":"Timestamp<SECOND>","nulls":0,"values":["1577836800"]}`) {
				t.Errorf("%s: apache-arrow read %s", src, b)
			}
		}
	}
}

// TestExportClampNote: --overflow clamp saturates to ±(2^63-1), which
// DuckDB reads as ±infinity (checked here with DuckDB itself); the export
// notes it.
func TestExportClampNote(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "s.zarr")
	a, err := zarr.Create(ctx, storage.NewDir(dir), zarr.Metadata{
		Format: 2, Shape: []int64{3}, ChunkShape: []int64{3}, FillValue: dtype.NaT,
		DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1},
		Codecs:   []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.WriteChunk(ctx, []int64{0}, []int64{1 << 62, -(1 << 62), 86400}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "c.parquet")
	_, stderr, err := run(t, nil, "export", dir, out, "--unit", "ns", "--overflow", "clamp", "-q")
	if err != nil || !strings.Contains(stderr, "the 2 clamped values are ±(2^63-1)") || !strings.Contains(stderr, "DuckDB as ±infinity") {
		t.Fatalf("export: %v; stderr %q, want the note", err, stderr)
	}
	js := jsClients(t)
	b, err := exec.Command("node", filepath.Join(js, "duckdb_sql.mjs"),
		"SELECT count(*) FILTER (WHERE isinf(s)) AS inf, count(*) FILTER (WHERE NOT isinf(s)) AS finite FROM read_parquet('"+out+"')").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"inf":"2"`) || !strings.Contains(string(b), `"finite":"1"`) {
		t.Fatalf("DuckDB read %s; want the two clamped values infinite", b)
	}
}

// TestExportDurationParquet: a timedelta64 array is a duration column,
// which Parquet stores as INT64 counts (the unit in the Arrow schema):
// DuckDB, which does not read that schema, sees a BIGINT of --unit
// counts, as export --help and docs/engines.md say.
func TestExportDurationParquet(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "d.zarr")
	a, err := zarr.Create(ctx, storage.NewDir(dir), zarr.Metadata{
		Format: 2, Shape: []int64{1}, ChunkShape: []int64{1}, FillValue: dtype.NaT,
		DataType: dtype.DataType{Kind: dtype.Timedelta, Unit: dtype.Second, Scale: 1},
		Codecs:   []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.WriteChunk(ctx, []int64{0}, []int64{90}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "d.parquet")
	if _, _, err := run(t, nil, "export", dir, out, "--unit", "ms", "-q"); err != nil {
		t.Fatal(err)
	}
	js := jsClients(t)
	b, err := exec.Command("node", filepath.Join(js, "duckdb_sql.mjs"), "SELECT typeof(d) AS t, d AS v FROM read_parquet('"+out+"')").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"t":"BIGINT"`) || !strings.Contains(string(b), `"v":"90000"`) {
		t.Fatalf("DuckDB read %s; want BIGINT 90000", b)
	}
}

// The default column of an array is its path's last segment: a URL's
// query string (perhaps a token) and user information never name it.
func TestDefaultColumnName(t *testing.T) {
	for src, want := range map[string]string{
		"a1.zarr": "a1", "/data/x/stamp/": "stamp", "s3://bucket/ds.zarr/time": "time",
		"http://bob:pw@127.0.0.1:8765/a1.zarr?tok=SECRET": "a1", "https://h/p/t.zarr/#frag": "t",
	} {
		if got := defaultColumnName(src); got != want {
			t.Errorf("defaultColumnName(%q) = %q, want %q", src, got, want)
		}
	}
}

// TestExportFlagValues: flag values that cannot mean anything are usage
// errors (exit 2), reported before an existing OUT is (an empty --vars panicked;
// repeated variables gave two columns of one name; --row-group 0 and
// --workers 0 were taken as the defaults).
func TestExportFlagValues(t *testing.T) {
	src := exportGroup(t)
	out := filepath.Join(t.TempDir(), "exists.parquet")
	if err := os.WriteFile(out, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--layout", "long", "--vars="}, {"--layout", "long", "--vars", "a,a"}, {"--layout", "long", "--vars", "a,"},
		{"--row-group", "0"}, {"--row-group", "-1"}, {"--workers", "0"}, {"--workers", "-3"}, {"--layout", "LONG"},
	} {
		_, _, err := run(t, nil, append([]string{"export", src, out}, args...)...)
		if !isUsage(err) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

// An OUT in a directory that does not exist is named, not the temporary
// file export would have written beside it.
func TestExportMissingDirectory(t *testing.T) {
	out := filepath.Join(t.TempDir(), "no", "out.parquet")
	_, _, err := run(t, nil, "export", exportGroup(t), out, "-q")
	if err == nil || !strings.Contains(err.Error(), "cannot write "+out+": directory") || strings.Contains(err.Error(), ".tmp-") {
		t.Errorf("export into a missing directory: %v", err)
	}
}

// export --mask-and-scale decodes packed numeric columns as xarray does
// (zarrow's TestMaskAndScaleMatchesXarray checks every value against
// xarray): DuckDB reads the packed int16 t2m as FLOAT kelvins with a
// NULL where xarray has NaN, the bool encoding as BOOLEAN. Without it
// the columns are the stored numbers, and a note names the flag.
func TestExportMaskAndScale(t *testing.T) {
	py := requireXarray(t)
	src := filepath.Join(t.TempDir(), "packed.zarr")
	if out, err := exec.Command(py, "../../tools/xarray/mask_and_scale.py", src).CombinedOutput(); err != nil {
		t.Fatalf("mask_and_scale.py: %v\n%s", err, out)
	}
	dir := t.TempDir()
	raw, dec := filepath.Join(dir, "raw.parquet"), filepath.Join(dir, "decoded.parquet")
	_, stderr, err := run(t, nil, "export", src, raw)
	if err != nil || !strings.Contains(stderr, "t2m: the column holds the stored int16 numbers; xarray decodes them by scale_factor, add_offset") ||
		!strings.Contains(stderr, "--mask-and-scale") {
		t.Fatalf("export: %v; stderr %q, want the note naming --mask-and-scale", err, stderr)
	}
	_, stderr, err = run(t, nil, "export", src, dec, "--mask-and-scale")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr, "holds the stored") {
		t.Errorf("decoded export still notes stored numbers:\n%s", stderr)
	}
	js := jsClients(t)
	q := func(file string) string {
		b, err := exec.Command("node", filepath.Join(js, "duckdb_sql.mjs"),
			"SELECT typeof(t2m) AS t, count(t2m) AS n, round(min(t2m), 1) AS lo, typeof(land) AS l, count(counts) AS c FROM read_parquet('"+file+"') GROUP BY ALL").Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// 23 rows: t2m NaN at row 3 (null), counts' zeros and its unwritten
	// chunk masked by the fill value 0.
	if got := q(dec); !strings.Contains(got, `"t":"FLOAT"`) || !strings.Contains(got, `"n":"22"`) || !strings.Contains(got, `"l":"BOOLEAN"`) || strings.Contains(got, `"lo":"-`) {
		t.Errorf("DuckDB read the decoded export as %s; want FLOAT t2m (22 values, kelvins), BOOLEAN land", got)
	}
	if got := q(raw); !strings.Contains(got, `"t":"SMALLINT"`) || !strings.Contains(got, `"n":"23"`) || !strings.Contains(got, `"l":"TINYINT"`) {
		t.Errorf("DuckDB read the plain export as %s; want the stored SMALLINT and TINYINT", got)
	}
}

// An export whose batches cannot fit in the machine's memory (one index of
// the first dimension of a [1, 2^40] array is 2^40 values, 8 TiB) is refused
// before anything is allocated, naming the bound and the flags that lower
// it; it crashed with the runtime's "out of memory" before. OUT is not
// created.
func TestExportBeyondMemory(t *testing.T) {
	src := filepath.Join(t.TempDir(), "wide.zarr")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	zarray := `{"zarr_format":2,"shape":[1,1099511627776],"chunks":[1,1048576],"dtype":"<M8[s]","compressor":null,"fill_value":0,"filters":null,"order":"C"}`
	if err := os.WriteFile(filepath.Join(src, ".zarray"), []byte(zarray), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "wide.arrow")
	_, _, err := run(t, nil, "export", src, out)
	if err == nil || !strings.Contains(err.Error(), "this machine gives dt64: lower --workers or --rows") {
		t.Fatalf("export: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("OUT created")
	}
}
