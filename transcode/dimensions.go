package transcode

import (
	"bytes"
	"encoding/json"

	"github.com/zarr-dt64/dt64/zarr"
)

// arrayDimensions is xarray's v2 attribute holding the dimension names.
const arrayDimensions = "_ARRAY_DIMENSIONS"

// translateDimensions carries the dimension names across a format change:
// a v2 _ARRAY_DIMENSIONS attribute becomes the v3 dimension_names (and
// leaves the attributes), v3 dimension_names become the attribute. It
// reports whether it moved them, so the caller drops nothing in silence.
func translateDimensions(m *zarr.Metadata, from, to int) bool {
	var attrs map[string]json.RawMessage
	if len(m.Attributes) > 0 && json.Unmarshal(m.Attributes, &attrs) != nil {
		return false
	}
	switch {
	case from == 2 && to == 3:
		dims, ok := attrs[arrayDimensions]
		if !ok {
			return false
		}
		delete(attrs, arrayDimensions)
		m.DimensionNames = dims
	case from == 3 && to == 2 && len(m.DimensionNames) > 0:
		if _, ok := attrs[arrayDimensions]; ok {
			return false
		}
		if attrs == nil {
			attrs = map[string]json.RawMessage{}
		}
		attrs[arrayDimensions] = m.DimensionNames
		m.DimensionNames = nil
	default:
		return false
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(attrs) != nil {
		return false
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if len(attrs) == 0 && to == 3 {
		b = nil // Create's default {}
	}
	m.Attributes = bytes.Clone(b)
	return true
}
