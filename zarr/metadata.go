package zarr

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/zarr-dt64/dt64/dtype"
)

// Metadata describes an array, in a form common to Zarr v2 and v3.
//
// For v2 arrays Codecs is the equivalent v3 chain: BytesCodec with the
// dtype's byte order, then the compressor (ZstdCodec, ZlibCodec, GzipCodec
// or BloscCodec) if any.
//
// A time array (datetime64 or timedelta64) has its type in DataType and
// its fill value in FillValue; Numeric is zero. Any other array has its
// type in Numeric and its fill value in NumericFill; DataType is zero.
// IsTime tells them apart.
type Metadata struct {
	Format   int // 2 or 3; 0 in Create means 3
	DataType dtype.DataType
	// Numeric is a numeric array's data type (bool, int, uint, float,
	// complex); zero for a time array.
	Numeric    NumericType
	Shape      []int64
	ChunkShape []int64 // regular chunk grid
	// FillValue is what missing chunks and padding read as. FillNull
	// records a v2 "fill_value": null: zarr-python 2 then leaves missing
	// chunks uninitialized; dt64 reads them as NaT (FillValue is NaT).
	FillValue int64
	// NumericFill is a numeric array's fill value as element bits
	// (NumericType.Bits); a v2 null fill reads as zero bits.
	NumericFill [2]uint64
	FillNull    bool
	KeyEncoding KeyEncoding
	Codecs      []Codec
	// Attributes is the v3 "attributes" object or the v2 .zattrs
	// document, exactly as stored (nil when absent).
	Attributes json.RawMessage
	// DimensionNames is the v3 "dimension_names" array as stored, or nil.
	DimensionNames json.RawMessage
	// Extensions are top-level fields dt64 does not interpret, kept as
	// stored: in v3, extensions marked "must_understand": false; in v2,
	// any unknown .zarray field.
	Extensions map[string]json.RawMessage
}

// IsTime reports whether the array holds datetime64 or timedelta64
// values (DataType), rather than numbers (Numeric).
func (m *Metadata) IsTime() bool { return m.Numeric.Kind == 0 }

// ElementSize is the size of one element in bytes: 8 for time types.
func (m *Metadata) ElementSize() int {
	if m.IsTime() {
		return 8
	}
	return m.Numeric.Size
}

// elem is what the codec chain needs of the data type.
func (m *Metadata) elem() elemSpec {
	if m.IsTime() {
		return timeElem(m.FillValue)
	}
	return elemSpec{size: m.Numeric.Size, fill: m.NumericFill, complex: m.Numeric.Kind == Complex}
}

// ByteOrder is the byte order of stored elements: the bytes codec's endian
// (inside sharding, the inner chunks' bytes codec), or nil if Codecs has
// none.
func (m *Metadata) ByteOrder() binary.ByteOrder {
	for _, c := range m.Codecs {
		switch c := c.(type) {
		case BytesCodec:
			return normalOrder(c.Endian)
		case ShardingCodec:
			inner := Metadata{Codecs: c.Codecs}
			return inner.ByteOrder()
		}
	}
	return nil
}

// Clone returns a deep copy of m.
func (m Metadata) Clone() Metadata {
	m.Shape = slices.Clone(m.Shape)
	m.ChunkShape = slices.Clone(m.ChunkShape)
	m.Codecs = cloneCodecs(m.Codecs)
	m.Attributes = append(json.RawMessage(nil), m.Attributes...)
	m.DimensionNames = append(json.RawMessage(nil), m.DimensionNames...)
	if m.Extensions != nil {
		ext := make(map[string]json.RawMessage, len(m.Extensions))
		for k, v := range m.Extensions {
			ext[k] = append(json.RawMessage(nil), v...)
		}
		m.Extensions = ext
	}
	return m
}

func cloneCodecs(cs []Codec) []Codec {
	if cs == nil {
		return nil
	}
	out := make([]Codec, len(cs))
	for i, c := range cs {
		switch c := c.(type) {
		case TransposeCodec:
			out[i] = TransposeCodec{Order: append([]int(nil), c.Order...)}
		case ShardingCodec:
			c.ChunkShape = slices.Clone(c.ChunkShape)
			c.Codecs = cloneCodecs(c.Codecs)
			c.IndexCodecs = cloneCodecs(c.IndexCodecs)
			out[i] = c
		default:
			out[i] = c
		}
	}
	return out
}

// KeyEncoding is the chunk key encoding: Name "default" (v3 keys
// "c/0/1") or "v2" (keys "0.1"), with Separator "/" or ".".
type KeyEncoding struct {
	Name      string
	Separator string
}

// Key returns the store key of the chunk at coords.
func (e KeyEncoding) Key(coords []int64) string {
	var b strings.Builder
	if e.Name == "default" {
		b.WriteByte('c')
		for _, c := range coords {
			b.WriteString(e.Separator)
			b.WriteString(strconv.FormatInt(c, 10))
		}
		return b.String()
	}
	if len(coords) == 0 {
		return "0"
	}
	for i, c := range coords {
		if i > 0 {
			b.WriteString(e.Separator)
		}
		b.WriteString(strconv.FormatInt(c, 10))
	}
	return b.String()
}

func (e KeyEncoding) validate(format int) error {
	switch e.Name {
	case "default":
		if format == 2 {
			return errors.New("v2 arrays use the \"v2\" key encoding")
		}
	case "v2":
	default:
		return fmt.Errorf("unknown chunk key encoding %q (want \"default\" or \"v2\")", e.Name)
	}
	if e.Separator != "/" && e.Separator != "." {
		return fmt.Errorf("separator %q (want \"/\" or \".\")", e.Separator)
	}
	return nil
}

// grid holds what a valid Metadata implies.
type grid struct {
	Grid
	chain *chain
}

// withDefaults fills the zero values Create accepts.
func (m *Metadata) withDefaults() {
	if m.Format == 0 {
		m.Format = 3
	}
	if m.KeyEncoding.Name == "" {
		if m.Format == 2 {
			m.KeyEncoding.Name = "v2"
		} else {
			m.KeyEncoding.Name = "default"
		}
	}
	if m.KeyEncoding.Separator == "" {
		if m.KeyEncoding.Name == "default" {
			m.KeyEncoding.Separator = "/"
		} else {
			m.KeyEncoding.Separator = "."
		}
	}
	if m.Codecs == nil {
		if m.Format == 2 {
			m.Codecs = []Codec{BytesCodec{Endian: binary.LittleEndian}, ZstdCodec{Level: 1}}
		} else {
			m.Codecs = []Codec{BytesCodec{Endian: binary.LittleEndian}, ZstdCodec{Level: 0}}
		}
	}
	if m.Format == 3 && m.Attributes == nil {
		m.Attributes = json.RawMessage("{}")
	}
	if m.FillNull {
		if m.IsTime() {
			m.FillValue = dtype.NaT // what Open reads a null fill as
		} else {
			m.NumericFill = [2]uint64{}
		}
	}
	if m.Shape == nil {
		m.Shape = []int64{}
	}
	if m.ChunkShape == nil {
		m.ChunkShape = []int64{}
	}
	normalizeCodecs(m.Codecs)
}

// normalizeCodecs gives codecs the values they read back as: byte orders
// as binary.LittleEndian/BigEndian, an empty index location as "end".
func normalizeCodecs(cs []Codec) {
	for i, c := range cs {
		switch c := c.(type) {
		case BytesCodec:
			if o := normalOrder(c.Endian); o != nil {
				cs[i] = BytesCodec{Endian: o}
			}
		case ShardingCodec:
			if c.IndexLocation == "" {
				c.IndexLocation = IndexEnd
			}
			normalizeCodecs(c.Codecs)
			normalizeCodecs(c.IndexCodecs)
			cs[i] = c
		}
	}
}

// check validates m and compiles its codec chain. Errors carry the field.
func (m *Metadata) check() (*grid, error) {
	if m.Format != 2 && m.Format != 3 {
		return nil, inField("zarr_format", fmt.Errorf("%d (want 2 or 3)", m.Format))
	}
	if err := m.checkType(); err != nil {
		return nil, inField(m.field("data_type", "dtype"), err)
	}
	if _, err := numElements(m.Shape, math.MaxInt64); err != nil {
		return nil, inField("shape", err)
	}
	if len(m.ChunkShape) != len(m.Shape) {
		return nil, inField(m.field("chunk_grid.configuration.chunk_shape", "chunks"),
			fmt.Errorf("%v has %d dimensions, shape %v has %d", m.ChunkShape, len(m.ChunkShape), m.Shape, len(m.Shape)))
	}
	for d, c := range m.ChunkShape {
		if c <= 0 {
			return nil, inField(m.field("chunk_grid.configuration.chunk_shape", "chunks"), fmt.Errorf("dimension %d is %d; chunk dimensions must be positive", d, c))
		}
	}
	gr, err := NewGrid(m.Shape, m.ChunkShape)
	if err != nil {
		return nil, inField("shape", err)
	}
	g := &grid{Grid: gr}
	if err := m.KeyEncoding.validate(m.Format); err != nil {
		return nil, inField(m.field("chunk_key_encoding", "dimension_separator"), err)
	}
	if m.Format == 2 {
		if err := checkV2Codecs(m.Codecs); err != nil {
			return nil, err
		}
	}
	if shardingDepth(m.Codecs) > maxShardingDepth {
		// What Open refuses, Create must not write.
		return nil, inField("codecs", errShardingDepth)
	}
	if m.FillNull && m.Format != 2 {
		return nil, inField("fill_value", errors.New("null is a v2 fill value only"))
	}
	if g.chain, err = newChain(m.Codecs, m.ChunkShape, m.elem()); err != nil {
		switch {
		case errors.Is(err, errChunkSize):
			field := "chunk_grid"
			if m.Format == 2 {
				field = "chunks"
			}
			return nil, inField(field, err)
		case m.Format == 2:
			return nil, inField("compressor", err)
		}
		return nil, inField("codecs", err)
	}
	if m.Format == 3 {
		if len(m.DimensionNames) > 0 {
			var names []*string
			if err := json.Unmarshal(m.DimensionNames, &names); err != nil {
				return nil, inField("dimension_names", fmt.Errorf("must be an array of strings or nulls: %v", err))
			}
			if len(names) != len(m.Shape) {
				return nil, inField("dimension_names", fmt.Errorf("has %d names for %d dimensions", len(names), len(m.Shape)))
			}
		}
		if err := checkObject(m.Attributes); err != nil {
			return nil, inField("attributes", err)
		}
	}
	return g, nil
}

// checkType validates the data type: a time type, or a numeric one with
// no time type beside it.
func (m *Metadata) checkType() error {
	if m.IsTime() {
		return m.DataType.Validate()
	}
	if m.DataType != (dtype.DataType{}) {
		return fmt.Errorf("both a time type (%s) and a numeric type (%s); an array has one", m.DataType, m.Numeric)
	}
	if m.FillValue != 0 {
		return errors.New("a numeric array's fill value is NumericFill, not FillValue")
	}
	if err := m.Numeric.Validate(); err != nil {
		return err
	}
	if t := m.Numeric; t.Bits(t.Element(m.NumericFill, nil), nil) != m.NumericFill {
		return fmt.Errorf("fill value bits %#x are not a %s value (see NumericType.Bits)", m.NumericFill, t)
	}
	return nil
}

func (m *Metadata) field(v3, v2 string) string {
	if m.Format == 2 {
		return v2
	}
	return v3
}

func checkObject(raw json.RawMessage) error {
	if raw == nil {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return errors.New("must be a JSON object")
	}
	return nil
}

// checkV2Codecs checks that codecs is expressible in a .zarray: bytes,
// then at most one compressor.
func checkV2Codecs(codecs []Codec) error {
	if len(codecs) == 0 {
		return inField("dtype", errors.New("no bytes codec to give the byte order"))
	}
	if _, ok := codecs[0].(BytesCodec); !ok {
		return inField("compressor", fmt.Errorf("codec %q cannot be written to a v2 array (v2 has a byte order and one compressor)", codecs[0].Name()))
	}
	if len(codecs) > 2 {
		return inField("compressor", fmt.Errorf("%d compressors; a v2 array has at most one (filters are not supported)", len(codecs)-1))
	}
	if len(codecs) == 2 {
		switch c := codecs[1].(type) {
		case ZstdCodec, GzipCodec, ZlibCodec, BloscCodec:
		default:
			name := "nil"
			if c != nil {
				name = c.Name()
			}
			return inField("compressor", fmt.Errorf("codec %q cannot be a v2 compressor (zstd, zlib, gzip and blosc can)", name))
		}
	}
	return nil
}
