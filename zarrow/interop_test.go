package zarrow

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// node runs one of the interop scripts in tools/js with the packages
// `make js-deps` installs (DuckDB's @duckdb/node-api, apache-arrow). A
// machine without them fails under CI and skips elsewhere, naming the
// command that installs them.
func node(t *testing.T, script string, args ...string) []byte {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "tools", "js"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the JavaScript clients are not installed (%v): run make js-deps", err)
		}
		t.Skip("the JavaScript clients are not installed: run make js-deps")
	}
	cmd := exec.Command("node", append([]string{filepath.Join(dir, script)}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", script, err, stderr.String())
	}
	return out
}

// interopGroup is an xarray-like group: a datetime64[us] coordinate with
// NaT and pre-1970 instants, a float64 and an int16 variable along it.
func interopGroup(t *testing.T) (storage.Store, []int64, []float64, []int16) {
	ctx := context.Background()
	dir := t.TempDir()
	store := storage.NewDir(dir)
	if err := store.Set(ctx, "zarr.json", []byte(`{"zarr_format":3,"node_type":"group","attributes":{}}`)); err != nil {
		t.Fatal(err)
	}
	const n = 1000
	times, temps, counts := make([]int64, n), make([]float64, n), make([]int16, n)
	for i := range n {
		times[i] = (int64(i)-300)*3_600_000_123 + 17 // microseconds, from 1969-12-19 on
		if i%97 == 5 {
			times[i] = dtype.NaT
		}
		temps[i] = float64(i)/8 - 40
		counts[i] = int16(i*37%2000 - 1000)
	}
	mk := func(p string, m zarr.Metadata) *zarr.Array {
		sub, _ := storage.Sub(store, p)
		m.Format, m.Shape, m.ChunkShape = 3, []int64{n}, []int64{128}
		m.DimensionNames = json.RawMessage(`["time"]`)
		m.Codecs = []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}, zarr.ZstdCodec{Level: 1}}
		a, err := zarr.Create(ctx, sub, m)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	tm := mk("time", zarr.Metadata{DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Microsecond, Scale: 1}, FillValue: dtype.NaT})
	tp := mk("temp", zarr.Metadata{Numeric: zarr.NumericType{Kind: zarr.Float, Size: 8}})
	ct := mk("count", zarr.Metadata{Numeric: zarr.NumericType{Kind: zarr.Int, Size: 2}})
	for c := int64(0); c*128 < n; c++ {
		tb, fb, cb := make([]int64, 128), make([]byte, 8*128), make([]byte, 2*128)
		for i := range 128 {
			j := int(c)*128 + i
			tb[i] = dtype.NaT
			if j < n {
				tb[i] = times[j]
				binary.LittleEndian.PutUint64(fb[8*i:], math.Float64bits(temps[j]))
				binary.LittleEndian.PutUint16(cb[2*i:], uint16(counts[j]))
			}
		}
		if err := tm.WriteChunk(ctx, []int64{c}, tb); err != nil {
			t.Fatal(err)
		}
		if _, err := tp.WriteChunkRaw(ctx, []int64{c}, fb); err != nil {
			t.Fatal(err)
		}
		if _, err := ct.WriteChunkRaw(ctx, []int64{c}, cb); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range []*zarr.Array{tm, tp, ct} {
		if err := a.WriteMetadata(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return store, times, temps, counts
}

func export(t *testing.T, store storage.Store, f ExportFormat, name string, batch int64) string {
	t.Helper()
	ctx := context.Background()
	tab, err := OpenTable(ctx, store, TableOptions{BatchRows: batch})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), name)
	w, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	r := tab.RecordReader(ctx)
	defer r.Release()
	rows, err := Export(r, w, ExportOptions{Format: f, RowGroupRows: 300})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if rows != tab.Rows() {
		t.Fatalf("exported %d rows of %d", rows, tab.Rows())
	}
	return out
}

// DuckDB reads dt64's Parquet export with the source's row count, null
// count, extremes and sum of epoch values, and the numeric columns'; the
// integer columns (time, count) are delta-encoded, the float one is not.
func TestDuckDBReadsParquet(t *testing.T) {
	store, times, temps, counts := interopGroup(t)
	out := export(t, store, Parquet, "ds.parquet", 256)
	pf, err := file.OpenParquetFile(out, false)
	if err != nil {
		t.Fatal(err)
	}
	md := pf.MetaData()
	for g := range md.NumRowGroups() {
		rg := md.RowGroup(g)
		for c := range rg.NumColumns() {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			name := cc.PathInSchema().String()
			delta := slices.Contains(cc.Encodings(), parquet.Encodings.DeltaBinaryPacked)
			if delta != (name != "temp") {
				t.Errorf("row group %d, column %s: encodings %v", g, name, cc.Encodings())
			}
		}
	}
	pf.Close()
	var got struct {
		Rows    string
		Columns map[string]struct{ Type, Nulls, Min, Max, Sum string }
	}
	if err := json.Unmarshal(node(t, "duckdb_parquet.mjs", out, "us", "time", "temp", "count"), &got); err != nil {
		t.Fatal(err)
	}
	nulls, lo, hi, sum := 0, int64(math.MaxInt64), int64(math.MinInt64), new(big.Int)
	for _, v := range times {
		if v == dtype.NaT {
			nulls++
			continue
		}
		lo, hi = min(lo, v), max(hi, v)
		sum.Add(sum, big.NewInt(v))
	}
	c := got.Columns["time"]
	if got.Rows != "1000" || c.Type != "TIMESTAMP" || c.Nulls != strconv.Itoa(nulls) || c.Min != strconv.FormatInt(lo, 10) || c.Max != strconv.FormatInt(hi, 10) || c.Sum != sum.String() {
		t.Fatalf("DuckDB read %+v (rows %s); want %d nulls, min %d, max %d, sum %s", c, got.Rows, nulls, lo, hi, sum)
	}
	var fsum float64
	var isum int64
	for i := range temps {
		fsum += temps[i]
		isum += int64(counts[i])
	}
	if tc := got.Columns["temp"]; tc.Type != "DOUBLE" || tc.Nulls != "0" || tc.Min != "-40.0" || tc.Sum != strconv.FormatFloat(fsum, 'f', 1, 64) {
		t.Errorf("temp: %+v, want sum %v", tc, fsum)
	}
	if cc := got.Columns["count"]; cc.Type != "SMALLINT" || cc.Sum != strconv.FormatInt(isum, 10) {
		t.Errorf("count: %+v, want sum %d", cc, isum)
	}
}

// apache-arrow (JavaScript) reads dt64's Arrow IPC file value for value,
// NaT as null.
func TestApacheArrowReadsIPC(t *testing.T) {
	store, times, _, counts := interopGroup(t)
	out := export(t, store, IPC, "ds.arrow", 300)
	var got struct {
		Rows    int
		Columns map[string]struct {
			Type   string
			Nulls  int
			Values []*string
		}
	}
	if err := json.Unmarshal(node(t, "arrow_ipc.mjs", out), &got); err != nil {
		t.Fatal(err)
	}
	tc := got.Columns["time"]
	if got.Rows != 1000 || len(tc.Values) != 1000 || tc.Type != "Timestamp<MICROSECOND>" {
		t.Fatalf("read %d rows, time %s with %d values", got.Rows, tc.Type, len(tc.Values))
	}
	nulls := 0
	for i, v := range times {
		switch {
		case v == dtype.NaT:
			nulls++
			if tc.Values[i] != nil {
				t.Fatalf("row %d: NaT read as %s", i, *tc.Values[i])
			}
		case tc.Values[i] == nil || *tc.Values[i] != strconv.FormatInt(v, 10):
			t.Fatalf("row %d: read %v, want %d", i, tc.Values[i], v)
		}
	}
	if tc.Nulls != nulls {
		t.Errorf("%d nulls, want %d", tc.Nulls, nulls)
	}
	for i, v := range got.Columns["count"].Values {
		if v == nil || *v != strconv.Itoa(int(counts[i])) {
			t.Fatalf("count row %d: %v, want %d", i, v, counts[i])
		}
	}
}
