package zarr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/zarr-dt64/dt64/internal/pyjson"
	"github.com/zarr-dt64/dt64/storage"
)

// Metadata document names of groups and consolidated metadata.
const (
	v2GroupKey        = ".zgroup"
	v2ConsolidatedKey = ".zmetadata"
)

// NodeKind says whether a node of a hierarchy is a group or an array.
type NodeKind uint8

const (
	GroupNode NodeKind = 1 + iota
	ArrayNode
)

func (k NodeKind) String() string {
	switch k {
	case GroupNode:
		return "group"
	case ArrayNode:
		return "array"
	}
	return fmt.Sprintf("NodeKind(%d)", uint8(k))
}

// A Node is a group or an array of a hierarchy, as its metadata documents
// describe it. Only a few fields are parsed; Open (on Sub(store,
// node.Path)) parses an array fully.
type Node struct {
	// Path is "/"-separated from the root: "" for the root, "sub",
	// "sub/stamp".
	Path   string
	Kind   NodeKind
	Format int // 2 or 3
	// Metadata is the node's document: zarr.json (v3), .zgroup or .zarray
	// (v2). AttrsDoc is a v2 node's .zattrs, nil when it has none. Read by
	// Walk they are the stored bytes; read from consolidated metadata,
	// the member's JSON text in the consolidated document.
	Metadata []byte
	AttrsDoc []byte
	// Attributes is the attributes object: a v3 document's "attributes"
	// member, a v2 node's .zattrs; {} when there are none.
	Attributes json.RawMessage

	// Arrays only.
	Shape []int64
	// ChunkShape is the regular chunk grid's chunk shape (v2 "chunks"),
	// nil for another chunk grid.
	ChunkShape []int64
	// DataType is the v2 dtype string ("<M8[ms]", "<f4") or the v3
	// data_type's name ("float32", "numpy.datetime64"); empty for a v2
	// structured dtype. DataTypeJSON is the field as stored.
	DataType     string
	DataTypeJSON json.RawMessage
	// DimensionNames is the v3 dimension_names (a null name as ""), nil
	// when absent. xarray's v2 dimension names are the _ARRAY_DIMENSIONS
	// attribute.
	DimensionNames []string

	// Implicit marks a group with no metadata document in the store, above
	// a node that has one (an array written at a nested path without its
	// groups): Walk makes it, with the document an empty group would have,
	// so that nothing below it is left out.
	Implicit bool
}

// docSource reads metadata document key ("zarr.json", ".zattrs") of the
// node at nodePath: from the store, or from consolidated metadata.
type docSource func(ctx context.Context, nodePath, key string) ([]byte, error)

// present records which metadata documents a listing (or a consolidated
// document) holds at each path.
type present map[string]uint8

const (
	hasZarrJSON uint8 = 1 << iota
	hasZarray
	hasZgroup
	hasZattrs
)

var docBits = map[string]uint8{
	v3MetadataKey: hasZarrJSON,
	v2ArrayKey:    hasZarray,
	v2GroupKey:    hasZgroup,
	v2AttrsKey:    hasZattrs,
}

// add records key if it is a metadata document, and reports whether it
// is one.
func (p present) add(key string) bool {
	dir, base := "", key
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		dir, base = key[:i], key[i+1:]
	}
	bit := docBit(base)
	if bit != 0 {
		p[dir] |= bit
	}
	return bit != 0
}

// docBit is docBits[base] as a switch: Walk calls it for every key of the
// store, nearly all of them chunk keys.
func docBit(base string) uint8 {
	switch base {
	case v3MetadataKey:
		return hasZarrJSON
	case v2ArrayKey:
		return hasZarray
	case v2GroupKey:
		return hasZgroup
	case v2AttrsKey:
		return hasZattrs
	}
	return 0
}

// HierarchyError is a failure of a hierarchy at one node, for conflicting
// or misplaced metadata documents: Store is the store's name (its
// String(), when it has one), Path the node's path ("" for the root).
// Metadata that does not parse is a *MetadataError naming the document
// instead.
type HierarchyError struct {
	Store string
	Path  string
	Err   error
}

func (e *HierarchyError) Error() string {
	p := "the root node"
	if e.Path != "" {
		p = "node " + e.Path
	}
	if e.Store == "" {
		return fmt.Sprintf("%s: %v", p, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", e.Store, p, e.Err)
}

func (e *HierarchyError) Unwrap() error { return e.Err }

// ErrConflict marks a path holding metadata of two kinds or two formats: a
// zarr.json next to a .zarray or .zgroup, a .zarray next to a .zgroup, or
// a node whose format is not its hierarchy's.
var ErrConflict = errors.New("conflicting metadata")

// Walk lists store once and returns the nodes of the hierarchy at its
// root, root first, then depth first with children in byte order of their
// names: "", "lat", "sub", "sub/stamp", "time". The root's format is the
// hierarchy's (a zarr.json, or a .zgroup or .zarray); a child is a path
// holding that format's metadata below a group of the walk and no array,
// so nothing under an array (its chunks) is a node. Paths between a group
// and such a child that hold no document are implicit groups
// (Node.Implicit): zarr-python does not list them, but reads what is
// below them by its path, so a copy of the hierarchy must not lose it.
// A store with no metadata at its root gives an error satisfying
// errors.Is(err, fs.ErrNotExist).
//
// Errors: a document that does not parse is a *MetadataError naming it; a
// zarr.json and a v2 document at one path, or a child of the other format
// than the root, is a *HierarchyError wrapping ErrConflict.
//
// A store that cannot be listed (storage.ErrNoListing: an http(s)
// location) is read from its consolidated metadata, as xarray reads it;
// without any, the error says so.
func Walk(ctx context.Context, store storage.Store) ([]Node, error) {
	keys, err := store.List(ctx, "")
	if errors.Is(err, storage.ErrNoListing) {
		nodes, cerr := ReadConsolidated(ctx, store)
		if cerr != nil {
			return nil, fmt.Errorf("%w, and it has no consolidated metadata to read the hierarchy from (%v)", err, cerr)
		}
		return nodes, nil
	}
	if err != nil {
		return nil, err
	}
	return WalkKeys(ctx, store, keys)
}

// WalkKeys is Walk over keys, a listing of store the caller already has
// (for the chunk keys too): one listing serves both.
func WalkKeys(ctx context.Context, store storage.Store, keys []string) ([]Node, error) {
	p := present{}
	for _, k := range keys {
		p.add(k)
	}
	get := func(ctx context.Context, nodePath, key string) ([]byte, error) {
		limit := maxMetadataBytes
		if nodePath == "" && key == v3MetadataKey {
			limit = maxConsolidatedBytes // it may hold consolidated metadata
		}
		return getBounded(ctx, store, path.Join(nodePath, key), limit)
	}
	return assemble(ctx, storage.Name(store), p, get, false)
}

// comparePaths orders node paths depth first: segment by segment, so
// "sub/stamp" comes right after "sub" and before "sub-2".
func comparePaths(a, b string) int {
	for a != "" && b != "" {
		sa, ra, _ := strings.Cut(a, "/")
		sb, rb, _ := strings.Cut(b, "/")
		if c := strings.Compare(sa, sb); c != 0 {
			return c
		}
		a, b = ra, rb
	}
	return strings.Compare(a, b)
}

func parentPath(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// assemble builds the nodes from the documents present at each path,
// read through get. A node whose parent has no document gets implicit
// groups above it (Node.Implicit); one inside an array is left out. With
// strict set (consolidated metadata, which lists nodes rather than keys)
// either is an error, except implicit groups in v2, whose consolidated
// metadata (zarr 2.13's) lists every document of the store.
func assemble(ctx context.Context, name string, p present, get docSource, strict bool) ([]Node, error) {
	rootBits, ok := p[""]
	if !ok || rootBits == hasZattrs {
		return nil, fmt.Errorf("%s: no %s, %s or %s at the root: not a Zarr hierarchy: %w", name, v3MetadataKey, v2GroupKey, v2ArrayKey, fs.ErrNotExist)
	}
	paths := make([]string, 0, len(p))
	for q, bits := range p {
		if bits != hasZattrs || q == "" { // a lone .zattrs is no node
			paths = append(paths, q)
		}
	}
	slices.SortFunc(paths, comparePaths)
	groups, arrays := map[string]bool{}, map[string]bool{}
	var nodes []Node
	format := 0
	for _, q := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		bits := p[q]
		if q != "" && !groups[parentPath(q)] {
			if underArray(q, arrays) {
				if strict {
					return nil, &HierarchyError{name, q, fmt.Errorf("listed, but inside the array %q", parentPath(q))}
				}
				continue // an array's chunk or a stray document inside it
			}
			if strict && format == 3 {
				// zarr-python 3 consolidates what it walks, which has no
				// implicit groups: such a member means the document is
				// not the hierarchy's.
				return nil, &HierarchyError{name, q, fmt.Errorf("listed, but %q is not a group of the hierarchy", parentPath(q))}
			}
			// Ancestors without documents (paths come parents first, so
			// any with one is a node by now): implicit groups, as zarr
			// 2.13 reads g["a/b/t"] through them (and consolidates what is
			// below them); left out, the array below would be lost from
			// every copy of the hierarchy.
			var missing []string
			for a := parentPath(q); a != "" && !groups[a]; a = parentPath(a) {
				missing = append(missing, a)
			}
			for _, a := range slices.Backward(missing) {
				nodes = append(nodes, implicitGroup(a, format))
				groups[a] = true
			}
		}
		f, err := nodeFormat(bits)
		if err != nil {
			return nil, &HierarchyError{name, q, err}
		}
		if format == 0 {
			format = f
		} else if f != format {
			return nil, &HierarchyError{name, q, fmt.Errorf("%w: a Zarr v%d node in a v%d hierarchy", ErrConflict, f, format)}
		}
		n, err := readNode(ctx, name, q, f, bits, get)
		if err != nil {
			return nil, err
		}
		if n.Kind == GroupNode {
			groups[q] = true
		} else {
			arrays[q] = true
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

// underArray reports whether a proper ancestor of q is an array.
func underArray(q string, arrays map[string]bool) bool {
	for a := parentPath(q); a != ""; a = parentPath(a) {
		if arrays[a] {
			return true
		}
	}
	return false
}

// implicitGroup is the node of a group with no document at path q: an
// empty group's, in the hierarchy's format.
func implicitGroup(q string, format int) Node {
	doc := `{"zarr_format": 2}`
	if format == 3 {
		doc = `{"zarr_format": 3, "node_type": "group", "attributes": {}}`
	}
	return Node{Path: q, Kind: GroupNode, Format: format, Metadata: []byte(doc), Attributes: json.RawMessage("{}"), Implicit: true}
}

// nodeFormat tells a node's format from the documents at its path.
func nodeFormat(bits uint8) (int, error) {
	v2 := bits & (hasZarray | hasZgroup)
	switch {
	case bits&hasZarrJSON != 0 && v2 != 0:
		doc := v2ArrayKey
		if v2 == hasZgroup {
			doc = v2GroupKey
		}
		return 0, fmt.Errorf("%w: both %s (Zarr v3) and %s (Zarr v2)", ErrConflict, v3MetadataKey, doc)
	case bits&hasZarrJSON != 0:
		return 3, nil
	case v2 == hasZarray|hasZgroup:
		return 0, fmt.Errorf("%w: both %s and %s", ErrConflict, v2ArrayKey, v2GroupKey)
	}
	return 2, nil
}

func readNode(ctx context.Context, name, q string, format int, bits uint8, get docSource) (Node, error) {
	n := Node{Path: q, Format: format}
	key := v3MetadataKey
	switch {
	case format == 2 && bits&hasZarray != 0:
		key, n.Kind = v2ArrayKey, ArrayNode
	case format == 2:
		key, n.Kind = v2GroupKey, GroupNode
	}
	file := storage.Join(name, q, key)
	b, err := get(ctx, q, key)
	if err != nil {
		return Node{}, metadataError(file, err)
	}
	n.Metadata = b
	if format == 3 {
		err = n.parseV3()
	} else {
		err = n.parseV2()
	}
	if err != nil {
		return Node{}, metadataError(file, err)
	}
	if format == 2 {
		n.Attributes = json.RawMessage("{}")
		if bits&hasZattrs != 0 {
			file := storage.Join(name, q, v2AttrsKey)
			b, err := get(ctx, q, v2AttrsKey)
			if err != nil {
				return Node{}, metadataError(file, err)
			}
			if err := checkAttrs(b); err != nil {
				return Node{}, metadataError(file, err)
			}
			n.AttrsDoc, n.Attributes = b, pyjson.FromPython(b) // the document as stored; bare NaN as placeholders (pynan.go)
		}
	}
	return n, nil
}

func (n *Node) parseV3() error {
	obj, err := parseObject(n.Metadata, true)
	if err != nil {
		return err
	}
	if err := wantFormat(obj, 3); err != nil {
		return err
	}
	var nodeType string
	if err := json.Unmarshal(obj["node_type"], &nodeType); err != nil || (nodeType != "group" && nodeType != "array") {
		return inField("node_type", fmt.Errorf(`must be "group" or "array", not %s`, orMissing(obj["node_type"])))
	}
	n.Attributes = json.RawMessage("{}")
	if a, ok := obj["attributes"]; ok {
		if jsonType(a) != "an object" {
			return inField("attributes", fmt.Errorf("must be an object, not %s", jsonType(a)))
		}
		n.Attributes = a
	}
	if nodeType == "group" {
		n.Kind = GroupNode
		return nil
	}
	n.Kind = ArrayNode
	if err := n.parseShape(obj, "shape", &n.Shape); err != nil {
		return err
	}
	var grid struct {
		Name          string `json:"name"`
		Configuration struct {
			ChunkShape json.RawMessage `json:"chunk_shape"`
		} `json:"configuration"`
	}
	if err := json.Unmarshal(obj["chunk_grid"], &grid); err != nil {
		return inField("chunk_grid", fmt.Errorf("must be an object with a name, not %s", orMissing(obj["chunk_grid"])))
	}
	if grid.Name == "regular" {
		if err := n.parseShape(map[string]json.RawMessage{"chunk_shape": grid.Configuration.ChunkShape}, "chunk_shape", &n.ChunkShape); err != nil {
			return inField("chunk_grid.configuration", err)
		}
	}
	dt := obj["data_type"]
	n.DataTypeJSON = dt
	var named struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(dt, &n.DataType) != nil {
		if json.Unmarshal(dt, &named) != nil || named.Name == "" || jsonType(dt) != "an object" {
			return inField("data_type", fmt.Errorf("must be a name or an object with a name, not %s", orMissing(dt)))
		}
		n.DataType = named.Name
	}
	if dn, ok := obj["dimension_names"]; ok && jsonType(dn) != "null" {
		var names []*string
		if err := json.Unmarshal(dn, &names); err != nil {
			return inField("dimension_names", fmt.Errorf("must be a list of names or nulls, not %s", jsonType(dn)))
		}
		n.DimensionNames = make([]string, len(names))
		for i, s := range names {
			if s != nil {
				n.DimensionNames[i] = *s
			}
		}
	}
	return nil
}

func (n *Node) parseV2() error {
	obj, err := parseObject(n.Metadata, false)
	if err != nil {
		return err
	}
	if err := wantFormat(obj, 2); err != nil {
		return err
	}
	if n.Kind == GroupNode {
		return nil
	}
	if err := n.parseShape(obj, "shape", &n.Shape); err != nil {
		return err
	}
	if err := n.parseShape(obj, "chunks", &n.ChunkShape); err != nil {
		return err
	}
	dt := obj["dtype"]
	n.DataTypeJSON = dt
	if json.Unmarshal(dt, &n.DataType) != nil && jsonType(dt) != "an array" {
		return inField("dtype", fmt.Errorf("must be a NumPy dtype string or a structured dtype list, not %s", orMissing(dt)))
	}
	return nil
}

func wantFormat(obj map[string]json.RawMessage, want int) error {
	var f int
	if err := json.Unmarshal(obj["zarr_format"], &f); err != nil || f != want {
		return inField("zarr_format", fmt.Errorf("must be %d, not %s", want, orMissing(obj["zarr_format"])))
	}
	return nil
}

func (n *Node) parseShape(obj map[string]json.RawMessage, field string, dst *[]int64) error {
	raw := obj[field]
	var s []int64
	if err := json.Unmarshal(raw, &s); err != nil || s == nil {
		return inField(field, fmt.Errorf("must be a list of integers, not %s", orMissing(raw)))
	}
	for i, v := range s {
		if v < 0 {
			return inField(fmt.Sprintf("%s[%d]", field, i), fmt.Errorf("must not be negative, not %d", v))
		}
	}
	*dst = s
	return nil
}

// orMissing describes a field's raw value for a message: its text when
// short, its JSON type otherwise, "missing" when absent.
func orMissing(raw json.RawMessage) string {
	if raw == nil {
		return "missing"
	}
	if len(raw) <= 40 {
		return string(raw)
	}
	return jsonType(raw)
}

// maxConsolidatedBytes bounds a consolidated metadata document (.zmetadata,
// or a root zarr.json holding consolidated_metadata): a few KiB per node,
// so this is room for tens of thousands of nodes.
const maxConsolidatedBytes = 64 << 20

// getBounded reads key, refusing a value over limit bytes (before reading
// it when the store is a BufferGetter) with an error wrapping ErrTooLarge.
func getBounded(ctx context.Context, store storage.Store, key string, limit int) ([]byte, error) {
	if bg, ok := storage.Find[storage.BufferGetter](store); ok {
		return bg.GetInto(ctx, key, nil, limit)
	}
	b, err := store.Get(ctx, key)
	if err == nil && len(b) > limit {
		return nil, fmt.Errorf("%s is %d bytes, over dt64's %d MiB limit for this metadata document: %w", key, len(b), limit>>20, ErrTooLarge)
	}
	return b, err
}
