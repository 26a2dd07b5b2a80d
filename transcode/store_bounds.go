package transcode

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// CF bounds without units of their own (zarr.CFBounds) take their
// coordinate's units and calendar: a transcode that converted the
// coordinate and carried the bounds over as numbers would leave them
// meaningless, since the units they depended on are gone from the
// destination (or, with --cf, replaced by other units). The bounds are
// read with the coordinate's units and calendar instead, and converted
// with it.

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
