package zarr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/internal/pyjson"
)

// CFTime returns the CF time description of a numeric array whose
// attributes (v3 "attributes", v2 .zattrs) have units "<unit> since
// <date>" (or a CF duration's units, "hours": cf.Units.Duration), or nil
// when the array is not a CF time array (a native time
// array, or no such units). The array's fill value (unless a v2 null) is
// one of its missing values, as xarray reads it: missing chunks and
// padding decode to NaT. An _Unsigned attribute changes the type the
// numbers are read as (cf.Time.Stored; the array's own is
// cf.Time.Unsigned), the fill value's included. Errors are
// *cf.AttributeError values naming the attribute and its text.
//
// The description and its decoder live in package cf, which knows
// nothing of Zarr, so netCDF-born or in-memory numbers decode the same
// way; this is the one bridge from an open array to it.
func (a *Array) CFTime() (*cf.Time, error) {
	if a.IsTime() {
		return nil, nil
	}
	nt := a.meta.Numeric
	stored := cf.Stored{Size: nt.Size}
	switch {
	case nt.Kind == Int:
		stored.Kind = cf.StoredInt
	case nt.Kind == Uint:
		stored.Kind = cf.StoredUint
	case nt.Kind == Float && nt.Size >= 4:
		stored.Kind = cf.StoredFloat
	}
	// A bare NaN missing_value (Python's) reads as "NaN", which cf takes.
	attrs := pyjson.Strict(a.meta.Attributes)
	if !a.meta.FillNull {
		// The array's fill value is the _FillValue: xarray's Zarr backend
		// sets the attribute to it, so an attribute that says otherwise
		// masks nothing there, nor here.
		attrs = withoutAttribute(attrs, "_FillValue")
	}
	t, err := cf.ParseAttributes(attrs, stored)
	if t == nil || err != nil {
		if ae, ok := err.(*cf.AttributeError); ok && stored.Kind == 0 {
			ae.Reason = fmt.Sprintf("a %s array: %s", nt, ae.Reason)
		}
		return nil, err
	}
	if !a.meta.FillNull {
		fill := a.meta.NumericFill[0]
		if nt.Kind == Float {
			fill = math.Float64bits(nt.Float64(fill))
		}
		// Under _Unsigned the fill value is the same bytes read as
		// t.Stored, as xarray converts it (it reads the fill value as the
		// _FillValue).
		fill = t.Stored.FromBits(fill)
		if nt.Kind != Float || !math.IsNaN(math.Float64frombits(fill)) {
			t.Missing = append(t.Missing, fill)
		}
	}
	return t, nil
}

// withoutAttribute returns the attributes object attrs without name (attrs
// itself when it has no such member or is no object).
func withoutAttribute(attrs json.RawMessage, name string) json.RawMessage {
	if !bytes.Contains(attrs, []byte(`"`+name+`"`)) {
		return attrs
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(attrs, &obj) != nil {
		return attrs
	}
	if _, ok := obj[name]; !ok {
		return attrs
	}
	delete(obj, name)
	b, err := json.Marshal(obj)
	if err != nil {
		return attrs
	}
	return b
}
