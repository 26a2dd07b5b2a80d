package transcode

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// CF bounds (CF 1.7, §7.1) describe the cells of a coordinate and carry
// no units or calendar of their own: they are the coordinate's. CMOR
// (CMIP data) writes time_bnds so, and so does xarray when it writes a
// dataset it opened undecoded. xarray decodes such bounds with their
// coordinate's units and calendar (conventions.py, setdefault of units and
// calendar on the variable the "bounds" attribute names), so a transcode
// that converted the coordinate and carried the bounds over as numbers
// would leave them meaningless: the units they depended on are gone from
// the destination (or, with --cf, replaced by other units). The bounds
// are read with the coordinate's units and calendar instead, and
// converted with it.

// boundsOf returns, for each array of nodes that a CF time coordinate
// names in its "bounds" attribute and that has no units of its own, the
// coordinate's units and calendar attributes (JSON values as stored) and
// the coordinate's path.
func boundsOf(nodes []zarr.Node) map[string]inherited {
	arrays := map[string]zarr.Node{}
	for _, n := range nodes {
		if n.Kind == zarr.ArrayNode {
			arrays[n.Path] = n
		}
	}
	out := map[string]inherited{}
	for _, n := range nodes {
		if n.Kind != zarr.ArrayNode {
			continue
		}
		var attrs map[string]json.RawMessage
		if json.Unmarshal(n.Attributes, &attrs) != nil {
			continue
		}
		var units, bounds string
		if json.Unmarshal(attrs["units"], &units) != nil || !strings.Contains(units, "since") ||
			json.Unmarshal(attrs["bounds"], &bounds) != nil || bounds == "" || strings.Contains(bounds, "/") {
			continue
		}
		b, ok := arrays[path.Join(path.Dir(n.Path), bounds)]
		if !ok || b.Path == n.Path {
			continue
		}
		var battrs map[string]json.RawMessage
		if json.Unmarshal(b.Attributes, &battrs) != nil {
			continue
		}
		if _, has := battrs["units"]; has {
			continue
		}
		in := inherited{of: n.Path, attrs: map[string]json.RawMessage{"units": attrs["units"]}}
		if c, ok := attrs["calendar"]; ok {
			if _, has := battrs["calendar"]; !has {
				in.attrs["calendar"] = c
			}
		}
		out[b.Path] = in
	}
	return out
}

// inherited is what a bounds array takes from its coordinate.
type inherited struct {
	of    string                     // the coordinate's path
	attrs map[string]json.RawMessage // units, and calendar unless the bounds have their own
}

// withAttributes returns the metadata documents of array node n with
// attrs added to its attributes: the .zattrs of a v2 array, the zarr.json
// of a v3 one.
func withAttributes(n zarr.Node, attrs map[string]json.RawMessage) (map[string][]byte, error) {
	edit := func(doc []byte, member string) ([]byte, error) {
		obj := map[string]json.RawMessage{}
		if len(doc) > 0 {
			if err := json.Unmarshal(doc, &obj); err != nil {
				return nil, err
			}
		}
		target := obj
		if member != "" {
			target = map[string]json.RawMessage{}
			if raw, ok := obj[member]; ok {
				if err := json.Unmarshal(raw, &target); err != nil {
					return nil, err
				}
			}
		}
		for k, v := range attrs {
			target[k] = v
		}
		if member != "" {
			raw, err := json.Marshal(target)
			if err != nil {
				return nil, err
			}
			obj[member] = raw
		}
		return json.MarshalIndent(obj, "", "    ")
	}
	if n.Format == 3 {
		doc, err := edit(n.Metadata, "attributes")
		return map[string][]byte{"zarr.json": doc}, err
	}
	doc, err := edit(n.AttrsDoc, "")
	return map[string][]byte{".zattrs": doc}, err
}

// boundsView is a source array view whose metadata documents read as
// docs: a bounds array with its coordinate's units and calendar.
type boundsView struct {
	*arrayView
	docs map[string][]byte
}

func (v *boundsView) Unwrap() storage.Store { return v.arrayView }

func (v *boundsView) Get(ctx context.Context, key string) ([]byte, error) {
	if d, ok := v.docs[key]; ok {
		return append([]byte(nil), d...), nil
	}
	return v.arrayView.Get(ctx, key)
}

func (v *boundsView) GetInto(ctx context.Context, key string, buf []byte, limit int) ([]byte, error) {
	if d, ok := v.docs[key]; ok {
		if len(d) > limit {
			return nil, fmt.Errorf("%s: %w", key, storage.ErrTooLarge)
		}
		return append(buf[:0], d...), nil
	}
	return v.arrayView.GetInto(ctx, key, buf, limit)
}
