package zarrow

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// WriteOptions configure Write.
type WriteOptions struct {
	// Format is the Zarr format, 2 or 3; 0 means 3.
	Format int
	// ChunkLen is the number of elements per chunk; 0 means 1 Mi (8 MiB).
	ChunkLen int64
	// Codec compresses the chunks; nil means zstd level 3 (unless
	// NoCompression).
	Codec zarr.Codec
	// NoCompression stores the chunks uncompressed.
	NoCompression bool
	// Attributes is the array's attributes object; nil means none.
	Attributes json.RawMessage
}

// Write stores an Arrow Timestamp or Duration column as a new 1-D Zarr
// numpy.datetime64 or numpy.timedelta64 array of the column's unit in
// store (little-endian, fill value NaT), nulls as NaT, and returns it
// opened. The chunks are written first and the metadata last, after a
// Sync when the store is a storage.Syncer, so a store that has the metadata
// has every chunk.
//
// A valid (non-null) value of -2^63 would read back as NaT; Write refuses
// it, naming the row, instead of changing it.
func Write(ctx context.Context, store storage.Store, col arrow.Array, o WriteOptions) (*zarr.Array, error) {
	dt, err := columnDataType(col.DataType())
	if err != nil {
		return nil, err
	}
	n := int64(col.Len())
	chunk := o.ChunkLen
	if chunk <= 0 {
		chunk = 1 << 20
	}
	chunk = max(min(chunk, n), 1)
	format := o.Format
	if format == 0 {
		format = 3
	}
	codecs := []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}}
	switch {
	case o.NoCompression:
	case o.Codec != nil:
		codecs = append(codecs, o.Codec)
	default:
		codecs = append(codecs, zarr.ZstdCodec{Level: 3})
	}
	a, err := zarr.Create(ctx, store, zarr.Metadata{
		Format: format, DataType: dt, Shape: []int64{n}, ChunkShape: []int64{chunk},
		FillValue: dtype.NaT, Codecs: codecs, Attributes: o.Attributes,
	})
	if err != nil {
		return nil, err
	}
	var values []byte
	if n > 0 { // an empty column may have no value buffer at all
		data := col.Data()
		values = data.Buffers()[1].Bytes()[8*data.Offset():]
	}
	buf := make([]int64, chunk)
	for lo := int64(0); lo < n; lo += chunk {
		m := min(chunk, n-lo)
		for i := range m {
			row := lo + i
			if col.IsNull(int(row)) {
				buf[i] = dtype.NaT
				continue
			}
			v := int64(hostOrder.Uint64(values[8*row:]))
			if v == math.MinInt64 {
				return nil, fmt.Errorf("row %d: the valid value -9223372036854775808 is NaT in %s; make it null or choose another value", row, dt)
			}
			buf[i] = v
		}
		for i := m; i < chunk; i++ {
			buf[i] = dtype.NaT // padding of the last chunk
		}
		if err := a.WriteChunk(ctx, []int64{lo / chunk}, buf); err != nil {
			return nil, err
		}
	}
	if s, ok := store.(storage.Syncer); ok {
		if err := s.Sync(ctx); err != nil {
			return nil, err
		}
	}
	if err := a.WriteMetadata(ctx); err != nil {
		return nil, err
	}
	if s, ok := store.(storage.Syncer); ok {
		if err := s.Sync(ctx); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// columnDataType is the Zarr data type of an Arrow time column.
func columnDataType(t arrow.DataType) (dtype.DataType, error) {
	var u arrow.TimeUnit
	kind := dtype.Datetime
	switch t := t.(type) {
	case *arrow.TimestampType:
		u = t.Unit
	case *arrow.DurationType:
		u, kind = t.Unit, dtype.Timedelta
	default:
		return dtype.DataType{}, fmt.Errorf("an Arrow %s column: Write takes timestamp and duration columns", t)
	}
	for _, a := range arrowUnits {
		if a.unit == u {
			return dtype.DataType{Kind: kind, Unit: a.dt64, Scale: 1}, nil
		}
	}
	return dtype.DataType{}, fmt.Errorf("Arrow time unit %s", u)
}
