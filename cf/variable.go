package cf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"slices"
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
	// Unsigned is the variable's own type when an _Unsigned attribute
	// changed how its integers are read (netCDF's convention, xarray's
	// UnsignedIntegerCoder: "true" on int8…int64 reads them as uint8…uint64
	// of the same width, "false" on an unsigned type as the signed one);
	// Stored is then the type they are read as. Zero otherwise.
	Unsigned Stored
	// Missing are the stored values that mean "no value" (_FillValue,
	// missing_value, and whatever the caller adds, such as a Zarr array's
	// fill value), as element bits: an integer sign-extended, an unsigned
	// one as it is, a float as the float64 bits of its value. NaN is
	// always missing and is not listed.
	Missing []uint64
}

// NaTMarker is the stored value -2^63 of an int64 variable, as
// Time.Missing's bits. It is always missing there (MissingValues), declared
// or not: it is datetime64's NaT bit pattern, which xarray writes for NaT in
// an int64 encoding without declaring a _FillValue (and reads back as NaT
// in ns and in durations; in coarser units its product wraps to a wrong
// date), and which no real count comes near.
const NaTMarker = uint64(1) << 63

// MissingValues returns the stored values that decode to NaT, as Missing's
// bits: Missing and, for an int64 variable, NaTMarker (NaN aside). The
// slice is the caller's.
func (t *Time) MissingValues() []uint64 {
	m := slices.Clone(t.Missing)
	if t.Stored == (Stored{Kind: StoredInt, Size: 8}) && !slices.Contains(m, NaTMarker) {
		m = append(m, NaTMarker)
	}
	return m
}

// Describe names the stored numbers for messages, with the units as the
// attribute gives them ("float64 days since 1500-01-01"): before 1582 the
// standard calendar's reference is a Julian date, which Units.String
// writes as the proleptic Gregorian instant (1500-01-10).
func (t *Time) Describe() string {
	u := strings.TrimSpace(t.Units.Text)
	if u == "" {
		u = t.Units.String()
	}
	return fmt.Sprintf("%s %s", t.Stored, u)
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
			if calText == "" {
				return nil, &AttributeError{Attribute: "calendar", Text: calText,
					Reason: "empty, which xarray refuses (without the attribute the calendar is standard)"}
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
	enc, err := parseEncoding(obj, stored)
	if err != nil {
		return nil, err
	}
	t.Stored, t.Unsigned, t.Packing, t.Missing = enc.Stored, enc.Unsigned, enc.Packing, enc.Missing
	return t, nil
}

// Encoding is how a CF variable's numbers are stored, the attributes
// xarray's mask-and-scale decoding acts on (its UnsignedIntegerCoder,
// CFMaskCoder and CFScaleOffsetCoder), and xarray's bool encoding: what
// a numeric variable needs to be read as xarray shows it.
type Encoding struct {
	// Stored is the type the numbers are read as: the variable's own,
	// or under _Unsigned the integer type of the other signedness, whose
	// own is then Unsigned (as in Time).
	Stored, Unsigned Stored
	// Packing is scale_factor and add_offset as written (nil: absent).
	Packing Packing
	// Missing are the stored values that mean "no value" (_FillValue and
	// missing_value), in Time.Missing's bits; NaN is not listed.
	Missing []uint64
	// Bool is xarray's encoding of a bool variable as int8: a "dtype"
	// attribute "bool".
	Bool bool
}

// Decodes reports whether e changes any value: packing, missing values,
// _Unsigned, or xarray's bool encoding.
func (e *Encoding) Decodes() bool {
	return e.Packing.Scale != nil || e.Packing.Offset != nil || len(e.Missing) > 0 || e.Unsigned != (Stored{}) || e.Bool
}

// ParseEncoding reads the encoding of a variable stored as stored from
// its attributes (a JSON object; empty means none): _Unsigned,
// scale_factor, add_offset, _FillValue and missing_value, read as for a
// CF time (ParseAttributes), and a "dtype" of "bool". Anything that does
// not parse is an *AttributeError naming the attribute and its text.
func ParseEncoding(attrs json.RawMessage, stored Stored) (*Encoding, error) {
	if err := stored.Validate(); err != nil {
		return nil, err
	}
	obj := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(attrs)) > 0 {
		if err := json.Unmarshal(attrs, &obj); err != nil {
			return nil, &AttributeError{Attribute: "attributes", Text: shorten(string(attrs)), Reason: "not a JSON object"}
		}
	}
	enc, err := parseEncoding(obj, stored)
	if err != nil {
		return nil, err
	}
	var dt string
	if raw, ok := obj["dtype"]; ok && json.Unmarshal(raw, &dt) == nil && dt == "bool" {
		enc.Bool = true
	}
	return enc, nil
}

// parseEncoding reads _Unsigned, scale_factor, add_offset, _FillValue and
// missing_value from a variable's attributes.
func parseEncoding(obj map[string]json.RawMessage, stored Stored) (*Encoding, error) {
	enc := &Encoding{Stored: stored}
	readAs, err := unsignedAttr(obj, stored)
	if err != nil {
		return nil, err
	}
	if readAs != stored {
		enc.Stored, enc.Unsigned = readAs, stored
	}
	if enc.Packing.Scale, err = packingAttr(obj, "scale_factor"); err != nil {
		return nil, err
	}
	if enc.Packing.Offset, err = packingAttr(obj, "add_offset"); err != nil {
		return nil, err
	}
	for _, name := range []string{"_FillValue", "missing_value"} {
		raw, ok := obj[name]
		if !ok {
			continue
		}
		vals, err := missingAttr(name, raw, stored, readAs)
		if err != nil {
			return nil, err
		}
		enc.Missing = append(enc.Missing, vals...)
	}
	return enc, nil
}

// isTimeLike reports whether a units text claims to be a CF time: a
// "since" among its words.
func isTimeLike(units string) bool {
	// "since" in any case, as cftime and UDUNITS read it (xarray detects
	// CF time by a lower-case "since" only, and shows "hours SINCE
	// 2000-01-01" as plain numbers: docs/cf-time.md).
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
	// A JSON string unmarshals into a json.Number too; xarray cannot
	// multiply by one.
	if !ok || bytes.HasPrefix(v, []byte(`"`)) || json.Unmarshal(v, &n) != nil {
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

// unsignedAttr reads the _Unsigned attribute: the type a variable stored
// as stored is read as. xarray (UnsignedIntegerCoder) acts on the strings
// "true" (a signed integer type read as the unsigned one of its width) and
// "false" (an unsigned type read as the signed one) and ignores anything
// else; dt64 refuses anything else, and "true" on floats (which xarray
// ignores with a warning), rather than ignore what the writer declared.
func unsignedAttr(obj map[string]json.RawMessage, stored Stored) (Stored, error) {
	raw, ok := obj["_Unsigned"]
	if !ok {
		return stored, nil
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return stored, &AttributeError{Attribute: "_Unsigned", Text: shorten(string(raw)),
			Reason: `must be a string, "true" or "false" (netCDF's convention; xarray acts on those two strings only and ignores this value); dt64 refuses to guess what it means`}
	}
	if v != "true" && v != "false" {
		return stored, &AttributeError{Attribute: "_Unsigned", Text: shorten(v),
			Reason: `must be "true" or "false" (netCDF's convention; xarray acts on those two strings only and ignores this one); dt64 refuses to guess what it means`}
	}
	switch {
	case stored.Kind == StoredFloat && v == "true":
		return stored, &AttributeError{Attribute: "_Unsigned", Text: v,
			Reason: fmt.Sprintf("declares unsigned integers, but the numbers are %s (xarray ignores it with a warning); dt64 refuses to ignore it", stored)}
	case stored.Kind == StoredInt && v == "true":
		return Stored{Kind: StoredUint, Size: stored.Size}, nil
	case stored.Kind == StoredUint && v == "false":
		return Stored{Kind: StoredInt, Size: stored.Size}, nil
	}
	return stored, nil
}

// FromBits returns the element of type s whose stored bytes are the low
// 8×Size bits of w (an integer of the same width, of either signedness),
// in Time.Missing's bits: sign-extended for a signed type, zero-extended
// for an unsigned one. Floats are returned as they are.
func (s Stored) FromBits(w uint64) uint64 {
	if s.Kind == StoredFloat || s.Size >= 8 {
		return w
	}
	shift := uint(64 - 8*s.Size)
	if s.Kind == StoredInt {
		return uint64(int64(w<<shift) >> shift)
	}
	return w << shift >> shift
}

// missingAttr reads _FillValue or missing_value (a scalar or a list) as
// values of the stored type, read as readAs (_Unsigned). Under _Unsigned,
// a _FillValue is converted to readAs as xarray converts it (NumPy's
// unsigned_dtype.type(fill)): any value of either signedness of the width
// stands for its bits, -1 and 255 for the same int8 byte. xarray converts
// no missing_value: it compares the converted numbers with it as written,
// so a missing_value outside readAs's range matches nothing there; dt64
// refuses such a value, which its writer surely meant as a bit pattern.
func missingAttr(name string, raw json.RawMessage, stored, readAs Stored) ([]uint64, error) {
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
		it = bytes.TrimSpace(it)
		v, isNaN, err := storedValue(it, readAs)
		if readAs != stored && err != nil {
			if name == "_FillValue" {
				// A value of the other signedness: its bits.
				if w, _, err2 := storedValue(it, stored); err2 == nil {
					v, err = readAs.FromBits(w), nil
				} else {
					err = fmt.Errorf("%w, and of %s, the array's type (_Unsigned reads it as %s)", err, stored, readAs)
				}
			} else {
				err = fmt.Errorf(`%w: _Unsigned reads the %s numbers as %s, and xarray compares them with missing_value unconverted, so it would match none of them; dt64 refuses to guess whether it means its bits`, err, stored, readAs)
			}
		}
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
