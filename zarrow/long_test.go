package zarrow

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
)

// longOracle is what tools/xarray/long_table.py prints: xarray's
// to_dataframe().reset_index() of the dataset it writes.
type longOracle struct {
	Columns []string
	Time    []int64
	Lat     []uint64
	Lon     []uint64
	T2m     []uint32
	Tp      []int64
}

// requireXarray returns the Python that has xarray and zarr 2.13 (Debian's),
// skipping the test in -short runs without them and failing it otherwise.
func requireXarray(t *testing.T) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import xarray, zarr").Run(); err != nil {
		if testing.Short() {
			t.Skipf("xarray not available: %v", err)
		}
		t.Fatalf("xarray not available (apt-get install python3-xarray): %v", err)
	}
	return py
}

// xarrayLongDataset writes the gridded dataset with xarray and returns
// its path and xarray's long table of it.
func xarrayLongDataset(t *testing.T) (string, longOracle) {
	t.Helper()
	py := requireXarray(t)
	dir := filepath.Join(t.TempDir(), "grid.zarr")
	cmd := exec.Command(py, filepath.Join("..", "tools", "xarray", "long_table.py"), dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("long_table.py: %v", err)
	}
	var o longOracle
	if err := json.Unmarshal(out, &o); err != nil {
		t.Fatal(err)
	}
	return dir, o
}

// readLongTable reads every batch of tab into flat slices, by column:
// int64 for times (null as NaT) and integers, bits for floats.
func readLongTable(t *testing.T, tab *Table, o Options) (map[string][]uint64, int) {
	t.Helper()
	r := tab.RecordReader(context.Background())
	defer r.Release()
	cols := map[string][]uint64{}
	batches := 0
	for r.Next() {
		batches++
		rec := r.RecordBatch()
		for j, f := range rec.Schema().Fields() {
			c := rec.Column(j)
			for i := range c.Len() {
				var v uint64
				switch c := c.(type) {
				case *array.Timestamp:
					v = uint64(int64(c.Value(i)))
					if c.IsNull(i) {
						v = uint64(1) << 63
					}
				case *array.Float64:
					v = math.Float64bits(c.Value(i))
				case *array.Float32:
					v = uint64(math.Float32bits(c.Value(i)))
				case *array.Int16:
					v = uint64(int64(c.Value(i)))
				default:
					t.Fatalf("column %s: %T", f.Name, c)
				}
				cols[f.Name] = append(cols[f.Name], v)
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return cols, batches
}

// The long table of an xarray dataset equals xarray's
// to_dataframe().reset_index() value for value and row for row, whatever
// the batch size (batches cut inside a time step, inside chunks, and
// along whole chunks of time); the arrays off the grid are noted.
func TestLongTableXarray(t *testing.T) {
	dir, want := xarrayLongDataset(t)
	store := storage.NewDir(dir)
	ctx := context.Background()
	for _, batch := range []int64{0, 1, 7, 20, 40} {
		mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
		o := Options{Unit: dtype.Nanosecond, Allocator: mem}
		tab, err := OpenLongTable(ctx, store, LongOptions{Options: o, BatchRows: batch})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range tab.Schema().Fields() {
			names = append(names, f.Name)
		}
		if !slices.Equal(names, want.Columns) || tab.Rows() != int64(len(want.Time)) {
			t.Fatalf("columns %v, %d rows; xarray: %v, %d rows", names, tab.Rows(), want.Columns, len(want.Time))
		}
		notes := strings.Join(tab.Notes(), "; ")
		if !strings.Contains(notes, "land: left out") || !strings.Contains(notes, "mean_t2m: left out") {
			t.Errorf("notes: %s", notes)
		}
		got, batches := readLongTable(t, tab, o)
		check := func(name string, want []uint64) {
			if !slices.Equal(got[name], want) {
				t.Errorf("batch %d: column %s:\n got %v\nwant %v", batch, name, got[name], want)
			}
		}
		conv := func(v []int64) []uint64 {
			out := make([]uint64, len(v))
			for i, x := range v {
				out[i] = uint64(x)
			}
			return out
		}
		t2m := make([]uint64, len(want.T2m))
		for i, b := range want.T2m {
			t2m[i] = uint64(b)
		}
		check("time", conv(want.Time))
		check("lat", want.Lat)
		check("lon", want.Lon)
		check("t2m", t2m)
		check("tp", conv(want.Tp))
		wantBatches := map[int64]int{0: 1, 1: 60, 7: 12, 20: 3, 40: 2}[batch]
		if batches != wantBatches {
			t.Errorf("batch rows %d: %d batches, want %d", batch, batches, wantBatches)
		}
		mem.AssertSize(t, 0)
	}
}

// Variables named explicitly must be on the grid and share their
// dimensions; one that is not is refused by name.
func TestLongTableVars(t *testing.T) {
	dir, _ := xarrayLongDataset(t)
	ctx := context.Background()
	for _, c := range []struct {
		vars []string
		bad  string
	}{
		{[]string{"t2m", "mean_t2m"}, "mean_t2m"},
		{[]string{"land"}, "land"},
		{[]string{"nope"}, "nope"},
		{[]string{"lat"}, "lat"},
		{[]string{"t2m", "tp", "t2m"}, "t2m"}, // twice: two columns of one name
	} {
		_, err := OpenLongTable(ctx, storage.NewDir(dir), LongOptions{Vars: c.vars})
		var ve *VariableError
		if !errors.As(err, &ve) || ve.Path != c.bad {
			t.Errorf("vars %v: %v, want a VariableError naming %q", c.vars, err, c.bad)
		}
	}
	// An empty, non-nil list names nothing: an error, not a panic.
	if _, err := OpenLongTable(ctx, storage.NewDir(dir), LongOptions{Vars: []string{}}); err == nil {
		t.Error("vars []: no error")
	}
	tab, err := OpenLongTable(ctx, storage.NewDir(dir), LongOptions{Vars: []string{"tp"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Schema().Field(3).Name; tab.Columns() != 4 || got != "tp" {
		t.Errorf("vars tp: schema %v", tab.Schema())
	}
	// The time dimension of mean_t2m alone.
	tab, err = OpenLongTable(ctx, storage.NewDir(dir), LongOptions{Vars: []string{"mean_t2m"}, Options: Options{Unit: dtype.Second}})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := readLongTable(t, tab, Options{})
	if tab.Rows() != 3 || len(got["mean_t2m"]) != 3 || int64(got["time"][1]) != -7200+5400 {
		t.Errorf("mean_t2m: %d rows, %v", tab.Rows(), got)
	}
}

// A time coordinate's NaT is null on every row it is broadcast to, and
// counted per row; a boolean coordinate broadcasts bit by bit.
func TestBroadcast(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	tb := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Second})
	tb.AppendValues([]arrow.Timestamp{10, 0, 30, 40}, []bool{true, false, true, true})
	times := tb.NewArray()
	defer times.Release()
	tb.Release()
	// Values [1, 3) of the coordinate, each twice, the run three times.
	col := broadcast(mem, times, 1, 2, 3, 2)
	defer col.Release()
	ts := col.(*array.Timestamp)
	want := []int64{-1, -1, 30, 30}
	if ts.Len() != 12 || ts.NullN() != 6 {
		t.Fatalf("%d rows, %d nulls: %v", ts.Len(), ts.NullN(), ts)
	}
	for i := range 12 {
		w := want[i%4]
		if (w < 0) != ts.IsNull(i) || (w >= 0 && int64(ts.Value(i)) != w) {
			t.Fatalf("row %d: %v", i, ts)
		}
	}
	bb := array.NewBooleanBuilder(mem)
	bb.AppendValues([]bool{true, false, true}, nil)
	flags := bb.NewArray()
	defer flags.Release()
	bb.Release()
	b := broadcast(mem, flags, 0, 3, 2, 3)
	defer b.Release()
	for i := range 18 {
		if b.(*array.Boolean).Value(i) != (i/3%3 != 1) {
			t.Fatalf("row %d: %v", i, b)
		}
	}
}

// DuckDB reads the long table's Parquet export: its rows, the time
// coordinate broadcast over the grid, and the variables' sums.
func TestDuckDBReadsLongParquet(t *testing.T) {
	dir, want := xarrayLongDataset(t)
	ctx := context.Background()
	tab, err := OpenLongTable(ctx, storage.NewDir(dir), LongOptions{BatchRows: 7, Options: Options{Unit: dtype.Microsecond}})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "long.parquet")
	w, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	r := tab.RecordReader(ctx)
	defer r.Release()
	if _, err := Export(r, w, ExportOptions{Format: Parquet, RowGroupRows: 16}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var got struct {
		Rows    string
		Columns map[string]struct{ Type, Nulls, Min, Max, Sum string }
	}
	if err := json.Unmarshal(node(t, "duckdb_parquet.mjs", out, "us", "time", "tp", "t2m"), &got); err != nil {
		t.Fatal(err)
	}
	var tsum, psum int64
	for i := range want.Time {
		tsum += want.Time[i] / 1000
		psum += want.Tp[i]
	}
	tc, pc := got.Columns["time"], got.Columns["tp"]
	if got.Rows != strconv.Itoa(len(want.Time)) || tc.Type != "TIMESTAMP" || tc.Sum != strconv.FormatInt(tsum, 10) || tc.Min != strconv.FormatInt(want.Time[0]/1000, 10) {
		t.Errorf("DuckDB read %s rows, time %+v; want %d rows, sum %d", got.Rows, tc, len(want.Time), tsum)
	}
	if pc.Type != "SMALLINT" || pc.Sum != strconv.FormatInt(psum, 10) || got.Columns["t2m"].Type != "FLOAT" {
		t.Errorf("DuckDB read tp %+v, t2m %+v; want tp sum %d", pc, got.Columns["t2m"], psum)
	}
	// Every row as xarray's to_dataframe() has it, bit for bit (t2m's NaN
	// too), read back from the file (the page encoder's float and time
	// pages, tp delegated to arrow-go's column writer).
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	tbl := readParquet(t, b, out)
	defer tbl.Release()
	rows := make(map[string][]uint64)
	for i := range int(tbl.NumCols()) {
		name := tbl.Schema().Field(i).Name
		for _, ch := range tbl.Column(i).Data().Chunks() {
			for j := range ch.Len() {
				var v uint64
				switch a := ch.(type) {
				case *array.Timestamp:
					v = uint64(a.Value(j)) * 1000 // us, the oracle's ns
				case *array.Float64:
					v = math.Float64bits(a.Value(j))
				case *array.Float32:
					v = uint64(math.Float32bits(a.Value(j)))
				case *array.Int16:
					v = uint64(a.Value(j))
				default:
					t.Fatalf("column %s read as %s", name, ch.DataType())
				}
				rows[name] = append(rows[name], v)
			}
		}
	}
	for i := range want.Time {
		w := map[string]uint64{"time": uint64(want.Time[i]), "lat": want.Lat[i], "lon": want.Lon[i], "t2m": uint64(want.T2m[i]), "tp": uint64(int16(want.Tp[i]))}
		for name, v := range w {
			if i >= len(rows[name]) || rows[name][i] != v {
				t.Fatalf("row %d: %s read back %v, xarray has %#x", i, name, rows[name], v)
			}
		}
	}
}

// TestLongSharedCoordinates reads a long table whose batches are whole
// time steps: every batch after the first of a box shares the lat and
// lon columns of the one before it (the same values buffer, retained
// by both), the time column is its own, the rows are those of a reader
// that shares nothing, and releasing the reader frees every byte.
func TestLongSharedCoordinates(t *testing.T) {
	ctx := context.Background()
	grid := gridGroup(t, []string{"time", "lat", "lon"}, []int64{7, 30, 40}, []int64{7, 30, 40})
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	for _, prefetch := range []int{0, 2} {
		// Batches of 2 time steps: 3 of 2400 rows, then one of 1200
		// (another box for lat and lon: new columns).
		tab, err := OpenLongTable(ctx, grid, LongOptions{BatchRows: 2400, Prefetch: prefetch, Options: Options{Allocator: mem}})
		if err != nil {
			t.Fatal(err)
		}
		r := tab.RecordReader(ctx)
		var recs []arrow.RecordBatch
		for r.Next() {
			rec := r.RecordBatch()
			rec.Retain()
			recs = append(recs, rec)
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
		r.Release()
		if len(recs) != 4 || recs[3].NumRows() != 1200 {
			t.Fatalf("prefetch %d: %d batches", prefetch, len(recs))
		}
		values := func(rec arrow.RecordBatch, name string) *memory.Buffer {
			i := rec.Schema().FieldIndices(name)[0]
			return rec.Column(i).Data().Buffers()[1]
		}
		for i := 1; i < 4; i++ {
			for _, name := range []string{"lat", "lon"} {
				if shared := values(recs[i], name) == values(recs[i-1], name); shared != (i < 3) {
					t.Errorf("prefetch %d: batch %d's %s column shared with the one before: %v", prefetch, i, name, shared)
				}
			}
			if values(recs[i], "time") == values(recs[i-1], "time") {
				t.Errorf("prefetch %d: batch %d's time column is the one before's", prefetch, i)
			}
		}
		// The rows, read again one time step a batch, are the same.
		tab1, err := OpenLongTable(ctx, grid, LongOptions{BatchRows: 1200, Options: Options{Allocator: mem}})
		if err != nil {
			t.Fatal(err)
		}
		r1 := tab1.RecordReader(ctx)
		row := 0
		for r1.Next() {
			one := r1.RecordBatch()
			rec := recs[row/2400]
			off := int64(row % 2400)
			for c := range int(one.NumCols()) {
				want := array.NewSlice(rec.Column(c), off, off+one.NumRows())
				if !array.Equal(one.Column(c), want) {
					t.Errorf("prefetch %d: rows %d+%d, column %s differ", prefetch, row, one.NumRows(), one.Schema().Field(c).Name)
				}
				want.Release()
			}
			row += int(one.NumRows())
		}
		if err := r1.Err(); err != nil {
			t.Fatal(err)
		}
		r1.Release()
		if row != 7*30*40 {
			t.Fatalf("%d rows", row)
		}
		for _, rec := range recs {
			rec.Release()
		}
	}
}

// Without BatchRows a long table's batches hold about LongBatchBytes:
// whole steps of the grid that fit in it, or part of one step when a
// step is larger.
func TestLongDefaultBatch(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		shape, chunk []int64
		want         int64
	}{
		// 29 bytes a row (time 8 and its validity bit, lat and lon 8, t2m
		// 4): 8 MiB hold 289 262 rows, two steps of 100 000.
		{[]int64{6, 100, 1000}, []int64{3, 100, 1000}, 200_000},
		// A step of 400 000 rows is larger: batches of whole lat rows, as
		// many as divide the chunk's 400 and fit (200, read by spans).
		{[]int64{2, 400, 1000}, []int64{1, 400, 1000}, 200_000},
	} {
		store := gridGroup(t, []string{"time", "lat", "lon"}, c.shape, c.chunk)
		tab, err := OpenLongTable(ctx, store, LongOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := tab.BatchRows(); got != c.want {
			t.Errorf("grid %v: batches of %d rows, want %d", c.shape, got, c.want)
		}
		if b := BatchBytes(tab.Schema(), tab.BatchRows()); b > LongBatchBytes {
			t.Errorf("grid %v: a batch holds %d bytes, more than %d", c.shape, b, LongBatchBytes)
		}
	}
}
