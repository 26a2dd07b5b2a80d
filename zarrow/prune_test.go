package zarrow

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/zarr-dt64/dt64/dtype"
)

// duckSQL runs SQL in DuckDB (tools/js/duckdb_sql.mjs) and returns the
// last statement's rows, or its error message.
func duckSQL(t *testing.T, sql ...string) ([]map[string]string, string) {
	t.Helper()
	var out struct {
		Rows  []map[string]string
		Error string
	}
	if err := json.Unmarshal(node(t, "duckdb_sql.mjs", sql...), &out); err != nil {
		t.Fatal(err)
	}
	return out.Rows, out.Error
}

// Every row group carries its columns' minimum and maximum, and DuckDB
// skips the row groups a range query's window excludes: with the pages
// of every other row group overwritten with garbage, the query still
// gives the right answer, while a query that reads them fails.
func TestDuckDBPrunesRowGroups(t *testing.T) {
	const groups, per = 10, 1000
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	values := make([]int64, groups*per)
	for i := range values {
		values[i] = start + int64(i)*60_000_000 // a minute apart
		if i%101 == 7 {
			values[i] = dtype.NaT
		}
	}
	a := chunkedTimeArray(t, dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Microsecond, Scale: 1}, values, binary.LittleEndian, 640)
	tab, err := ArrayTable(a, "time", TableOptions{BatchRows: 1500, Prefetch: 2})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "t.parquet")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	r := tab.RecordReader(context.Background())
	_, err = Export(r, f, ExportOptions{Format: Parquet, RowGroupRows: per, Workers: 3})
	r.Release()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}

	// The statistics, row group by row group.
	pf, err := file.OpenParquetFile(out, false)
	if err != nil {
		t.Fatal(err)
	}
	type span struct{ off, n int64 }
	var chunks []span
	md := pf.MetaData()
	if md.NumRowGroups() != groups {
		t.Fatalf("%d row groups, want %d", md.NumRowGroups(), groups)
	}
	for g := range groups {
		cc, err := md.RowGroup(g).ColumnChunk(0)
		if err != nil {
			t.Fatal(err)
		}
		st, err := cc.Statistics()
		if err != nil || st == nil || !st.HasMinMax() {
			t.Fatalf("row group %d: no minimum and maximum (%v)", g, err)
		}
		lo, hi, nulls := int64(1<<63-1), int64(-1<<63), int64(0)
		for _, v := range values[g*per : (g+1)*per] {
			if v == dtype.NaT {
				nulls++
				continue
			}
			lo, hi = min(lo, v), max(hi, v)
		}
		is := st.(*metadata.Int64Statistics)
		if is.Min() != lo || is.Max() != hi || st.NullCount() != nulls {
			t.Errorf("row group %d: min %d max %d nulls %d, want %d %d %d", g, is.Min(), is.Max(), st.NullCount(), lo, hi, nulls)
		}
		chunks = append(chunks, span{cc.DataPageOffset(), cc.TotalCompressedSize()})
	}
	pf.Close()

	// A 10-hour window inside row groups 4 and 5.
	from, to := values[4*per+500], values[4*per+500]+600*60_000_000
	src := fmt.Sprintf("read_parquet('%s')", out)
	window := fmt.Sprintf(`SELECT count(time)::VARCHAR AS n, epoch_us(min(time))::VARCHAR AS lo, epoch_us(max(time))::VARCHAR AS hi
		FROM %s WHERE time >= make_timestamp(%d) AND time < make_timestamp(%d)`, src, from, to)
	n, lo, hi := 0, int64(1<<63-1), int64(-1<<63)
	for _, v := range values {
		if v != dtype.NaT && v >= from && v < to {
			n, lo, hi = n+1, min(lo, v), max(hi, v)
		}
	}
	want := map[string]string{"n": fmt.Sprint(n), "lo": fmt.Sprint(lo), "hi": fmt.Sprint(hi)}
	check := func(what string) {
		rows, e := duckSQL(t, window)
		if e != "" || len(rows) != 1 || fmt.Sprint(rows[0]) != fmt.Sprint(want) {
			t.Fatalf("%s: DuckDB read %v (%s), want %v", what, rows, e, want)
		}
	}
	check("the file as written")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for g, c := range chunks {
		if g == 4 || g == 5 {
			continue
		}
		for i := c.off; i < c.off+c.n; i++ {
			b[i] = 0xA5
		}
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	check("every row group but 4 and 5 overwritten")
	if rows, e := duckSQL(t, fmt.Sprintf("SELECT sum(epoch_us(time))::VARCHAR AS s FROM %s", src)); e == "" || !strings.Contains(strings.ToLower(e), "error") {
		t.Fatalf("a query over every row group read the overwritten pages: %v, %q", rows, e)
	}
}
