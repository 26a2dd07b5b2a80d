package zarrow

import (
	"bytes"
	"encoding/base64"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// Duration columns in Parquet. Parquet has no duration type and pqarrow
// (arrow-go 18.8) refuses to write an Arrow duration ("not implemented:
// support for DURATION"), though its reader turns int64 columns back into
// durations when the stored Arrow schema says so (as Arrow C++ and
// pyarrow write them). So the columns are written as the int64 they are,
// and the original schema is stored under "ARROW:schema" as
// pqarrow.WithStoreSchema stores one: Arrow readers get durations back,
// other readers int64 counts of the unit.

// durationsAsInt64 returns s with its duration fields as int64 and s
// itself, IPC-serialized and base64-encoded, as its "ARROW:schema"
// metadata; nil when s has no duration field.
func durationsAsInt64(s *arrow.Schema) *arrow.Schema {
	fields := s.Fields()
	found := false
	for i, f := range fields {
		if f.Type.ID() == arrow.DURATION {
			fields[i].Type, found = arrow.PrimitiveTypes.Int64, true
		}
	}
	if !found {
		return nil
	}
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(s))
	_ = w.Close() // a schema message into a bytes.Buffer cannot fail
	keys, values := append(s.Metadata().Keys(), "ARROW:schema"), append(s.Metadata().Values(), base64.StdEncoding.EncodeToString(buf.Bytes()))
	md := arrow.NewMetadata(keys, values)
	return arrow.NewSchema(fields, &md)
}

// withSchema is rec with its columns retyped to s's (durations as int64:
// the same buffers). The caller releases it.
func withSchema(rec arrow.RecordBatch, s *arrow.Schema) arrow.RecordBatch {
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		if t := s.Field(i).Type; !arrow.TypeEqual(t, c.DataType()) {
			d := array.NewData(t, c.Len(), c.Data().Buffers(), nil, c.NullN(), c.Data().Offset())
			cols[i] = array.MakeFromData(d)
			d.Release()
			defer cols[i].Release()
		} else {
			cols[i] = c
		}
	}
	return array.NewRecordBatch(s, cols, rec.NumRows())
}
