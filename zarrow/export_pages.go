package zarrow

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"os"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// ownPages is the switch of the Parquet export's own page encoder
// (docs/parquet-writer.md): when true, a table of pageColumns (flat
// columns, some int64-physical with the same values in Parquet as in
// Arrow or float32 and float64, the others delegated to arrow-go's column
// writer) has its row groups encoded by pageEncoder; every other table,
// and every table when false, by arrow-go's pqarrow writer.
// DT64_PARQUET_PAGES=arrow-go turns it off.
var ownPages = os.Getenv("DT64_PARQUET_PAGES") != "arrow-go"

// pageRows bounds the rows of a data page of the page encoder: 128
// Ki rows, 1 MiB of values before encoding, as arrow-go's default page
// size bounds its pages' encoded bytes.
var pageRows = 1 << 17 // a variable for the tests

// Blocks of DELTA_BINARY_PACKED: 128 values in 4 miniblocks of 32.
const (
	deltaBlock     = 128
	deltaMinis     = 4
	deltaMiniBlock = deltaBlock / deltaMinis
)

// pageColumns reports whether the page encoder writes schema's tables:
// at least one column is its own (ownColumn) and every other one a flat
// column that arrow-go's column writer writes beside them
// (delegatedColumn).
func pageColumns(schema *arrow.Schema) bool {
	own := false
	for _, f := range schema.Fields() {
		switch {
		case ownColumn(f.Type):
			own = true
		case !delegatedColumn(f.Type):
			return false
		}
	}
	return own
}

// ownColumn is whether the page encoder writes a column of type t itself:
// int64-physical with the same values in Parquet as in Arrow, or float32
// or float64.
func ownColumn(t arrow.DataType) bool {
	switch t := t.(type) {
	case *arrow.Int64Type, *arrow.Float32Type, *arrow.Float64Type:
		return true
	case *arrow.TimestampType:
		return t.Unit != arrow.Second // pqarrow multiplies seconds by 1000
	}
	return false
}

// delegatedColumn is whether a column of type t, in a table the page
// encoder writes, has its pages written by arrow-go's column writer
// (pqarrow.WriteArrowToColumn, with the same properties and conversions
// as pqarrow's file writer): the flat fixed-width types zarrow's tables
// hold beside time and float columns (bool, narrower and unsigned
// integers, float16, timestamps in seconds).
func delegatedColumn(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.BOOL, arrow.INT8, arrow.INT16, arrow.INT32, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64, arrow.FLOAT16, arrow.TIMESTAMP:
		return true
	}
	return false
}

// pageEncoder encodes row groups of int64 and float columns; its buffers
// are kept from one row group to the next (parquetWriter.encoders).
type pageEncoder struct {
	page   []byte  // a page before compression
	vals   []int64 // a page's non-null values, when it has nulls
	comp   bytes.Buffer
	dict   floatDict // float columns' dictionary (export_pages_float.go)
	levels []int16   // a delegated column's definition levels
}

// releasePart releases the buffer of a written part, or keeps it for the
// next part of the page encoder (its growth by doubling from nothing,
// and the zeroing of the memory, cost a tenth of the export's CPU time).
func (w *parquetWriter) releasePart(b *memory.Buffer) {
	if w.pages {
		select {
		case w.files <- b:
			return
		default:
		}
	}
	b.Release()
}

// encodePages is encode for tables of pageColumns: the part is a
// Parquet file of one row group whose pages pageEncoder wrote.
func (w *parquetWriter) encodePages(p *part) {
	defer close(p.done)
	defer releaseRecords(p.recs)
	defer recoverPart(p)
	var e *pageEncoder
	select {
	case e = <-w.encoders:
	default:
		e = new(pageEncoder)
	}
	defer func() {
		select {
		case w.encoders <- e:
		default:
		}
	}()
	select {
	case p.file = <-w.files: // a written part's buffer, its capacity kept
		p.file.ResizeNoShrink(0)
	default:
		p.file = memory.NewResizableBuffer(w.mem)
	}
	sink := &bufferSink{buf: p.file}
	p.meta, p.err = e.rowGroup(sink, w, p.recs, p.rows)
	p.bytes = sink.n
}

// rowGroup writes recs (rows rows) to sink as a Parquet file of one row
// group, with the file metadata of w.tmpl, and returns its metadata.
func (e *pageEncoder) rowGroup(sink *bufferSink, w *parquetWriter, recs []arrow.RecordBatch, rows int64) (*metadata.FileMetaData, error) {
	sink.Write(parquetMagic)
	sc := w.tmpl.Schema
	fmb := metadata.NewFileMetadataBuilder(sc, w.props, w.tmpl.KeyValueMetadata())
	rgb := fmb.AppendRowGroup()
	cols := make([]arrow.Array, len(recs))
	for c := range sc.NumColumns() {
		ccb := rgb.NextColumnChunk()
		descr := sc.Column(c)
		phys := descr.PhysicalType()
		if descr.MaxRepetitionLevel() != 0 || descr.MaxDefinitionLevel() > 1 {
			return nil, fmt.Errorf("parquet pages: column %s is %s with levels %d/%d", descr.Path(), phys, descr.MaxDefinitionLevel(), descr.MaxRepetitionLevel())
		}
		path := descr.Path()
		pager, err := file.NewPageWriter(sink, w.props.CompressionFor(path), w.props.CompressionLevelFor(path), ccb, 0, int16(c), w.mem, false, nil, nil)
		if err != nil {
			return nil, err
		}
		for i, r := range recs {
			cols[i] = r.Column(c)
		}
		nullable := descr.MaxDefinitionLevel() == 1
		if !ownColumn(w.schema.Field(c).Type) {
			if err := e.delegate(ccb, pager, w, cols, nullable); err != nil {
				return nil, err
			}
			continue
		}
		if phys != parquet.Types.Int64 && phys != parquet.Types.Float && phys != parquet.Types.Double {
			return nil, fmt.Errorf("parquet pages: column %s of %s is %s", path, w.schema.Field(c).Type, phys)
		}
		pages, err := pageArrays(cols, w.mem)
		if err != nil {
			return nil, err
		}
		var (
			st      metadata.EncodedStatistics
			hasDict bool
		)
		if phys == parquet.Types.Int64 {
			st, err = e.columnChunk(pager, pages, nullable)
		} else {
			width := 8
			if phys == parquet.Types.Float {
				width = 4
			}
			st, hasDict, err = e.floatChunk(pager, pages, nullable, width, path, w.props)
		}
		releaseAll(pages)
		if err != nil {
			return nil, err
		}
		if rows > 0 {
			ccb.SetStats(st)
		}
		if err := pager.Close(hasDict, false); err != nil {
			return nil, err
		}
	}
	rgb.SetNumRows(int(rows))
	if err := rgb.Finish(0, 0); err != nil {
		return nil, err
	}
	md, err := fmb.Finish()
	if err != nil {
		return nil, err
	}
	n, err := md.WriteTo(sink, nil)
	if err != nil {
		return nil, err
	}
	var tail [4]byte
	binary.LittleEndian.PutUint32(tail[:], uint32(n))
	sink.Write(tail[:])
	sink.Write(parquetMagic)
	return md, nil
}

// pageArrays cuts a column chunk's arrays, the batches of a row group,
// into arrays of pageRows rows (the last one fewer), one a page: a slice
// of one array where the page lies within it, and where it spans
// several, their pieces copied into one. So the pages are the same for
// any size of batches, and small ones (a long table's batches of a few
// hundred rows) do not make a page each: the 48 × 361 × 720 grid
// exported with --rows 100 made a file 46 % larger than with --rows 1000.
// The caller releases the arrays.
func pageArrays(arrs []arrow.Array, mem memory.Allocator) ([]arrow.Array, error) {
	var pages, pieces []arrow.Array
	have := 0
	flush := func() error {
		page := pieces[0]
		if len(pieces) > 1 {
			var err error
			page, err = array.Concatenate(pieces, mem)
			releaseAll(pieces)
			if err != nil {
				return err
			}
		}
		pages = append(pages, page)
		pieces, have = pieces[:0], 0
		return nil
	}
	for _, a := range arrs {
		for off := 0; off < a.Len(); {
			n := min(pageRows-have, a.Len()-off)
			pieces = append(pieces, array.NewSlice(a, int64(off), int64(off+n)))
			have += n
			off += n
			if have == pageRows {
				if err := flush(); err != nil {
					releaseAll(pages)
					return nil, err
				}
			}
		}
	}
	if have > 0 {
		if err := flush(); err != nil {
			releaseAll(pages)
			return nil, err
		}
	}
	return pages, nil
}

// delegate writes a column chunk of arrs with arrow-go's column writer,
// which also sets its statistics and closes the page writer.
func (e *pageEncoder) delegate(ccb *metadata.ColumnChunkMetaDataBuilder, pager file.PageWriter, w *parquetWriter, arrs []arrow.Array, nullable bool) error {
	cw := file.NewColumnChunkWriter(ccb, pager, w.props)
	ctx := pqarrow.NewArrowWriteContext(context.Background(), &w.aprops)
	for _, a := range arrs {
		var def []int16
		if nullable { // definition levels: 1 for a value, 0 for a null
			e.levels = slices.Grow(e.levels[:0], a.Len())[:a.Len()]
			for i := range e.levels {
				e.levels[i] = 0
				if a.IsValid(i) {
					e.levels[i] = 1
				}
			}
			def = e.levels
		}
		if err := pqarrow.WriteArrowToColumn(ctx, cw, a, def, nil, nullable); err != nil {
			cw.Close()
			return err
		}
	}
	return cw.Close()
}

// columnChunk writes the pages of one column chunk, the arrays' values
// one after another (a page never spans two arrays: pageArrays cuts
// them), and returns the chunk's statistics.
func (e *pageEncoder) columnChunk(pager file.PageWriter, arrs []arrow.Array, nullable bool) (metadata.EncodedStatistics, error) {
	var (
		lo, hi      = int64(math.MaxInt64), int64(math.MinInt64)
		nulls, rows int64
	)
	for _, a := range arrs {
		d := a.Data()
		if d.DataType().ID() != arrow.INT64 && d.DataType().ID() != arrow.TIMESTAMP {
			return metadata.EncodedStatistics{}, fmt.Errorf("int64 pages: a %s column", d.DataType())
		}
		values := arrow.Int64Traits.CastFromBytes(d.Buffers()[1].Bytes())[d.Offset() : d.Offset()+d.Len()]
		var bitmap []byte
		if a.NullN() > 0 {
			if !nullable {
				return metadata.EncodedStatistics{}, fmt.Errorf("int64 pages: %d nulls in a required column", a.NullN())
			}
			bitmap = d.Buffers()[0].Bytes()
		}
		for p := 0; p < len(values); p += pageRows {
			n := min(pageRows, len(values)-p)
			st, err := e.page1(pager, values[p:p+n], bitmap, d.Offset()+p, nullable, rows)
			if err != nil {
				return st, err
			}
			rows += int64(n)
			nulls += st.NullCount
			if st.HasMin {
				lo = min(lo, int64(binary.LittleEndian.Uint64(st.Min)))
				hi = max(hi, int64(binary.LittleEndian.Uint64(st.Max)))
			}
		}
	}
	return int64Stats(lo, hi, nulls, rows-nulls), nil
}

// int64Stats are the encoded statistics of count non-null values from lo
// to hi and nulls nulls.
func int64Stats(lo, hi, nulls, count int64) metadata.EncodedStatistics {
	st := metadata.EncodedStatistics{Signed: true, HasNullCount: true, NullCount: nulls}
	if count > 0 {
		st.HasMin, st.Min = true, binary.LittleEndian.AppendUint64(nil, uint64(lo))
		st.HasMax, st.Max = true, binary.LittleEndian.AppendUint64(nil, uint64(hi))
	}
	return st
}

// page1 writes values (and their validity, bits from off on in bitmap;
// nil when all are valid) as a DATA_PAGE (v1) and returns its statistics.
func (e *pageEncoder) page1(pager file.PageWriter, values []int64, bitmap []byte, off int, nullable bool, firstRow int64) (metadata.EncodedStatistics, error) {
	n := len(values)
	nulls := 0
	if bitmap != nil {
		nulls = n - bitutil.CountSetBits(bitmap, off, n)
	}
	e.page = e.page[:0]
	if nullable {
		e.page = appendDefLevels(e.page, bitmap, off, n, nulls)
	}
	vals := values
	if nulls > 0 {
		// every value stored, the next one over it unless valid: no branch
		e.vals = slices.Grow(e.vals[:0], n)[:n]
		k := 0
		for i, v := range values {
			e.vals[k] = v
			k += int(bitmap[(off+i)>>3] >> ((off + i) & 7) & 1)
		}
		vals = e.vals[:k]
	}
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, v := range vals {
		lo, hi = min(lo, v), max(hi, v)
	}
	e.page = appendDeltaBinaryPacked(e.page, vals)
	st := int64Stats(lo, hi, int64(nulls), int64(len(vals)))
	return st, e.writePage(pager, n, parquet.Encodings.DeltaBinaryPacked, st, firstRow)
}

// writePage writes e.page, the levels and values of n rows from firstRow
// on in encoding enc, as a DATA_PAGE (v1), compressed by the column's
// codec, with statistics st.
func (e *pageEncoder) writePage(pager file.PageWriter, n int, enc parquet.Encoding, st metadata.EncodedStatistics, firstRow int64) error {
	if len(e.page) > math.MaxInt32 {
		return fmt.Errorf("parquet pages: a page of %d bytes", len(e.page))
	}
	data := e.page
	if pager.HasCompressor() {
		e.comp.Reset()
		data = pager.Compress(&e.comp, e.page)
	}
	dp := file.NewDataPageV1WithConfig(memory.NewBufferBytes(data), parquet.Encodings.RLE, parquet.Encodings.RLE, file.DataPageConfig{
		Num:              int32(n),
		Encoding:         enc,
		UncompressedSize: int32(len(e.page)),
		Stats:            st,
		FirstRowIndex:    firstRow,
	})
	_, err := pager.WriteDataPage(dp)
	dp.Release()
	return err
}

// appendDefLevels appends the definition levels (maximum level 1) of n
// values, nulls of them null, as a DATA_PAGE (v1) holds them: their
// length (4 bytes), then the RLE/bit-packed hybrid at bit width 1. Without
// nulls that is one RLE run of 1s; with nulls, one bit-packed run whose
// bytes are the validity bits from off on in bitmap (the bits past n
// zero).
func appendDefLevels(dst []byte, bitmap []byte, off, n, nulls int) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	if nulls == 0 {
		dst = binary.AppendUvarint(dst, uint64(n)<<1)
		dst = append(dst, 1)
	} else {
		groups := (n + 7) / 8
		dst = binary.AppendUvarint(dst, uint64(groups)<<1|1)
		start := len(dst)
		dst = slices.Grow(dst, groups)[:start+groups]
		clear(dst[start:])
		bitutil.CopyBitmap(bitmap, off, n, dst[start:], 0)
	}
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	return dst
}

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// appendDeltaBinaryPacked appends vals encoded as DELTA_BINARY_PACKED:
// the header (block size, miniblocks per block, count, first value), then
// blocks of the deltas (wrapping int64 subtraction), each as its minimum
// delta and its miniblocks' bit widths, then each miniblock's deltas less
// the minimum (wrapping), packed at its width. The last miniblock is
// padded with zeros; the unneeded miniblocks of the last block have width
// 0 and no bytes.
func appendDeltaBinaryPacked(dst []byte, vals []int64) []byte {
	dst = binary.AppendUvarint(dst, deltaBlock)
	dst = binary.AppendUvarint(dst, deltaMinis)
	dst = binary.AppendUvarint(dst, uint64(len(vals)))
	if len(vals) == 0 {
		return binary.AppendUvarint(dst, 0)
	}
	dst = binary.AppendUvarint(dst, zigzag(vals[0]))
	var d [deltaBlock]uint64
	for i := 1; i < len(vals); i += deltaBlock {
		n := min(deltaBlock, len(vals)-i)
		minDelta := int64(math.MaxInt64)
		prev := vals[i-1]
		for j, v := range vals[i : i+n] {
			delta := v - prev
			prev = v
			d[j] = uint64(delta)
			minDelta = min(minDelta, delta)
		}
		clear(d[n:])
		dst = slices.Grow(dst, binary.MaxVarintLen64+deltaMinis+deltaBlock*8)
		dst = binary.AppendUvarint(dst, zigzag(minDelta))
		widths := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		for m := range (n + deltaMiniBlock - 1) / deltaMiniBlock {
			mini := d[m*deltaMiniBlock : (m+1)*deltaMiniBlock]
			var or uint64
			for j := range mini {
				if m*deltaMiniBlock+j < n {
					mini[j] -= uint64(minDelta)
				}
				or |= mini[j]
			}
			b := bits.Len64(or)
			dst[widths+m] = byte(b)
			dst = packMiniBlock(dst, (*[deltaMiniBlock]uint64)(mini), uint(b))
		}
	}
	return dst
}

// packMiniBlock appends the 32 values of mini (each below 2^b) packed at
// b bits each, least significant bit first, through a 64-bit
// accumulator: 4·b bytes. dst must have the capacity.
func packMiniBlock(dst []byte, mini *[deltaMiniBlock]uint64, b uint) []byte {
	if b == 0 {
		return dst
	}
	var (
		acc uint64
		n   uint // bits in acc
	)
	for _, x := range mini {
		acc |= x << n
		n += b
		if n >= 64 {
			dst = binary.LittleEndian.AppendUint64(dst, acc)
			n -= 64
			acc = x >> (b - n) // 0 when n is 0 (a shift by b ≤ 64 of x < 2^b)
		}
	}
	if n > 0 { // 32·b bits: n is 32
		dst = binary.LittleEndian.AppendUint32(dst, uint32(acc))
	}
	return dst
}
