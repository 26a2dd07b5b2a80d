package zarrow

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/endian"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Arrow IPC files are written little-endian on every host. arrow-go keeps
// buffers in the host's byte order and writes them so, flagged in the
// schema as the format allows; but apache-arrow for JavaScript (and other
// readers) ignore the flag and misread a big-endian file. So on a
// big-endian host (s390x) Export swaps each batch's fixed-width values
// into new buffers and writes them under a little-endian schema, when
// every column is of a fixed-width type (what zarrow's tables hold); a
// table with any other column is written as arrow-go writes it, in the
// host's order, flagged.

// ipcSchema is the schema Export writes an IPC file of s's batches with,
// and whether the batches must be swapped to it (littleEndianBatch).
func ipcSchema(s *arrow.Schema) (*arrow.Schema, bool) {
	if littleEndian || s.Endianness() == endian.LittleEndian {
		return s, false
	}
	for _, f := range s.Fields() {
		if _, ok := swapWidth(f.Type); !ok {
			return s, false
		}
	}
	md := s.Metadata()
	return arrow.NewSchemaWithEndian(s.Fields(), &md, endian.LittleEndian), true
}

// swapWidth is the width in bytes of a fixed-width type's values, 0 for
// bool (bits, whose order the byte order does not change); false for a
// type that is not fixed-width.
func swapWidth(t arrow.DataType) (int, bool) {
	switch t.ID() {
	case arrow.BOOL:
		return 0, true
	case arrow.INT8, arrow.UINT8, arrow.INT16, arrow.UINT16, arrow.FLOAT16, arrow.INT32, arrow.UINT32, arrow.FLOAT32, arrow.DATE32, arrow.TIME32,
		arrow.INT64, arrow.UINT64, arrow.FLOAT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION:
		return t.(arrow.FixedWidthDataType).BitWidth() / 8, true
	}
	return 0, false
}

// littleEndianBatch is rec with every column's values in little-endian
// byte order, under schema (ipcSchema's).
func littleEndianBatch(rec arrow.RecordBatch, schema *arrow.Schema, mem memory.Allocator) arrow.RecordBatch {
	cols := make([]arrow.Array, rec.NumCols())
	for i, col := range rec.Columns() {
		d := col.Data()
		w, _ := swapWidth(d.DataType())
		bufs := d.Buffers()
		if w > 1 && bufs[1] != nil {
			// The values up to the slice's end, so that the validity
			// bitmap's offset still applies.
			n := d.Offset() + d.Len()
			vals := memory.NewResizableBuffer(mem)
			vals.Resize(n * w)
			defer vals.Release()
			swapValues(vals.Bytes()[d.Offset()*w:], bufs[1].Bytes()[d.Offset()*w:n*w], w)
			bufs = []*memory.Buffer{bufs[0], vals}
		}
		nd := array.NewData(d.DataType(), d.Len(), bufs, nil, d.NullN(), d.Offset())
		cols[i] = array.MakeFromData(nd)
		nd.Release()
		defer cols[i].Release()
	}
	return array.NewRecordBatch(schema, cols, rec.NumRows())
}

// swapValues writes the w-byte values of src into dst, each from the
// host's byte order (big-endian) to little-endian.
func swapValues(dst, src []byte, w int) {
	switch w {
	case 2:
		for i := 0; i+2 <= len(src); i += 2 {
			binary.LittleEndian.PutUint16(dst[i:], binary.BigEndian.Uint16(src[i:]))
		}
	case 4:
		for i := 0; i+4 <= len(src); i += 4 {
			binary.LittleEndian.PutUint32(dst[i:], binary.BigEndian.Uint32(src[i:]))
		}
	case 8:
		for i := 0; i+8 <= len(src); i += 8 {
			binary.LittleEndian.PutUint64(dst[i:], binary.BigEndian.Uint64(src[i:]))
		}
	}
}
