package zarr

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/zarr-dt64/dt64/dtype"
)

// Metadata document names.
const (
	v3MetadataKey = "zarr.json"
	v2ArrayKey    = ".zarray"
	v2AttrsKey    = ".zattrs"
)

// jsonType names the JSON type of raw for error messages.
func jsonType(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func parseObject(b []byte) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("malformed JSON at byte %d: %v", se.Offset, err)
		}
		return nil, fmt.Errorf("must be a JSON object, not %s", jsonType(b))
	}
	if obj == nil {
		return nil, errors.New("must be a JSON object, not null")
	}
	return obj, nil
}

// unmarshalField decodes obj[key] into v (required unless optional).
func unmarshalField(obj map[string]json.RawMessage, key string, v any, optional bool) (bool, error) {
	raw, ok := obj[key]
	if !ok {
		if optional {
			return false, nil
		}
		return false, inField(key, errors.New("required field is missing"))
	}
	if err := json.Unmarshal(raw, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return true, inField(key, fmt.Errorf("got %s %s, want %s", jsonType(raw), string(truncate(raw)), te.Type))
		}
		return true, inField(key, err)
	}
	return true, nil
}

func truncate(b []byte) []byte {
	if len(b) > 60 {
		return append(append([]byte(nil), b[:60]...), "..."...)
	}
	return b
}

var v3Fields = map[string]bool{
	"zarr_format": true, "node_type": true, "shape": true, "data_type": true,
	"chunk_grid": true, "chunk_key_encoding": true, "fill_value": true,
	"codecs": true, "attributes": true, "dimension_names": true,
	"storage_transformers": true,
}

// parseV3 parses a zarr.json. Errors are tagged with the field.
func parseV3(b []byte) (Metadata, error) {
	m := Metadata{Format: 3}
	obj, err := parseObject(b)
	if err != nil {
		return m, err
	}
	var format int
	if _, err := unmarshalField(obj, "zarr_format", &format, false); err != nil {
		return m, err
	}
	if format != 3 {
		return m, inField("zarr_format", fmt.Errorf("%d (want 3)", format))
	}
	var node string
	if _, err := unmarshalField(obj, "node_type", &node, false); err != nil {
		return m, err
	}
	if node != "array" {
		return m, inField("node_type", fmt.Errorf("%q: not an array", node))
	}
	if _, err := unmarshalField(obj, "shape", &m.Shape, false); err != nil {
		return m, err
	}
	if m.Shape == nil {
		return m, inField("shape", errors.New("must be an array of integers"))
	}
	raw, ok := obj["data_type"]
	if !ok {
		return m, inField("data_type", errors.New("required field is missing"))
	}
	if m.DataType, err = dtype.ParseJSON(raw); err != nil {
		return m, inField("data_type", err)
	}

	var cg struct {
		Name          string          `json:"name"`
		Configuration json.RawMessage `json:"configuration"`
	}
	if _, err := unmarshalField(obj, "chunk_grid", &cg, false); err != nil {
		return m, err
	}
	if cg.Name != "regular" {
		return m, inField("chunk_grid.name", fmt.Errorf("%q (only \"regular\" grids are supported)", cg.Name))
	}
	var cgc struct {
		ChunkShape []int64 `json:"chunk_shape"`
	}
	if err := strictUnmarshal(orEmpty(cg.Configuration), &cgc); err != nil {
		return m, inField("chunk_grid.configuration", err)
	}
	if cgc.ChunkShape == nil {
		return m, inField("chunk_grid.configuration.chunk_shape", errors.New("required field is missing"))
	}
	m.ChunkShape = cgc.ChunkShape

	var ke struct {
		Name          string          `json:"name"`
		Configuration json.RawMessage `json:"configuration"`
	}
	if _, err := unmarshalField(obj, "chunk_key_encoding", &ke, false); err != nil {
		return m, err
	}
	m.KeyEncoding.Name = ke.Name
	var kec struct {
		Separator *string `json:"separator"`
	}
	if err := strictUnmarshal(orEmpty(ke.Configuration), &kec); err != nil {
		return m, inField("chunk_key_encoding.configuration", err)
	}
	switch {
	case kec.Separator != nil:
		m.KeyEncoding.Separator = *kec.Separator
	case ke.Name == "v2":
		m.KeyEncoding.Separator = "."
	default:
		m.KeyEncoding.Separator = "/"
	}

	raw, ok = obj["fill_value"]
	if !ok {
		return m, inField("fill_value", errors.New("required field is missing"))
	}
	if m.FillValue, err = dtype.ParseFillValue(raw); err != nil {
		return m, inField("fill_value", err)
	}

	var codecs []json.RawMessage
	if _, err := unmarshalField(obj, "codecs", &codecs, false); err != nil {
		return m, err
	}
	if m.Codecs, err = parseCodecListV3(codecs); err != nil {
		return m, inField("codecs", err)
	}

	if raw, ok := obj["attributes"]; ok {
		m.Attributes = raw
	}
	if raw, ok := obj["dimension_names"]; ok && string(bytes.TrimSpace(raw)) != "null" {
		m.DimensionNames = raw
	}
	if raw, ok := obj["storage_transformers"]; ok {
		var st []json.RawMessage
		if err := json.Unmarshal(raw, &st); err != nil {
			return m, inField("storage_transformers", fmt.Errorf("must be an array, not %s", jsonType(raw)))
		}
		if len(st) > 0 {
			var t struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(st[0], &t)
			return m, inField("storage_transformers", fmt.Errorf("storage transformer %q is %w", t.Name, ErrUnsupported))
		}
	}

	for _, key := range sortedKeys(obj) {
		if v3Fields[key] {
			continue
		}
		var ext struct {
			MustUnderstand *bool `json:"must_understand"`
		}
		raw := obj[key]
		if raw[0] != '{' || json.Unmarshal(raw, &ext) != nil || ext.MustUnderstand == nil || *ext.MustUnderstand {
			return m, inField(key, errors.New("unknown extension field (only objects with \"must_understand\": false may be ignored)"))
		}
		if m.Extensions == nil {
			m.Extensions = make(map[string]json.RawMessage)
		}
		m.Extensions[key] = raw
	}
	return m, nil
}

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return json.RawMessage("{}")
	}
	return raw
}

func sortedKeys(obj map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// docWriter writes a JSON object member by member, so that raw values
// (attributes, extensions) go out byte for byte while dt64's own values are
// indented like zarr-python's.
type docWriter struct {
	buf    bytes.Buffer
	indent string
	n      int
	err    error
}

func newDocWriter(indent string) *docWriter {
	w := &docWriter{indent: indent}
	w.buf.WriteString("{")
	return w
}

func (w *docWriter) raw(key string, raw []byte) {
	if w.n > 0 {
		w.buf.WriteString(",")
	}
	w.n++
	k, _ := json.Marshal(key)
	w.buf.WriteString("\n" + w.indent)
	w.buf.Write(k)
	w.buf.WriteString(": ")
	w.buf.Write(raw)
}

func (w *docWriter) value(key string, v any) {
	b, err := json.MarshalIndent(v, w.indent, w.indent)
	if err != nil {
		if w.err == nil {
			w.err = inField(key, err)
		}
		return
	}
	w.raw(key, b)
}

func (w *docWriter) bytes() ([]byte, error) {
	w.buf.WriteString("\n}\n")
	return w.buf.Bytes(), w.err
}

func marshalV3(m *Metadata) ([]byte, error) {
	w := newDocWriter("  ")
	w.value("shape", m.Shape)
	dt, err := m.DataType.MarshalJSON()
	if err != nil {
		return nil, inField("data_type", err)
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, dt, w.indent, w.indent); err != nil {
		return nil, inField("data_type", err)
	}
	w.raw("data_type", ind.Bytes())
	w.value("chunk_grid", map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": m.ChunkShape}})
	w.value("chunk_key_encoding", map[string]any{"name": m.KeyEncoding.Name, "configuration": map[string]any{"separator": m.KeyEncoding.Separator}})
	w.raw("fill_value", dtype.FormatFillValue(m.FillValue))
	codecs, err := codecListJSONV3(m.Codecs)
	if err != nil {
		return nil, inField("codecs", err)
	}
	w.value("codecs", codecs)
	if m.Attributes != nil {
		w.raw("attributes", m.Attributes)
	}
	if m.DimensionNames != nil {
		w.raw("dimension_names", m.DimensionNames)
	}
	w.raw("zarr_format", []byte("3"))
	w.raw("node_type", []byte(`"array"`))
	w.raw("storage_transformers", []byte("[]"))
	for _, k := range sortedKeys(m.Extensions) {
		if v3Fields[k] {
			return nil, inField(k, errors.New("extension field has the name of a standard field"))
		}
		w.raw(k, m.Extensions[k])
	}
	return w.bytes()
}

// ---- v2 ----

var v2Fields = map[string]bool{
	"zarr_format": true, "shape": true, "chunks": true, "dtype": true,
	"compressor": true, "fill_value": true, "order": true, "filters": true,
	"dimension_separator": true,
}

var unsupportedCompressors = map[string]bool{
	"lz4": true, "bz2": true, "lzma": true, "zfp": true,
	"zfpy": true, "lzf": true, "snappy": true, "pcodec": true,
}

func parseV2(b []byte) (Metadata, error) {
	m := Metadata{Format: 2, KeyEncoding: KeyEncoding{Name: "v2", Separator: "."}}
	obj, err := parseObject(b)
	if err != nil {
		return m, err
	}
	var format int
	if _, err := unmarshalField(obj, "zarr_format", &format, false); err != nil {
		return m, err
	}
	if format != 2 {
		return m, inField("zarr_format", fmt.Errorf("%d (want 2)", format))
	}
	if _, err := unmarshalField(obj, "shape", &m.Shape, false); err != nil {
		return m, err
	}
	if m.Shape == nil {
		return m, inField("shape", errors.New("must be an array of integers"))
	}
	if _, err := unmarshalField(obj, "chunks", &m.ChunkShape, false); err != nil {
		return m, err
	}
	if m.ChunkShape == nil {
		return m, inField("chunks", errors.New("must be an array of integers"))
	}
	var dt string
	if _, err := unmarshalField(obj, "dtype", &dt, false); err != nil {
		return m, err
	}
	dtyp, order, err := dtype.ParseNumPy(dt)
	if err != nil {
		return m, inField("dtype", err)
	}
	m.DataType = dtyp
	m.Codecs = []Codec{BytesCodec{Endian: normalOrder(order)}}

	var order2 string
	if _, err := unmarshalField(obj, "order", &order2, false); err != nil {
		return m, err
	}
	switch order2 {
	case "C":
	case "F":
		return m, inField("order", errors.New(`"F" (Fortran order) is not supported; only "C"`))
	default:
		return m, inField("order", fmt.Errorf("%q (want \"C\")", order2))
	}

	var filters []json.RawMessage
	if _, err := unmarshalField(obj, "filters", &filters, true); err != nil {
		return m, err
	}
	if len(filters) > 0 {
		var f struct {
			ID string `json:"id"`
		}
		_ = json.Unmarshal(filters[0], &f)
		return m, inField("filters", fmt.Errorf("filter %q: filters are %w", f.ID, ErrUnsupported))
	}

	raw, ok := obj["compressor"]
	if !ok {
		return m, inField("compressor", errors.New("required field is missing"))
	}
	if string(bytes.TrimSpace(raw)) != "null" {
		c, err := parseCompressorV2(raw)
		if err != nil {
			return m, inField("compressor", err)
		}
		m.Codecs = append(m.Codecs, c)
	}

	raw, ok = obj["fill_value"]
	if !ok {
		return m, inField("fill_value", errors.New("required field is missing"))
	}
	if m.FillValue, m.FillNull, err = dtype.ParseFillValueV2(raw); err != nil {
		return m, inField("fill_value", err)
	}
	if m.FillNull {
		m.FillValue = dtype.NaT
	}

	var sep string
	if ok, err := unmarshalField(obj, "dimension_separator", &sep, true); err != nil {
		return m, err
	} else if ok {
		m.KeyEncoding.Separator = sep
	}

	for _, key := range sortedKeys(obj) {
		if !v2Fields[key] {
			if m.Extensions == nil {
				m.Extensions = make(map[string]json.RawMessage)
			}
			m.Extensions[key] = obj[key]
		}
	}
	return m, nil
}

func parseCompressorV2(raw json.RawMessage) (Codec, error) {
	var head struct {
		ID *string `json:"id"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("must be null or an object with an \"id\", not %s", jsonType(raw))
	}
	if head.ID == nil {
		return nil, errors.New("has no \"id\"")
	}
	id := *head.ID
	switch id {
	case "zstd":
		var cfg struct {
			ID       string `json:"id"`
			Level    *int   `json:"level"`
			Checksum *bool  `json:"checksum"`
		}
		if err := strictUnmarshal(raw, &cfg); err != nil {
			return nil, fmt.Errorf("zstd: %v", err)
		}
		c := ZstdCodec{Level: 1} // numcodecs' Zstd default
		if cfg.Level != nil {
			c.Level = *cfg.Level
		}
		if cfg.Checksum != nil {
			c.Checksum = *cfg.Checksum
		}
		return c, c.validate()
	case "zlib", "gzip":
		var cfg struct {
			ID    string `json:"id"`
			Level *int   `json:"level"`
		}
		if err := strictUnmarshal(raw, &cfg); err != nil {
			return nil, fmt.Errorf("%s: %v", id, err)
		}
		level := 1 // numcodecs' Zlib and GZip default
		if cfg.Level != nil {
			level = *cfg.Level
		}
		if id == "zlib" {
			c := ZlibCodec{Level: level}
			return c, c.validate()
		}
		c := GzipCodec{Level: level}
		return c, c.validate()
	}
	if id == "blosc" {
		return parseBloscV2(raw)
	}
	if unsupportedCompressors[id] {
		return nil, fmt.Errorf("compressor %q is %w", id, ErrUnsupported)
	}
	return nil, fmt.Errorf("unknown compressor %q", id)
}

func marshalV2(m *Metadata) ([]byte, error) {
	fields := map[string]any{}
	fields["zarr_format"] = 2
	fields["shape"] = m.Shape
	fields["chunks"] = m.ChunkShape
	o := m.ByteOrder()
	if o == nil {
		return nil, inField("dtype", errors.New("no byte order"))
	}
	fields["dtype"] = m.DataType.NumPy(o)
	fields["order"] = "C"
	fields["filters"] = nil
	fields["dimension_separator"] = m.KeyEncoding.Separator
	if m.FillNull {
		fields["fill_value"] = nil
	} else {
		fields["fill_value"] = json.RawMessage(dtype.FormatFillValue(m.FillValue))
	}
	var comp any
	if len(m.Codecs) == 2 {
		switch c := m.Codecs[1].(type) {
		case ZstdCodec:
			z := map[string]any{"id": "zstd", "level": c.Level}
			if c.Checksum {
				z["checksum"] = true // numcodecs >= 0.13 only; omitted when false for older readers
			}
			comp = z
		case GzipCodec:
			comp = map[string]any{"id": "gzip", "level": c.Level}
		case ZlibCodec:
			comp = map[string]any{"id": "zlib", "level": c.Level}
		case BloscCodec:
			comp = bloscJSONV2(c)
		}
	}
	fields["compressor"] = comp
	keys := make([]string, 0, len(fields)+len(m.Extensions))
	for k := range fields {
		keys = append(keys, k)
	}
	for k := range m.Extensions {
		if v2Fields[k] {
			return nil, inField(k, errors.New("extension field has the name of a standard field"))
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// zarr-python 2 writes .zarray with sorted keys and 4-space indents.
	w := newDocWriter("    ")
	for _, k := range keys {
		if v, ok := fields[k]; ok {
			w.value(k, v)
		} else {
			w.raw(k, m.Extensions[k])
		}
	}
	return w.bytes()
}

// byteOrderName is for messages.
func byteOrderName(o binary.ByteOrder) string {
	switch {
	case isLittle(o):
		return "little-endian"
	case isBig(o):
		return "big-endian"
	}
	return "unknown byte order"
}
