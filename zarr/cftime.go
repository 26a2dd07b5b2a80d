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
	stored := cfStored(nt)
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
	if fill, ok := a.fillMissing(t.Stored); ok {
		t.Missing = append(t.Missing, fill)
	}
	return t, nil
}

// cfStored is the cf type of numbers of type nt (Kind 0 for bool,
// float16 and complex, which CF does not store).
func cfStored(nt NumericType) cf.Stored {
	stored := cf.Stored{Size: nt.Size}
	switch {
	case nt.Kind == Int:
		stored.Kind = cf.StoredInt
	case nt.Kind == Uint:
		stored.Kind = cf.StoredUint
	case nt.Kind == Float && nt.Size >= 4:
		stored.Kind = cf.StoredFloat
	}
	return stored
}

// fillMissing returns the array's fill value as a missing value of the
// numbers read as readAs (cf.Time.Missing's bits), and false for a v2
// null or a NaN fill (NaN is always missing). Under _Unsigned the fill
// value is the same bytes read as readAs, as xarray converts it (it reads
// the fill value as the _FillValue).
func (a *Array) fillMissing(readAs cf.Stored) (uint64, bool) {
	if a.meta.FillNull {
		return 0, false
	}
	nt := a.meta.Numeric
	fill := a.meta.NumericFill[0]
	if nt.Kind == Float {
		fill = math.Float64bits(nt.Float64(fill))
	}
	fill = readAs.FromBits(fill)
	return fill, nt.Kind != Float || !math.IsNaN(math.Float64frombits(fill))
}

// CFEncoding returns how a numeric array's numbers are encoded as xarray
// reads them (cf.Encoding: _Unsigned, scale_factor, add_offset,
// _FillValue, missing_value, and xarray's bool encoding), with the
// array's fill value (unless a v2 null) as its _FillValue, as for
// CFTime. It returns nil for an array it does not apply to: a time or
// CF time array, and bool, float16 and complex arrays.
func (a *Array) CFEncoding() (*cf.Encoding, error) {
	if a.IsTime() {
		return nil, nil
	}
	if t, err := a.CFTime(); t != nil || err != nil {
		return nil, nil
	}
	stored := cfStored(a.meta.Numeric)
	if stored.Kind == 0 {
		return nil, nil
	}
	attrs := pyjson.Strict(a.meta.Attributes)
	if !a.meta.FillNull {
		attrs = withoutAttribute(attrs, "_FillValue")
	}
	enc, err := cf.ParseEncoding(attrs, stored)
	if err != nil {
		return nil, err
	}
	if fill, ok := a.fillMissing(enc.Stored); ok {
		enc.Missing = append(enc.Missing, fill)
	}
	return enc, nil
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
