package zarrow

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/zarr-dt64/dt64/dtype"
)

// forceOwnPages turns the int64 pages on for the test (also under
// DT64_PARQUET_PAGES=arrow-go).
func forceOwnPages(t *testing.T) {
	was := ownPages
	ownPages = true
	t.Cleanup(func() { ownPages = was })
}

// int64Case is a column for the int64 page encoder: its values, which
// are valid (nil: all), its type and whether the field is nullable.
type int64Case struct {
	typ      arrow.DataType
	nullable bool
	values   []int64
	valid    []bool
}

// randomInt64Case draws a column whose deltas span up to width bits
// (0…64), with a null pattern of kind 0 (none), 1 (all), 2 (random), 3
// (runs).
func randomInt64Case(rng *rand.Rand, n, width, nullKind int) int64Case {
	types := []arrow.DataType{arrow.FixedWidthTypes.Timestamp_us, arrow.FixedWidthTypes.Timestamp_ns, arrow.FixedWidthTypes.Timestamp_ms, arrow.PrimitiveTypes.Int64}
	c := int64Case{typ: types[rng.IntN(len(types))], nullable: true, values: make([]int64, n)}
	if nullKind == 0 && rng.IntN(2) == 0 {
		c.nullable = false
	}
	v := int64(rng.Uint64())
	for i := range c.values {
		switch {
		case width == 0:
		case width == 64:
			v = int64(rng.Uint64())
		default:
			// deltas in [-2^(w-1), 2^(w-1)): (delta − min delta) needs up to w bits
			v += int64(rng.Uint64N(uint64(1)<<width) - uint64(1)<<(width-1))
		}
		c.values[i] = v
	}
	if nullKind != 0 {
		c.valid = make([]bool, n)
		p, run := rng.Float64(), true
		for i := range c.valid {
			switch nullKind {
			case 2:
				c.valid[i] = rng.Float64() >= p
			case 3:
				if rng.IntN(50) == 0 {
					run = !run
				}
				c.valid[i] = run
			}
		}
	}
	return c
}

func (c int64Case) record(mem memory.Allocator) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{{Name: "v", Type: c.typ, Nullable: c.nullable}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i, v := range c.values {
		valid := c.valid == nil || c.valid[i]
		switch fb := b.Field(0).(type) {
		case *array.Int64Builder:
			fb.AppendValues([]int64{v}, []bool{valid})
		case *array.TimestampBuilder:
			fb.AppendValues([]arrow.Timestamp{arrow.Timestamp(v)}, []bool{valid})
		}
	}
	return b.NewRecordBatch()
}

// exportCase exports c's column as Parquet with rowGroup rows a row
// group (exportCuts).
func exportCase(t *testing.T, rng *rand.Rand, c int64Case, rowGroup int64, workers int) []byte {
	t.Helper()
	rec := c.record(memory.DefaultAllocator)
	defer rec.Release()
	return exportCuts(t, rng, rec, ExportOptions{Format: Parquet, RowGroupRows: rowGroup, Workers: workers})
}

// exportCuts exports rec cut into batches at random points (so that
// slices start inside a bitmap byte) with o.
func exportCuts(t *testing.T, rng *rand.Rand, rec arrow.RecordBatch, o ExportOptions) []byte {
	t.Helper()
	var recs []arrow.RecordBatch
	for off := int64(0); off < rec.NumRows(); {
		n := min(rec.NumRows()-off, 1+rng.Int64N(rec.NumRows()))
		recs = append(recs, rec.NewSlice(off, off+n))
		off += n
	}
	defer releaseRecords(recs)
	r, err := array.NewRecordReader(rec.Schema(), recs)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var buf bytes.Buffer
	rows, err := Export(r, &buf, o)
	if err != nil {
		t.Fatal(err)
	}
	if rows != rec.NumRows() {
		t.Fatalf("exported %d rows of %d", rows, rec.NumRows())
	}
	return buf.Bytes()
}

// readParquet reads the Parquet file b whole with arrow-go's pqarrow
// reader, the reference every export test reads back with.
func readParquet(t *testing.T, b []byte, what string) arrow.Table {
	t.Helper()
	tbl, err := pqarrow.ReadTable(context.Background(), bytes.NewReader(b), parquet.NewReaderProperties(nil), pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return tbl
}

// checkReadBack reads b with arrow-go's pqarrow reader and compares it
// with c: type, values and nulls.
func checkReadBack(t *testing.T, b []byte, c int64Case, what string) {
	t.Helper()
	tbl := readParquet(t, b, what)
	defer tbl.Release()
	if tbl.NumRows() != int64(len(c.values)) {
		t.Fatalf("%s: read %d rows, want %d", what, tbl.NumRows(), len(c.values))
	}
	col := tbl.Column(0)
	if !arrow.TypeEqual(col.DataType(), c.typ) {
		t.Fatalf("%s: read %s, want %s", what, col.DataType(), c.typ)
	}
	i := 0
	for _, ch := range col.Data().Chunks() {
		vals := arrow.Int64Traits.CastFromBytes(ch.Data().Buffers()[1].Bytes())[ch.Data().Offset():]
		for j := range ch.Len() {
			valid := c.valid == nil || c.valid[i]
			if ch.IsValid(j) != valid {
				t.Fatalf("%s: row %d valid %v, want %v", what, i, ch.IsValid(j), valid)
			}
			if valid && vals[j] != c.values[i] {
				t.Fatalf("%s: row %d is %d, want %d", what, i, vals[j], c.values[i])
			}
			i++
		}
	}
}

// The int64 pages (their delta encoding, definition levels and
// statistics) read back with arrow-go's reader as written, over random
// lengths, delta bit widths 0…64, null patterns, batch cuts, row group
// and page sizes.
func TestInt64PagesRoundTrip(t *testing.T) {
	forceOwnPages(t)
	defer func(n int) { pageRows = n }(pageRows)
	rng := rand.New(rand.NewPCG(27, 1))
	lengths := []int{0, 1, 2, 3, 31, 32, 33, 127, 128, 129, 130, 255, 256, 257, 1000, 4099}
	for width := 0; width <= 64; width++ {
		for _, n := range []int{lengths[rng.IntN(len(lengths))], 1 + rng.IntN(3000)} {
			nullKind := rng.IntN(4)
			c := randomInt64Case(rng, n, width, nullKind)
			pageRows = []int{1 << 17, 7, 128, 1 + rng.IntN(500)}[rng.IntN(4)]
			rg := []int64{1 << 18, 1 + rng.Int64N(1000)}[rng.IntN(2)]
			what := fmt.Sprintf("width %d, %d values (%s, nullable %v), nulls %d, pages of %d, row groups of %d", width, n, c.typ, c.nullable, nullKind, pageRows, rg)
			b := exportCase(t, rng, c, rg, 1+rng.IntN(3))
			checkReadBack(t, b, c, what)
			checkChunkStats(t, b, c, rg, what)
		}
	}
}

// checkChunkStats checks each row group's minimum, maximum and null count.
func checkChunkStats(t *testing.T, b []byte, c int64Case, rg int64, what string) {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	for g := range pf.NumRowGroups() {
		cc, err := pf.MetaData().RowGroup(g).ColumnChunk(0)
		if err != nil {
			t.Fatal(err)
		}
		if e := cc.Encodings(); len(e) == 0 || e[0] != parquet.Encodings.DeltaBinaryPacked {
			t.Fatalf("%s: row group %d encodings %v", what, g, e)
		}
		st, err := cc.Statistics()
		if err != nil || st == nil {
			t.Fatalf("%s: row group %d has no statistics (%v)", what, g, err)
		}
		lo, hi, nulls, count := int64(math.MaxInt64), int64(math.MinInt64), int64(0), 0
		for i := int64(g) * rg; i < min(int64(g+1)*rg, int64(len(c.values))); i++ {
			if c.valid != nil && !c.valid[i] {
				nulls++
				continue
			}
			lo, hi, count = min(lo, c.values[i]), max(hi, c.values[i]), count+1
		}
		if st.NullCount() != nulls || st.HasMinMax() != (count > 0) {
			t.Fatalf("%s: row group %d: nulls %d, min/max %v; want %d, %v", what, g, st.NullCount(), st.HasMinMax(), nulls, count > 0)
		}
		if count > 0 {
			if got := st.EncodeMin(); int64(binary.LittleEndian.Uint64(got)) != lo {
				t.Fatalf("%s: row group %d: min %d, want %d", what, g, int64(binary.LittleEndian.Uint64(got)), lo)
			}
			if got := st.EncodeMax(); int64(binary.LittleEndian.Uint64(got)) != hi {
				t.Fatalf("%s: row group %d: max %d, want %d", what, g, int64(binary.LittleEndian.Uint64(got)), hi)
			}
		}
	}
}

// The miniblocks are packed at the width of their largest value, which
// the deltas of randomInt64Case reach (a generator that made only narrow
// deltas would leave the wide packings untested).
func TestDeltaWidths(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 2))
	for width := 0; width <= 64; width++ {
		c := randomInt64Case(rng, 4000, width, 0)
		enc := appendDeltaBinaryPacked(nil, c.values)
		widest := 0
		// the header: 4 varints; then blocks: a varint, 4 widths, the miniblocks
		var p int
		for range 4 {
			_, k := binary.Uvarint(enc[p:])
			p += k
		}
		for p < len(enc) {
			_, k := binary.Uvarint(enc[p:])
			p += k
			ws := enc[p : p+4]
			p += 4
			for _, w := range ws {
				widest = max(widest, int(w))
				p += 4 * int(w)
			}
		}
		if p != len(enc) {
			t.Fatalf("width %d: the blocks end at %d of %d bytes", width, p, len(enc))
		}
		if widest != width {
			t.Errorf("deltas of width %d: widest miniblock %d bits", width, widest)
		}
	}
	// packMiniBlock against a bit-by-bit packing.
	for b := uint(0); b <= 64; b++ {
		var mini [deltaMiniBlock]uint64
		for i := range mini {
			mini[i] = rng.Uint64() >> (64 - b) // b bits (0 when b is 0: a shift by 64)
			if b == 0 {
				mini[i] = 0
			}
		}
		got := packMiniBlock(nil, &mini, b)
		want := make([]byte, 4*b)
		for i, x := range mini {
			for k := range b {
				if x>>k&1 == 1 {
					bit := uint(i)*b + k
					want[bit/8] |= 1 << (bit % 8)
				}
			}
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("width %d: packed % x, want % x", b, got, want)
		}
	}
}

// FuzzInt64Pages: any values and null pattern read back as written.
func FuzzInt64Pages(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, uint16(3), uint8(0))
	f.Add(bytes.Repeat([]byte{0xff, 0, 0x80}, 400), uint16(77), uint8(0x5a))
	f.Fuzz(func(t *testing.T, data []byte, rg uint16, nulls uint8) {
		forceOwnPages(t)
		c := int64Case{typ: arrow.FixedWidthTypes.Timestamp_us, nullable: true, values: make([]int64, len(data)/8)}
		for i := range c.values {
			c.values[i] = int64(binary.LittleEndian.Uint64(data[8*i:]))
		}
		if nulls != 0 {
			c.valid = make([]bool, len(c.values))
			for i := range c.valid {
				c.valid[i] = (data[i%len(data)]^nulls)&1 == 0
			}
		}
		rng := rand.New(rand.NewPCG(uint64(rg), uint64(nulls)))
		b := exportCase(t, rng, c, int64(rg)%500+1, 2)
		checkReadBack(t, b, c, "fuzz")
	})
}

// A nullable timestamp column goes through the int64 pages (the switch
// changes the bytes; off, they are arrow-go's serial writer's); the
// output is the same for any number of workers; the footer's file
// metadata (schema, key-value metadata with the Arrow schema, created_by)
// is the old path's; arrow-go and DuckDB read the values and nulls back.
func TestInt64PagesExport(t *testing.T) {
	forceOwnPages(t)
	const n = 20000
	start := int64(1_700_000_000_000_000)
	values := make([]int64, n)
	for i := range values {
		values[i] = start + int64(i)*1_000_000 + int64(i%7)*13
		if i%97 == 5 || (i >= 3000 && i < 3300) {
			values[i] = dtype.NaT
		}
	}
	a := chunkedTimeArray(t, dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Microsecond, Scale: 1}, values, binary.LittleEndian, 640)
	tab, err := ArrayTable(a, "time", TableOptions{BatchRows: 1500, Prefetch: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !newParquetWriter(tab.Schema(), ExportOptions{}, memory.DefaultAllocator).pages {
		t.Fatalf("a table of %s does not take the int64 pages", tab.Schema())
	}
	o := ExportOptions{Format: Parquet, RowGroupRows: 3000}
	var first []byte
	for _, w := range []int{1, 2, 7} {
		o.Workers = w
		got := exportBytes(t, tab, o)
		if first == nil {
			first = got
		} else if !bytes.Equal(got, first) {
			t.Fatalf("%d workers: the file differs from one worker's", w)
		}
	}
	// Pages are cut at the same rows whatever the batches.
	for _, rows := range []int64{7, 640, 5000} {
		tb, err := ArrayTable(a, "time", TableOptions{BatchRows: rows, Prefetch: 2})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(exportBytes(t, tb, o), first) {
			t.Fatalf("batches of %d rows: the file differs from batches of 1500", rows)
		}
	}
	ownPages = false
	old := exportBytes(t, tab, o)
	serial := serialParquet(t, tab, o)
	ownPages = true
	if !bytes.Equal(old, serial) {
		t.Fatal("with the switch off, the file is not arrow-go's serial writer's")
	}
	if bytes.Equal(old, first) {
		t.Fatal("the switch does not change the file: the int64 pages were not used")
	}
	c := int64Case{typ: tab.Schema().Field(0).Type, nullable: true, values: values, valid: make([]bool, n)}
	for i, v := range values {
		c.valid[i] = v != dtype.NaT
	}
	checkReadBack(t, first, c, "int64 pages")
	checkChunkStats(t, first, c, 3000, "int64 pages")

	newMD, oldMD := footer(t, first), footer(t, old)
	if !newMD.Schema.Equals(oldMD.Schema) || newMD.GetCreatedBy() != oldMD.GetCreatedBy() || newMD.Version() != oldMD.Version() ||
		!newMD.KeyValueMetadata().Equals(oldMD.KeyValueMetadata()) || newMD.NumRows != oldMD.NumRows || newMD.NumRowGroups() != oldMD.NumRowGroups() {
		t.Fatalf("footers differ:\nnew %v\nold %v", newMD, oldMD)
	}
	t.Logf("%d rows: int64 pages %d bytes, arrow-go %d", n, len(first), len(old))

	// DuckDB: rows, nulls, minimum, maximum.
	out := filepath.Join(t.TempDir(), "t.parquet")
	if err := os.WriteFile(out, first, 0o644); err != nil {
		t.Fatal(err)
	}
	var cnt, lo, hi, sum int64 = 0, math.MaxInt64, math.MinInt64, 0
	for i, v := range values {
		if c.valid[i] {
			cnt, lo, hi, sum = cnt+1, min(lo, v), max(hi, v), sum+(v-start)
		}
	}
	want := map[string]string{"rows": fmt.Sprint(n), "n": fmt.Sprint(cnt), "lo": fmt.Sprint(lo), "hi": fmt.Sprint(hi), "s": fmt.Sprint(sum)}
	rows, e := duckSQL(t, fmt.Sprintf(`SELECT count(*)::VARCHAR AS rows, count(time)::VARCHAR AS n, epoch_us(min(time))::VARCHAR AS lo,
		epoch_us(max(time))::VARCHAR AS hi, sum(epoch_us(time) - %d)::VARCHAR AS s FROM read_parquet('%s')`, start, out))
	if e != "" || len(rows) != 1 || fmt.Sprint(rows[0]) != fmt.Sprint(want) {
		t.Fatalf("DuckDB read %v (%s), want %v", rows, e, want)
	}
}

func footer(t *testing.T, b []byte) *metadata.FileMetaData {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	return pf.MetaData()
}

// Which tables take the int64 pages: only those whose every column is
// int64, or a timestamp pqarrow stores as it is (not seconds).
func TestPageColumns(t *testing.T) {
	f := func(typ arrow.DataType) arrow.Field { return arrow.Field{Name: "c", Type: typ, Nullable: true} }
	for _, c := range []struct {
		fields []arrow.Field
		want   bool
	}{
		{[]arrow.Field{f(arrow.FixedWidthTypes.Timestamp_us)}, true},
		{[]arrow.Field{f(arrow.FixedWidthTypes.Timestamp_ns), f(arrow.PrimitiveTypes.Int64)}, true},
		{[]arrow.Field{f(arrow.FixedWidthTypes.Timestamp_ms)}, true},
		{[]arrow.Field{f(arrow.FixedWidthTypes.Timestamp_s)}, false},
		{[]arrow.Field{f(arrow.FixedWidthTypes.Timestamp_us), f(arrow.PrimitiveTypes.Float32)}, true},
		{[]arrow.Field{f(arrow.PrimitiveTypes.Float64), f(arrow.PrimitiveTypes.Float32)}, true},
		{[]arrow.Field{f(arrow.FixedWidthTypes.Timestamp_us), f(arrow.FixedWidthTypes.Float16)}, true}, // float16 delegated
		{[]arrow.Field{f(arrow.PrimitiveTypes.Float32), f(arrow.FixedWidthTypes.Timestamp_s), f(arrow.PrimitiveTypes.Int16), f(arrow.FixedWidthTypes.Boolean)}, true},
		{[]arrow.Field{f(arrow.FixedWidthTypes.Timestamp_us), f(arrow.BinaryTypes.String)}, false},
		{[]arrow.Field{f(arrow.FixedWidthTypes.Boolean)}, false}, // nothing of its own
		{[]arrow.Field{f(arrow.FixedWidthTypes.Boolean), f(arrow.PrimitiveTypes.Uint64)}, false},
		{[]arrow.Field{f(arrow.PrimitiveTypes.Uint64)}, false},
		{[]arrow.Field{f(arrow.PrimitiveTypes.Int32)}, false},
		{[]arrow.Field{f(arrow.FixedWidthTypes.Duration_us)}, false}, // durationsAsInt64 retypes it first
		{nil, false},
	} {
		if got := pageColumns(arrow.NewSchema(c.fields, nil)); got != c.want {
			t.Errorf("%v: %v, want %v", c.fields, got, c.want)
		}
	}
	forceOwnPages(t)
	// A duration column is written as int64: the int64 pages
	// (TestTableCFDuration reads such a file back: arrow-go's pqarrow
	// reader reads no durations).
	s := arrow.NewSchema([]arrow.Field{f(arrow.FixedWidthTypes.Duration_us)}, nil)
	if !newParquetWriter(s, ExportOptions{}, memory.DefaultAllocator).pages {
		t.Error("a duration table does not take the int64 pages")
	}
}

// A long table's file (int64 time, float64 coordinates, a float32
// variable) is the same for any batch size: pages are cut at every
// pageRows rows of a row group, not at the batches, so small batches do
// not make small pages.
func TestPagesSameForAnyBatches(t *testing.T) {
	forceOwnPages(t)
	defer func(n int) { pageRows = n }(pageRows)
	pageRows = 300
	ctx := context.Background()
	grid := gridGroup(t, []string{"time", "lat", "lon"}, []int64{6, 20, 30}, []int64{3, 20, 30})
	o := ExportOptions{Format: Parquet, RowGroupRows: 1000, Workers: 2}
	var first []byte
	for _, rows := range []int64{0, 7, 100, 1000} {
		tab, err := OpenLongTable(ctx, grid, LongOptions{BatchRows: rows, Prefetch: 1})
		if err != nil {
			t.Fatal(err)
		}
		got := exportBytes(t, tab, o)
		if first == nil {
			first = got
			pf, err := file.NewParquetReader(bytes.NewReader(got))
			if err != nil {
				t.Fatal(err)
			}
			// 4 row groups of 1000 rows or fewer, pages of 300: 4 a chunk,
			// 3 in the last row group's 600 rows.
			if n := pf.NumRowGroups(); n != 4 {
				t.Fatalf("%d row groups", n)
			}
			pf.Close()
			continue
		}
		if !bytes.Equal(got, first) {
			t.Errorf("batches of %d rows: the file differs from the default batches' (%d bytes, %d)", rows, len(got), len(first))
		}
	}
}
