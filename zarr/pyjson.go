package zarr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"unicode/utf8"
)

// jsonNode is a JSON value that keeps the order of object members and the
// text of numbers, so a document written by Python can be written again as
// Python's json.dumps would, member for member.
type jsonNode struct {
	kind byte // '{', '[', '"', 'n' (number), or 'l' (a literal: true, false, null)
	text string
	keys []string   // objects
	vals []jsonNode // object member values, array elements
}

// parseJSONNode parses one JSON document (already known to be valid and
// free of duplicate keys: it went through parseObject).
func parseJSONNode(b []byte) (jsonNode, error) {
	dec := json.NewDecoder(bytes.NewReader(fromPython(b)))
	dec.UseNumber()
	n, err := readJSONNode(dec)
	if err != nil {
		return jsonNode{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return jsonNode{}, errors.New("data after the JSON value")
	}
	return n, nil
}

func readJSONNode(dec *json.Decoder) (jsonNode, error) {
	tok, err := dec.Token()
	if err != nil {
		return jsonNode{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		n := jsonNode{kind: byte(t)}
		if t != '{' && t != '[' {
			return jsonNode{}, fmt.Errorf("unexpected %q", t)
		}
		for dec.More() {
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return jsonNode{}, err
				}
				ks, ok := k.(string)
				if !ok {
					return jsonNode{}, errors.New("object key is not a string")
				}
				n.keys = append(n.keys, ks)
			}
			v, err := readJSONNode(dec)
			if err != nil {
				return jsonNode{}, err
			}
			n.vals = append(n.vals, v)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return jsonNode{}, err
		}
		return n, nil
	case string:
		if tok, ok := pyToken(t); ok {
			return jsonNode{kind: 'n', text: tok}, nil // Python's bare NaN (pynan.go)
		}
		return jsonNode{kind: '"', text: t}, nil
	case json.Number:
		return jsonNode{kind: 'n', text: string(t)}, nil
	case bool:
		return jsonNode{kind: 'l', text: strconv.FormatBool(t)}, nil
	case nil:
		return jsonNode{kind: 'l', text: "null"}, nil
	}
	return jsonNode{}, fmt.Errorf("unexpected token %v", tok)
}

// get returns the value of object member key.
func (n *jsonNode) get(key string) (*jsonNode, bool) {
	for i, k := range n.keys {
		if k == key {
			return &n.vals[i], true
		}
	}
	return nil, false
}

// set replaces the value of member key, or inserts it before member
// before (at the end when there is no such member).
func (n *jsonNode) set(key string, v jsonNode, before string) {
	if p, ok := n.get(key); ok {
		*p = v
		return
	}
	at := len(n.keys)
	for i, k := range n.keys {
		if k == before {
			at = i
			break
		}
	}
	n.keys = append(n.keys[:at], append([]string{key}, n.keys[at:]...)...)
	n.vals = append(n.vals[:at], append([]jsonNode{v}, n.vals[at:]...)...)
}

func (n *jsonNode) add(key string, v jsonNode) {
	n.keys = append(n.keys, key)
	n.vals = append(n.vals, v)
}

func jsonString(s string) jsonNode  { return jsonNode{kind: '"', text: s} }
func jsonLiteral(s string) jsonNode { return jsonNode{kind: 'l', text: s} }
func jsonObject() jsonNode          { return jsonNode{kind: '{'} }

// pyDumps writes n as Python's json.dumps(n, indent=indent,
// sort_keys=sortKeys) does, with its defaults ensure_ascii=True and
// separators (",", ": "): zarr-python 2 writes metadata with indent 4 and
// sorted keys, zarr-python 3 with indent 2 in its own member order. It is
// for small values (a fill value); a document goes through pyDoc, bounded.
func pyDumps(n jsonNode, indent int, sortKeys bool) []byte {
	w := pyWriter{indent: indent, sortKeys: sortKeys, limit: -1}
	w.write(&n, 0)
	return toPython(w.b.Bytes())
}

// pyDoc is pyDumps for a metadata document named name: it refuses, with a
// DocumentTooLargeError, to write one dt64 could not read back (larger
// than maxMetadataBytes, or deeper than maxJSONDepth), and stops writing as
// soon as it is. Indentation grows with depth, so a small document nested
// deep would otherwise become one of hundreds of MB (18 KB of lists 9,000
// deep: 324 MB).
func pyDoc(name string, n jsonNode, indent int, sortKeys bool) ([]byte, error) {
	w := pyWriter{indent: indent, sortKeys: sortKeys, limit: maxMetadataBytes}
	w.write(&n, 0)
	if w.over {
		return nil, &DocumentTooLargeError{Document: name, TooDeep: w.tooDeep}
	}
	b := toPython(w.b.Bytes())
	if len(b) > maxMetadataBytes {
		return nil, &DocumentTooLargeError{Document: name}
	}
	return b, nil
}

// DocumentTooLargeError reports a metadata document dt64 would write but
// could not read back: larger than its limit for metadata (16 MiB), or
// nested deeper than maxJSONDepth (a .zattrs near the limit, wrapped in a
// consolidated document).
type DocumentTooLargeError struct {
	Document string // the document's key, as "lat/zarr.json"
	TooDeep  bool   // nested too deep rather than too long
}

func (e *DocumentTooLargeError) Error() string {
	if e.TooDeep {
		return fmt.Sprintf("%s: the document would nest deeper than dt64's limit of %d levels, which it could not read back; not written",
			e.Document, maxJSONDepth)
	}
	return fmt.Sprintf("%s: the document would be larger than dt64's %d MiB limit for metadata, which it could not read back; not written",
		e.Document, maxMetadataBytes>>20)
}

func (*DocumentTooLargeError) Is(target error) bool { return target == ErrTooLarge }

// pyWriter writes a jsonNode as json.dumps does (pyDumps), up to limit
// bytes (none when negative).
type pyWriter struct {
	b        bytes.Buffer
	indent   int
	sortKeys bool
	limit    int
	over     bool   // the output passed limit: writing stopped
	tooDeep  bool   // over because the document nests deeper than maxJSONDepth
	spaces   []byte // indentation, grown once to the deepest level seen
}

// newline starts a line indented for depth d. The indentation is one
// slice of a shared run of spaces, so a line costs one copy, not a loop
// per space.
func (w *pyWriter) newline(d int) {
	if w.limit >= 0 && w.b.Len() > w.limit {
		w.over = true
	}
	n := d * w.indent
	for len(w.spaces) < n {
		w.spaces = append(w.spaces, ' ')
	}
	w.b.WriteByte('\n')
	w.b.Write(w.spaces[:n])
}

func (w *pyWriter) write(n *jsonNode, depth int) {
	if w.over {
		return
	}
	if w.limit >= 0 && depth >= maxJSONDepth && (n.kind == '[' || n.kind == '{') {
		w.over, w.tooDeep = true, true
		return
	}
	switch n.kind {
	case '"':
		writePyString(&w.b, n.text)
	case 'n', 'l':
		w.b.WriteString(n.text)
	case '[':
		if len(n.vals) == 0 {
			w.b.WriteString("[]")
			return
		}
		w.b.WriteByte('[')
		for i := range n.vals {
			if i > 0 {
				w.b.WriteByte(',')
			}
			w.newline(depth + 1)
			w.write(&n.vals[i], depth+1)
		}
		w.newline(depth)
		w.b.WriteByte(']')
	case '{':
		w.writeObject(n, depth)
	}
}

func (w *pyWriter) writeObject(n *jsonNode, depth int) {
	if len(n.keys) == 0 {
		w.b.WriteString("{}")
		return
	}
	order := make([]int, len(n.keys))
	for i := range order {
		order[i] = i
	}
	if w.sortKeys {
		// Python compares str by code point; Go compares UTF-8 bytes,
		// which orders code points the same way.
		sort.SliceStable(order, func(i, j int) bool { return n.keys[order[i]] < n.keys[order[j]] })
	}
	w.b.WriteByte('{')
	for i, k := range order {
		if i > 0 {
			w.b.WriteByte(',')
		}
		w.newline(depth + 1)
		writePyString(&w.b, n.keys[k])
		w.b.WriteString(": ")
		w.write(&n.vals[k], depth+1)
	}
	w.newline(depth)
	w.b.WriteByte('}')
}

// writePyString writes s as Python's json module does with
// ensure_ascii=True: printable ASCII as is, except '"' and '\'; the short
// escapes \n \r \t \b \f; everything else as \uxxxx in lower-case hex,
// UTF-16 surrogate pairs above U+FFFF.
func writePyString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	u := func(r rune) {
		b.WriteString(`\u`)
		b.WriteByte(hex[r>>12&0xf])
		b.WriteByte(hex[r>>8&0xf])
		b.WriteByte(hex[r>>4&0xf])
		b.WriteByte(hex[r&0xf])
	}
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r >= ' ' && r <= '~':
			b.WriteByte(byte(r))
		case r > 0xffff:
			r -= 0x10000
			u(0xd800 + r>>10)
			u(0xdc00 + r&0x3ff)
		default:
			if r == utf8.RuneError {
				r = 0xfffd
			}
			u(r)
		}
	}
	b.WriteByte('"')
}

// nodeDoc names document doc of the node at nodePath ("" is the root).
func nodeDoc(nodePath, doc string) string {
	if nodePath == "" {
		return doc
	}
	return nodePath + "/" + doc
}
