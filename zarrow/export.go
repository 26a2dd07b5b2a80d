package zarrow

import (
	"fmt"
	"io"
	"runtime"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ExportFormat is a file format Export writes.
type ExportFormat uint8

const (
	// Parquet: zstd-compressed column chunks, integer columns (times
	// among them) delta-encoded (DELTA_BINARY_PACKED), timestamps
	// annotated with their unit (not adjusted to UTC: NumPy's datetimes
	// are naive; Parquet has no seconds, so a seconds column is stored in
	// ms: read it with Options.Parquet, so that dt64 converts the values
	// under its overflow policy and the writer has none to cast), durations as int64 with the Arrow schema stored so that Arrow
	// readers get durations back.
	Parquet ExportFormat = iota + 1
	// IPC is the Arrow IPC file format (not the stream format).
	IPC
)

// DefaultRowGroupRows is the default rows of a Parquet row group: 256 Ki,
// so that a reader that skips row groups by their statistics reads little
// more than a range query's rows (DuckDB's range query over 10 days of
// second-spaced timestamps took 38 ms on a file of 256 Ki-row groups,
// 62 ms with 1 Mi-row groups; the file was 0.2 % larger).
const DefaultRowGroupRows = 1 << 18

// ExportOptions configure Export.
type ExportOptions struct {
	Format ExportFormat
	// RowGroupRows bounds a Parquet row group; 0 means DefaultRowGroupRows.
	RowGroupRows int64
	// Compression of Arrow IPC record batches: "" (none, the default:
	// some readers, apache-arrow for JavaScript among them, cannot read
	// compressed batches), "zstd" or "lz4". Parquet is always zstd.
	Compression string
	// Allocator for the writers' buffers; nil is memory.DefaultAllocator.
	Allocator memory.Allocator
	// Workers is how many Parquet row groups (or compressed Arrow IPC
	// buffers) are encoded at once; 0 means GOMAXPROCS. The output is the
	// same for any number.
	Workers int
}

// Export writes every record batch of r to w in the chosen format and
// returns the rows written; w is not closed. Parquet row groups are
// encoded on Workers goroutines and written in order, so that at most
// Workers row groups are in memory at once (ExportMemoryBound).
func Export(r array.RecordReader, w io.Writer, o ExportOptions) (int64, error) {
	mem := o.Allocator
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	switch o.Format {
	case Parquet:
		if o.Compression != "" {
			return 0, fmt.Errorf("parquet: compression is always zstd, not %q", o.Compression)
		}
		rows, err := newParquetWriter(r.Schema(), o, mem).write(r, w)
		if err != nil && err != r.Err() { // the reader's error is its own
			return rows, fmt.Errorf("parquet: %w", err)
		}
		return rows, err
	case IPC:
		schema, swap := ipcSchema(r.Schema()) // little-endian on every host (export_ipc_endian.go)
		opts := []ipc.Option{ipc.WithSchema(schema), ipc.WithAllocator(mem)}
		switch o.Compression {
		case "":
		case "zstd":
			opts = append(opts, ipc.WithZstd(), ipc.WithCompressConcurrency(o.workers()))
		case "lz4":
			opts = append(opts, ipc.WithLZ4(), ipc.WithCompressConcurrency(o.workers()))
		default:
			return 0, fmt.Errorf("arrow IPC compression %q: want zstd or lz4", o.Compression)
		}
		fw, err := ipc.NewFileWriter(w, opts...)
		if err != nil {
			return 0, fmt.Errorf("arrow IPC: %w", err)
		}
		write := fw.Write
		if swap {
			write = func(rec arrow.RecordBatch) error {
				le := littleEndianBatch(rec, schema, mem)
				defer le.Release()
				return fw.Write(le)
			}
		}
		return writeBatches(r, "arrow IPC", write, fw.Close)
	}
	return 0, fmt.Errorf("export format %d: want zarrow.Parquet or zarrow.IPC", o.Format)
}

// newParquetWriter is the writer of Export's Parquet files.
func newParquetWriter(schema *arrow.Schema, o ExportOptions, mem memory.Allocator) *parquetWriter {
	rg := o.RowGroupRows
	if rg <= 0 {
		rg = DefaultRowGroupRows
	}
	// No dictionary pages for integers: time columns are nearly all
	// distinct values, for which arrow-go builds a dictionary only to drop
	// it. Integer columns (times among them) are delta-encoded, a standard
	// Parquet encoding (DuckDB reads it: TestDuckDBReadsParquet): smaller and
	// faster to write than PLAIN pages for timestamps (docs/engines.md has
	// BenchmarkExportParquet's figures). Statistics (arrow-go's default)
	// give each row group its columns' minimum and maximum, by which
	// readers skip row groups (TestDuckDBPrunesRowGroups).
	opts := []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDictionaryDefault(false),
		parquet.WithMaxRowGroupLength(rg), parquet.WithAllocator(mem), parquet.WithStats(true),
		// 2.6 stores nanoseconds; older versions would make the writer
		// cast ns to us itself, outside the overflow policy.
		parquet.WithVersion(parquet.V2_6),
		// zstd's fastest level: delta-encoded pages leave it little to
		// find, and the default level took a third more CPU time for a
		// file 1 % smaller (the demo's 32 Mi timestamps).
		parquet.WithCompressionLevel(1), parquet.WithDictionaryPageSizeLimit(dictPageBytes)}
	for _, f := range schema.Fields() {
		if id := f.Type.ID(); arrow.IsInteger(id) || id == arrow.TIMESTAMP || id == arrow.DURATION {
			opts = append(opts, parquet.WithEncodingFor(f.Name, parquet.Encodings.DeltaBinaryPacked))
		} else {
			// Floats and booleans get dictionary pages, which arrow-go
			// drops for PLAIN once a column chunk's dictionary outgrows
			// its page: a long table's lat and lon repeat a few values,
			// and ERA5-like t2m (a few thousand distinct values) shrinks
			// too: the bench-engines grid's file went from 27.0 to 20.2
			// MiB (DuckDB's: 19.7), at the same CPU time.
			opts = append(opts, parquet.WithDictionaryFor(f.Name, true))
		}
	}
	aprops := []pqarrow.WriterOption{pqarrow.WithStoreSchema(), pqarrow.WithAllocator(mem)}
	retype := false
	if d := durationsAsInt64(schema); d != nil { // duration columns: written as int64, the schema stored by durationsAsInt64
		schema, aprops, retype = d, aprops[1:], true
	}
	pw := &parquetWriter{schema: schema, props: parquet.NewWriterProperties(opts...), mem: mem, rg: rg, workers: o.workers(),
		aprops: pqarrow.NewArrowWriterProperties(aprops...), retype: retype}
	if ownPages && pageColumns(schema) {
		pw.pages, pw.encoders, pw.files = true, make(chan *pageEncoder, pw.workers), make(chan *memory.Buffer, pw.workers)
	}
	return pw
}

// dictPageBytes is the most bytes of a column chunk's dictionary page
// (arrow-go's default, 1 MiB); a variable for the tests.
var dictPageBytes int64 = parquet.DefaultDictionaryPageSizeLimit

// ExportMemoryBound is about the most memory Export holds, beside its
// reader's (Table.MemoryBound), for batches of at most batchRows rows,
// each holding at most batchBytes (Table.HeldBytes). Parquet: the
// Workers row groups in flight, each as the batches its rows are sliced
// from and its encoding (the encoded part, grown by doubling, the
// column writers' pages, and a column's pages copied out of the
// batches). Arrow IPC: the compressed buffers of a batch.
func ExportMemoryBound(schema *arrow.Schema, batchRows, batchBytes int64, o ExportOptions) int64 {
	w := int64(o.workers())
	batchRows = max(batchRows, 1)
	if o.Format == IPC {
		n := int64(0)
		if _, swap := ipcSchema(schema); swap { // a big-endian host's little-endian copy of a batch
			n += batchBytes
		}
		if o.Compression != "" {
			n += batchBytes + 64<<10*int64(len(schema.Fields()))
		}
		return n
	}
	rg := o.RowGroupRows
	if rg <= 0 {
		rg = DefaultRowGroupRows
	}
	batches := (w*rg+batchRows-1)/batchRows + 1
	part := 2*BatchBytes(schema, rg) + partOverhead*int64(len(schema.Fields()))
	if ownPages && pageColumns(schema) {
		// One column's pages at a time, copied out of the batches where
		// they span several (pageArrays): at most the row group's column.
		widest := int64(0)
		for _, f := range schema.Fields() {
			if ownColumn(f.Type) {
				widest = max(widest, BatchBytes(arrow.NewSchema([]arrow.Field{f}, nil), rg))
			}
		}
		part += widest
		if slices.ContainsFunc(schema.Fields(), func(f arrow.Field) bool { id := f.Type.ID(); return id == arrow.FLOAT32 || id == arrow.FLOAT64 }) {
			part += floatDictBytes(rg)
		}
	}
	// Each batch held costs batchOverhead besides its data: at most the
	// row groups' joined ones (coalesceRows) and the small ones joining.
	held := min(batches, w*rg/coalesceRows+2) + min(batches, coalesceRows/batchRows+1)
	return batches*batchBytes + w*part + held*batchOverhead(schema)
}

// floatDictBytes is the most memory a page encoder's float dictionary
// holds for row groups of rg rows: an index a row, and at the dictionary
// page limit its values (8 bytes each) and hash table (at most four
// 4-byte slots a value: it is at most half full and grows by doubling),
// for float32, whose limit is the most values.
func floatDictBytes(rg int64) int64 {
	return 4*rg + (dictPageBytes/4)*(8+4*4)
}

// partOverhead is the memory a column writer holds beside a row group's
// encoding: a data page of values, and its compressed copy.
const partOverhead = 4 << 20

func (o ExportOptions) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// writeBatches writes every batch of r with write, then closes the
// writer (also after a failure, so that it releases its buffers), and
// returns the rows written.
func writeBatches(r array.RecordReader, format string, write func(arrow.RecordBatch) error, close func() error) (int64, error) {
	var rows int64
	for r.Next() {
		rec := r.RecordBatch()
		if err := write(rec); err != nil {
			close()
			return rows, fmt.Errorf("%s: %w", format, err)
		}
		rows += rec.NumRows()
	}
	if err := r.Err(); err != nil {
		close()
		return rows, err
	}
	return rows, close()
}
