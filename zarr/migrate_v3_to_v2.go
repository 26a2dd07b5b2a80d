package zarr

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/zarr-dt64/dt64/internal/pyjson"
)

// V2Array is a v3 array node translated to Zarr v2 by MigrateV3Array.
type V2Array struct {
	// Zarray and Zattrs are the .zarray and .zattrs documents as
	// zarr-python 2.13 writes them (sorted keys, 4-space indents); Zattrs
	// is nil when the array has neither attributes nor dimension names.
	Zarray, Zattrs []byte
	// SourceKeys is the v3 array's chunk key encoding, Keys the v2 one's.
	// They are equal when the v3 array has "v2" keys; with "default" keys
	// ("c/0/1") the chunk at coords is stored as Keys.Key(coords) ("0/1",
	// the same separator), its bytes unchanged.
	SourceKeys, Keys KeyEncoding
}

// MigrateV3Array translates the v3 array node n (Metadata its zarr.json)
// into Zarr v2 documents describing the same chunk bytes, the inverse of
// MigrateV2Array:
//
//   - the data type as NumPy's string, its byte order the bytes codec's
//     endian ("<f4", ">i8", "|b1");
//   - a transpose codec first, reversing the dimensions, as order "F";
//   - "numcodecs.<id>" codecs before the bytes codec as filters;
//   - one codec after it as the compressor: blosc (shuffle as numcodecs'
//     number; typesize is in each chunk's header), zstd, gzip, or
//     "numcodecs.<id>", as {"id": ..., configuration...};
//   - the fill value as zarr-python 2 writes it ("NaN", "Infinity", a
//     Python float repr; v3's "0x..." form as the value it denotes, a NaN
//     with a payload as "NaN", since v2 has no form for its bits);
//   - dimension_names as xarray's "_ARRAY_DIMENSIONS" attribute, the
//     attributes kept.
//
// A zstd checksum is written as "checksum": true, as dt64's own v2 writer
// does: numcodecs >= 0.13 reads it (the frames carry their checksum, so
// any zstd decoder reads the chunks).
//
// What has no v2 form is an error wrapping ErrUntranslatable that names
// the array and the codec or field: sharding, crc32c, another codec
// order, more than one compressor, a storage transformer, an unknown
// field, a null dimension name, and data types other than bool, int,
// uint, float and complex (time arrays are transcoded, not migrated).
func MigrateV3Array(n Node) (V2Array, error) {
	var out V2Array
	fail := func(format string, a ...any) error {
		return fmt.Errorf("%w: array %q: %s", ErrUntranslatable, n.Path, fmt.Sprintf(format, a...))
	}
	if n.Format != 3 || n.Kind != ArrayNode {
		return out, fmt.Errorf("%q: not a Zarr v3 array", n.Path)
	}
	v3, err := pyjson.Parse(n.Metadata)
	if err != nil || v3.Kind != '{' {
		return out, fmt.Errorf("%s/zarr.json: not a JSON object", n.Path)
	}
	for _, k := range v3.Keys {
		if !v3Fields[k] {
			return out, fail("field %q has no v2 form", k)
		}
	}
	if st, ok := v3.Get("storage_transformers"); ok && len(st.Vals) > 0 {
		return out, fail("storage transformers have no v2 form")
	}
	t, ok := parseNumericV3(n.DataType)
	if !ok {
		return out, fmt.Errorf("%w: %w", fail("data type %q", n.DataType), ErrDataTypeNotMigrated)
	}
	if out.SourceKeys, err = n.KeyEncoding(); err != nil {
		return out, fmt.Errorf("%q: %w", n.Path, err)
	}
	out.Keys = KeyEncoding{Name: "v2", Separator: out.SourceKeys.Separator}

	v2 := pyjson.NewObject()
	chunks, ok := chunkShapeNode(&v3)
	if !ok {
		return out, fail("only a regular chunk grid has a v2 form")
	}
	v2.Add("chunks", chunks)
	codecs, ok := v3.Get("codecs")
	if !ok || codecs.Kind != '[' {
		return out, fail("no codecs")
	}
	chain, err := v2Codecs(codecs.Vals, t, len(n.Shape))
	if err != nil {
		return out, fail("%v", err)
	}
	v2.Add("compressor", chain.compressor)
	if out.Keys.Separator != "." {
		v2.Add("dimension_separator", pyjson.NewString(out.Keys.Separator)) // "." is the default, which zarr-python 2 does not write
	}
	v2.Add("dtype", pyjson.NewString(t.NumPy(chain.order)))
	fill, ok := v3.Get("fill_value")
	if !ok {
		return out, fail("no fill_value")
	}
	bits, _, err := parseNumericFill(pyjson.Dumps(*fill, 0, false), t, false)
	if err != nil {
		return out, fail("fill_value: %v", err)
	}
	v2fill, _ := pyjson.Parse(formatNumericFill(t, bits, true))
	v2.Add("fill_value", v2fill)
	v2.Add("filters", chain.filters)
	v2.Add("order", pyjson.NewString(chain.layout))
	shape, ok := v3.Get("shape")
	if !ok {
		return out, fail("no shape")
	}
	v2.Add("shape", *shape)
	v2.Add("zarr_format", pyjson.Node{Kind: 'n', Text: "2"})
	if out.Zarray, err = pyjson.Doc(pyjson.NodeDoc(n.Path, v2ArrayKey), v2, 4, true); err != nil {
		return out, err
	}
	out.Zattrs, err = v2Attributes(&v3)
	var tooLarge *DocumentTooLargeError
	if errors.As(err, &tooLarge) {
		tooLarge.Document = pyjson.NodeDoc(n.Path, v2AttrsKey)
		return out, err
	}
	if err != nil {
		return out, fail("%v", err)
	}
	return out, nil
}

// chunkShapeNode is the chunk_shape of a regular chunk grid.
func chunkShapeNode(v3 *pyjson.Node) (pyjson.Node, bool) {
	grid, ok := v3.Get("chunk_grid")
	if !ok || grid.Kind != '{' {
		return pyjson.Node{}, false
	}
	if name, ok := grid.Get("name"); !ok || name.Text != "regular" {
		return pyjson.Node{}, false
	}
	cfg, ok := grid.Get("configuration")
	if !ok || cfg.Kind != '{' {
		return pyjson.Node{}, false
	}
	cs, ok := cfg.Get("chunk_shape")
	if !ok || cs.Kind != '[' {
		return pyjson.Node{}, false
	}
	return *cs, true
}

// compactJSON is n on one line, for messages.
func compactJSON(n pyjson.Node) string {
	var b bytes.Buffer
	if json.Compact(&b, pyjson.Dumps(n, 0, false)) != nil {
		return string(pyjson.Dumps(n, 0, false))
	}
	return b.String()
}

// v2Chain is a v3 codec chain as .zarray members.
type v2Chain struct {
	layout              string // order: "C" or "F"
	order               binary.ByteOrder
	filters, compressor pyjson.Node // lists and objects, or null
}

// v2Codecs maps a v3 codec chain onto v2's fixed one: [transpose],
// numcodecs filters, bytes, [one compressor].
func v2Codecs(codecs []pyjson.Node, t NumericType, ndim int) (v2Chain, error) {
	ch := v2Chain{layout: "C", filters: pyjson.NewLiteral("null"), compressor: pyjson.NewLiteral("null")}
	names := make([]string, len(codecs))
	for i := range codecs {
		if codecs[i].Kind != '{' {
			return ch, fmt.Errorf("codec %d is not a JSON object", i)
		}
		name, ok := codecs[i].Get("name")
		if !ok || name.Kind != '"' {
			return ch, fmt.Errorf("codec %d has no name", i)
		}
		names[i] = name.Text
	}
	bytesAt := slices.Index(names, "bytes")
	for i, name := range names {
		switch {
		case name == "sharding_indexed":
			return ch, errors.New(`codec "sharding_indexed": sharding has no v2 form`)
		case name == "crc32c":
			return ch, errors.New(`codec "crc32c" has no v2 form`)
		case bytesAt < 0:
			return ch, fmt.Errorf("codec %q: no bytes codec, so no v2 dtype byte order", name)
		case i == bytesAt:
		case i > bytesAt+1:
			return ch, fmt.Errorf("codec %q: a v2 array has one compressor, after %q", name, names[bytesAt+1])
		case i > bytesAt:
			c, err := v2Compressor(codecs[i], name)
			if err != nil {
				return ch, err
			}
			ch.compressor = c
		case name == "transpose" && i == 0:
			if err := checkFortranOrder(codecs[i], ndim); err != nil {
				return ch, err
			}
			ch.layout = "F"
		case strings.HasPrefix(name, "numcodecs."):
			f, err := v2NumcodecsConfig(codecs[i], name)
			if err != nil {
				return ch, err
			}
			if ch.filters.Kind != '[' {
				ch.filters = pyjson.Node{Kind: '['}
			}
			ch.filters.Vals = append(ch.filters.Vals, f)
		default:
			return ch, fmt.Errorf("codec %q before the bytes codec has no v2 form (v2 has order F, then numcodecs filters)", name)
		}
	}
	endian := ""
	if cfg, ok := codecs[bytesAt].Get("configuration"); ok {
		if e, ok := cfg.Get("endian"); ok && e.Kind == '"' {
			endian = e.Text
		}
	}
	switch {
	case endian == "little":
		ch.order = binary.LittleEndian
	case endian == "big":
		ch.order = binary.BigEndian
	case t.Size > 1:
		return ch, fmt.Errorf("codec \"bytes\": endian %q for a %d-byte type (want \"little\" or \"big\")", endian, t.Size)
	}
	return ch, nil
}

// checkFortranOrder accepts the transpose codec that order "F" migrates
// to: the dimensions reversed.
func checkFortranOrder(c pyjson.Node, ndim int) error {
	var perm []string
	if cfg, ok := c.Get("configuration"); ok {
		if o, ok := cfg.Get("order"); ok && o.Kind == '[' {
			for _, d := range o.Vals {
				perm = append(perm, d.Text)
			}
		}
	}
	want := make([]string, ndim)
	for i := range want {
		want[i] = strconv.Itoa(ndim - 1 - i)
	}
	if !slices.Equal(perm, want) {
		return fmt.Errorf("codec \"transpose\" with order %v: only %v (Fortran order) has a v2 form", perm, want)
	}
	return nil
}

// v2Compressor is a v3 bytes-to-bytes codec as a v2 compressor, as
// zarr-python 2 writes it.
func v2Compressor(c pyjson.Node, name string) (pyjson.Node, error) {
	cfg, ok := c.Get("configuration")
	if !ok {
		empty := pyjson.NewObject()
		cfg = &empty
	}
	member := func(key string) (pyjson.Node, error) {
		if v, ok := cfg.Get(key); ok {
			return *v, nil
		}
		return pyjson.Node{}, fmt.Errorf("codec %q: no %q", name, key)
	}
	out := pyjson.NewObject()
	out.Add("id", pyjson.NewString(name))
	switch name {
	case "blosc":
		shuffle, err := member("shuffle")
		if err != nil {
			return out, err
		}
		n, ok := map[string]string{"noshuffle": "0", "shuffle": "1", "bitshuffle": "2"}[shuffle.Text]
		if !ok {
			return out, fmt.Errorf("codec \"blosc\": shuffle %q has no v2 form", shuffle.Text)
		}
		out.Add("shuffle", pyjson.Node{Kind: 'n', Text: n})
		for _, k := range []string{"cname", "clevel"} {
			v, err := member(k)
			if err != nil {
				return out, err
			}
			out.Add(k, v)
		}
		bs := pyjson.Node{Kind: 'n', Text: "0"}
		if v, ok := cfg.Get("blocksize"); ok {
			bs = *v
		}
		out.Add("blocksize", bs)
	case "zstd":
		level := pyjson.Node{Kind: 'n', Text: "0"}
		if v, ok := cfg.Get("level"); ok {
			level = *v
		}
		out.Add("level", level)
		if v, ok := cfg.Get("checksum"); ok && v.Kind == 'l' && v.Text == "true" {
			out.Add("checksum", *v)
		}
	case "gzip":
		level, err := member("level")
		if err != nil {
			return out, err
		}
		out.Add("level", level)
	default:
		if !strings.HasPrefix(name, "numcodecs.") {
			return out, fmt.Errorf("codec %q has no v2 compressor form (blosc, zstd, gzip and numcodecs.* have)", name)
		}
		return v2NumcodecsConfig(c, name)
	}
	return out, nil
}

// v2NumcodecsConfig is a v3 "numcodecs.<id>" codec as the numcodecs
// configuration {"id": id, ...} that v2 stores.
func v2NumcodecsConfig(c pyjson.Node, name string) (pyjson.Node, error) {
	id := strings.TrimPrefix(name, "numcodecs.")
	out := pyjson.NewObject()
	if id == "" {
		return out, fmt.Errorf("codec %q has no numcodecs id", name)
	}
	out.Add("id", pyjson.NewString(id))
	if cfg, ok := c.Get("configuration"); ok {
		if cfg.Kind != '{' {
			return out, fmt.Errorf("codec %q: configuration is not a JSON object", name)
		}
		for i, k := range cfg.Keys {
			if k == "id" {
				continue
			}
			out.Add(k, cfg.Vals[i])
		}
	}
	return out, nil
}

// v2Attributes is the .zattrs of a v3 array document: its attributes and
// its dimension_names as "_ARRAY_DIMENSIONS"; nil when both are absent or
// empty.
func v2Attributes(v3 *pyjson.Node) ([]byte, error) {
	attrs := pyjson.NewObject()
	if a, ok := v3.Get("attributes"); ok {
		if a.Kind != '{' {
			return nil, errors.New("attributes are not a JSON object")
		}
		attrs = *a
	}
	if dims, ok := v3.Get("dimension_names"); ok && dims.Kind != 'l' {
		if dims.Kind != '[' {
			return nil, errors.New("dimension_names is not a list")
		}
		for _, d := range dims.Vals {
			if d.Kind != '"' {
				return nil, fmt.Errorf("dimension_names %s: a null name has no _ARRAY_DIMENSIONS form", compactJSON(*dims))
			}
		}
		if have, ok := attrs.Get(arrayDimensionsAttr); ok {
			if compactJSON(*have) != compactJSON(*dims) {
				return nil, fmt.Errorf("attribute %s %s differs from dimension_names %s", arrayDimensionsAttr, compactJSON(*have), compactJSON(*dims))
			}
		} else {
			attrs.Add(arrayDimensionsAttr, *dims)
		}
	}
	if len(attrs.Keys) == 0 {
		return nil, nil
	}
	return pyjson.Doc(v2AttrsKey, attrs, 4, true)
}

// arrayDimensionsAttr is xarray's v2 attribute holding the dimension
// names.
const arrayDimensionsAttr = "_ARRAY_DIMENSIONS"

// KeyEncoding is the chunk key encoding n's metadata declares: a v3
// array's chunk_key_encoding, a v2 array's dimension_separator with "v2"
// keys.
func (n Node) KeyEncoding() (KeyEncoding, error) {
	if n.Kind != ArrayNode {
		return KeyEncoding{}, fmt.Errorf("%q is a group, not an array", n.Path)
	}
	doc, err := pyjson.Parse(n.Metadata)
	if err != nil || doc.Kind != '{' {
		return KeyEncoding{}, errors.New("metadata: not a JSON object")
	}
	e := KeyEncoding{Name: "v2", Separator: "."}
	if n.Format == 3 {
		ke, ok := doc.Get("chunk_key_encoding")
		if !ok || ke.Kind != '{' {
			return e, errors.New("chunk_key_encoding: missing")
		}
		name, _ := ke.Get("name")
		if name == nil || name.Kind != '"' {
			return e, errors.New("chunk_key_encoding: no name")
		}
		e.Name = name.Text
		if e.Name == "default" {
			e.Separator = "/"
		}
		if cfg, ok := ke.Get("configuration"); ok {
			if s, ok := cfg.Get("separator"); ok && s.Kind == '"' {
				e.Separator = s.Text
			}
		}
	} else if s, ok := doc.Get("dimension_separator"); ok && s.Kind == '"' {
		e.Separator = s.Text
	}
	if err := e.validate(n.Format); err != nil {
		return e, fmt.Errorf("chunk_key_encoding: %w", err)
	}
	return e, nil
}
