package zarr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/zarr-dt64/dt64/internal/pyjson"
)

// ErrUntranslatable is wrapped by MigrateV2Array's and MigrateV3Array's
// errors for an array whose metadata has no equivalent in the other Zarr
// format that dt64 can write.
var ErrUntranslatable = errors.New("no translation to the other Zarr format")

// ErrDataTypeNotMigrated is wrapped, with ErrUntranslatable, by the error
// for an array whose data type dt64 neither migrates nor reads (strings,
// bytes, objects, structured types): re-encoding cannot help there.
var ErrDataTypeNotMigrated = errors.New("a data type dt64 neither migrates nor re-encodes")

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
	v2, err := pyjson.Parse(n.Metadata)
	if err != nil || v2.Kind != '{' {
		return nil, fmt.Errorf("%s/.zarray: not a JSON object", n.Path)
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%w: array %q: %s", ErrUntranslatable, n.Path, fmt.Sprintf(format, a...))
	}
	t, order, ok, err := parseNumericV2(n.DataType)
	if err != nil || !ok {
		return nil, fmt.Errorf("%w: %w", fail("data type %q", n.DataType), ErrDataTypeNotMigrated)
	}
	out := pyjson.NewObject()
	member := func(key string) pyjson.Node {
		if v, ok := v2.Get(key); ok {
			return *v
		}
		return pyjson.NewLiteral("null")
	}
	out.Add("shape", member("shape"))
	out.Add("data_type", pyjson.NewString(t.String()))
	grid := pyjson.NewObject()
	grid.Add("name", pyjson.NewString("regular"))
	cfg := pyjson.NewObject()
	cfg.Add("chunk_shape", member("chunks"))
	grid.Add("configuration", cfg)
	out.Add("chunk_grid", grid)
	sep := "."
	if s, ok := v2.Get("dimension_separator"); ok && s.Kind == '"' {
		sep = s.Text
	}
	cke := pyjson.NewObject()
	cke.Add("name", pyjson.NewString("v2"))
	sepCfg := pyjson.NewObject()
	sepCfg.Add("separator", pyjson.NewString(sep))
	cke.Add("configuration", sepCfg)
	out.Add("chunk_key_encoding", cke)
	fill := member("fill_value")
	if fill.Kind == 'l' && fill.Text == "null" {
		// What xarray writes for integer and bool variables without a
		// _FillValue. zarr-python's migration raises on it; dt64 reads the
		// missing chunks of such an array as zero bits, so that is the v3
		// fill value.
		fill = zeroFill(t)
	}
	out.Add("fill_value", fill)
	codecs, err := migrateCodecs(&v2, t, order, len(n.Shape))
	if err != nil {
		return nil, fail("%v", err)
	}
	out.Add("codecs", codecs)
	attrs := pyjson.NewObject()
	if n.AttrsDoc != nil {
		if attrs, err = pyjson.Parse(n.AttrsDoc); err != nil || attrs.Kind != '{' {
			return nil, fmt.Errorf("%s/.zattrs: not a JSON object", n.Path)
		}
	}
	dims, hasDims := attrs.Get("_ARRAY_DIMENSIONS")
	var dimNames pyjson.Node
	if hasDims {
		dimNames = *dims
		attrs.Remove("_ARRAY_DIMENSIONS")
	}
	attrs.StrictFloats() // v3 is JSON: NaN as "NaN", as zarr-python 3 writes it
	out.Add("attributes", attrs)
	if hasDims {
		out.Add("dimension_names", dimNames)
	}
	out.Add("zarr_format", pyjson.Node{Kind: 'n', Text: "3"})
	out.Add("node_type", pyjson.NewString("array"))
	out.Add("storage_transformers", pyjson.Node{Kind: '['})
	return pyjson.Doc(pyjson.NodeDoc(n.Path, v3MetadataKey), out, 2, false)
}

// migrateCodecs builds the v3 codec chain of a v2 array.
func migrateCodecs(v2 *pyjson.Node, t NumericType, order binary.ByteOrder, ndim int) (pyjson.Node, error) {
	chain := pyjson.Node{Kind: '['}
	if o, ok := v2.Get("order"); ok && o.Kind == '"' && o.Text == "F" {
		perm := pyjson.Node{Kind: '['}
		for d := ndim - 1; d >= 0; d-- {
			perm.Vals = append(perm.Vals, pyjson.Node{Kind: 'n', Text: strconv.Itoa(d)})
		}
		cfg := pyjson.NewObject()
		cfg.Add("order", perm)
		chain.Vals = append(chain.Vals, namedCodec("transpose", &cfg))
	}
	if f, ok := v2.Get("filters"); ok && f.Kind == '[' {
		for _, flt := range f.Vals {
			c, err := numcodecsCodec(flt)
			if err != nil {
				return chain, fmt.Errorf("filter: %w", err)
			}
			chain.Vals = append(chain.Vals, c)
		}
	}
	if t.Size == 1 {
		chain.Vals = append(chain.Vals, namedCodec("bytes", nil))
	} else {
		cfg := pyjson.NewObject()
		endian := "little"
		if order == binary.BigEndian {
			endian = "big"
		}
		cfg.Add("endian", pyjson.NewString(endian))
		chain.Vals = append(chain.Vals, namedCodec("bytes", &cfg))
	}
	c, ok := v2.Get("compressor")
	if !ok || c.Kind == 'l' {
		return chain, nil
	}
	if c.Kind != '{' {
		return chain, errors.New("compressor is not a JSON object")
	}
	id, _ := c.Get("id")
	if id == nil || id.Kind != '"' {
		return chain, errors.New("compressor without an id")
	}
	num := func(key, dflt string) pyjson.Node {
		if v, ok := c.Get(key); ok {
			return *v
		}
		return pyjson.Node{Kind: 'n', Text: dflt}
	}
	switch id.Text {
	case "blosc":
		cfg := pyjson.NewObject()
		cfg.Add("typesize", pyjson.Node{Kind: 'n', Text: strconv.Itoa(t.Size)})
		cname := pyjson.NewString("lz4")
		if v, ok := c.Get("cname"); ok {
			cname = *v
		}
		cfg.Add("cname", cname)
		cfg.Add("clevel", num("clevel", "5"))
		shuffle := "shuffle"
		switch num("shuffle", "1").Text {
		case "0":
			shuffle = "noshuffle"
		case "1":
			shuffle = "shuffle"
		case "2":
			shuffle = "bitshuffle"
		default:
			return chain, fmt.Errorf("blosc shuffle %s has no v3 equivalent", num("shuffle", "1").Text)
		}
		cfg.Add("shuffle", pyjson.NewString(shuffle))
		cfg.Add("blocksize", num("blocksize", "0"))
		chain.Vals = append(chain.Vals, namedCodec("blosc", &cfg))
	case "zstd":
		cfg := pyjson.NewObject()
		cfg.Add("level", num("level", "1"))
		checksum := pyjson.NewLiteral("false")
		if v, ok := c.Get("checksum"); ok {
			checksum = *v
		}
		cfg.Add("checksum", checksum)
		chain.Vals = append(chain.Vals, namedCodec("zstd", &cfg))
	case "gzip":
		cfg := pyjson.NewObject()
		cfg.Add("level", num("level", "1"))
		chain.Vals = append(chain.Vals, namedCodec("gzip", &cfg))
	default:
		nc, err := numcodecsCodec(*c)
		if err != nil {
			return chain, fmt.Errorf("compressor: %w", err)
		}
		chain.Vals = append(chain.Vals, nc)
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
func numcodecsCodec(c pyjson.Node) (pyjson.Node, error) {
	if c.Kind != '{' {
		return c, errors.New("not a JSON object")
	}
	id, ok := c.Get("id")
	if !ok || id.Kind != '"' {
		return c, errors.New("no id")
	}
	if !numcodecsKnown[id.Text] {
		return c, fmt.Errorf("codec %q is not one zarr-python 3 knows as numcodecs.%s", id.Text, id.Text)
	}
	cfg := pyjson.NewObject()
	for i, k := range c.Keys {
		if k != "id" {
			cfg.Add(k, c.Vals[i])
		}
	}
	return namedCodec("numcodecs."+id.Text, &cfg), nil
}

func namedCodec(name string, cfg *pyjson.Node) pyjson.Node {
	c := pyjson.NewObject()
	c.Add("name", pyjson.NewString(name))
	if cfg != nil {
		c.Add("configuration", *cfg)
	}
	return c
}

// MigrateV2Group translates the v2 group node n (.zgroup and .zattrs)
// into a Zarr v3 zarr.json as zarr-python 3.1's migration writes it.
func MigrateV2Group(n Node) ([]byte, error) {
	attrs := pyjson.NewObject()
	if n.AttrsDoc != nil {
		var err error
		if attrs, err = pyjson.Parse(n.AttrsDoc); err != nil || attrs.Kind != '{' {
			return nil, fmt.Errorf("%s/.zattrs: not a JSON object", n.Path)
		}
	}
	out := pyjson.NewObject()
	attrs.StrictFloats() // v3 is JSON: NaN as "NaN", as zarr-python 3 writes it
	out.Add("attributes", attrs)
	out.Add("zarr_format", pyjson.Node{Kind: 'n', Text: "3"})
	out.Add("consolidated_metadata", pyjson.NewLiteral("null"))
	out.Add("node_type", pyjson.NewString("group"))
	return pyjson.Doc(pyjson.NodeDoc(n.Path, v3MetadataKey), out, 2, false)
}

func zeroFill(t NumericType) pyjson.Node {
	switch t.Kind {
	case Bool:
		return pyjson.NewLiteral("false")
	case Float:
		return pyjson.Node{Kind: 'n', Text: "0.0"}
	case Complex:
		return pyjson.Node{Kind: '[', Vals: []pyjson.Node{{Kind: 'n', Text: "0.0"}, {Kind: 'n', Text: "0.0"}}}
	}
	return pyjson.Node{Kind: 'n', Text: "0"}
}

// V2GroupDocs is a group node as Zarr v2 documents, as zarr-python 2
// writes them: .zgroup, and .zattrs (nil when the group has no
// attributes).
func V2GroupDocs(n Node) (zgroup, zattrs []byte, err error) {
	g := pyjson.NewObject()
	g.Add("zarr_format", pyjson.Node{Kind: 'n', Text: "2"})
	zgroup = pyjson.Dumps(g, 4, true)
	if len(n.Attributes) == 0 {
		return zgroup, nil, nil
	}
	a, err := pyjson.Parse(n.Attributes)
	if err != nil || a.Kind != '{' {
		return nil, nil, fmt.Errorf("%q: attributes are not a JSON object", n.Path)
	}
	if len(a.Keys) == 0 {
		return zgroup, nil, nil
	}
	zattrs, err = pyjson.Doc(pyjson.NodeDoc(n.Path, v2AttrsKey), a, 4, true)
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
	n, err := pyjson.Parse(doc)
	if err != nil {
		return nil, err
	}
	cm, ok := n.Get("consolidated_metadata")
	if !ok || (cm.Kind == 'l' && cm.Text == "null") {
		return doc, nil
	}
	*cm = pyjson.NewLiteral("null")
	return pyjson.Doc(v3MetadataKey, n, 2, false)
}
