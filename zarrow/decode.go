package zarrow

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/zarr"
)

// Options.MaskAndScale: numeric columns decoded as xarray decodes them
// (decode_cf's mask_and_scale, and its bool encoding), so that a packed
// int16 temperature is a column of kelvins, not of stored numbers.
//
// The values are xarray's, bit for bit (xarray 2023.01, NumPy 1.24;
// TestMaskAndScaleMatchesXarray): _Unsigned reinterprets the integers,
// _FillValue, missing_value and the Zarr fill value (unless a v2 null;
// xarray's Zarr backend reads it as the _FillValue) mask, and
// scale_factor and add_offset apply in the float type xarray picks, one
// rounding after each (its _choose_float_dtype, after masking has
// promoted integers: int16 with a fill value and an add_offset is
// float32, without a fill value float64). Where xarray has a NaN for a
// missing value (NumPy has no other), the column has a null, so a float
// NaN is a null too; and an integer column that is masked but not scaled
// keeps its integer type, with nulls, where xarray promotes it to float:
// the same values, none of them rounded. float16 columns are not decoded
// (CF has no float16; their NaN stay NaN).

// numericColumn returns the Arrow type of the column of numeric array a,
// and, under o.MaskAndScale, the encoding it is decoded by (nil: the
// stored numbers).
func numericColumn(a *zarr.Array, o Options) (arrow.DataType, *cf.Encoding, bool, error) {
	at, ok := NumericType(a.Numeric())
	if !ok || !o.MaskAndScale {
		return at, nil, ok, nil
	}
	enc, err := a.CFEncoding()
	if err != nil {
		return nil, nil, true, err
	}
	// A float column is decoded even with nothing to decode: its NaN
	// become nulls, as xarray (and pandas) take NaN for missing.
	if enc == nil || !enc.Decodes() && enc.Stored.Kind != cf.StoredFloat {
		return at, nil, true, nil
	}
	return decodedType(enc), enc, true, nil
}

// decodedType is the Arrow type of numbers decoded by enc.
func decodedType(enc *cf.Encoding) arrow.DataType {
	s := enc.Stored
	if enc.Bool {
		return arrow.FixedWidthTypes.Boolean
	}
	if enc.Packing.Scale == nil && enc.Packing.Offset == nil {
		t, _ := NumericType(storedNumeric(s))
		return t
	}
	float, size := s.Kind == cf.StoredFloat, s.Size
	if len(enc.Missing) > 0 && !float {
		// xarray's CFMaskCoder promotes masked integers first
		// (dtypes.maybe_promote), and picks the type of the scaled
		// values from that.
		float, size = true, 8
		if s.Size <= 2 {
			size = 4
		}
	}
	if float && size <= 4 || !float && size <= 2 && enc.Packing.Offset == nil {
		return arrow.PrimitiveTypes.Float32
	}
	return arrow.PrimitiveTypes.Float64
}

func storedNumeric(s cf.Stored) zarr.NumericType {
	k := map[cf.StoredKind]zarr.NumericKind{cf.StoredInt: zarr.Int, cf.StoredUint: zarr.Uint, cf.StoredFloat: zarr.Float}[s.Kind]
	return zarr.NumericType{Kind: k, Size: s.Size}
}

// decode returns the column of stored numbers col (of type nt, as
// ReadNumeric reads it) decoded by enc into type to. An integer column
// keeps its values buffer; only its type and validity change.
func decode(col arrow.Array, nt zarr.NumericType, enc *cf.Encoding, to arrow.DataType, mem memory.Allocator) arrow.Array {
	n := col.Len()
	raw := col.Data().Buffers()[1].Bytes()
	valid := memory.NewResizableBuffer(mem)
	valid.Resize(int(bitutil.BytesForBits(int64(n))))
	defer valid.Release()
	vb := valid.Bytes()
	clear(vb)
	float := enc.Stored.Kind == cf.StoredFloat
	nulls := 0
	// bitsAt is element i in Encoding.Missing's bits.
	bitsAt := func(i int) uint64 {
		var w uint64
		switch nt.Size {
		case 1:
			w = uint64(raw[i])
		case 2:
			w = uint64(binary.NativeEndian.Uint16(raw[2*i:]))
		case 4:
			w = uint64(binary.NativeEndian.Uint32(raw[4*i:]))
		default:
			w = binary.NativeEndian.Uint64(raw[8*i:])
		}
		if float && nt.Size == 4 {
			return math.Float64bits(float64(math.Float32frombits(uint32(w))))
		}
		return enc.Stored.FromBits(w)
	}
	// value is element bits w as a float64: exact for every integer
	// xarray decodes in float32, rounded to nearest for larger ones as
	// NumPy's astype rounds.
	value := func(w uint64) float64 {
		switch {
		case float:
			return math.Float64frombits(w)
		case enc.Stored.Kind == cf.StoredUint:
			return float64(w)
		}
		return float64(int64(w))
	}
	var scale, offset float64
	hasScale, hasOffset := enc.Packing.Scale != nil, enc.Packing.Offset != nil
	if hasScale {
		scale, _ = enc.Packing.Scale.Float64()
	}
	if hasOffset {
		offset, _ = enc.Packing.Offset.Float64()
	}
	var out *memory.Buffer
	switch to.ID() {
	case arrow.BOOL:
		out = memory.NewResizableBuffer(mem)
		out.Resize(len(vb))
		clear(out.Bytes())
	case arrow.FLOAT32, arrow.FLOAT64:
		out = memory.NewResizableBuffer(mem)
		out.Resize(n * to.(arrow.FixedWidthDataType).BitWidth() / 8)
	default:
		out = col.Data().Buffers()[1]
		out.Retain()
	}
	defer out.Release()
	ob := out.Bytes()
	scale32, offset32 := float32(scale), float32(offset)
	// Floats are missing by value, as NumPy's == compares them (-0 is 0).
	var missF []float64
	if float {
		for _, m := range enc.Missing {
			missF = append(missF, math.Float64frombits(m))
		}
	}
	missing := func(w uint64) bool {
		if !float {
			return slices.Contains(enc.Missing, w)
		}
		v := math.Float64frombits(w)
		return v != v || slices.Contains(missF, v)
	}
	for i := range n {
		w := bitsAt(i)
		if missing(w) {
			nulls++
			continue
		}
		bitutil.SetBit(vb, i)
		switch to.ID() {
		case arrow.BOOL:
			if w != 0 {
				bitutil.SetBit(ob, i)
			}
		case arrow.FLOAT32:
			// In float32 throughout, one rounding per operation, as
			// NumPy's in-place float32 *= and += (the conversions keep
			// Go from fusing them into one).
			f := float32(value(w))
			if hasScale {
				f = float32(f * scale32)
			}
			if hasOffset {
				f = float32(f + offset32)
			}
			binary.NativeEndian.PutUint32(ob[4*i:], math.Float32bits(f))
		case arrow.FLOAT64:
			f := value(w)
			if hasScale {
				f = float64(f * scale)
			}
			if hasOffset {
				f = float64(f + offset)
			}
			binary.NativeEndian.PutUint64(ob[8*i:], math.Float64bits(f))
		}
	}
	bufs := []*memory.Buffer{valid, out}
	if nulls == 0 {
		bufs[0] = nil
	}
	data := array.NewData(to, n, bufs, nil, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data)
}

// encodedNote says, for a numeric column read as its stored numbers whose
// attributes ask xarray to decode them (CF packing, missing values,
// xarray's bool or unsigned encodings), that the column holds the stored
// numbers; "" for any other column. A time column is decoded (CF time),
// and a decoded column (Options.MaskAndScale) says nothing; with
// maskAndScale on, a column it leaves as it is (float16) says so.
func encodedNote(c tableColumn, maskAndScale bool) string {
	if c.time || c.enc != nil {
		return ""
	}
	var attrs map[string]json.RawMessage
	if json.Unmarshal(c.array.Metadata().Attributes, &attrs) != nil {
		return ""
	}
	var found []string
	for _, k := range []string{"scale_factor", "add_offset", "_FillValue", "missing_value", "_Unsigned"} {
		if _, ok := attrs[k]; ok {
			found = append(found, k)
		}
	}
	var dt string
	if json.Unmarshal(attrs["dtype"], &dt) == nil && dt == "bool" {
		found = append(found, `dtype "bool"`)
	}
	if len(found) == 0 {
		return ""
	}
	if maskAndScale { // on, and it left this column as it is (float16)
		return fmt.Sprintf("%s: the column holds the stored %s numbers: mask and scale leaves %s columns as they are; xarray decodes them by %s", c.name, c.array.Numeric(), c.array.Numeric(), strings.Join(found, ", "))
	}
	return fmt.Sprintf("%s: the column holds the stored %s numbers; xarray decodes them by %s (dt64 export --mask-and-scale decodes them so)", c.name, c.array.Numeric(), strings.Join(found, ", "))
}
