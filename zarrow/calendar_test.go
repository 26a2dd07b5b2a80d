package zarrow

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

var calendarsDir = filepath.Join("..", "testdata", "xarray", "calendars")

// xarrayConverted is expected.json's convert_calendar result for one
// time coordinate: ns, NaT where xarray drops the element.
func xarrayConverted(t *testing.T, store, key string) []int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(calendarsDir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx map[string]struct {
		Arrays map[string]struct{ NS []*int64 }
	}
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	vals := fx[store].Arrays[key].NS
	if len(vals) == 0 {
		t.Fatalf("no fixture %s %s", store, key)
	}
	out := make([]int64, len(vals))
	for i, v := range vals {
		out[i] = dtype.NaT
		if v != nil {
			out[i] = *v
		}
	}
	return out
}

// Model calendars through the Arrow bridge: a 360_day column by year
// exported to Parquet, an all_leap group by date (dates Gregorian lacks
// as null) to Arrow IPC, both equal to xarray's convert_calendar and
// with the conversion in the field metadata; without a conversion the
// column is refused naming the calendar.
func TestCalendarColumns(t *testing.T) {
	ctx := context.Background()
	a, err := zarr.Open(ctx, storage.NewDir(filepath.Join(calendarsDir, "360_day_days_i8.zarr", "time_d")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ArrayTable(a, "time", TableOptions{}); !errors.Is(err, cf.ErrModelCalendar) {
		t.Fatalf("360_day without a conversion: %v", err)
	}
	year := cf.CalendarOptions{Convert: cf.ConvertYear}
	tab, err := ArrayTable(a, "time", TableOptions{Options: Options{Unit: dtype.Nanosecond, Parquet: true, Calendar: year}})
	if err != nil {
		t.Fatal(err)
	}
	if md := tab.Schema().Field(0).Metadata; md.FindKey("source_calendar") < 0 || md.Values()[md.FindKey("calendar_conversion")] != "year" {
		t.Errorf("field metadata %v", md)
	}
	_, got, err := exportParquet(t, a, tab)
	if err != nil {
		t.Fatal(err)
	}
	sameInt64s(t, "360_day year, Parquet", got, xarrayConverted(t, "360_day_days_i8", "time_d/year"))

	store := storage.NewDir(filepath.Join(calendarsDir, "all_leap_days_f8.zarr"))
	gt, err := OpenTable(ctx, store, TableOptions{Dim: "time_6h", Options: Options{Unit: dtype.Nanosecond,
		Calendar: cf.CalendarOptions{Convert: cf.ConvertDate, Missing: cf.MissingNaT}}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	r := gt.RecordReader(ctx)
	defer r.Release()
	if _, err := Export(r, &buf, ExportOptions{Format: IPC}); err != nil {
		t.Fatal(err)
	}
	fr, err := ipc.NewFileReader(bytes.NewReader(buf.Bytes()), ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		t.Fatal(err)
	}
	defer fr.Close()
	idx := fr.Schema().FieldIndices("time_6h")
	if len(idx) != 1 || fr.Schema().Field(idx[0]).Metadata.FindKey("source_calendar") < 0 {
		t.Fatalf("schema %v", fr.Schema())
	}
	var vals []int64
	for i := range fr.NumRecords() {
		rec, err := fr.RecordBatch(i)
		if err != nil {
			t.Fatal(err)
		}
		col := rec.Column(idx[0])
		v := int64Values(t, col)
		for j := range v {
			if col.IsNull(j) {
				v[j] = dtype.NaT
			}
		}
		vals = append(vals, v...)
	}
	sameInt64s(t, "all_leap date, Arrow IPC", vals, xarrayConverted(t, "all_leap_days_f8", "time_6h/date"))
	if st := r.Stats(); st.NoDate != 4 || st.NaT != 4 {
		t.Errorf("stats %+v, want 4 dates without a Gregorian one", st)
	}
}

func sameInt64s(t *testing.T, what string, got, want []int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: element %d is %d, xarray's convert_calendar gives %d", what, i, got[i], want[i])
		}
	}
}
