package zarr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/zarr-dt64/dt64/storage"
)

// Group is an open Zarr group: v3 zarr.json with "node_type": "group", or
// v2 .zgroup with .zattrs when present.
type Group struct {
	store storage.Store
	node  Node
}

// OpenGroup opens the group at store's root, reading its metadata only (no
// listing). A store with no group metadata gives an error satisfying
// errors.Is(err, fs.ErrNotExist); an array at the root, or a zarr.json
// next to a .zgroup, is a *HierarchyError.
func OpenGroup(ctx context.Context, store storage.Store) (*Group, error) {
	if store == nil {
		return nil, errors.New("zarr.OpenGroup: nil store")
	}
	name := storage.Name(store)
	var bits uint8
	docs := map[string][]byte{}
	errs := map[string]error{}
	for key, bit := range docBits {
		limit := maxMetadataBytes
		if key == v3MetadataKey {
			limit = maxConsolidatedBytes
		}
		b, err := getBounded(ctx, store, key, limit)
		switch {
		case err == nil:
			docs[key] = b
		case errors.Is(err, ErrTooLarge):
			errs[key] = err // readNode reports it if it reads the document
		case errors.Is(err, fs.ErrNotExist):
			continue
		default:
			return nil, metadataError(docName(name, key), err)
		}
		bits |= bit
	}
	if bits&^hasZattrs == 0 {
		return nil, fmt.Errorf("%s: no %s or %s: not a Zarr group: %w", name, v3MetadataKey, v2GroupKey, fs.ErrNotExist)
	}
	f, err := nodeFormat(bits)
	if err != nil {
		return nil, &HierarchyError{name, "", err}
	}
	get := func(ctx context.Context, nodePath, key string) ([]byte, error) { return docs[key], errs[key] }
	n, err := readNode(ctx, name, "", f, bits, get)
	if err != nil {
		return nil, err
	}
	if n.Kind != GroupNode {
		return nil, &HierarchyError{name, "", errors.New("is an array, not a group (open it with Open)")}
	}
	return &Group{store: store, node: n}, nil
}

func docName(name, key string) string {
	if name == "" {
		return key
	}
	return name + "/" + key
}

// Format is 2 or 3.
func (g *Group) Format() int { return g.node.Format }

// Attributes returns the group's attributes object as stored ({} when it
// has none).
func (g *Group) Attributes() json.RawMessage { return g.node.Attributes }

// Node describes the group as a node of a hierarchy (its path is "").
func (g *Group) Node() Node { return g.node }

// Store returns the store the group was opened on.
func (g *Group) Store() storage.Store { return g.store }

// Walk returns the nodes of the hierarchy below the group, the group
// itself first (see Walk).
func (g *Group) Walk(ctx context.Context) ([]Node, error) { return Walk(ctx, g.store) }

// Sub returns the store of node path p below the group (see Sub):
// Open(ctx, sub) for an array, OpenGroup for a group.
func (g *Group) Sub(p string) (storage.Store, error) { return storage.Sub(g.store, p) }
