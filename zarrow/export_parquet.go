package zarrow

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// parquetMagic starts and ends a Parquet file.
var parquetMagic = []byte("PAR1")

// parquetWriter writes Parquet row groups encoded in parallel. arrow-go's
// writer encodes one row group after another on the calling goroutine, so
// each row group is encoded on a goroutine of its own, by a writer of its
// own, as a complete Parquet file in memory (a part); the parts are then
// copied into the output in row order, each without its magic and
// footer, and the footer is their footers' row groups with the offsets
// moved to where each part landed. The bytes do not depend on the number
// of workers: on pqarrow's path they are those arrow-go's writer gives on
// one goroutine, and a part of the page encoder (export_pages.go) is the
// same file whichever goroutine encodes it (TestExportSameForAnyWorkers).
type parquetWriter struct {
	schema  *arrow.Schema
	props   *parquet.WriterProperties
	aprops  pqarrow.ArrowWriterProperties
	mem     memory.Allocator
	rg      int64 // rows per row group
	workers int
	retype  bool // the batches' columns take schema's types (durations as int64: withSchema)

	// pages sends the row groups to encodePages (ownPages), with tmpl
	// the file metadata (schema, key-value metadata) of a file of no rows
	// from pqarrow, and encoders the encoders' buffers kept for reuse.
	pages    bool
	tmpl     *metadata.FileMetaData
	encoders chan *pageEncoder
	files    chan *memory.Buffer // written parts' buffers (releasePart)
}

// part is one row group: its rows, then its encoding.
type part struct {
	recs  []arrow.RecordBatch // slices of the reader's batches
	rows  int64
	done  chan struct{} // closed when encoded (or failed)
	file  *memory.Buffer
	meta  *metadata.FileMetaData
	err   error
	bytes int // the part's length in file
}

// encode encodes the part's rows as a Parquet file of one row group.
func (w *parquetWriter) encode(p *part) {
	defer close(p.done)
	defer releaseRecords(p.recs)
	defer recoverPart(p)
	p.file = memory.NewResizableBuffer(w.mem)
	sink := &bufferSink{buf: p.file}
	fw, err := pqarrow.NewFileWriter(w.schema, sink, w.props, w.aprops)
	if err != nil {
		p.err = err
		return
	}
	if p.rows > 0 {
		tbl := array.NewTableFromRecords(w.schema, p.recs)
		err = fw.WriteTable(tbl, p.rows)
		tbl.Release()
	}
	if cerr := fw.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		p.meta, err = fw.FileMetadata()
	}
	p.err, p.bytes = err, sink.n
}

// recoverPart makes a panic while p is encoded p's error (panics.go);
// deferred after close(p.done), it runs before the part is marked done.
func recoverPart(p *part) {
	if r := recover(); r != nil {
		p.err = panicked(r)
	}
}

// write writes every batch of r to out as Parquet and returns the rows
// written. At most workers row groups are in memory at once, each as its
// rows (slices of r's batches) and then its encoding.
func (w *parquetWriter) write(r array.RecordReader, out io.Writer) (int64, error) {
	if w.pages && w.tmpl == nil { // the file metadata of a file of no rows
		t := &part{done: make(chan struct{})}
		w.encode(t)
		if t.err != nil {
			return 0, t.err
		}
		w.tmpl = t.meta
		t.file.Release()
	}
	var (
		slots  = make(chan struct{}, w.workers) // a part from its first row until written
		order  = make(chan *part, w.workers)
		abort  = make(chan struct{})
		result = make(chan writeResult, 1)
	)
	go func() {
		rows, err := w.assemble(out, order, slots, abort)
		result <- writeResult{rows, err}
	}()
	// cur collects the next row group's rows; it holds a slot from its
	// first row on, so that at most workers parts exist.
	cur := &part{done: make(chan struct{})}
	// small joins batches of fewer than coalesceRows rows before the row
	// group holds them (join).
	var (
		small     []arrow.RecordBatch
		smallRows int64
		joinErr   error
	)
	join := func() {
		switch {
		case len(small) == 1:
			cur.recs = append(cur.recs, small[0])
		case len(small) > 1:
			rec, err := concatRecords(w.schema, small, w.mem)
			releaseRecords(small)
			if err != nil {
				joinErr = err
				break
			}
			cur.recs = append(cur.recs, rec)
		}
		small, smallRows = small[:0], 0
	}
	emit := func() {
		join()
		if onRowGroup != nil {
			onRowGroup(len(cur.recs))
		}
		p := cur
		cur = &part{done: make(chan struct{})}
		order <- p
		if w.pages {
			go w.encodePages(p)
		} else {
			go w.encode(p)
		}
	}

read:
	for r.Next() {
		rec := r.RecordBatch()
		for off := int64(0); off < rec.NumRows(); {
			if cur.rows == 0 {
				select {
				case slots <- struct{}{}:
				case <-abort: // the output failed: read no more
					break read
				}
			}
			n := min(w.rg-cur.rows, rec.NumRows()-off)
			s := rec.NewSlice(off, off+n)
			if w.retype {
				t := withSchema(s, w.schema)
				s.Release()
				s = t
			}
			if n < coalesceRows {
				small = append(small, s)
				if smallRows += n; smallRows >= coalesceRows {
					join()
				}
			} else {
				join()
				cur.recs = append(cur.recs, s)
			}
			cur.rows, off = cur.rows+n, off+n
			if cur.rows == w.rg {
				emit()
			}
			if joinErr != nil {
				break read
			}
		}
	}
	readErr := r.Err()
	if readErr == nil {
		readErr = joinErr
	}
	switch {
	case cur.rows > 0 && readErr == nil:
		emit()
	case cur.rows > 0:
		releaseRecords(small)
		releaseRecords(cur.recs)
		<-slots
	}
	close(order)
	res := <-result
	if readErr != nil {
		return res.rows, readErr
	}
	return res.rows, res.err
}

// coalesceRows: batches of fewer rows are joined into one of about as
// many before a row group holds them. Each batch costs about a kilobyte
// of bookkeeping besides its data, and a row group holds its batches
// until it is encoded: `--rows 1` held 1.4 KB a row (a long table of
// 504 576 rows in one row group: 708 MB live against a plan of 111 MiB;
// a tester's case). Pages are cut whatever the batches (pageArrays), so
// the file does not change.
var coalesceRows int64 = 4096 // a variable for the tests

// onRowGroup, when set (tests), is called with the batches each row
// group holds.
var onRowGroup func(batches int)

// batchOverhead is about the bookkeeping of one held batch of schema
// besides its buffers (measured: 1.4 KB for five columns).
func batchOverhead(schema *arrow.Schema) int64 { return 1024 + 512*int64(schema.NumFields()) }

// concatRecords joins recs, of schema, into one batch.
func concatRecords(schema *arrow.Schema, recs []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, schema.NumFields())
	arrs := make([]arrow.Array, len(recs))
	rows := int64(0)
	for _, r := range recs {
		rows += r.NumRows()
	}
	for c := range cols {
		for i, r := range recs {
			arrs[i] = r.Column(c)
		}
		col, err := array.Concatenate(arrs, mem)
		if err != nil {
			releaseAll(cols[:c])
			return nil, err
		}
		cols[c] = col
	}
	rec := array.NewRecordBatch(schema, cols, rows)
	releaseAll(cols)
	return rec, nil
}

type writeResult struct {
	rows int64
	err  error
}

// assemble writes the parts in order as they are encoded, then the
// footer; after a failure it only waits for the parts and drops them,
// and closes abort so that no new part starts.
func (w *parquetWriter) assemble(out io.Writer, order <-chan *part, slots <-chan struct{}, abort chan struct{}) (int64, error) {
	var (
		rows  int64
		pos   = int64(len(parquetMagic))
		meta  *metadata.FileMetaData
		first error
	)
	fail := func(err error) {
		if first == nil {
			first = err
			close(abort)
		}
	}
	if err := guard(func() error { _, err := out.Write(parquetMagic); return err }); err != nil {
		fail(err)
	}
	if w.pages {
		defer func() { // the kept buffers, for the garbage collector
			for {
				select {
				case b := <-w.files:
					b.Release()
				default:
					return
				}
			}
		}()
	}
	for p := range order {
		<-p.done
		if p.err != nil {
			fail(p.err)
		}
		if first == nil {
			var n int64
			err := guard(func() (err error) { // a panic fails the export, and the parts are still drained
				n, err = w.place(out, p, &meta, pos)
				return err
			})
			pos += n
			rows += p.rows
			if err != nil {
				fail(err)
			}
		}
		if p.file != nil {
			w.releasePart(p.file)
		}
		<-slots
	}
	if first != nil {
		return rows, first
	}
	return rows, guard(func() error { return w.footer(out, meta) })
}

// footer writes the file's footer: meta's, or for no rows an empty
// file's.
func (w *parquetWriter) footer(out io.Writer, meta *metadata.FileMetaData) error {
	if meta == nil { // no rows: the footer of an empty file
		p := &part{done: make(chan struct{})}
		w.encode(p)
		if p.err != nil {
			return p.err
		}
		meta = p.meta
		p.file.Release()
	}
	n, err := meta.WriteTo(out, nil)
	if err == nil {
		err = binary.Write(out, binary.LittleEndian, uint32(n))
	}
	if err == nil {
		_, err = out.Write(parquetMagic)
	}
	return err
}

// place writes the row group of part p at offset pos of the output and
// adds its metadata, moved there, to meta; it returns the bytes written.
func (w *parquetWriter) place(out io.Writer, p *part, meta **metadata.FileMetaData, pos int64) (int64, error) {
	b := p.file.Bytes()[:p.bytes]
	m := len(parquetMagic)
	if len(b) < 2*m+4 {
		return 0, fmt.Errorf("parquet: a row group's part is %d bytes", len(b))
	}
	footer := int(binary.LittleEndian.Uint32(b[len(b)-m-4:]))
	end := len(b) - m - 4 - footer
	if end < m {
		return 0, errors.New("parquet: a row group's part has a footer longer than itself")
	}
	ordinal := 0
	if *meta != nil {
		ordinal = (*meta).NumRowGroups()
	}
	moveRowGroups(p.meta, pos-int64(m), ordinal)
	n, err := out.Write(b[m:end])
	if err != nil {
		return int64(n), err
	}
	if *meta == nil {
		*meta = p.meta
		return int64(n), nil
	}
	return int64(n), (*meta).AppendRowGroups(p.meta)
}

// moveRowGroups moves every offset of md's row groups by delta bytes and
// numbers them from ordinal on.
func moveRowGroups(md *metadata.FileMetaData, delta int64, ordinal int) {
	move := func(p *int64) {
		if p != nil {
			*p += delta
		}
	}
	for k, rg := range md.RowGroups {
		move(rg.FileOffset)
		if rg.Ordinal != nil {
			o := int16(ordinal + k) // as arrow-go numbers them
			rg.Ordinal = &o
		}
		for _, c := range rg.Columns {
			c.FileOffset += delta
			move(c.OffsetIndexOffset)
			move(c.ColumnIndexOffset)
			if m := c.MetaData; m != nil {
				m.DataPageOffset += delta
				move(m.IndexPageOffset)
				move(m.DictionaryPageOffset)
				move(m.BloomFilterOffset)
			}
		}
	}
}

// bufferSink is an io.Writer appending to an allocator's buffer, grown
// by doubling.
type bufferSink struct {
	buf *memory.Buffer
	n   int
}

// Tell is the bytes written (file.NewPageWriter's sink has one).
func (s *bufferSink) Tell() int64 { return int64(s.n) }

func (s *bufferSink) Write(p []byte) (int, error) {
	if need := s.n + len(p); need > s.buf.Cap() {
		s.buf.Reserve(max(need, 2*s.buf.Cap()))
	}
	s.buf.ResizeNoShrink(s.n + len(p))
	copy(s.buf.Bytes()[s.n:], p)
	s.n += len(p)
	return len(p), nil
}

func releaseRecords(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}
