package zarr

import (
	"encoding/json"
	"path"
	"strings"
)

// CF bounds (CF 1.7, §7.1) describe the cells of a coordinate and carry
// no units or calendar of their own: they are the coordinate's. CMOR
// (CMIP data) writes time_bnds so, and so does xarray when it writes a
// dataset it opened undecoded. xarray decodes such bounds with their
// coordinate's units and calendar (conventions.py, setdefault of units and
// calendar on the variable the "bounds" attribute names), so a reader that
// took them alone would see numbers that mean nothing.

// Bounds is what a CF bounds array takes from its coordinate.
type Bounds struct {
	Coordinate string                     // the coordinate's path
	Attributes map[string]json.RawMessage // "units" and "calendar", those the bounds lack
}

// CFBounds returns, by path, every array of nodes that a CF time
// coordinate (units "<unit> since <date>") names in its "bounds"
// attribute and that lacks its units or its calendar, with those of the
// coordinate's units and calendar attributes it lacks (JSON values as
// stored). Read with them (Array.WithAttributes), the bounds decode as
// xarray decodes them.
func CFBounds(nodes []Node) map[string]Bounds {
	arrays := map[string]Node{}
	for _, n := range nodes {
		if n.Kind == ArrayNode {
			arrays[n.Path] = n
		}
	}
	out := map[string]Bounds{}
	for _, n := range nodes {
		if n.Kind != ArrayNode {
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
		// Each attribute the bounds lack, as xarray's setdefault: bounds
		// with units of their own still take the coordinate's calendar.
		in := Bounds{Coordinate: n.Path, Attributes: map[string]json.RawMessage{}}
		for _, k := range []string{"units", "calendar"} {
			if _, has := battrs[k]; !has && attrs[k] != nil {
				in.Attributes[k] = attrs[k]
			}
		}
		if len(in.Attributes) > 0 {
			out[b.Path] = in
		}
	}
	return out
}

// WithAttributes returns a copy of a whose attributes also hold attrs
// (replacing any of the same name), as read: nothing is written, and
// WriteMetadata of the copy would write them. Bounds arrays read with
// their coordinate's units so (CFBounds).
func (a *Array) WithAttributes(attrs map[string]json.RawMessage) (*Array, error) {
	obj := map[string]json.RawMessage{}
	if len(a.meta.Attributes) > 0 {
		if err := json.Unmarshal(a.meta.Attributes, &obj); err != nil {
			return nil, metadataError(a.String(), err)
		}
	}
	for k, v := range attrs {
		obj[k] = v
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	m := a.meta.Clone()
	m.Attributes = raw
	b := &Array{store: a.store, name: a.name, writeEmpty: a.writeEmpty}
	if err := b.init(m); err != nil {
		return nil, metadataError(a.String(), err)
	}
	return b, nil
}

// String says what the bounds take from their coordinate, e.g. "CF bounds
// of time: read with its units and calendar".
func (b Bounds) String() string {
	var what []string
	for _, k := range []string{"units", "calendar"} {
		if b.Attributes[k] != nil {
			what = append(what, k)
		}
	}
	return "CF bounds of " + b.Coordinate + ": read with its " + strings.Join(what, " and ")
}
