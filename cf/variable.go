package cf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/zarr-dt64/dt64/dtype"
)

// StoredKind is how CF time numbers are stored: signed or unsigned
// integers, or IEEE 754 floats.
type StoredKind uint8

const (
	StoredInt StoredKind = iota + 1
	StoredUint
	StoredFloat
)

// Stored is the numeric type a CF time variable's numbers are stored in:
// int8…int64, uint8…uint64 (Size 1, 2, 4, 8), float32 or float64 (4, 8).
type Stored struct {
	Kind StoredKind
	Size int
}

func (s Stored) String() string {
	switch s.Kind {
	case StoredInt:
		return "int" + strconv.Itoa(8*s.Size)
	case StoredUint:
		return "uint" + strconv.Itoa(8*s.Size)
	case StoredFloat:
		return "float" + strconv.Itoa(8*s.Size)
	}
	return fmt.Sprintf("Stored(%d, %d)", s.Kind, s.Size)
}

// Validate reports whether s is a type CF times are read from.
func (s Stored) Validate() error {
	switch {
	case (s.Kind == StoredInt || s.Kind == StoredUint) && (s.Size == 1 || s.Size == 2 || s.Size == 4 || s.Size == 8):
		return nil
	case s.Kind == StoredFloat && (s.Size == 4 || s.Size == 8):
		return nil
	}
	if s.Kind == 0 {
		return fmt.Errorf("CF times are stored as int8…int64, uint8…uint64, float32 or float64")
	}
	return fmt.Errorf("CF times are stored as int8…int64, uint8…uint64, float32 or float64, not %s", s)
}

// Time describes a CF time variable: how its stored numbers become
// instants, value = reference + (v × scale_factor + add_offset) × unit.
// With Units.Duration it is a CF duration (units without "since"): the
// reference is zero and the values are timedelta64 lengths of time.
type Time struct {
	Units    Units
	Calendar Calendar
	Packing  Packing // from scale_factor and add_offset, exactly as written
	Stored   Stored
	// Missing are the stored values that mean "no value" (_FillValue,
	// missing_value, and whatever the caller adds, such as a Zarr array's
	// fill value), as element bits: an integer sign-extended, an unsigned
	// one as it is, a float as the float64 bits of its value. NaN is
	// always missing and is not listed.
	Missing []uint64
}

// DefaultType is the datetime64 type (timedelta64 for a duration) t's
// values decode to unless the caller picks one: its own unit when every
// value decodes exactly in it (integers, no fractional packing, a
// reference that is a whole number of the unit since the epoch), else
// nanoseconds.
func (t *Time) DefaultType() dtype.DataType {
	ns := dtype.DataType{Kind: t.Units.Kind(), Unit: dtype.Nanosecond, Scale: 1}
	own := dtype.DataType{Kind: t.Units.Kind(), Unit: t.Units.Unit, Scale: 1}
	whole := func(r *big.Rat) bool { return r == nil || r.IsInt() }
	if t.Stored.Kind == StoredFloat || !whole(t.Packing.Scale) || !whole(t.Packing.Offset) {
		return ns
	}
	sec, err := unitSeconds(own)
	if err != nil || !whole(new(big.Rat).Quo(t.Units.Reference, sec)) {
		return ns
	}
	return own
}

// ParseAttributes reads the CF time description of a variable stored as
// stored from its attributes, a JSON object (Zarr v3 "attributes" or a
// v2 .zattrs). It returns nil and no error when the variable is not a CF
// time: no units attribute, or units that do not read "<unit> since
// <date>" (such as "m/s"). Anything else that does not parse is an
// *AttributeError naming the attribute and its text.
func ParseAttributes(attrs json.RawMessage, stored Stored) (*Time, error) {
	if len(bytes.TrimSpace(attrs)) == 0 {
		return nil, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(attrs, &obj); err != nil {
		return nil, &AttributeError{Attribute: "attributes", Text: shorten(string(attrs)), Reason: "not a JSON object"}
	}
	raw, ok := obj["units"]
	if !ok {
		return nil, nil
	}
	var units string
	if err := json.Unmarshal(raw, &units); err != nil {
		if isTimeLike(string(raw)) {
			return nil, &AttributeError{Attribute: "units", Text: shorten(string(raw)), Reason: "must be a string"}
		}
		return nil, nil
	}
	t := &Time{Stored: stored}
	var err error
	switch {
	case IsDuration(units):
		// A duration: no reference, so no calendar (xarray ignores one).
		t.Units, _ = ParseDuration(units)
		t.Calendar = t.Units.Calendar
	case !isTimeLike(units):
		return nil, nil
	default:
		calText := ""
		if raw, ok := obj["calendar"]; ok {
			if err := json.Unmarshal(raw, &calText); err != nil {
				return nil, &AttributeError{Attribute: "calendar", Text: shorten(string(raw)), Reason: "must be a string"}
			}
		}
		if t.Calendar, err = ParseCalendar(calText); err != nil {
			return nil, err
		}
		if t.Units, err = ParseUnits(units, t.Calendar); err != nil {
			return nil, err
		}
	}
	if err := stored.Validate(); err != nil {
		return nil, &AttributeError{Attribute: "units", Text: units, Reason: err.Error()}
	}
	if t.Packing.Scale, err = packingAttr(obj, "scale_factor"); err != nil {
		return nil, err
	}
	if t.Packing.Offset, err = packingAttr(obj, "add_offset"); err != nil {
		return nil, err
	}
	for _, name := range []string{"_FillValue", "missing_value"} {
		raw, ok := obj[name]
		if !ok {
			continue
		}
		vals, err := missingAttr(name, raw, stored)
		if err != nil {
			return nil, err
		}
		t.Missing = append(t.Missing, vals...)
	}
	return t, nil
}

// isTimeLike reports whether a units text claims to be a CF time: a
// "since" among its words.
func isTimeLike(units string) bool {
	for _, f := range strings.Fields(units) {
		if strings.EqualFold(f, "since") {
			return true
		}
	}
	return false
}

func shorten(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// scalarOrOne unpacks a JSON scalar or a one-element list (netCDF
// attributes are arrays).
func scalarOrOne(raw json.RawMessage) (json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var l []json.RawMessage
		if json.Unmarshal(raw, &l) != nil || len(l) != 1 {
			return nil, false
		}
		return bytes.TrimSpace(l[0]), true
	}
	return raw, true
}

// packingAttr reads scale_factor or add_offset as the exact decimal
// number written (nil when absent).
func packingAttr(obj map[string]json.RawMessage, name string) (*big.Rat, error) {
	raw, ok := obj[name]
	if !ok {
		return nil, nil
	}
	bad := func(reason string) (*big.Rat, error) {
		return nil, &AttributeError{Attribute: name, Text: shorten(string(raw)), Reason: reason}
	}
	v, ok := scalarOrOne(raw)
	var n json.Number
	if !ok || json.Unmarshal(v, &n) != nil {
		return bad("must be a finite number (or a list of one); dt64 applies packing exactly, and cannot apply this")
	}
	r, ok := new(big.Rat).SetString(n.String())
	if !ok || len(n.String()) > 400 {
		return bad("not a number dt64 can apply exactly")
	}
	if name == "scale_factor" && r.Sign() == 0 {
		return bad("a scale factor of 0 maps every value to add_offset; dt64 refuses it")
	}
	return r, nil
}

// missingAttr reads _FillValue or missing_value (a scalar or a list) as
// values of the stored type.
func missingAttr(name string, raw json.RawMessage, stored Stored) ([]uint64, error) {
	raw = bytes.TrimSpace(raw)
	items := []json.RawMessage{raw}
	if len(raw) > 0 && raw[0] == '[' {
		items = nil // Unmarshal would overwrite raw through items[0]
		if err := json.Unmarshal(raw, &items); err != nil {
			return nil, &AttributeError{Attribute: name, Text: shorten(string(raw)), Reason: "must be a number or a list of numbers"}
		}
	}
	var out []uint64
	for _, it := range items {
		v, isNaN, err := storedValue(bytes.TrimSpace(it), stored)
		if err != nil {
			return nil, &AttributeError{Attribute: name, Text: shorten(string(raw)), Reason: err.Error()}
		}
		if !isNaN {
			out = append(out, v)
		}
	}
	return out, nil
}

// storedValue reads one JSON value as a value of the stored type, in
// the bits Time.Missing holds.
func storedValue(lit json.RawMessage, stored Stored) (v uint64, isNaN bool, err error) {
	if len(lit) > 0 && lit[0] == '"' {
		var s string
		_ = json.Unmarshal(lit, &s)
		if stored.Kind != StoredFloat {
			return 0, false, fmt.Errorf("%s is not a value of %s", lit, stored)
		}
		switch s {
		case "NaN":
			return 0, true, nil
		case "Infinity":
			return math.Float64bits(math.Inf(1)), false, nil
		case "-Infinity":
			return math.Float64bits(math.Inf(-1)), false, nil
		}
		return 0, false, fmt.Errorf("%s is not a number (strings may be \"NaN\", \"Infinity\", \"-Infinity\")", lit)
	}
	var n json.Number
	if err := json.Unmarshal(lit, &n); err != nil {
		return 0, false, fmt.Errorf("%s is not a number", shorten(string(lit)))
	}
	switch stored.Kind {
	case StoredFloat:
		f, err := strconv.ParseFloat(n.String(), 8*stored.Size)
		if err != nil {
			return 0, false, fmt.Errorf("%s is out of %s range", n, stored)
		}
		return math.Float64bits(f), false, nil
	}
	r, ok := new(big.Rat).SetString(n.String())
	if !ok || !r.IsInt() {
		return 0, false, fmt.Errorf("%s is not an integer, so never a value of %s", n, stored)
	}
	i := r.Num()
	bitsN := 8 * stored.Size
	if stored.Kind == StoredUint {
		if i.Sign() < 0 || i.BitLen() > bitsN {
			return 0, false, fmt.Errorf("%s is out of %s range", n, stored)
		}
		return i.Uint64(), false, nil
	}
	if !i.IsInt64() || i.Int64() < -1<<(bitsN-1) || i.Int64() > 1<<(bitsN-1)-1 {
		return 0, false, fmt.Errorf("%s is out of %s range", n, stored)
	}
	return uint64(i.Int64()), false, nil
}
