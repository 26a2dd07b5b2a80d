package zarrow

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
)

// TestTableCFDuration: the CF durations xarray wrote
// (testdata/xarray-durations) read as Arrow Duration columns of the
// durations written, NaT and missing values null, floats by the shortest
// rule (xarray's pandas arithmetic puts 1/24 day 28.8 µs late); exported
// to Parquet and Arrow IPC, they read back as durations with the same
// values. Units xarray does not read as a duration make no time column.
func TestTableCFDuration(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("..", "testdata", "xarray-durations")
	paths, _ := filepath.Glob(filepath.Join(dir, "*.values.json"))
	if len(paths) == 0 {
		t.Fatal("no fixtures in testdata/xarray-durations")
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".values.json")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Written []*int64
				Decoded string
			}
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			store := storage.NewDir(filepath.Join(dir, name+".zarr"))
			tab, err := OpenTable(ctx, store, TableOptions{Options: Options{Unit: dtype.Nanosecond, Parquet: true}})
			if doc.Decoded != "" {
				if err == nil {
					t.Fatalf("units xarray reads as %s numbers: a time table", doc.Decoded)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := make([]int64, len(doc.Written))
			for i, w := range doc.Written {
				want[i] = dtype.NaT
				if w != nil {
					want[i] = *w
				}
			}
			r := tab.RecordReader(ctx)
			defer r.Release()
			if !r.Next() {
				t.Fatal(r.Err())
			}
			col, ok := r.RecordBatch().Column(0).(*array.Duration)
			if !ok || col.DataType().(*arrow.DurationType).Unit != arrow.Nanosecond {
				t.Fatalf("column %s, want duration[ns]", r.RecordBatch().Column(0).DataType())
			}
			got := make([]int64, col.Len())
			for i := range got {
				got[i] = dtype.NaT
				if !col.IsNull(i) {
					got[i] = int64(col.Value(i))
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("column %v, written %v", got, want)
			}
			at, vals := exportParquetDurations(t, tab)
			if !arrow.TypeEqual(at, &arrow.DurationType{Unit: arrow.Nanosecond}) || !slices.Equal(vals, want) {
				t.Errorf("parquet: %s %v", at, vals)
			}
			var buf bytes.Buffer
			r2 := tab.RecordReader(ctx)
			defer r2.Release()
			if _, err := Export(r2, &buf, ExportOptions{Format: IPC}); err != nil {
				t.Fatal(err)
			}
			fr, err := ipc.NewFileReader(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			defer fr.Close()
			rec, err := fr.RecordBatch(0)
			if err != nil {
				t.Fatal(err)
			}
			if d, ok := rec.Column(0).(*array.Duration); !ok || d.Len() != len(want) || int64(d.Value(len(want)-1)) != want[len(want)-1] {
				t.Errorf("ipc: %s", rec.Column(0).DataType())
			}
		})
	}
}

// exportParquetDurations exports tab's one column to Parquet and reads it
// back as the file stores it: the Arrow type of the stored schema
// ("ARROW:schema", which pyarrow and Polars read; arrow-go's own reader
// reads no durations) and the int64 values (NaT for null).
func exportParquetDurations(t *testing.T, tab *Table) (arrow.DataType, []int64) {
	t.Helper()
	var buf bytes.Buffer
	r := tab.RecordReader(context.Background())
	defer r.Release()
	if _, err := Export(r, &buf, ExportOptions{Format: Parquet}); err != nil {
		t.Fatal(err)
	}
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	stored := pf.MetaData().KeyValueMetadata().FindValue("ARROW:schema")
	if stored == nil {
		t.Fatal("no ARROW:schema stored")
	}
	raw, err := base64.StdEncoding.DecodeString(*stored)
	if err != nil {
		t.Fatal(err)
	}
	sr, err := ipc.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	defer sr.Release()
	var vals []int64
	for g := 0; g < pf.NumRowGroups(); g++ {
		cr, err := pf.RowGroup(g).Column(0)
		if err != nil {
			t.Fatal(err)
		}
		n := pf.RowGroup(g).NumRows()
		v, def := make([]int64, n), make([]int16, n)
		_, _, err = cr.(*file.Int64ColumnChunkReader).ReadBatch(n, v, def, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i, k := 0, 0; i < int(n); i++ { // values come packed, nulls left out
			if def[i] == 0 {
				vals = append(vals, dtype.NaT)
				continue
			}
			vals = append(vals, v[k])
			k++
		}
	}
	return sr.Schema().Field(0).Type, vals
}

// TestTableCFDurationGroup: in an ERA5-like group (CF time "time", CF
// duration "step", t2m over both) the time coordinate is "time", never
// the duration: the wide table runs along time, and the long one has a
// timestamp, a duration and the variable.
func TestTableCFDurationGroup(t *testing.T) {
	ctx := context.Background()
	store := storage.NewDir(filepath.Join("..", "testdata", "xarray-durations", "era5_group.zarr"))
	tab, err := OpenTable(ctx, store, TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := tab.Schema(); s.NumFields() != 1 || s.Field(0).Name != "time" || s.Field(0).Type.ID() != arrow.TIMESTAMP {
		t.Errorf("wide table: %s", s)
	}
	long, err := OpenLongTable(ctx, store, LongOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := long.RecordReader(ctx)
	defer r.Release()
	if !r.Next() {
		t.Fatal(r.Err())
	}
	rec := r.RecordBatch()
	step, ok := rec.Column(1).(*array.Duration)
	if rec.NumRows() != 48 || rec.Schema().Field(0).Name != "time" || !ok || rec.Schema().Field(1).Name != "step" || int64(step.Value(7)) != 3600 {
		t.Errorf("long table: %d rows, %s, step[7] %v", rec.NumRows(), rec.Schema(), step)
	}
}
