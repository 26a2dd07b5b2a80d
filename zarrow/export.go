package zarrow

import (
	"fmt"
	"io"

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

// ExportOptions configure Export.
type ExportOptions struct {
	Format ExportFormat
	// RowGroupRows bounds a Parquet row group; 0 means 1 Mi rows.
	RowGroupRows int64
	// Compression of Arrow IPC record batches: "" (none, the default:
	// some readers, apache-arrow for JavaScript among them, cannot read
	// compressed batches), "zstd" or "lz4". Parquet is always zstd.
	Compression string
	// Allocator for the writers' buffers; nil is memory.DefaultAllocator.
	Allocator memory.Allocator
}

// Export writes every record batch of r to w in the chosen format and
// returns the rows written. Memory is bounded by a batch (and, for
// Parquet, a row group's encoded pages). w is not closed.
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
		rg := o.RowGroupRows
		if rg <= 0 {
			rg = 1 << 20
		}
		// No dictionary pages: time columns are nearly all distinct values,
		// for which arrow-go builds a dictionary only to drop it. Integer
		// columns (times among them) are delta-encoded, a standard Parquet
		// encoding (DuckDB reads it: TestDuckDBReadsParquet): smaller and
		// faster to write than PLAIN pages for timestamps (the README has
		// BenchmarkExportParquet's figures).
		opts := []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Zstd), parquet.WithDictionaryDefault(false),
			parquet.WithMaxRowGroupLength(rg), parquet.WithAllocator(mem),
			// 2.6 stores nanoseconds; older versions would make the writer
			// cast ns to us itself, outside the overflow policy.
			parquet.WithVersion(parquet.V2_6)}
		for _, f := range r.Schema().Fields() {
			if id := f.Type.ID(); arrow.IsInteger(id) || id == arrow.TIMESTAMP || id == arrow.DURATION {
				opts = append(opts, parquet.WithEncodingFor(f.Name, parquet.Encodings.DeltaBinaryPacked))
			}
		}
		props := parquet.NewWriterProperties(opts...)
		// pqarrow closes a sink that is an io.Closer: hide it, w is the caller's.
		schema, aprops := r.Schema(), []pqarrow.WriterOption{pqarrow.WithStoreSchema(), pqarrow.WithAllocator(mem)}
		durations := durationsAsInt64(schema) // nil without duration columns
		if durations != nil {
			schema, aprops = durations, aprops[1:] // the schema is stored by durationsAsInt64
		}
		fw, err := pqarrow.NewFileWriter(schema, struct{ io.Writer }{w}, props, pqarrow.NewArrowWriterProperties(aprops...))
		if err != nil {
			return 0, fmt.Errorf("parquet: %w", err)
		}
		write := fw.Write
		if durations != nil {
			write = func(rec arrow.RecordBatch) error {
				rec = withSchema(rec, durations)
				defer rec.Release()
				return fw.Write(rec)
			}
		}
		return writeBatches(r, "parquet", write, fw.Close)
	case IPC:
		opts := []ipc.Option{ipc.WithSchema(r.Schema()), ipc.WithAllocator(mem)}
		switch o.Compression {
		case "":
		case "zstd":
			opts = append(opts, ipc.WithZstd())
		case "lz4":
			opts = append(opts, ipc.WithLZ4())
		default:
			return 0, fmt.Errorf("arrow IPC compression %q: want zstd or lz4", o.Compression)
		}
		fw, err := ipc.NewFileWriter(w, opts...)
		if err != nil {
			return 0, fmt.Errorf("arrow IPC: %w", err)
		}
		return writeBatches(r, "arrow IPC", fw.Write, fw.Close)
	}
	return 0, fmt.Errorf("export format %d", o.Format)
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
