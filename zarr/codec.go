package zarr

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Codec is one step of a Zarr v3 codec pipeline. The implementations are the
// types below; a pipeline is array→array codecs (TransposeCodec), exactly one
// array→bytes codec (BytesCodec or ShardingCodec), then bytes→bytes codecs
// (ZstdCodec, GzipCodec, BloscCodec, CRC32CCodec; ZlibCodec in v2 arrays
// only).
type Codec interface {
	// Name is the codec's name in zarr.json ("bytes", "sharding_indexed").
	Name() string
	kind() codecKind
}

type codecKind uint8

const (
	arrayToArray codecKind = iota
	arrayToBytes
	bytesToBytes
)

func (k codecKind) String() string {
	return [...]string{"array->array", "array->bytes", "bytes->bytes"}[k]
}

// BytesCodec serializes elements in Endian order (binary.LittleEndian or
// binary.BigEndian). Endian is required but for 1-byte data types, where
// nil means none (v3 writes no "endian", v2 a '|' dtype).
type BytesCodec struct{ Endian binary.ByteOrder }

// ZstdCodec is Zstandard compression. Level follows zstd (0 = default 3,
// negative = fast); Checksum adds the frame's content checksum. Frames are
// written with their content size.
type ZstdCodec struct {
	Level    int
	Checksum bool
}

// GzipCodec is gzip (RFC 1952) compression at Level 0-9.
type GzipCodec struct{ Level int }

// ZlibCodec is zlib (RFC 1950) compression at Level 0-9; numcodecs' "zlib"
// compressor; in Zarr v3 (which has no zlib codec of its own) the
// "numcodecs.zlib" codec, as zarr-python 3 writes it.
type ZlibCodec struct{ Level int }

// CRC32CCodec appends a little-endian CRC-32C of the bytes and checks it on
// decode.
type CRC32CCodec struct{}

// TransposeCodec permutes dimensions: encoded dimension i is decoded
// dimension Order[i] (numpy.transpose(a, Order)).
type TransposeCodec struct{ Order []int }

// IndexLocation places a shard's index at its start or end.
type IndexLocation string

const (
	IndexStart IndexLocation = "start"
	IndexEnd   IndexLocation = "end"
)

// ShardingCodec stores a chunk (a shard) as inner chunks of ChunkShape,
// each encoded with Codecs, plus an index of (offset, nbytes) pairs encoded
// with IndexCodecs (fixed-size codecs only: bytes, crc32c, transpose).
// ChunkShape must divide the shard's shape in every dimension.
type ShardingCodec struct {
	ChunkShape    []int64
	Codecs        []Codec
	IndexCodecs   []Codec
	IndexLocation IndexLocation // IndexEnd when empty
}

func (BytesCodec) Name() string     { return "bytes" }
func (ZstdCodec) Name() string      { return "zstd" }
func (GzipCodec) Name() string      { return "gzip" }
func (ZlibCodec) Name() string      { return "zlib" }
func (CRC32CCodec) Name() string    { return "crc32c" }
func (TransposeCodec) Name() string { return "transpose" }
func (ShardingCodec) Name() string  { return "sharding_indexed" }

func (BytesCodec) kind() codecKind     { return arrayToBytes }
func (ZstdCodec) kind() codecKind      { return bytesToBytes }
func (GzipCodec) kind() codecKind      { return bytesToBytes }
func (ZlibCodec) kind() codecKind      { return bytesToBytes }
func (CRC32CCodec) kind() codecKind    { return bytesToBytes }
func (TransposeCodec) kind() codecKind { return arrayToArray }
func (ShardingCodec) kind() codecKind  { return arrayToBytes }

// unsupportedCodecs are real Zarr codecs dt64 does not implement yet; they
// get an ErrUnsupported error rather than "unknown codec".
var unsupportedCodecs = map[string]bool{
	"numcodecs.blosc": true, "lz4": true, "numcodecs.lz4": true,
	"vlen-utf8": true, "vlen-bytes": true, "bz2": true, "numcodecs.bz2": true,
	"lzma": true, "numcodecs.lzma": true, "zfp": true, "pcodec": true,
}

var knownCodecs = map[string]bool{
	"bytes": true, "zstd": true, "gzip": true, "crc32c": true,
	"transpose": true, "sharding_indexed": true, "blosc": true,
	"numcodecs.zlib": true,
}

// strictUnmarshal decodes JSON into v rejecting unknown fields, so a typo
// in a codec configuration is an error, not a silent default. Keys must
// match exactly: encoding/json would take "Endian" for "endian", but Zarr
// implementations compare keys case-sensitively, and a key another reader
// ignores must not mean something to dt64.
func strictUnmarshal(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data after JSON value")
	}
	return exactKeys(b, v)
}

// exactKeys checks that every key of the JSON object b is, byte for byte,
// the JSON name of a field of the struct v points to.
func exactKeys(b []byte, v any) error {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var obj map[string]json.RawMessage
	if t.Kind() != reflect.Struct || json.Unmarshal(b, &obj) != nil {
		return nil // not an object into a struct: Decode judged it
	}
	for k := range obj {
		if !hasJSONField(t, k) {
			return fmt.Errorf("json: unknown field %q (keys are case-sensitive)", k)
		}
	}
	return nil
}

func hasJSONField(t reflect.Type, key string) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
			continue
		case name == "":
			name = f.Name
		}
		if name == key {
			return true
		}
	}
	return false
}

// parseCodecV3 parses one element of a v3 "codecs" array: an object
// {"name": ..., "configuration": {...}} or a bare name string.
//
// depth is the number of sharding codecs around this one.
func parseCodecV3(raw json.RawMessage, depth int) (Codec, error) {
	var name string
	var config json.RawMessage
	if len(raw) > 0 && raw[0] == '"' {
		if err := json.Unmarshal(raw, &name); err != nil {
			return nil, err
		}
	} else {
		var obj struct {
			Name           *string         `json:"name"`
			Configuration  json.RawMessage `json:"configuration"`
			MustUnderstand *bool           `json:"must_understand"`
		}
		if err := strictUnmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("codec must be an object with \"name\" and \"configuration\": %v", err)
		}
		if obj.Name == nil {
			return nil, errors.New("codec has no \"name\"")
		}
		name, config = *obj.Name, obj.Configuration
	}
	if len(config) == 0 || string(config) == "null" {
		config = json.RawMessage("{}")
	}
	if !knownCodecs[name] {
		if unsupportedCodecs[name] {
			return nil, fmt.Errorf("codec %q is %w", name, ErrUnsupported)
		}
		return nil, fmt.Errorf("unknown codec %q", name)
	}
	if name == "sharding_indexed" && depth >= maxShardingDepth {
		return nil, errShardingDepth
	}
	c, err := parseCodecConfig(name, config, depth)
	if err != nil {
		return nil, inField("configuration", err)
	}
	return c, nil
}

func parseCodecConfig(name string, config json.RawMessage, depth int) (Codec, error) {
	switch name {
	case "bytes":
		var cfg struct {
			Endian *string `json:"endian"`
		}
		if err := strictUnmarshal(config, &cfg); err != nil {
			return nil, fmt.Errorf("bytes codec: %v", err)
		}
		if cfg.Endian == nil {
			return BytesCodec{}, nil // valid for 1-byte types only: the chain checks
		}
		switch *cfg.Endian {
		case "little":
			return BytesCodec{Endian: binary.LittleEndian}, nil
		case "big":
			return BytesCodec{Endian: binary.BigEndian}, nil
		}
		return nil, fmt.Errorf("bytes codec: endian %q (want \"little\" or \"big\")", *cfg.Endian)
	case "zstd":
		var cfg struct {
			Level    *int  `json:"level"`
			Checksum *bool `json:"checksum"`
		}
		if err := strictUnmarshal(config, &cfg); err != nil {
			return nil, fmt.Errorf("zstd codec: %v", err)
		}
		c := ZstdCodec{}
		if cfg.Level != nil {
			c.Level = *cfg.Level
		}
		if cfg.Checksum != nil {
			c.Checksum = *cfg.Checksum
		}
		return c, c.validate()
	case "gzip":
		var cfg struct {
			Level *int `json:"level"`
		}
		if err := strictUnmarshal(config, &cfg); err != nil {
			return nil, fmt.Errorf("gzip codec: %v", err)
		}
		if cfg.Level == nil {
			return nil, errors.New("gzip codec: \"level\" is required")
		}
		c := GzipCodec{Level: *cfg.Level}
		return c, c.validate()
	case "blosc":
		return parseBloscV3(config)
	case "numcodecs.zlib":
		// How zarr-python 3's migration (and numcodecs.zarr3) writes a v2
		// zlib compressor in v3.
		var cfg struct {
			Level *int `json:"level"`
		}
		if err := strictUnmarshal(config, &cfg); err != nil {
			return nil, fmt.Errorf("numcodecs.zlib codec: %v", err)
		}
		c := ZlibCodec{Level: 1} // numcodecs' Zlib default
		if cfg.Level != nil {
			c.Level = *cfg.Level
		}
		return c, c.validate()
	case "crc32c":
		var cfg struct{}
		if err := strictUnmarshal(config, &cfg); err != nil {
			return nil, fmt.Errorf("crc32c codec: %v", err)
		}
		return CRC32CCodec{}, nil
	case "transpose":
		var cfg struct {
			Order []int `json:"order"`
		}
		if err := strictUnmarshal(config, &cfg); err != nil {
			return nil, fmt.Errorf("transpose codec: \"order\" must be a list of dimension numbers: %v", err)
		}
		if cfg.Order == nil {
			return nil, errors.New("transpose codec: \"order\" is required")
		}
		return TransposeCodec{Order: cfg.Order}, nil
	case "sharding_indexed":
		var cfg struct {
			ChunkShape    []int64           `json:"chunk_shape"`
			Codecs        []json.RawMessage `json:"codecs"`
			IndexCodecs   []json.RawMessage `json:"index_codecs"`
			IndexLocation *string           `json:"index_location"`
		}
		if err := strictUnmarshal(config, &cfg); err != nil {
			return nil, fmt.Errorf("sharding_indexed codec: %v", err)
		}
		if cfg.ChunkShape == nil {
			return nil, inField("chunk_shape", errors.New("required"))
		}
		c := ShardingCodec{ChunkShape: cfg.ChunkShape, IndexLocation: IndexEnd}
		if cfg.IndexLocation != nil {
			switch loc := IndexLocation(*cfg.IndexLocation); loc {
			case IndexStart, IndexEnd:
				c.IndexLocation = loc
			default:
				return nil, inField("index_location", fmt.Errorf("%q (want \"start\" or \"end\")", loc))
			}
		}
		var err error
		if c.Codecs, err = parseCodecListV3(cfg.Codecs, depth+1); err != nil {
			return nil, inField("codecs", err)
		}
		if cfg.Codecs == nil {
			return nil, inField("codecs", errors.New("required"))
		}
		if c.IndexCodecs, err = parseCodecListV3(cfg.IndexCodecs, depth+1); err != nil {
			return nil, inField("index_codecs", err)
		}
		if cfg.IndexCodecs == nil {
			return nil, inField("index_codecs", errors.New("required"))
		}
		return c, nil
	}
	return nil, fmt.Errorf("unknown codec %q", name)
}

// maxShardingDepth bounds how deeply sharding codecs nest (each one's
// inner codecs holding the next). Real arrays use one level, rarely two.
// Each level decodes its own configuration again, so parsing costs the
// document's size times the depth, and compiling allocates per level:
// without a bound a small zarr.json takes seconds to open.
const maxShardingDepth = 16

// shardingDepth is how deeply sharding codecs nest in codecs.
func shardingDepth(codecs []Codec) int {
	d := 0
	for _, c := range codecs {
		if sc, ok := c.(ShardingCodec); ok {
			d = max(d, 1+shardingDepth(sc.Codecs), 1+shardingDepth(sc.IndexCodecs))
		}
	}
	return d
}

var errShardingDepth = fmt.Errorf("sharding_indexed codecs nested more than %d deep; dt64 refuses deeper nesting", maxShardingDepth)

// parseCodecListV3 parses a v3 codec list inside depth sharding codecs.
func parseCodecListV3(raws []json.RawMessage, depth int) ([]Codec, error) {
	codecs := make([]Codec, 0, len(raws))
	for i, raw := range raws {
		c, err := parseCodecV3(raw, depth)
		if err != nil {
			return nil, inField(fmt.Sprintf("[%d]", i), err)
		}
		codecs = append(codecs, c)
	}
	return codecs, nil
}

func (c ZstdCodec) validate() error {
	// zstd's own range: ZSTD_minCLevel() is -131072, ZSTD_maxCLevel() 22.
	if c.Level < -131072 || c.Level > 22 {
		return fmt.Errorf("zstd codec: level %d out of range [-131072, 22]", c.Level)
	}
	return nil
}

func (c GzipCodec) validate() error {
	if c.Level < 0 || c.Level > 9 {
		return fmt.Errorf("gzip codec: level %d out of range [0, 9]", c.Level)
	}
	return nil
}

func (c ZlibCodec) validate() error {
	if c.Level < 0 || c.Level > 9 {
		return fmt.Errorf("zlib codec: level %d out of range [0, 9]", c.Level)
	}
	return nil
}

func endianName(o binary.ByteOrder) (string, error) {
	switch {
	case isLittle(o):
		return "little", nil
	case isBig(o):
		return "big", nil
	}
	return "", fmt.Errorf("bytes codec: byte order %v (want binary.LittleEndian or binary.BigEndian)", o)
}

// codecJSONV3 is the zarr.json form of c.
func codecJSONV3(c Codec, elem int) (any, error) {
	type named struct {
		Name          string `json:"name"`
		Configuration any    `json:"configuration,omitempty"`
	}
	switch c := c.(type) {
	case BytesCodec:
		if c.Endian == nil && elem == 1 {
			return named{Name: "bytes"}, nil // a byte has no order
		}
		e, err := endianName(c.Endian)
		if err != nil {
			return nil, err
		}
		return named{"bytes", map[string]string{"endian": e}}, nil
	case ZstdCodec:
		return named{"zstd", struct {
			Level    int  `json:"level"`
			Checksum bool `json:"checksum"`
		}{c.Level, c.Checksum}}, nil
	case GzipCodec:
		return named{"gzip", map[string]int{"level": c.Level}}, nil
	case ZlibCodec:
		return named{"numcodecs.zlib", map[string]int{"level": c.Level}}, nil
	case BloscCodec:
		return bloscJSONV3(c, elem), nil
	case CRC32CCodec:
		return named{Name: "crc32c"}, nil
	case TransposeCodec:
		return named{"transpose", map[string][]int{"order": c.Order}}, nil
	case ShardingCodec:
		inner, err := codecListJSONV3(c.Codecs, elem)
		if err != nil {
			return nil, err
		}
		index, err := codecListJSONV3(c.IndexCodecs, 8)
		if err != nil {
			return nil, err
		}
		loc := c.IndexLocation
		if loc == "" {
			loc = IndexEnd
		}
		return named{"sharding_indexed", struct {
			ChunkShape    []int64       `json:"chunk_shape"`
			Codecs        []any         `json:"codecs"`
			IndexCodecs   []any         `json:"index_codecs"`
			IndexLocation IndexLocation `json:"index_location"`
		}{c.ChunkShape, inner, index, loc}}, nil
	case nil:
		return nil, errors.New("nil codec")
	}
	return nil, fmt.Errorf("codec %q cannot be written to a Zarr v3 array", c.Name())
}

func codecListJSONV3(cs []Codec, elem int) ([]any, error) {
	out := make([]any, 0, len(cs))
	for _, c := range cs {
		j, err := codecJSONV3(c, elem)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}

// isLittle reports whether o is little-endian, whatever its Go type
// (binary.LittleEndian, or binary.NativeEndian on a little-endian host).
func isLittle(o binary.ByteOrder) bool {
	if o == nil {
		return false
	}
	return o.Uint16([]byte{1, 0}) == 1
}

func isBig(o binary.ByteOrder) bool {
	if o == nil {
		return false
	}
	return o.Uint16([]byte{0, 1}) == 1
}

// normalOrder maps any little- or big-endian ByteOrder to binary.LittleEndian
// or binary.BigEndian, so orders compare with ==.
func normalOrder(o binary.ByteOrder) binary.ByteOrder {
	if isLittle(o) {
		return binary.LittleEndian
	}
	if isBig(o) {
		return binary.BigEndian
	}
	return nil
}
