package zarrow

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"go.uber.org/goleak"

	"github.com/zarr-dt64/dt64/dtype"
)

// exportTables are tables whose batches and row groups do not line up:
// a wide group (three columns, NaT, 128-element chunks), long tables of
// a 6 × 10 × 12 grid (one cut into batches smaller than its chunks), and
// an empty array.
func exportTables(t *testing.T, prefetch int) map[string]*Table {
	ctx := context.Background()
	wide, _, _, _ := interopGroup(t)
	tw, err := OpenTable(ctx, wide, TableOptions{BatchRows: 256, Prefetch: prefetch, Options: Options{Parallel: 2}})
	if err != nil {
		t.Fatal(err)
	}
	grid := gridGroup(t, []string{"time", "lat", "lon"}, []int64{6, 10, 12}, []int64{2, 5, 6})
	tl, err := OpenLongTable(ctx, grid, LongOptions{BatchRows: 100, Prefetch: prefetch})
	if err != nil {
		t.Fatal(err)
	}
	// Batches of 2 of the 10 lat in a chunk: cut from chunk spans.
	spans := gridGroup(t, []string{"time", "lat", "lon"}, []int64{6, 10, 12}, []int64{3, 10, 6})
	ts, err := OpenLongTable(ctx, spans, LongOptions{BatchRows: 24, Prefetch: prefetch})
	if err != nil {
		t.Fatal(err)
	}
	if !ts.long.spanned() {
		t.Fatal("the long table with batches smaller than a chunk reads no spans")
	}
	empty := timeArray(t, dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Microsecond, Scale: 1}, nil, binary.LittleEndian)
	te, err := ArrayTable(empty, "time", TableOptions{Prefetch: prefetch})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*Table{"wide": tw, "long": tl, "spans": ts, "empty": te}
}

func exportBytes(t *testing.T, tab *Table, o ExportOptions) []byte {
	t.Helper()
	r := tab.RecordReader(context.Background())
	defer r.Release()
	var buf bytes.Buffer
	rows, err := Export(r, &buf, o)
	if err != nil {
		t.Fatal(err)
	}
	if rows != tab.Rows() {
		t.Fatalf("exported %d rows of %d", rows, tab.Rows())
	}
	return buf.Bytes()
}

// serialParquet is what arrow-go's own writer, on one goroutine, writes
// for the table's batches with Export's properties.
func serialParquet(t *testing.T, tab *Table, o ExportOptions) []byte {
	t.Helper()
	r := tab.RecordReader(context.Background())
	defer r.Release()
	var recs []arrow.RecordBatch
	for r.Next() {
		r.RecordBatch().Retain()
		recs = append(recs, r.RecordBatch())
	}
	defer releaseRecords(recs)
	pw := newParquetWriter(tab.Schema(), o, memory.DefaultAllocator)
	var buf bytes.Buffer
	fw, err := pqarrow.NewFileWriter(tab.Schema(), &buf, pw.props, pw.aprops)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) > 0 {
		tbl := array.NewTableFromRecords(tab.Schema(), recs)
		defer tbl.Release()
		if err := fw.WriteTable(tbl, pw.rg); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Row groups encoded in parallel and put together give the same bytes
// for any number of workers and batches read ahead: on pqarrow's path
// (the page encoder off) the bytes arrow-go's writer gives on one
// goroutine; through the page encoder (export_pages.go: these tables'
// int16 and bool columns are delegated to arrow-go's column writer
// beside its own) one worker's bytes, with the same rows as arrow-go's.
// Arrow IPC files are the same for any number too.
func TestExportSameForAnyWorkers(t *testing.T) {
	was := ownPages
	defer func() { ownPages = was }()
	serial, pages := map[string][]byte{}, map[string][]byte{}
	ipc := map[string][]byte{}
	for _, prefetch := range []int{0, 3} {
		for name, tab := range exportTables(t, prefetch) {
			po := ExportOptions{Format: Parquet, RowGroupRows: 300}
			if serial[name] == nil {
				serial[name] = serialParquet(t, tab, po)
			}
			for _, w := range []int{1, 2, 7} {
				po.Workers = w
				ownPages = false
				if got := exportBytes(t, tab, po); !bytes.Equal(got, serial[name]) {
					t.Errorf("%s, %d workers, prefetch %d: %d bytes differ from arrow-go's serial %d", name, w, prefetch, len(got), len(serial[name]))
				}
				ownPages = true
				got := exportBytes(t, tab, po)
				if pages[name] == nil {
					pages[name] = got
					if name != "empty" && !newParquetWriter(tab.Schema(), po, memory.DefaultAllocator).pages {
						t.Errorf("%s does not take the page encoder", name)
					}
					sameRows(t, got, serial[name], name)
				} else if !bytes.Equal(got, pages[name]) {
					t.Errorf("%s, page encoder, %d workers, prefetch %d: %d bytes differ from one worker's %d", name, w, prefetch, len(got), len(pages[name]))
				}
				for _, c := range []string{"", "zstd"} {
					got := exportBytes(t, tab, ExportOptions{Format: IPC, Compression: c, Workers: w})
					key := name + "/" + c
					if ipc[key] == nil {
						ipc[key] = got
					} else if !bytes.Equal(got, ipc[key]) {
						t.Errorf("%s, IPC %q, %d workers, prefetch %d: the file differs from one worker's", name, c, w, prefetch)
					}
				}
			}
		}
	}
}

// A reader that reads batches ahead gives the same batches, and stops
// every read it started when released early or cancelled: no goroutine
// is left behind (goleak), and no buffer is left allocated.
func TestRecordReaderPrefetch(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	want := map[string][]arrow.RecordBatch{}
	for _, prefetch := range []int{0, 1, 4} {
		for name, tab := range exportTables(t, prefetch) {
			r := tab.RecordReader(context.Background())
			i := 0
			for r.Next() {
				rec := r.RecordBatch()
				if prefetch == 0 {
					rec.Retain()
					want[name] = append(want[name], rec)
				} else if i >= len(want[name]) || !array.RecordEqual(rec, want[name][i]) {
					t.Errorf("%s, prefetch %d: batch %d differs", name, prefetch, i)
				}
				i++
			}
			if r.Err() != nil || i != len(want[name]) {
				t.Errorf("%s, prefetch %d: %d batches of %d, %v", name, prefetch, i, len(want[name]), r.Err())
			}
			r.Release()
		}
	}
	for _, recs := range want {
		releaseRecords(recs)
	}
	for _, c := range []struct {
		prefetch int
		table    string
	}{{1, "wide"}, {4, "wide"}, {1, "spans"}, {4, "spans"}} {
		prefetch := c.prefetch
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		tab := exportTables(t, prefetch)[c.table]
		tab.opts.Allocator = mem
		// Released after one batch: the reads ahead stop, their batches
		// are freed.
		r := tab.RecordReader(context.Background())
		if !r.Next() {
			t.Fatal(r.Err())
		}
		r.Release()
		mem.AssertSize(t, 0)
		// Cancelled after one batch: Next says so and waits for the reads.
		ctx, cancel := context.WithCancel(context.Background())
		r = tab.RecordReader(ctx)
		if !r.Next() {
			t.Fatal(r.Err())
		}
		cancel()
		for r.Next() {
		}
		if !errors.Is(r.Err(), context.Canceled) {
			t.Errorf("prefetch %d: after cancel, Err = %v", prefetch, r.Err())
		}
		r.Release()
		mem.AssertSize(t, 0)
	}
}

// A column read with chunks read at once stops them all when its context
// is cancelled, and returns the context's error.
func TestReadCancel(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	values := make([]int64, 1<<16)
	for i := range values {
		values[i] = int64(i) * 1000
	}
	a := timeArray(t, dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}, values, binary.LittleEndian)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	col, _, err := Read(ctx, a, []int64{0}, []int64{int64(len(values))}, Options{Unit: dtype.Microsecond, Parallel: 4, Allocator: mem})
	if !errors.Is(err, context.Canceled) {
		if col != nil {
			col.Release()
		}
		t.Fatalf("read with a cancelled context: %v", err)
	}
	mem.AssertSize(t, 0)
}

// peakAllocator records the most bytes allocated at once.
type peakAllocator struct {
	mem        memory.Allocator
	cur, peakN atomic.Int64
}

func (p *peakAllocator) add(n int) {
	c := p.cur.Add(int64(n))
	for {
		old := p.peakN.Load()
		if c <= old || p.peakN.CompareAndSwap(old, c) {
			return
		}
	}
}

func (p *peakAllocator) Allocate(n int) []byte { p.add(n); return p.mem.Allocate(n) }
func (p *peakAllocator) Reallocate(n int, b []byte) []byte {
	p.add(n - len(b))
	return p.mem.Reallocate(n, b)
}
func (p *peakAllocator) Free(b []byte) { p.add(-len(b)); p.mem.Free(b) }

// Export's memory stays within the bound the plan states: the reader's
// batches (Table.MemoryBound) and the row groups in flight
// (ExportMemoryBound), measured as the peak of every buffer the reader
// and the writers allocate.
func TestExportMemoryBound(t *testing.T) {
	ctx := context.Background()
	const n = 600_000
	values := make([]int64, n)
	for i := range values {
		values[i] = 1_600_000_000_000_000 + int64(i)*60_000_000 + int64(i*7919%1000)
	}
	a := chunkedTimeArray(t, dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Microsecond, Scale: 1}, values, binary.LittleEndian, 10_000)
	for _, c := range []struct {
		batch, rg int64
		workers   int
	}{{50_000, 80_000, 1}, {50_000, 80_000, 3}, {100_000, 30_000, 4}, {20_000, 100_000, 2}} {
		t.Run(fmt.Sprintf("batch=%d/rg=%d/workers=%d", c.batch, c.rg, c.workers), func(t *testing.T) {
			mem := &peakAllocator{mem: memory.NewGoAllocator()}
			tab, err := ArrayTable(a, "time", TableOptions{BatchRows: c.batch, Prefetch: c.workers, Options: Options{Allocator: mem, Parallel: c.workers}})
			if err != nil {
				t.Fatal(err)
			}
			o := ExportOptions{Format: Parquet, RowGroupRows: c.rg, Workers: c.workers, Allocator: mem}
			bound := tab.MemoryBound() + ExportMemoryBound(tab.Schema(), tab.BatchRows(), tab.HeldBytes(), o)
			r := tab.RecordReader(ctx)
			if _, err := Export(r, &bytes.Buffer{}, o); err != nil {
				t.Fatal(err)
			}
			r.Release()
			peak := mem.peakN.Load()
			t.Logf("peak %d bytes, bound %d (%.2f)", peak, bound, float64(peak)/float64(bound))
			if peak > bound {
				t.Errorf("peak %d bytes > the stated bound %d", peak, bound)
			}
			if mem.cur.Load() != 0 {
				t.Errorf("%d bytes still allocated", mem.cur.Load())
			}
		})
	}
	// Long tables read by spans: spans of lat (6 time steps a chunk,
	// batches of 20 lat), and bands (batches of 10 lon of one time step,
	// chunks of 6 time steps and half the lon).
	for _, c := range []struct {
		chunk []int64
		rows  int64
		band  int64
	}{{[]int64{6, 60, 100}, 12_000, 1}, {[]int64{6, 60, 50}, 1000, 6}} {
		grid := gridGroup(t, []string{"time", "lat", "lon"}, []int64{12, 60, 100}, c.chunk)
		for _, workers := range []int{1, 3} {
			mem := &peakAllocator{mem: memory.NewGoAllocator()}
			tab, err := OpenLongTable(ctx, grid, LongOptions{BatchRows: c.rows, Prefetch: workers, Options: Options{Allocator: mem, Parallel: workers}})
			if err != nil {
				t.Fatal(err)
			}
			if !tab.long.spanned() || tab.long.band() != c.band {
				t.Fatalf("chunks %v: spans %v, want bands of %d", c.chunk, tab.long.spanShape, c.band)
			}
			o := ExportOptions{Format: Parquet, RowGroupRows: 10_000, Workers: workers, Allocator: mem}
			bound := tab.MemoryBound() + ExportMemoryBound(tab.Schema(), tab.BatchRows(), tab.HeldBytes(), o)
			r := tab.RecordReader(ctx)
			if _, err := Export(r, &bytes.Buffer{}, o); err != nil {
				t.Fatal(err)
			}
			r.Release()
			if peak := mem.peakN.Load(); peak > bound || mem.cur.Load() != 0 {
				t.Errorf("long, chunks %v, %d workers: peak %d bytes, bound %d, %d still allocated", c.chunk, workers, peak, bound, mem.cur.Load())
			}
		}
	}
}

// failWriter fails every write after the first n bytes.
type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		return 0, errors.New("disk full")
	}
	f.n -= len(p)
	return len(p), nil
}

// An output that fails stops the export: Export returns its error, every
// encoder it started has stopped and every buffer is freed, at whatever
// byte the output fails.
func TestExportOutputFails(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, n := range []int{0, 4, 500, 3000} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		tab := exportTables(t, 2)["wide"]
		tab.opts.Allocator = mem
		r := tab.RecordReader(context.Background())
		_, err := Export(r, &failWriter{n}, ExportOptions{Format: Parquet, RowGroupRows: 100, Workers: 3, Allocator: mem})
		r.Release()
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("output failing after %d bytes: %v", n, err)
		}
		mem.AssertSize(t, 0)
	}
}

// sameRows reads two Parquet files with pqarrow: the same schema, rows
// and values (NaN equal to NaN).
func sameRows(t *testing.T, a, b []byte, what string) {
	t.Helper()
	ta, tb := readParquet(t, a, what), readParquet(t, b, what)
	defer ta.Release()
	defer tb.Release()
	if !ta.Schema().Equal(tb.Schema()) || !array.TableApproxEqual(ta, tb, array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
		t.Errorf("%s: the page encoder's file reads back %v rows of %v, arrow-go's %v of %v", what, ta.NumRows(), ta.Schema(), tb.NumRows(), tb.Schema())
	}
}

// Batches smaller than coalesceRows are joined before a row group holds
// them: with batches of one row a row group of 10 000 rows holds 3 (two
// joined ones of 4096 rows and the rest), not 10 000, each costing a
// kilobyte or so besides its data; the file is the same as with big
// batches.
func TestSmallBatchesJoined(t *testing.T) {
	ctx := context.Background()
	grid := gridGroup(t, []string{"time", "lat", "lon"}, []int64{4, 50, 100}, []int64{2, 50, 100})
	var held []int
	onRowGroup = func(n int) { held = append(held, n) }
	defer func() { onRowGroup = nil }()
	o := ExportOptions{Format: Parquet, RowGroupRows: 10_000, Workers: 2}
	var files [][]byte
	for _, rows := range []int64{1, 0} {
		held = held[:0]
		tab, err := OpenLongTable(ctx, grid, LongOptions{BatchRows: rows, Prefetch: 1})
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, exportBytes(t, tab, o))
		if rows == 1 && (len(held) != 2 || held[0] != 3 || held[1] != 3) {
			t.Errorf("batches of 1 row: row groups held %v batches, want [3 3]", held)
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("batches of 1 row: another file than with the default batches")
	}
}
