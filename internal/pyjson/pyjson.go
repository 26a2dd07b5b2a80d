package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/zarr-dt64/dt64/storage"
)

// Node is a JSON value that keeps the order of object members and the
// text of numbers, so a document written by Python can be written again as
// Python's json.dumps would, member for member.
type Node struct {
	Kind byte // '{', '[', '"', 'n' (number), or 'l' (a literal: true, false, null)
	Text string
	Keys []string // objects
	Vals []Node   // object member values, array elements
}

// Parse parses one JSON document (already known to be valid and
// free of duplicate Keys: it went through parseObject).
func Parse(b []byte) (Node, error) {
	dec := json.NewDecoder(bytes.NewReader(FromPython(b)))
	dec.UseNumber()
	n, err := readNode(dec)
	if err != nil {
		return Node{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return Node{}, errors.New("data after the JSON value")
	}
	return n, nil
}

func readNode(dec *json.Decoder) (Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return Node{}, err
	}
	switch t := tok.(type) {
	case json.Delim:
		n := Node{Kind: byte(t)}
		if t != '{' && t != '[' {
			return Node{}, fmt.Errorf("unexpected %q", t)
		}
		for dec.More() {
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return Node{}, err
				}
				ks, ok := k.(string)
				if !ok {
					return Node{}, errors.New("object key is not a string")
				}
				n.Keys = append(n.Keys, ks)
			}
			v, err := readNode(dec)
			if err != nil {
				return Node{}, err
			}
			n.Vals = append(n.Vals, v)
		}
		if _, err := dec.Token(); err != nil { // the closing delimiter
			return Node{}, err
		}
		return n, nil
	case string:
		if tok, ok := pyToken(t); ok {
			return Node{Kind: 'n', Text: tok}, nil // Python's bare NaN (pynan.go)
		}
		return Node{Kind: '"', Text: t}, nil
	case json.Number:
		return Node{Kind: 'n', Text: string(t)}, nil
	case bool:
		return Node{Kind: 'l', Text: strconv.FormatBool(t)}, nil
	case nil:
		return Node{Kind: 'l', Text: "null"}, nil
	}
	return Node{}, fmt.Errorf("unexpected token %v", tok)
}

// get returns the value of object member key.
func (n *Node) Get(key string) (*Node, bool) {
	for i, k := range n.Keys {
		if k == key {
			return &n.Vals[i], true
		}
	}
	return nil, false
}

// set replaces the value of member key, or inserts it before member
// before (at the end when there is no such member).
func (n *Node) Set(key string, v Node, before string) {
	if p, ok := n.Get(key); ok {
		*p = v
		return
	}
	at := len(n.Keys)
	for i, k := range n.Keys {
		if k == before {
			at = i
			break
		}
	}
	n.Keys = append(n.Keys[:at], append([]string{key}, n.Keys[at:]...)...)
	n.Vals = append(n.Vals[:at], append([]Node{v}, n.Vals[at:]...)...)
}

func (n *Node) Add(key string, v Node) {
	n.Keys = append(n.Keys, key)
	n.Vals = append(n.Vals, v)
}

func NewString(s string) Node  { return Node{Kind: '"', Text: s} }
func NewLiteral(s string) Node { return Node{Kind: 'l', Text: s} }
func NewObject() Node          { return Node{Kind: '{'} }

// pyDumps writes n as Python's json.dumps(n, indent=indent,
// sort_keys=sortKeys) does, with its defaults ensure_ascii=True and
// separators (",", ": "): zarr-python 2 writes metadata with indent 4 and
// sorted keys, zarr-python 3 with indent 2 in its own member order. It is
// for small values (a fill value); a document goes through pyDoc, bounded.
func Dumps(n Node, indent int, sortKeys bool) []byte {
	w := pyWriter{indent: indent, sortKeys: sortKeys, limit: -1}
	w.write(&n, 0)
	return ToPython(w.b.Bytes())
}

// pyDoc is pyDumps for a metadata document named name: it refuses, with a
// DocumentTooLargeError, to write one dt64 could not read back (larger
// than MaxBytes, or deeper than MaxDepth), and stops writing as
// soon as it is. Indentation grows with depth, so a small document nested
// deep would otherwise become one of hundreds of MB (18 KB of lists 9,000
// deep: 324 MB).
func Doc(name string, n Node, indent int, sortKeys bool) ([]byte, error) {
	w := pyWriter{indent: indent, sortKeys: sortKeys, limit: MaxBytes}
	w.write(&n, 0)
	if w.over {
		return nil, &DocumentTooLargeError{Document: name, TooDeep: w.tooDeep}
	}
	b := ToPython(w.b.Bytes())
	if len(b) > MaxBytes {
		return nil, &DocumentTooLargeError{Document: name}
	}
	return b, nil
}

// DocumentTooLargeError reports a metadata document dt64 would write but
// could not read back: larger than its limit for metadata (16 MiB), or
// nested deeper than MaxDepth (a .zattrs near the limit, wrapped in a
// consolidated document).
type DocumentTooLargeError struct {
	Document string // the document's key, as "lat/zarr.json"
	TooDeep  bool   // nested too deep rather than too long
}

func (e *DocumentTooLargeError) Error() string {
	if e.TooDeep {
		return fmt.Sprintf("%s: the document would nest deeper than dt64's limit of %d levels, which it could not read back; not written",
			e.Document, MaxDepth)
	}
	return fmt.Sprintf("%s: the document would be larger than dt64's %d MiB limit for metadata, which it could not read back; not written",
		e.Document, MaxBytes>>20)
}

func (*DocumentTooLargeError) Is(target error) bool { return target == storage.ErrTooLarge }

// pyWriter writes a Node as json.dumps does (pyDumps), up to limit
// bytes (none when negative).
type pyWriter struct {
	b        bytes.Buffer
	indent   int
	sortKeys bool
	limit    int
	over     bool   // the output passed limit: writing stopped
	tooDeep  bool   // over because the document nests deeper than MaxDepth
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

func (w *pyWriter) write(n *Node, depth int) {
	if w.over {
		return
	}
	if w.limit >= 0 && depth >= MaxDepth && (n.Kind == '[' || n.Kind == '{') {
		w.over, w.tooDeep = true, true
		return
	}
	switch n.Kind {
	case '"':
		writePyString(&w.b, n.Text)
	case 'n', 'l':
		w.b.WriteString(n.Text)
	case '[':
		if len(n.Vals) == 0 {
			w.b.WriteString("[]")
			return
		}
		w.b.WriteByte('[')
		for i := range n.Vals {
			if i > 0 {
				w.b.WriteByte(',')
			}
			w.newline(depth + 1)
			w.write(&n.Vals[i], depth+1)
		}
		w.newline(depth)
		w.b.WriteByte(']')
	case '{':
		w.writeObject(n, depth)
	}
}

func (w *pyWriter) writeObject(n *Node, depth int) {
	if len(n.Keys) == 0 {
		w.b.WriteString("{}")
		return
	}
	order := make([]int, len(n.Keys))
	for i := range order {
		order[i] = i
	}
	if w.sortKeys {
		// Python compares str by code point; Go compares UTF-8 bytes,
		// which orders code points the same way.
		sort.SliceStable(order, func(i, j int) bool { return n.Keys[order[i]] < n.Keys[order[j]] })
	}
	w.b.WriteByte('{')
	for i, k := range order {
		if i > 0 {
			w.b.WriteByte(',')
		}
		w.newline(depth + 1)
		writePyString(&w.b, n.Keys[k])
		w.b.WriteString(": ")
		w.write(&n.Vals[k], depth+1)
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
func NodeDoc(nodePath, doc string) string {
	if nodePath == "" {
		return doc
	}
	return nodePath + "/" + doc
}

// MaxBytes bounds a metadata document dt64 reads, and so one it writes:
// real ones are a few KiB, and decoding JSON takes several times its size
// in memory. MaxDepth bounds its nesting: Python's json reader
// (zarr-python, xarray) stops near 1,000 levels at its recursion limit,
// encoding/json allows 10,000, and writing such a document indented costs
// memory quadratic in its depth.
const (
	MaxBytes = 16 << 20
	MaxDepth = 512
)

// Remove deletes member key of an object, if present.
func (n *Node) Remove(key string) {
	for i, k := range n.Keys {
		if k == key {
			n.Keys = append(n.Keys[:i], n.Keys[i+1:]...)
			n.Vals = append(n.Vals[:i], n.Vals[i+1:]...)
			return
		}
	}
}
