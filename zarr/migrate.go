package zarr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
)

// ErrUntranslatable is wrapped by MigrateV2Array's and MigrateV3Array's
// errors for an array whose metadata has no equivalent in the other Zarr
// format that dt64 can write.
var ErrUntranslatable = errors.New("no translation to the other Zarr format")

// MigrateV2Array translates the v2 array node n (Metadata the .zarray
// document, AttrsDoc its .zattrs) into a Zarr v3 zarr.json the way
// zarr-python 3.1's v2 → v3 migration (zarr.metadata.migrate_v3) does, so
// that the chunk files stay valid byte for byte:
//
//   - the v3 core data type name ("<f4" → "float32"), the byte order in
//     the bytes codec (no configuration for one-byte types);
//   - order "F" as a transpose codec, filters as "numcodecs.<id>" codecs;
//   - the compressor as the v3 blosc, zstd or gzip codec, any other as
//     "numcodecs.<id>" with its configuration;
//   - chunk_key_encoding "v2" with the array's dimension separator.
//
// One difference, on purpose: xarray's "_ARRAY_DIMENSIONS" attribute
// becomes the v3 "dimension_names" field (and leaves the attributes), as
// xarray and zarr-python write a v3 array themselves; zarr-python's
// migration leaves it an attribute.
//
// A v2 fill_value null (xarray's, for integers and bools without a
// _FillValue) becomes the type's zero, which dt64 reads missing chunks
// as; zarr-python's migration refuses it. An array of a data type other than bool, int, uint, float and complex
// (strings, objects, structured, datetime: time arrays are transcoded, not
// migrated) is an error wrapping ErrUntranslatable.
func MigrateV2Array(n Node) ([]byte, error) {
	v2, err := parseJSONNode(n.Metadata)
	if err != nil || v2.kind != '{' {
		return nil, fmt.Errorf("%s/.zarray: not a JSON object", n.Path)
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%w: array %q: %s", ErrUntranslatable, n.Path, fmt.Sprintf(format, a...))
	}
	t, order, ok, err := parseNumericV2(n.DataType)
	if err != nil || !ok {
		return nil, fail("data type %q is not a numeric type dt64 migrates", n.DataType)
	}
	out := jsonObject()
	member := func(key string) jsonNode {
		if v, ok := v2.get(key); ok {
			return *v
		}
		return jsonLiteral("null")
	}
	out.add("shape", member("shape"))
	out.add("data_type", jsonString(t.String()))
	grid := jsonObject()
	grid.add("name", jsonString("regular"))
	cfg := jsonObject()
	cfg.add("chunk_shape", member("chunks"))
	grid.add("configuration", cfg)
	out.add("chunk_grid", grid)
	sep := "."
	if s, ok := v2.get("dimension_separator"); ok && s.kind == '"' {
		sep = s.text
	}
	cke := jsonObject()
	cke.add("name", jsonString("v2"))
	sepCfg := jsonObject()
	sepCfg.add("separator", jsonString(sep))
	cke.add("configuration", sepCfg)
	out.add("chunk_key_encoding", cke)
	fill := member("fill_value")
	if fill.kind == 'l' && fill.text == "null" {
		// What xarray writes for integer and bool variables without a
		// _FillValue. zarr-python's migration raises on it; dt64 reads the
		// missing chunks of such an array as zero bits, so that is the v3
		// fill value.
		fill = zeroFill(t)
	}
	out.add("fill_value", fill)
	codecs, err := migrateCodecs(&v2, t, order, len(n.Shape))
	if err != nil {
		return nil, fail("%v", err)
	}
	out.add("codecs", codecs)
	attrs := jsonObject()
	if n.AttrsDoc != nil {
		if attrs, err = parseJSONNode(n.AttrsDoc); err != nil || attrs.kind != '{' {
			return nil, fmt.Errorf("%s/.zattrs: not a JSON object", n.Path)
		}
	}
	dims, hasDims := attrs.get("_ARRAY_DIMENSIONS")
	var dimNames jsonNode
	if hasDims {
		dimNames = *dims
		attrs.remove("_ARRAY_DIMENSIONS")
	}
	out.add("attributes", attrs)
	if hasDims {
		out.add("dimension_names", dimNames)
	}
	out.add("zarr_format", jsonNode{kind: 'n', text: "3"})
	out.add("node_type", jsonString("array"))
	out.add("storage_transformers", jsonNode{kind: '['})
	return pyDoc(nodeDoc(n.Path, v3MetadataKey), out, 2, false)
}

// migrateCodecs builds the v3 codec chain of a v2 array.
func migrateCodecs(v2 *jsonNode, t NumericType, order binary.ByteOrder, ndim int) (jsonNode, error) {
	chain := jsonNode{kind: '['}
	if o, ok := v2.get("order"); ok && o.kind == '"' && o.text == "F" {
		perm := jsonNode{kind: '['}
		for d := ndim - 1; d >= 0; d-- {
			perm.vals = append(perm.vals, jsonNode{kind: 'n', text: strconv.Itoa(d)})
		}
		cfg := jsonObject()
		cfg.add("order", perm)
		chain.vals = append(chain.vals, namedCodec("transpose", &cfg))
	}
	if f, ok := v2.get("filters"); ok && f.kind == '[' {
		for _, flt := range f.vals {
			c, err := numcodecsCodec(flt)
			if err != nil {
				return chain, fmt.Errorf("filter: %w", err)
			}
			chain.vals = append(chain.vals, c)
		}
	}
	if t.Size == 1 {
		chain.vals = append(chain.vals, namedCodec("bytes", nil))
	} else {
		cfg := jsonObject()
		endian := "little"
		if order == binary.BigEndian {
			endian = "big"
		}
		cfg.add("endian", jsonString(endian))
		chain.vals = append(chain.vals, namedCodec("bytes", &cfg))
	}
	c, ok := v2.get("compressor")
	if !ok || c.kind == 'l' {
		return chain, nil
	}
	if c.kind != '{' {
		return chain, errors.New("compressor is not a JSON object")
	}
	id, _ := c.get("id")
	if id == nil || id.kind != '"' {
		return chain, errors.New("compressor without an id")
	}
	num := func(key, dflt string) jsonNode {
		if v, ok := c.get(key); ok {
			return *v
		}
		return jsonNode{kind: 'n', text: dflt}
	}
	switch id.text {
	case "blosc":
		cfg := jsonObject()
		cfg.add("typesize", jsonNode{kind: 'n', text: strconv.Itoa(t.Size)})
		cname := jsonString("lz4")
		if v, ok := c.get("cname"); ok {
			cname = *v
		}
		cfg.add("cname", cname)
		cfg.add("clevel", num("clevel", "5"))
		shuffle := "shuffle"
		switch num("shuffle", "1").text {
		case "0":
			shuffle = "noshuffle"
		case "1":
			shuffle = "shuffle"
		case "2":
			shuffle = "bitshuffle"
		default:
			return chain, fmt.Errorf("blosc shuffle %s has no v3 equivalent", num("shuffle", "1").text)
		}
		cfg.add("shuffle", jsonString(shuffle))
		cfg.add("blocksize", num("blocksize", "0"))
		chain.vals = append(chain.vals, namedCodec("blosc", &cfg))
	case "zstd":
		cfg := jsonObject()
		cfg.add("level", num("level", "1"))
		checksum := jsonLiteral("false")
		if v, ok := c.get("checksum"); ok {
			checksum = *v
		}
		cfg.add("checksum", checksum)
		chain.vals = append(chain.vals, namedCodec("zstd", &cfg))
	case "gzip":
		cfg := jsonObject()
		cfg.add("level", num("level", "1"))
		chain.vals = append(chain.vals, namedCodec("gzip", &cfg))
	default:
		nc, err := numcodecsCodec(*c)
		if err != nil {
			return chain, fmt.Errorf("compressor: %w", err)
		}
		chain.vals = append(chain.vals, nc)
	}
	return chain, nil
}

// numcodecsKnown are the numcodecs codecs zarr-python 3's numcodecs.zarr3
// module (and numcodecs >= 0.13) registers under "numcodecs.<id>".
var numcodecsKnown = map[string]bool{
	"zlib": true, "bz2": true, "lzma": true, "lz4": true, "shuffle": true,
	"delta": true, "bitround": true, "fixedscaleoffset": true, "quantize": true,
	"packbits": true, "astype": true, "crc32": true, "adler32": true,
	"fletcher32": true, "jenkins_lookup3": true, "pcodec": true, "zfpy": true,
}

// numcodecsCodec is a v2 codec {"id": X, ...} as the v3
// {"name": "numcodecs.X", "configuration": {...}}.
func numcodecsCodec(c jsonNode) (jsonNode, error) {
	if c.kind != '{' {
		return c, errors.New("not a JSON object")
	}
	id, ok := c.get("id")
	if !ok || id.kind != '"' {
		return c, errors.New("no id")
	}
	if !numcodecsKnown[id.text] {
		return c, fmt.Errorf("codec %q is not one zarr-python 3 knows as numcodecs.%s", id.text, id.text)
	}
	cfg := jsonObject()
	for i, k := range c.keys {
		if k != "id" {
			cfg.add(k, c.vals[i])
		}
	}
	return namedCodec("numcodecs."+id.text, &cfg), nil
}

func namedCodec(name string, cfg *jsonNode) jsonNode {
	c := jsonObject()
	c.add("name", jsonString(name))
	if cfg != nil {
		c.add("configuration", *cfg)
	}
	return c
}

// MigrateV2Group translates the v2 group node n (.zgroup and .zattrs)
// into a Zarr v3 zarr.json as zarr-python 3.1's migration writes it.
func MigrateV2Group(n Node) ([]byte, error) {
	attrs := jsonObject()
	if n.AttrsDoc != nil {
		var err error
		if attrs, err = parseJSONNode(n.AttrsDoc); err != nil || attrs.kind != '{' {
			return nil, fmt.Errorf("%s/.zattrs: not a JSON object", n.Path)
		}
	}
	out := jsonObject()
	out.add("attributes", attrs)
	out.add("zarr_format", jsonNode{kind: 'n', text: "3"})
	out.add("consolidated_metadata", jsonLiteral("null"))
	out.add("node_type", jsonString("group"))
	return pyDoc(nodeDoc(n.Path, v3MetadataKey), out, 2, false)
}

func zeroFill(t NumericType) jsonNode {
	switch t.Kind {
	case Bool:
		return jsonLiteral("false")
	case Float:
		return jsonNode{kind: 'n', text: "0.0"}
	case Complex:
		return jsonNode{kind: '[', vals: []jsonNode{{kind: 'n', text: "0.0"}, {kind: 'n', text: "0.0"}}}
	}
	return jsonNode{kind: 'n', text: "0"}
}

// remove deletes member key of an object, if present.
func (n *jsonNode) remove(key string) {
	for i, k := range n.keys {
		if k == key {
			n.keys = append(n.keys[:i], n.keys[i+1:]...)
			n.vals = append(n.vals[:i], n.vals[i+1:]...)
			return
		}
	}
}

// V2GroupDocs is a group node as Zarr v2 documents, as zarr-python 2
// writes them: .zgroup, and .zattrs (nil when the group has no
// attributes).
func V2GroupDocs(n Node) (zgroup, zattrs []byte, err error) {
	g := jsonObject()
	g.add("zarr_format", jsonNode{kind: 'n', text: "2"})
	zgroup = pyDumps(g, 4, true)
	if len(n.Attributes) == 0 {
		return zgroup, nil, nil
	}
	a, err := parseJSONNode(n.Attributes)
	if err != nil || a.kind != '{' {
		return nil, nil, fmt.Errorf("%q: attributes are not a JSON object", n.Path)
	}
	if len(a.keys) == 0 {
		return zgroup, nil, nil
	}
	zattrs, err = pyDoc(nodeDoc(n.Path, v2AttrsKey), a, 4, true)
	if err != nil {
		return nil, nil, err
	}
	return zgroup, zattrs, nil
}

// WithoutConsolidated returns a v3 group document with its
// consolidated_metadata set to null (as zarr-python writes a group that
// has none), so that a copy of a root never offers consolidated metadata
// describing another hierarchy. Other documents are returned unchanged.
func WithoutConsolidated(doc []byte) ([]byte, error) {
	n, err := parseJSONNode(doc)
	if err != nil {
		return nil, err
	}
	cm, ok := n.get("consolidated_metadata")
	if !ok || (cm.kind == 'l' && cm.text == "null") {
		return doc, nil
	}
	*cm = jsonLiteral("null")
	return pyDoc(v3MetadataKey, n, 2, false)
}
