package zarrow

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
)

// floatCase is a table of float columns for the page encoder: each
// column's values as bits (float32 in the low 32), validity (nil: all
// valid) and whether it is float32.
type floatCase struct {
	cols []floatCol
}

type floatCol struct {
	f32      bool
	nullable bool
	bits     []uint64
	valid    []bool
}

// specialFloats are the values whose bits a float encoder gets wrong
// first: zeros of both signs, infinities, NaNs with other payloads,
// subnormals, the extremes.
func specialFloats(f32 bool) []uint64 {
	if f32 {
		return []uint64{0, 0x8000_0000, 0x7f80_0000, 0xff80_0000, 0x7fc0_0000, 0xffc0_0001, 0x7f80_0001, 1, 0x8000_0001, 0x7f7f_ffff, 0xff7f_ffff}
	}
	return []uint64{0, 1 << 63, 0x7ff0 << 48, 0xfff0 << 48, 0x7ff8 << 48, 0xfff8<<48 | 1, 0x7ff0<<48 | 1, 1, 1<<63 | 1, math.Float64bits(math.MaxFloat64), math.Float64bits(-math.MaxFloat64)}
}

// randomFloatCol draws n values: distinct ones from a pool of k (0: every
// value new), in runs, with a null pattern of kind 0 (none), 1 (all), 2
// (random), 3 (runs).
func randomFloatCol(rng *rand.Rand, n, k, nullKind int) floatCol {
	return floatColOf(rng, rng.IntN(2) == 0, n, k, nullKind)
}

// floatColOf is randomFloatCol of float32 (f32) or float64.
func floatColOf(rng *rand.Rand, f32 bool, n, k, nullKind int) floatCol {
	c := floatCol{f32: f32, nullable: nullKind != 0 || rng.IntN(2) == 0, bits: make([]uint64, n)}
	draw := func() uint64 {
		if rng.IntN(8) == 0 {
			s := specialFloats(c.f32)
			return s[rng.IntN(len(s))]
		}
		if c.f32 {
			return uint64(math.Float32bits(float32(rng.NormFloat64() * 300)))
		}
		return math.Float64bits(rng.NormFloat64() * 1e5)
	}
	pool := make([]uint64, k)
	for i := range pool {
		pool[i] = draw()
	}
	run := []int{1, 1, 3, 8, 9, 720}[rng.IntN(6)]
	for i := 0; i < n; {
		v := draw()
		if k > 0 {
			v = pool[rng.IntN(k)]
		}
		for r := rng.IntN(run) + 1; r > 0 && i < n; r-- {
			c.bits[i] = v
			i++
		}
	}
	switch nullKind {
	case 1:
		c.valid = make([]bool, n)
	case 2:
		c.valid = make([]bool, n)
		for i := range c.valid {
			c.valid[i] = rng.IntN(3) != 0
		}
	case 3:
		c.valid = make([]bool, n)
		for i := 0; i < n; {
			v, r := rng.IntN(2) == 0, 1+rng.IntN(300)
			for ; r > 0 && i < n; r-- {
				c.valid[i] = v
				i++
			}
		}
	}
	return c
}

func (c floatCase) record(mem memory.Allocator) arrow.RecordBatch {
	var fields []arrow.Field
	for i, col := range c.cols {
		typ := arrow.DataType(arrow.PrimitiveTypes.Float64)
		if col.f32 {
			typ = arrow.PrimitiveTypes.Float32
		}
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("f%d", i), Type: typ, Nullable: col.nullable})
	}
	b := array.NewRecordBuilder(mem, arrow.NewSchema(fields, nil))
	defer b.Release()
	for i, col := range c.cols {
		for j, v := range col.bits {
			valid := col.valid == nil || col.valid[j]
			switch fb := b.Field(i).(type) {
			case *array.Float32Builder:
				fb.AppendValues([]float32{math.Float32frombits(uint32(v))}, []bool{valid})
			case *array.Float64Builder:
				fb.AppendValues([]float64{math.Float64frombits(v)}, []bool{valid})
			}
		}
	}
	return b.NewRecordBatch()
}

// exportFloats exports c cut into batches at random points as Parquet
// with rowGroup rows a row group, through the page encoder (own) or
// arrow-go's writer.
func exportFloats(t *testing.T, rng *rand.Rand, c floatCase, rowGroup int64, workers int, own bool) []byte {
	t.Helper()
	was := ownPages
	ownPages = own
	defer func() { ownPages = was }()
	rec := c.record(memory.DefaultAllocator)
	defer rec.Release()
	if newParquetWriter(rec.Schema(), ExportOptions{}, memory.DefaultAllocator).pages != own {
		t.Fatalf("the table does not take the page encoder (own %v)", own)
	}
	return exportCuts(t, rng, rec, ExportOptions{Format: Parquet, RowGroupRows: rowGroup, Workers: workers})
}

// checkFloatsBack reads b with arrow-go's pqarrow reader: every value's
// bits and validity as in c.
func checkFloatsBack(t *testing.T, b []byte, c floatCase, what string) {
	t.Helper()
	tbl := readParquet(t, b, what)
	defer tbl.Release()
	for ci, want := range c.cols {
		col := tbl.Column(ci)
		if tbl.NumRows() != int64(len(want.bits)) {
			t.Fatalf("%s: read %d rows, want %d", what, tbl.NumRows(), len(want.bits))
		}
		i := 0
		for _, ch := range col.Data().Chunks() {
			for j := range ch.Len() {
				valid := want.valid == nil || want.valid[i]
				if ch.IsValid(j) != valid {
					t.Fatalf("%s: column %d row %d valid %v, want %v", what, ci, i, ch.IsValid(j), valid)
				}
				var got uint64
				switch a := ch.(type) {
				case *array.Float32:
					got = uint64(math.Float32bits(a.Value(j)))
				case *array.Float64:
					got = math.Float64bits(a.Value(j))
				default:
					t.Fatalf("%s: column %d read as %s", what, ci, ch.DataType())
				}
				if valid && got != want.bits[i] {
					t.Fatalf("%s: column %d row %d has bits %#x, want %#x", what, ci, i, got, want.bits[i])
				}
				i++
			}
		}
	}
}

// distinctIn counts the distinct valid values of col in rows [lo, hi).
func distinctIn(col floatCol, lo, hi int) int {
	seen := map[uint64]bool{}
	for i := lo; i < hi; i++ {
		if col.valid == nil || col.valid[i] {
			seen[col.bits[i]] = true
		}
	}
	return len(seen)
}

// checkFloatChunks compares each row group's column chunks in own (the
// page encoder's file) with those in ref (arrow-go's, the same rows):
// the same statistics (minimum, maximum, NaN left out, zeros signed as
// parquet-mr does; null count), and a dictionary page exactly when the
// chunk's distinct values fit the dictionary page limit.
func checkFloatChunks(t *testing.T, own, ref []byte, c floatCase, rg int64, what string) {
	t.Helper()
	open := func(b []byte) *file.Reader {
		pf, err := file.NewParquetReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return pf
	}
	po, pr := open(own), open(ref)
	defer po.Close()
	defer pr.Close()
	if po.NumRowGroups() != pr.NumRowGroups() {
		t.Fatalf("%s: %d row groups, arrow-go %d", what, po.NumRowGroups(), pr.NumRowGroups())
	}
	for g := range po.NumRowGroups() {
		for ci, col := range c.cols {
			co, err := po.MetaData().RowGroup(g).ColumnChunk(ci)
			if err != nil {
				t.Fatal(err)
			}
			cr, err := pr.MetaData().RowGroup(g).ColumnChunk(ci)
			if err != nil {
				t.Fatal(err)
			}
			so, err := co.Statistics()
			if err != nil || so == nil {
				t.Fatalf("%s: row group %d column %d: no statistics (%v)", what, g, ci, err)
			}
			sr, _ := cr.Statistics()
			if so.HasMinMax() != sr.HasMinMax() || so.NullCount() != sr.NullCount() || !bytes.Equal(so.EncodeMin(), sr.EncodeMin()) || !bytes.Equal(so.EncodeMax(), sr.EncodeMax()) {
				t.Fatalf("%s: row group %d column %d: min %x max %x nulls %d (has %v); arrow-go: %x %x %d (%v)", what, g, ci,
					so.EncodeMin(), so.EncodeMax(), so.NullCount(), so.HasMinMax(), sr.EncodeMin(), sr.EncodeMax(), sr.NullCount(), sr.HasMinMax())
			}
			width := 8
			if col.f32 {
				width = 4
			}
			lo := int(int64(g) * rg)
			k := distinctIn(col, lo, min(lo+int(rg), len(col.bits)))
			wantDict := k > 0 && k*width <= int(dictPageBytes)
			enc := co.Encodings()
			if co.HasDictionaryPage() != wantDict || (len(enc) > 0 && (enc[0] == parquet.Encodings.RLEDict) != wantDict) {
				t.Fatalf("%s: row group %d column %d (%d distinct of %d bytes): dictionary page %v, encodings %v; want a dictionary %v",
					what, g, ci, k, width, co.HasDictionaryPage(), enc, wantDict)
			}
		}
	}
}

// Float columns through the page encoder read back bit for bit (NaN
// payloads and the sign of zero too), with arrow-go's statistics, over
// random tables: dictionary and PLAIN chunks (a small dictionary limit
// makes some chunks fall back), runs of values, null patterns, batch
// cuts, page and row group sizes and workers.
func TestFloatPagesRoundTrip(t *testing.T) {
	defer func(n int, d int64) { pageRows, dictPageBytes = n, d }(pageRows, dictPageBytes)
	rng := rand.New(rand.NewPCG(27, 3))
	rounds := 120
	if testing.Short() {
		rounds = 40
	}
	for round := range rounds {
		n := []int{0, 1, 7, 8, 9, 100, 1000, 1 + rng.IntN(5000)}[rng.IntN(8)]
		var c floatCase
		for range 1 + rng.IntN(3) {
			c.cols = append(c.cols, randomFloatCol(rng, n, []int{0, 1, 2, 3, 200, 5000}[rng.IntN(6)], rng.IntN(4)))
		}
		pageRows = []int{1 << 17, 7, 128, 1 + rng.IntN(500)}[rng.IntN(4)]
		dictPageBytes = []int64{parquet.DefaultDictionaryPageSizeLimit, 64, 1 + rng.Int64N(4000)}[rng.IntN(3)]
		rg := []int64{1 << 18, 1 + rng.Int64N(1000)}[rng.IntN(2)]
		what := fmt.Sprintf("round %d: %d rows, %d columns, pages of %d, row groups of %d, dictionary pages of %d bytes", round, n, len(c.cols), pageRows, rg, dictPageBytes)
		seed := rng.Uint64()
		own := exportFloats(t, rand.New(rand.NewPCG(seed, 0)), c, rg, 1+rng.IntN(3), true)
		checkFloatsBack(t, own, c, what)
		ref := exportFloats(t, rand.New(rand.NewPCG(seed, 0)), c, rg, 1, false)
		checkFloatChunks(t, own, ref, c, rg, what)
	}
}

// The same file for any number of workers.
func TestFloatPagesSameForAnyWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 4))
	c := floatCase{cols: []floatCol{randomFloatCol(rng, 20_000, 300, 2), randomFloatCol(rng, 20_000, 0, 0)}}
	one := exportFloats(t, rand.New(rand.NewPCG(1, 1)), c, 3000, 1, true)
	for _, w := range []int{2, 7} {
		if got := exportFloats(t, rand.New(rand.NewPCG(1, 1)), c, 3000, w, true); !bytes.Equal(got, one) {
			t.Errorf("%d workers: %d bytes differ from 1 worker's %d", w, len(got), len(one))
		}
	}
}

// decodeHybrid decodes n values of the RLE/bit-packed hybrid at width bw
// (the reference for appendHybrid), and the bytes it read.
func decodeHybrid(t *testing.T, b []byte, n, bw int) ([]uint32, int) {
	t.Helper()
	var out []uint32
	at := 0
	for len(out) < n {
		h, k := uvarint(b[at:])
		if k <= 0 {
			t.Fatalf("bad header at byte %d", at)
		}
		at += k
		if h&1 == 0 { // RLE
			var v uint32
			for i := range (bw + 7) / 8 {
				v |= uint32(b[at+i]) << (8 * i)
			}
			at += (bw + 7) / 8
			for range h >> 1 {
				out = append(out, v)
			}
			continue
		}
		m := int(h>>1) * 8
		for i := range m {
			var v uint32
			for j := range bw {
				bit := i*bw + j
				v |= uint32(b[at+bit/8]>>(bit%8)&1) << j
			}
			out = append(out, v)
		}
		at += m * bw / 8
	}
	return out[:n], at
}

func uvarint(b []byte) (uint64, int) {
	var x uint64
	for i, c := range b {
		if i == 10 {
			return 0, -1
		}
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, i + 1
		}
	}
	return 0, 0
}

// appendHybrid's output decodes to its input for every bit width, with
// runs of 7, 8 and 9 and longer starting anywhere, and a long run costs a
// few bytes (an RLE run, not bit-packed groups).
func TestAppendHybrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 5))
	for bw := 1; bw <= 32; bw++ {
		for range 50 {
			n := rng.IntN(300)
			idx := make([]uint32, 0, n)
			for len(idx) < n {
				v := uint32(rng.Uint64N(uint64(1) << bw))
				r := []int{1, 1, 2, 7, 8, 9, 15, 16, 17, 100}[rng.IntN(10)]
				for ; r > 0 && len(idx) < n; r-- {
					idx = append(idx, v)
				}
			}
			b := appendHybrid(nil, idx, bw)
			got, used := decodeHybrid(t, b, n, bw)
			if used != len(b) {
				t.Fatalf("width %d, %d values: decoded %d of %d bytes", bw, n, used, len(b))
			}
			for i := range idx {
				if got[i] != idx[i] {
					t.Fatalf("width %d: value %d is %d, want %d (input %v)", bw, i, got[i], idx[i], idx)
				}
			}
		}
		run := make([]uint32, 10_000)
		for i := range run {
			run[i] = uint32(1) << (bw - 1)
		}
		if b := appendHybrid(nil, run, bw); len(b) != 3+(bw+7)/8 { // the header 10000<<1 takes 3 bytes
			t.Errorf("width %d: a run of %d takes %d bytes", bw, len(run), len(b))
		}
	}
}

// The dictionary's hash table finds every value again after growing, and
// refuses a value past the limit.
func TestFloatDict(t *testing.T) {
	var d floatDict
	d.reset()
	for i := range 5000 {
		if at, ok := d.index(uint64(i)*0x1000_0000, 10_000); !ok || at != uint32(i) {
			t.Fatalf("value %d: index %d, %v", i, at, ok)
		}
	}
	for i := range 5000 {
		if at, ok := d.index(uint64(i)*0x1000_0000, 5000); !ok || at != uint32(i) {
			t.Fatalf("value %d again: index %d, %v", i, at, ok)
		}
	}
	if _, ok := d.index(1, 5000); ok {
		t.Error("a value past the limit was added")
	}
	if len(d.slots) < 2*len(d.vals) || bits.OnesCount(uint(len(d.slots))) != 1 {
		t.Errorf("%d slots for %d values", len(d.slots), len(d.vals))
	}
	d.reset()
	if at, ok := d.index(42, 1); !ok || at != 0 || len(d.vals) != 1 {
		t.Errorf("after reset: index %d, %v, %d values", at, ok, len(d.vals))
	}
}

// DuckDB reads the float pages as arrow-go's writer's: every row's value
// equal (NaN, infinities, zeros of both signs, subnormals), the nulls,
// and the chunks dictionary-encoded where the values repeat.
func TestDuckDBReadsFloatPages(t *testing.T) {
	defer func(d int64) { dictPageBytes = d }(dictPageBytes)
	dictPageBytes = 4000 // the many-valued column falls back to PLAIN
	rng := rand.New(rand.NewPCG(27, 6))
	const n = 30_000
	c := floatCase{cols: []floatCol{
		floatColOf(rng, true, n, 40, 0),  // few values, in runs
		floatColOf(rng, false, n, 0, 2),  // all distinct, random nulls
		floatColOf(rng, true, n, 300, 3), // some distinct, runs of nulls
	}}
	dir := t.TempDir()
	ownFile, refFile := filepath.Join(dir, "own.parquet"), filepath.Join(dir, "ref.parquet")
	for _, f := range []struct {
		path string
		own  bool
	}{{ownFile, true}, {refFile, false}} {
		if err := os.WriteFile(f.path, exportFloats(t, rand.New(rand.NewPCG(2, 2)), c, 7000, 2, f.own), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := func(p string) string { return "read_parquet('" + p + "', file_row_number=true)" }
	rows, e := duckSQL(t, `SELECT count(*)::VARCHAR AS n,
		count(*) FILTER (WHERE o.f0 IS DISTINCT FROM r.f0 OR o.f1 IS DISTINCT FROM r.f1 OR o.f2 IS DISTINCT FROM r.f2)::VARCHAR AS differ,
		count(*) FILTER (WHERE isnan(o.f0) OR isnan(o.f1) OR isnan(o.f2))::VARCHAR AS nans,
		count(*) FILTER (WHERE o.f1 IS NULL)::VARCHAR AS nulls
		FROM `+src(ownFile)+` o JOIN `+src(refFile)+` r USING (file_row_number)`)
	if e != "" {
		t.Fatal(e)
	}
	nans, nulls := 0, 0
	for i := range n {
		for _, col := range c.cols {
			valid := col.valid == nil || col.valid[i]
			f := math.Float64frombits(col.bits[i])
			if col.f32 {
				f = float64(math.Float32frombits(uint32(col.bits[i])))
			}
			if valid && math.IsNaN(f) {
				nans++
				break
			}
		}
		if !c.cols[1].valid[i] {
			nulls++
		}
	}
	if got := rows[0]; got["n"] != strconv.Itoa(n) || got["differ"] != "0" || got["nans"] != strconv.Itoa(nans) || got["nulls"] != strconv.Itoa(nulls) {
		t.Errorf("DuckDB: %v; want %d rows, none differing, %d with NaN, %d nulls", got, n, nans, nulls)
	}
	meta, e := duckSQL(t, `SELECT path_in_schema AS col, string_agg(DISTINCT encodings, ';') AS enc FROM parquet_metadata('`+ownFile+`') GROUP BY ALL ORDER BY 1`)
	if e != "" {
		t.Fatal(e)
	}
	want := map[string]string{"f0": "RLE_DICTIONARY", "f1": "PLAIN", "f2": "RLE_DICTIONARY"}
	for _, r := range meta {
		if !bytes.Contains([]byte(r["enc"]), []byte(want[r["col"]])) || (want[r["col"]] == "PLAIN" && bytes.Contains([]byte(r["enc"]), []byte("DICTIONARY"))) {
			t.Errorf("column %s: encodings %s, want %s", r["col"], r["enc"], want[r["col"]])
		}
	}
	if len(meta) != 3 {
		t.Errorf("DuckDB's metadata: %v", meta)
	}
}

// Any float bits, null pattern and dictionary limit read back as written.
func FuzzFloatPages(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, uint16(3), uint8(0), uint8(0))
	f.Add(bytes.Repeat([]byte{0, 0, 0xc0, 0x7f, 0, 0, 0, 0x80}, 300), uint16(77), uint8(0x5a), uint8(1))
	f.Add(bytes.Repeat([]byte{0xff, 0, 0x80, 1}, 400), uint16(400), uint8(3), uint8(6))
	f.Fuzz(func(t *testing.T, data []byte, rg uint16, nulls, kind uint8) {
		defer func(d int64) { dictPageBytes = d }(dictPageBytes)
		dictPageBytes = []int64{parquet.DefaultDictionaryPageSizeLimit, 8, 64, 1000}[kind>>1&3]
		col := floatCol{f32: kind&1 == 0, nullable: true}
		if col.f32 {
			for i := 0; i+4 <= len(data); i += 4 {
				col.bits = append(col.bits, uint64(binary.LittleEndian.Uint32(data[i:])))
			}
		} else {
			for i := 0; i+8 <= len(data); i += 8 {
				col.bits = append(col.bits, binary.LittleEndian.Uint64(data[i:]))
			}
		}
		if nulls != 0 {
			col.valid = make([]bool, len(col.bits))
			for i := range col.valid {
				col.valid[i] = (data[i%len(data)]^nulls)&1 == 0
			}
		}
		c := floatCase{cols: []floatCol{col}}
		rng := rand.New(rand.NewPCG(uint64(rg), uint64(nulls)))
		checkFloatsBack(t, exportFloats(t, rng, c, int64(rg)%500+1, 2, true), c, "fuzz")
	})
}

// Tables that mix the page encoder's columns with columns it delegates to
// arrow-go's column writer (bool, int16, uint64, float16, timestamp[s],
// nullable or not, with nulls) read back as arrow-go's own writer's file
// of the same rows does, for random batch cuts, row groups and workers.
func TestMixedPagesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 7))
	for round := range 30 {
		n := []int{1, 9, 1000, 1 + rng.IntN(3000)}[rng.IntN(4)]
		mem := memory.DefaultAllocator
		var (
			fields []arrow.Field
			cols   []arrow.Array
		)
		add := func(typ arrow.DataType, fill func(b array.Builder, i int)) {
			nullable := rng.IntN(2) == 0
			b := array.NewBuilder(mem, typ)
			defer b.Release()
			for i := range n {
				if nullable && rng.IntN(4) == 0 {
					b.AppendNull()
				} else {
					fill(b, i)
				}
			}
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d", len(fields)), Type: typ, Nullable: nullable})
			cols = append(cols, b.NewArray())
		}
		kinds := rng.Perm(7)[:2+rng.IntN(4)]
		kinds = append(kinds, 5+rng.IntN(2)) // at least one column of the encoder's own
		for _, k := range kinds {
			switch k {
			case 0:
				add(arrow.FixedWidthTypes.Boolean, func(b array.Builder, i int) { b.(*array.BooleanBuilder).Append(i%3 == 0) })
			case 1:
				add(arrow.PrimitiveTypes.Int16, func(b array.Builder, i int) { b.(*array.Int16Builder).Append(int16(rng.IntN(1 << 16))) })
			case 2:
				add(arrow.PrimitiveTypes.Uint64, func(b array.Builder, i int) { b.(*array.Uint64Builder).Append(rng.Uint64()) })
			case 3:
				add(arrow.FixedWidthTypes.Float16, func(b array.Builder, i int) { b.(*array.Float16Builder).Append(float16.New(float32(i % 50))) })
			case 4:
				add(arrow.FixedWidthTypes.Timestamp_s, func(b array.Builder, i int) {
					b.(*array.TimestampBuilder).Append(arrow.Timestamp(1_700_000_000 + int64(i)*3600 - rng.Int64N(1<<40)))
				})
			case 5:
				add(arrow.PrimitiveTypes.Float32, func(b array.Builder, i int) { b.(*array.Float32Builder).Append(float32(i % 37)) })
			case 6:
				add(arrow.FixedWidthTypes.Timestamp_us, func(b array.Builder, i int) { b.(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i) * 1e6)) })
			}
		}
		schema := arrow.NewSchema(fields, nil)
		rec := array.NewRecordBatch(schema, cols, int64(n))
		for _, c := range cols {
			c.Release()
		}
		what := fmt.Sprintf("round %d: %d rows, %v", round, n, schema)
		if !pageColumns(schema) {
			t.Fatalf("%s: not the page encoder's", what)
		}
		rg := []int64{1 << 18, 1 + rng.Int64N(500)}[rng.IntN(2)]
		seed := rng.Uint64()
		export := func(own bool, workers int) []byte {
			was := ownPages
			ownPages = own
			defer func() { ownPages = was }()
			return exportCuts(t, rand.New(rand.NewPCG(seed, 1)), rec, ExportOptions{Format: Parquet, RowGroupRows: rg, Workers: workers})
		}
		sameRows(t, export(true, 1+rng.IntN(3)), export(false, 1), what)
		rec.Release()
	}
}
