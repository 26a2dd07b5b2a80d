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

// ReadConsolidated returns the nodes of the hierarchy at store's root as
// its consolidated metadata lists them, in Walk's order, without listing
// the store: from the root zarr.json's "consolidated_metadata" (Zarr v3,
// kind "inline", as zarr-python 3 writes it, members listed flat as
// "sub/stamp" or nested in their groups), or else from .zmetadata (Zarr
// v2, {"metadata": {"sub/.zarray": {...}, ...}, "zarr_consolidated_format":
// 1}, as zarr-python 2 and xarray write it). A store without consolidated
// metadata gives an error satisfying errors.Is(err, fs.ErrNotExist).
//
// Node documents are the members' JSON text; a v3 group's carries the
// consolidated_metadata member zarr-python gives it ({"kind": "inline",
// "must_understand": false, "metadata": {}}). Errors: a document that is
// not JSON, a member whose metadata does not parse or whose name is not a
// valid path (see ValidKey) is a *MetadataError naming the document and
// the member; a v3 member not inside a group of the hierarchy is a
// *HierarchyError.
func ReadConsolidated(ctx context.Context, store storage.Store) ([]Node, error) {
	name := storage.Name(store)
	b, err := getBounded(ctx, store, v3MetadataKey, maxConsolidatedBytes)
	switch {
	case err == nil:
		return readConsolidatedV3(ctx, name, b)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, metadataError(storage.Join(name, v3MetadataKey), err)
	}
	b, err = getBounded(ctx, store, v2ConsolidatedKey, maxConsolidatedBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: no %s or %s: no consolidated metadata: %w", name, v3MetadataKey, v2ConsolidatedKey, fs.ErrNotExist)
	}
	if err != nil {
		return nil, metadataError(storage.Join(name, v2ConsolidatedKey), err)
	}
	return readConsolidatedV2(ctx, name, b)
}

func readConsolidatedV2(ctx context.Context, name string, b []byte) ([]Node, error) {
	file := storage.Join(name, v2ConsolidatedKey)
	docs, err := parseConsolidatedV2(b)
	if err != nil {
		return nil, metadataError(file, err)
	}
	p := present{}
	for key := range docs {
		p.add(key)
	}
	get := func(ctx context.Context, nodePath, key string) ([]byte, error) {
		k := path.Join(nodePath, key)
		return docs[k], nil
	}
	nodes, err := assemble(ctx, name, p, get, false)
	return nodes, consolidatedError(file, "metadata", name, err)
}

// consolidatedError turns a node's *MetadataError from assemble (naming
// the node's own document, which is not where it was read) into one
// naming the consolidated document and the member.
func consolidatedError(file, field, name string, err error) error {
	var me *MetadataError
	if !errors.As(err, &me) {
		return err
	}
	member := strings.TrimPrefix(strings.TrimPrefix(me.File, name), "/")
	if field != "metadata" { // v3: members are nodes, not documents
		member = strings.TrimSuffix(strings.TrimSuffix(member, v3MetadataKey), "/")
		if member == "" { // the root, which is the consolidated document
			return &MetadataError{File: file, Field: me.Field, Err: me.Err}
		}
	}
	f := fmt.Sprintf("%s[%q]", field, member)
	if me.Field != "" {
		f += "." + me.Field
	}
	return &MetadataError{File: file, Field: f, Err: me.Err}
}

// parseConsolidatedV2 returns the documents of a .zmetadata by key.
func parseConsolidatedV2(b []byte) (map[string][]byte, error) {
	obj, err := parseObject(b, false)
	if err != nil {
		return nil, err
	}
	var f int
	if err := json.Unmarshal(obj["zarr_consolidated_format"], &f); err != nil || f != 1 {
		return nil, inField("zarr_consolidated_format", fmt.Errorf("must be 1, not %s", orMissing(obj["zarr_consolidated_format"])))
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(obj["metadata"], &members); err != nil || members == nil {
		return nil, inField("metadata", fmt.Errorf("must be an object, not %s", orMissing(obj["metadata"])))
	}
	docs := make(map[string][]byte, len(members))
	for key, doc := range members {
		field := fmt.Sprintf("metadata[%q]", key)
		if err := storage.ValidKey(key); err != nil {
			return nil, inField(field, err)
		}
		switch path.Base(key) {
		case v2ArrayKey, v2GroupKey, v2AttrsKey:
		default:
			return nil, inField(field, fmt.Errorf("not a Zarr v2 metadata document (%s, %s or %s)", v2ArrayKey, v2GroupKey, v2AttrsKey))
		}
		if jsonType(doc) != "an object" {
			return nil, inField(field, fmt.Errorf("must be an object, not %s", jsonType(doc)))
		}
		docs[key] = doc
	}
	if docs[v2GroupKey] == nil && docs[v2ArrayKey] == nil {
		return nil, inField("metadata", fmt.Errorf("lists no %s or %s for the root", v2GroupKey, v2ArrayKey))
	}
	return docs, nil
}

func readConsolidatedV3(ctx context.Context, name string, root []byte) ([]Node, error) {
	file := storage.Join(name, v3MetadataKey)
	obj, err := parseObject(root, true)
	if err != nil {
		return nil, metadataError(file, err)
	}
	cm, ok := obj["consolidated_metadata"]
	if !ok || jsonType(cm) == "null" {
		return nil, fmt.Errorf("%s: no consolidated_metadata: no consolidated metadata: %w", file, fs.ErrNotExist)
	}
	docs := map[string][]byte{"": root}
	if err := flattenConsolidatedV3(cm, "", docs); err != nil {
		return nil, metadataError(file, inField("consolidated_metadata", err))
	}
	p := present{}
	for q := range docs {
		p[q] = hasZarrJSON
	}
	get := func(ctx context.Context, nodePath, key string) ([]byte, error) { return docs[nodePath], nil }
	nodes, err := assemble(ctx, name, p, get, true)
	return nodes, consolidatedError(file, "consolidated_metadata.metadata", name, err)
}

// flattenConsolidatedV3 adds the members of consolidated_metadata cm of
// the group at prefix to docs, by path, those of nested groups' own
// consolidated_metadata included.
func flattenConsolidatedV3(cm json.RawMessage, prefix string, docs map[string][]byte) error {
	var c struct {
		Kind           string          `json:"kind"`
		MustUnderstand *bool           `json:"must_understand"`
		Metadata       json.RawMessage `json:"metadata"`
	}
	if jsonType(cm) != "an object" || json.Unmarshal(cm, &c) != nil {
		return fmt.Errorf("must be an object with kind, must_understand and metadata, not %s", orMissing(cm))
	}
	if c.Kind != "inline" {
		return inField("kind", fmt.Errorf("%q: %w (only \"inline\" is)", c.Kind, ErrUnsupported))
	}
	if c.MustUnderstand == nil {
		return inField("must_understand", errors.New("must be a boolean"))
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(c.Metadata, &members); err != nil || members == nil {
		return inField("metadata", fmt.Errorf("must be an object, not %s", orMissing(c.Metadata)))
	}
	for key, doc := range members {
		field := fmt.Sprintf("metadata[%q]", key)
		if err := storage.ValidKey(key); err != nil {
			return inField(field, err)
		}
		full := path.Join(prefix, key)
		if _, dup := docs[full]; dup {
			return inField(field, fmt.Errorf("%w: node %q listed twice", ErrConflict, full))
		}
		if jsonType(doc) != "an object" {
			return inField(field, fmt.Errorf("must be an object, not %s", jsonType(doc)))
		}
		docs[full] = doc
		var member struct {
			NodeType string          `json:"node_type"`
			CM       json.RawMessage `json:"consolidated_metadata"`
		}
		if json.Unmarshal(doc, &member) == nil && member.NodeType == "group" && member.CM != nil && jsonType(member.CM) != "null" {
			if err := flattenConsolidatedV3(member.CM, full, docs); err != nil {
				return inField(field+".consolidated_metadata", err)
			}
		}
	}
	return nil
}

// ConsolidatedDocument builds the consolidated metadata of a hierarchy
// whose nodes Walk returned (the root, a group, first) as zarr-python
// writes it, and returns the key to store it under with the document:
//
//   - Zarr v2: ".zmetadata", {"metadata": {".zattrs": ..., ".zgroup": ...,
//     "sub/stamp/.zarray": ...}, "zarr_consolidated_format": 1}, keys
//     sorted, indented by 4, as zarr-python 2's consolidate_metadata (which
//     xarray calls).
//   - Zarr v3: "zarr.json", the root group's document with its
//     "consolidated_metadata" set to {"kind": "inline", "must_understand":
//     false, "metadata": {...}}, members by depth then name, each group's
//     own consolidated_metadata that empty kind, indented by 2, as
//     zarr-python 3.1's consolidate_metadata. (zarr-python orders names by
//     their Unicode case fold; dt64 by their lower case, the same for
//     every name outside a few scripts. Readers do not depend on it.)
//
// Member order and formatting follow zarr-python's so that the bytes are
// the same for the same documents; what matters is that zarr-python and
// xarray read them.
func ConsolidatedDocument(nodes []Node) (key string, doc []byte, err error) {
	if len(nodes) == 0 || nodes[0].Path != "" || nodes[0].Kind != GroupNode {
		return "", nil, errors.New("consolidated metadata belongs to a hierarchy whose root is a group: pass the nodes Walk returned")
	}
	members := pyjson.NewObject()
	if nodes[0].Format == 2 {
		for _, n := range nodes {
			docKey := v2GroupKey
			if n.Kind == ArrayNode {
				docKey = v2ArrayKey
			}
			if err := addMember(&members, path.Join(n.Path, docKey), n.Metadata); err != nil {
				return "", nil, err
			}
			if n.AttrsDoc != nil {
				if err := addMember(&members, path.Join(n.Path, v2AttrsKey), n.AttrsDoc); err != nil {
					return "", nil, err
				}
			}
		}
		top := pyjson.NewObject()
		top.Add("metadata", members)
		top.Add("zarr_consolidated_format", pyjson.Node{Kind: 'n', Text: "1"})
		doc, err := pyjson.Doc(v2ConsolidatedKey, top, 4, true)
		return v2ConsolidatedKey, doc, err
	}
	rest := slices.Clone(nodes[1:])
	slices.SortStableFunc(rest, func(a, b Node) int {
		if da, db := strings.Count(a.Path, "/"), strings.Count(b.Path, "/"); da != db {
			return da - db
		}
		if c := strings.Compare(strings.ToLower(a.Path), strings.ToLower(b.Path)); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
	for _, n := range rest {
		if err := addMember(&members, n.Path, n.Metadata); err != nil {
			return "", nil, err
		}
		if n.Kind == GroupNode {
			members.Vals[len(members.Vals)-1].Set("consolidated_metadata", emptyConsolidated(pyjson.NewObject()), "node_type")
		}
	}
	root, err := pyjson.Parse(nodes[0].Metadata)
	if err != nil {
		return "", nil, fmt.Errorf("root %s: %w", v3MetadataKey, err)
	}
	root.Set("consolidated_metadata", emptyConsolidated(members), "node_type")
	doc, err = pyjson.Doc(v3MetadataKey, root, 2, false)
	return v3MetadataKey, doc, err
}

func emptyConsolidated(metadata pyjson.Node) pyjson.Node {
	cm := pyjson.NewObject()
	cm.Add("kind", pyjson.NewString("inline"))
	cm.Add("must_understand", pyjson.NewLiteral("false"))
	cm.Add("metadata", metadata)
	return cm
}

func addMember(members *pyjson.Node, key string, doc []byte) error {
	n, err := pyjson.Parse(doc)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if n.Kind != '{' {
		return fmt.Errorf("%s: not a JSON object", key)
	}
	members.Add(key, n)
	return nil
}

// WriteConsolidated walks the hierarchy in store and writes its
// consolidated metadata (ConsolidatedDocument), replacing any there was.
// It returns the nodes consolidated. Call it last, after every node's own
// metadata is written: readers that find consolidated metadata trust it.
func WriteConsolidated(ctx context.Context, store storage.Store) ([]Node, error) {
	nodes, err := Walk(ctx, store)
	if err != nil {
		return nil, err
	}
	key, doc, err := ConsolidatedDocument(nodes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", storage.Name(store), err)
	}
	if err := store.Set(ctx, key, doc); err != nil {
		return nil, err
	}
	return nodes, nil
}
