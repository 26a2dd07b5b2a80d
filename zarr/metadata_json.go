package zarr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/internal/pyjson"
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

// utf8BOM is the UTF-8 encoding of U+FEFF. RFC 8259 section 8.1 forbids
// it at the start of a JSON text; some Windows editors add it.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

var errBOM = errors.New("starts with a UTF-8 byte order mark (bytes EF BB BF), which JSON does not allow (RFC 8259 section 8.1); save the file without it")

// parseObject parses a metadata document: a JSON object with no duplicate
// key at any level. For a zarr.json (v3), it also bounds the nesting of
// codec lists (see checkJSON).
func parseObject(b []byte, v3 bool) (map[string]json.RawMessage, error) {
	if bytes.HasPrefix(b, utf8BOM) {
		return nil, errBOM
	}
	if err := checkDepth(b); err != nil {
		return nil, err
	}
	b = pyjson.FromPython(b) // Python's bare NaN attributes (pynan.go)
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
	// After Unmarshal, so the document is known to be valid JSON within
	// encoding/json's nesting limit.
	if err := checkJSON(b, v3); err != nil {
		return nil, err
	}
	return obj, nil
}

// maxJSONDepth bounds the nesting of objects and arrays in a metadata
// document. Python's json reader (zarr-python, xarray) stops near 1,000
// levels at its recursion limit; encoding/json allows 10,000, and writing
// such a document indented costs memory quadratic in its depth.
const maxJSONDepth = pyjson.MaxDepth

// DepthError reports a metadata document nested deeper than maxJSONDepth.
type DepthError struct {
	Offset int64 // the byte that opens the level too many
	Limit  int
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("objects and arrays nested deeper than dt64's limit of %d levels at byte %d (Python's json reader stops near 1000)", e.Limit, e.Offset)
}

// checkDepth refuses a document nested deeper than maxJSONDepth, in one
// pass over its bytes before any decoding (strings skipped).
func checkDepth(b []byte) error {
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			if depth++; depth > maxJSONDepth {
				return &DepthError{Offset: int64(i), Limit: maxJSONDepth}
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}

// checkAttrs checks a .zattrs document: a JSON object, parsed as
// strictly as the other metadata documents.
func checkAttrs(b []byte) error {
	_, err := parseObject(b, false)
	return err
}

// jsonFrame is an object or array being walked by checkJSON.
type jsonFrame struct {
	object  bool
	keys    map[string]struct{} // object keys seen so far
	key     string              // object: the current member's key
	wantKey bool                // object: the next string token is a key
	index   int                 // array: the current element's index
	// codecLists counts the "codecs" and "index_codecs" members on the
	// path from the top-level "codecs" to this value, itself included.
	codecLists int
}

// checkJSON reports the first object, at any depth of the valid JSON
// document b, that has a key twice. encoding/json keeps the last value and
// other readers keep the first, so they would disagree on what the array
// is: refuse instead. The error is tagged with the key's path.
//
// With codecs set (a zarr.json), it also refuses codec lists nested more
// than maxShardingDepth+1 deep under the top-level "codecs": that many
// lists means sharding nested deeper than parseCodecListV3 allows, and
// finding it here, in one pass, spares decoding each level's
// configuration again before the parser would find it.
func checkJSON(b []byte, codecs bool) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // numbers are skipped, never converted
	var stack []jsonFrame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var top *jsonFrame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if key, ok := tok.(string); ok && top != nil && top.object && top.wantKey {
			if _, dup := top.keys[key]; dup {
				top.key = key
				return inField(jsonPath(stack), fmt.Errorf("duplicate key %q (JSON readers disagree on which of its values counts)", key))
			}
			if top.keys == nil {
				top.keys = make(map[string]struct{})
			}
			top.keys[key] = struct{}{}
			top.key, top.wantKey = key, false
			continue
		}
		// tok starts or ends a value, or is a whole scalar value.
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if top != nil {
			if top.object {
				top.wantKey = true
			} else {
				top.index++
			}
		}
		if tok != json.Delim('{') && tok != json.Delim('[') {
			continue
		}
		f := jsonFrame{object: tok == json.Delim('{'), wantKey: true, index: -1}
		if codecs && top != nil && stack[0].key == "codecs" {
			f.codecLists = top.codecLists
			if top.object && (top.key == "codecs" || top.key == "index_codecs") {
				f.codecLists++
			}
			if f.codecLists > maxShardingDepth+1 {
				return inField(jsonPath(stack), errShardingDepth)
			}
		}
		stack = append(stack, f)
	}
}

// jsonPath names the current position of stack's innermost member, as
// "codecs[0].configuration.level".
func jsonPath(stack []jsonFrame) string {
	var p strings.Builder
	for _, f := range stack {
		if !f.object {
			fmt.Fprintf(&p, "[%d]", f.index)
			continue
		}
		if p.Len() > 0 {
			p.WriteByte('.')
		}
		p.WriteString(f.key)
	}
	return p.String()
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
	obj, err := parseObject(b, true)
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
	var name string
	if json.Unmarshal(raw, &name) == nil {
		m.Numeric, _ = parseNumericV3(name)
	}
	if m.IsTime() {
		if m.DataType, err = dtype.ParseJSON(raw); err != nil {
			return m, inField("data_type", err)
		}
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
	if m.IsTime() {
		m.FillValue, err = dtype.ParseFillValue(raw)
	} else {
		m.NumericFill, _, err = parseNumericFill(raw, m.Numeric, false)
	}
	if err != nil {
		return m, inField("fill_value", err)
	}

	var codecs []json.RawMessage
	if _, err := unmarshalField(obj, "codecs", &codecs, false); err != nil {
		return m, err
	}
	if m.Codecs, err = parseCodecListV3(codecs, 0); err != nil {
		return m, inField("codecs", err)
	}
	// zarr.json always gets a typesize written: read an absent one as the
	// element size it means, so the metadata survives a write and a read.
	setBloscTypeSize(m.Codecs, m.ElementSize())

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
	k, _ := marshalNoEscape(key, "")
	w.buf.WriteString("\n" + w.indent)
	w.buf.Write(k)
	w.buf.WriteString(": ")
	w.buf.Write(raw)
}

func (w *docWriter) value(key string, v any) {
	b, err := marshalNoEscape(v, w.indent)
	if err != nil {
		if w.err == nil {
			w.err = inField(key, err)
		}
		return
	}
	w.raw(key, b)
}

// marshalNoEscape is json.MarshalIndent (prefix and indent both indent;
// none when "") without HTML escaping: json.Marshal writes "<M8[ns]" as
// "\u003cM8[ns]", valid JSON but not what zarr-python writes or a person
// reading .zarray expects.
func marshalNoEscape(v any, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent != "" {
		enc.SetIndent(indent, indent)
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// bytes ends the document. Python's bare NaN and Infinity tokens in
// attributes (pyjson's placeholders) are written back as Python wrote
// them in a v2 document; in a v3 one, which must be JSON, as the strings
// "NaN", "Infinity" and "-Infinity", as zarr-python 3 writes them
// (_replace_special_floats).
func (w *docWriter) bytes(v3 bool) ([]byte, error) {
	w.buf.WriteString("\n}\n")
	if v3 {
		return pyjson.Strict(w.buf.Bytes()), w.err
	}
	return pyjson.ToPython(w.buf.Bytes()), w.err
}

func marshalV3(m *Metadata) ([]byte, error) {
	w := newDocWriter("  ")
	w.value("shape", m.Shape)
	dt, err := []byte(`"`+m.Numeric.String()+`"`), error(nil)
	if m.IsTime() {
		dt, err = m.DataType.MarshalJSON()
	}
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
	if m.IsTime() {
		w.raw("fill_value", dtype.FormatFillValue(m.FillValue))
	} else {
		w.raw("fill_value", formatNumericFill(m.Numeric, m.NumericFill, false))
	}
	codecs, err := codecListJSONV3(m.Codecs, m.ElementSize())
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
	return w.bytes(true)
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
	obj, err := parseObject(b, false)
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
	num, order, ok, err := parseNumericV2(dt)
	if err != nil {
		return m, inField("dtype", err)
	}
	if ok {
		m.Numeric = num
	} else if m.DataType, order, err = dtype.ParseNumPy(dt); err != nil {
		return m, inField("dtype", err)
	}
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
	if m.IsTime() {
		m.FillValue, m.FillNull, err = dtype.ParseFillValueV2(raw)
	} else {
		m.NumericFill, m.FillNull, err = parseNumericFill(raw, m.Numeric, true)
	}
	if err != nil {
		return m, inField("fill_value", err)
	}
	if m.FillNull && m.IsTime() {
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
	// numcodecs' Blosc takes its typesize from the dtype: say so, as a
	// zarr.json read does, so the codec describes itself as it works.
	setBloscTypeSize(m.Codecs, m.ElementSize())
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
	if o == nil && m.ElementSize() > 1 {
		return nil, inField("dtype", errors.New("no byte order"))
	}
	if m.IsTime() {
		fields["dtype"] = m.DataType.NumPy(o)
	} else {
		fields["dtype"] = m.Numeric.NumPy(o)
	}
	fields["order"] = "C"
	fields["filters"] = nil
	if m.KeyEncoding.Separator != "." {
		// "." is the default, which zarr-python 2 does not write.
		fields["dimension_separator"] = m.KeyEncoding.Separator
	}
	switch {
	case m.FillNull:
		fields["fill_value"] = nil
	case m.IsTime():
		fields["fill_value"] = json.RawMessage(dtype.FormatFillValue(m.FillValue))
	default:
		fields["fill_value"] = formatNumericFill(m.Numeric, m.NumericFill, true)
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
	return w.bytes(false)
}

// setBloscTypeSize sets blosc codecs' unset TypeSize to elem (the index
// codecs of a shard hold no blosc).
func setBloscTypeSize(cs []Codec, elem int) {
	for i, c := range cs {
		switch c := c.(type) {
		case BloscCodec:
			if c.TypeSize == 0 {
				c.TypeSize = elem
				cs[i] = c
			}
		case ShardingCodec:
			setBloscTypeSize(c.Codecs, elem)
		}
	}
}
