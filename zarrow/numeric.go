package zarrow

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/zarr-dt64/dt64/zarr"
)

// NumericType returns the Arrow type of a Zarr numeric data type, and
// false for one Arrow has no primitive for (complex).
func NumericType(t zarr.NumericType) (arrow.DataType, bool) {
	switch t.Kind {
	case zarr.Bool:
		return arrow.FixedWidthTypes.Boolean, true
	case zarr.Int:
		return map[int]arrow.DataType{1: arrow.PrimitiveTypes.Int8, 2: arrow.PrimitiveTypes.Int16, 4: arrow.PrimitiveTypes.Int32, 8: arrow.PrimitiveTypes.Int64}[t.Size], true
	case zarr.Uint:
		return map[int]arrow.DataType{1: arrow.PrimitiveTypes.Uint8, 2: arrow.PrimitiveTypes.Uint16, 4: arrow.PrimitiveTypes.Uint32, 8: arrow.PrimitiveTypes.Uint64}[t.Size], true
	case zarr.Float:
		return map[int]arrow.DataType{2: arrow.FixedWidthTypes.Float16, 4: arrow.PrimitiveTypes.Float32, 8: arrow.PrimitiveTypes.Float64}[t.Size], true
	}
	return nil, false
}

// ReadNumeric reads the box [start, start+shape) of a numeric array (bool,
// integers, floats) into an Arrow column of its type, value for value;
// Zarr numeric arrays have no nulls, so neither has the column (a float
// NaN stays NaN). Complex arrays have no Arrow primitive and are refused.
func ReadNumeric(ctx context.Context, a *zarr.Array, start, shape []int64, o Options) (arrow.Array, error) {
	nt := a.Numeric()
	at, ok := NumericType(nt)
	if a.IsTime() {
		return nil, fmt.Errorf("%s: a time array (%s): read it with Read", a, a.DataType())
	}
	if !ok {
		return nil, fmt.Errorf("%s: %s has no Arrow numeric type", a, nt)
	}
	n := int64(1)
	for _, s := range shape {
		n *= s
	}
	mem := o.allocator()
	values := memory.NewResizableBuffer(mem)
	values.Resize(int(n) * nt.Size)
	defer values.Release()
	raw := values.Bytes()
	order, err := a.ReadRegionRaw(ctx, start, shape, raw, zarr.RegionOptions{Parallel: o.Parallel})
	if err != nil {
		return nil, err
	}
	if nt.Kind == zarr.Bool {
		packed := memory.NewResizableBuffer(mem)
		packed.Resize(int((n + 7) / 8))
		defer packed.Release()
		pb := packed.Bytes()
		clear(pb)
		for i, b := range raw {
			if b != 0 {
				bitutil.SetBit(pb, i)
			}
		}
		values = packed
	} else if nt.Size > 1 && bigEndian(order) != bigEndian(hostOrder) {
		swapElements(raw, nt.Size)
	}
	data := array.NewData(at, int(n), []*memory.Buffer{nil, values}, nil, 0, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// bigEndian tells the two byte orders apart, whatever implements them.
func bigEndian(o binary.ByteOrder) bool { return o.Uint16([]byte{0, 1}) == 1 }

// swapElements reverses the bytes of every size-byte element of b.
func swapElements(b []byte, size int) {
	switch size {
	case 2:
		for i := 0; i+1 < len(b); i += 2 {
			b[i], b[i+1] = b[i+1], b[i]
		}
	case 4:
		for i := 0; i+3 < len(b); i += 4 {
			v := uint32(b[i]) | uint32(b[i+1])<<8 | uint32(b[i+2])<<16 | uint32(b[i+3])<<24
			v = bits.ReverseBytes32(v)
			b[i], b[i+1], b[i+2], b[i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		}
	case 8:
		for i := 0; i+7 < len(b); i += 8 {
			for j := range 4 {
				b[i+j], b[i+7-j] = b[i+7-j], b[i+j]
			}
		}
	}
}

// noArrowType reports whether array node n holds strings, bytes, Python
// objects or structured records (xarray writes station names and labels
// so): data types zarr does not read, so an export leaves such arrays
// out (naming them) instead of failing on them. Decided from the data
// type as stored, without opening the array.
func noArrowType(n zarr.Node) bool {
	if len(n.DataTypeJSON) > 0 && n.DataTypeJSON[0] == '[' {
		return true // a v2 structured dtype: a list of fields
	}
	dt := n.DataType
	switch dt {
	case "":
		return true
	case "string", "bytes", "variable_length_utf8", "variable_length_bytes":
		return true
	}
	if strings.HasPrefix(dt, "fixed_length_") || strings.HasPrefix(dt, "null_terminated_bytes") || strings.HasPrefix(dt, "raw_bytes") {
		return true
	}
	kind := strings.TrimLeft(dt, "<>|=")
	return kind != "" && strings.ContainsRune("USOVa", rune(kind[0]))
}
