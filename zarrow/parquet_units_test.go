package zarrow

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/zarr"
)

// exportParquet exports a's table (Options.Parquet set) to Parquet and
// reads the column back: its Arrow type and values (NaT/null as NaT).
func exportParquet(t *testing.T, a interface{ String() string }, tab *Table) (arrow.DataType, []int64, error) {
	t.Helper()
	var buf bytes.Buffer
	r := tab.RecordReader(context.Background())
	defer r.Release()
	if _, err := Export(r, &buf, ExportOptions{Format: Parquet}); err != nil {
		return nil, nil, err
	}
	pf, err := file.NewParquetReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	col := tbl.Column(0)
	var vals []int64
	for _, c := range col.Data().Chunks() {
		v := int64Values(t, c)
		for i := range v {
			if c.IsNull(i) {
				v[i] = dtype.NaT
			}
		}
		vals = append(vals, v...)
	}
	return col.DataType(), vals, nil
}

// Parquet has no seconds timestamp: a datetime64[s] column is converted
// to ms by dt64's kernels under the overflow policy (the writer's own
// cast would fail on 1e16 s, naming nothing, whatever the policy), and
// every other unit is stored as it is (no ns → us: the writer is 2.6).
// Durations are int64 columns the writer never casts.
func TestParquetForcedUnits(t *testing.T) {
	const big = int64(1e16) // s: beyond ±9.2e15 s, ms overflows
	in := []int64{0, big, 5, -big, dtype.NaT, 7, 8, 9, 10}
	for _, tc := range []struct {
		kind     dtype.Kind
		unit     dtype.Unit
		wantUnit arrow.TimeUnit
		pol      dtype.OverflowPolicy
		want     []int64 // nil: a zarr.ElementError naming element 1
	}{
		{dtype.Datetime, dtype.Second, arrow.Millisecond, dtype.OverflowError, nil},
		{dtype.Datetime, dtype.Second, arrow.Millisecond, dtype.OverflowNaT, []int64{0, dtype.NaT, 5000, dtype.NaT, dtype.NaT, 7000, 8000, 9000, 10000}},
		{dtype.Datetime, dtype.Second, arrow.Millisecond, dtype.OverflowClamp, []int64{0, math.MaxInt64, 5000, math.MinInt64 + 1, dtype.NaT, 7000, 8000, 9000, 10000}},
		{dtype.Datetime, dtype.Millisecond, arrow.Millisecond, dtype.OverflowError, in},
		{dtype.Datetime, dtype.Microsecond, arrow.Microsecond, dtype.OverflowError, in},
		{dtype.Datetime, dtype.Nanosecond, arrow.Nanosecond, dtype.OverflowError, in},
	} {
		dt := dtype.DataType{Kind: tc.kind, Unit: tc.unit, Scale: 1}
		a := timeArray(t, dt, in, binary.LittleEndian)
		tab, err := ArrayTable(a, "t", TableOptions{Options: Options{Overflow: tc.pol, Parquet: true}})
		if err != nil {
			t.Fatal(err)
		}
		typ, got, err := exportParquet(t, a, tab)
		name := dt.String() + "/" + tc.pol.String()
		if tc.want == nil {
			var ee *zarr.ElementError
			if !errors.As(err, &ee) || ee.Key != "c/0" || ee.Index != 1 || ee.Value != big || !slices.Equal(ee.ArrayIndex, []int64{1}) ||
				!strings.Contains(err.Error(), "Parquet stores a seconds column in milliseconds") {
				t.Errorf("%s: %v, want a zarr.ElementError naming chunk c/0 element 1 and why it meets milliseconds", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var u arrow.TimeUnit
		switch ty := typ.(type) {
		case *arrow.TimestampType:
			u = ty.Unit
		case *arrow.DurationType:
			u = ty.Unit
		}
		if u != tc.wantUnit || !slices.Equal(got, tc.want) {
			t.Errorf("%s: %s %v, want %s %v", name, typ, got, tc.wantUnit, tc.want)
		}
	}
}

// Asked for seconds, a Parquet column floors to seconds as NumPy does and
// stores them as ms: -1.5 s is -2000 ms, not -1500.
func TestParquetSecondsFloor(t *testing.T) {
	ns := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}
	a := timeArray(t, ns, []int64{-1_500_000_000, 1_000_000_001, dtype.NaT}, binary.LittleEndian)
	tab, err := ArrayTable(a, "t", TableOptions{Options: Options{Unit: dtype.Second, Parquet: true}})
	if err != nil {
		t.Fatal(err)
	}
	_, got, err := exportParquet(t, a, tab)
	if want := []int64{-2000, 1000, dtype.NaT}; err != nil || !slices.Equal(got, want) {
		t.Errorf("got %v, %v, want %v", got, err, want)
	}
}
