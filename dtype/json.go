package dtype

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ParseError reports why a data type, fill value or NumPy dtype string was
// rejected. Callers can recover it with errors.As to find the offending
// member and its text; Error() names both.
type ParseError struct {
	// What was being parsed: "data_type", "fill_value" or "NumPy dtype".
	What string
	// Field is the offending member as a dotted path
	// ("configuration.scale_factor"), or "" when the whole value is at fault.
	Field string
	// Value is the offending text exactly as written: a JSON literal
	// (1.5, "10", null) or a NumPy dtype string or part of one. "" when
	// something is missing rather than wrong.
	Value string
	// Reason says what is wrong and what would be accepted.
	Reason string
	// Err is the underlying cause, if any (a JSON syntax error, a unit error).
	Err error
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString("invalid ")
	b.WriteString(e.What)
	if e.What == whatNumPy {
		// The value is the whole dtype string; the field is a part of it.
		b.WriteString(" ")
		b.WriteString(showValue(e.What, e.Value))
		if e.Field != "" {
			b.WriteString(": ")
			b.WriteString(e.Field)
		}
	} else {
		if e.Field != "" {
			b.WriteString(": ")
			b.WriteString(e.Field)
		}
		if e.Value != "" {
			b.WriteString(" ")
			b.WriteString(showValue(e.What, e.Value))
		}
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *ParseError) Unwrap() error { return e.Err }

// showValue prints a value so that long or binary input cannot garble the
// message. JSON literals are self-delimiting and shown as written (1.5 and
// "10" stay distinguishable); dtype strings are quoted.
func showValue(what, v string) string {
	const max = 100
	if len(v) > max {
		v = v[:max] + "..."
	}
	if what == whatNumPy || !isPrintable(v) {
		return strconv.Quote(v)
	}
	return v
}

func isPrintable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

const (
	whatDataType = "data_type"
	whatFill     = "fill_value"
	whatNumPy    = "NumPy dtype"
)

// ParseJSON parses a Zarr v3 data_type value strictly:
//
//	{"name": "numpy.datetime64", "configuration": {"unit": "us", "scale_factor": 10}}
//
// The object takes exactly the members name and configuration (no
// must_understand), the configuration exactly unit and scale_factor, with no
// duplicates. The unit is case-sensitive ("μs", U+03BC, is accepted and means
// "us"); scale_factor is a JSON integer written without fraction or exponent
// in [1, 2147483647]. Errors are *ParseError values naming the member and the
// text found.
func ParseJSON(b []byte) (DataType, error) {
	members, err := readObject(b, "")
	if err != nil {
		return DataType{}, err
	}
	var d DataType
	var haveName, haveConfig bool
	for _, m := range members {
		switch m.key {
		case "name":
			haveName = true
			if d.Kind, err = parseName(m.raw); err != nil {
				return DataType{}, err
			}
		case "configuration":
			haveConfig = true
			if d.Unit, d.Scale, err = parseConfiguration(m.raw); err != nil {
				return DataType{}, err
			}
		default:
			return DataType{}, &ParseError{What: whatDataType, Field: strconv.Quote(m.key),
				Reason: "unexpected member (the object takes exactly \"name\" and \"configuration\")"}
		}
	}
	if !haveName {
		return DataType{}, &ParseError{What: whatDataType, Field: "name", Reason: "missing required member"}
	}
	if !haveConfig {
		return DataType{}, &ParseError{What: whatDataType, Field: "configuration",
			Reason: "missing required member (numpy.datetime64 and numpy.timedelta64 require unit and scale_factor)"}
	}
	return d, nil
}

// MarshalJSON writes the Zarr v3 form, members in the order name,
// configuration{unit, scale_factor}. Microseconds are written "us" (ASCII),
// never "μs": NumPy reports "us" and the specification makes them equivalent.
func (d DataType) MarshalJSON() ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("cannot marshal data type: %w", err)
	}
	b := make([]byte, 0, 80)
	b = append(b, `{"name":`...)
	b = strconv.AppendQuote(b, d.Kind.ZarrName())
	b = append(b, `,"configuration":{"unit":`...)
	b = strconv.AppendQuote(b, d.Unit.String())
	b = append(b, `,"scale_factor":`...)
	b = strconv.AppendInt(b, d.Scale, 10)
	b = append(b, "}}"...)
	return b, nil
}

// UnmarshalJSON parses b with ParseJSON. JSON null is rejected too: a
// data_type is never optional.
func (d *DataType) UnmarshalJSON(b []byte) error {
	v, err := ParseJSON(b)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

type member struct {
	key string
	raw json.RawMessage
}

// readObject splits one JSON object into its members in order, rejecting
// duplicates and anything after the object. The raw member values keep their
// literal text so that 1.0 and 1 stay distinguishable.
func readObject(b []byte, field string) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxError(field, b, err)
	}
	if tok != json.Delim('{') {
		reason := "must be a JSON object, got " + jsonType(b)
		if field == "" && jsonType(b) == "string" {
			reason += " (the bare-name form is not allowed: numpy.datetime64 and numpy.timedelta64 require a configuration)"
		}
		return nil, &ParseError{What: whatDataType, Field: field, Value: string(bytes.TrimSpace(b)), Reason: reason}
	}
	var members []member
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxError(field, b, err)
		}
		key, ok := tok.(string)
		if !ok { // the decoder reports non-string keys as syntax errors; be safe
			return nil, syntaxError(field, b, fmt.Errorf("object key is %v, not a string", tok))
		}
		if seen[key] {
			return nil, &ParseError{What: whatDataType, Field: join(field, strconv.Quote(key)),
				Reason: "duplicate member"}
		}
		seen[key] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntaxError(join(field, key), b, err)
		}
		members = append(members, member{key, raw})
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, syntaxError(field, b, err)
	}
	if tok, err := dec.Token(); err != io.EOF {
		if err != nil {
			return nil, syntaxError(field, b, err)
		}
		return nil, &ParseError{What: whatDataType, Field: field, Value: fmt.Sprint(tok),
			Reason: "unexpected data after the JSON object"}
	}
	return members, nil
}

func syntaxError(field string, b []byte, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = errors.New("unexpected end of JSON input")
	}
	return &ParseError{What: whatDataType, Field: field, Reason: "malformed JSON", Err: err}
}

func join(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// jsonType names the type of a raw JSON value for error messages.
func jsonType(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

func parseName(raw json.RawMessage) (Kind, error) {
	var name string
	if jsonType(raw) != "string" || json.Unmarshal(raw, &name) != nil {
		return 0, &ParseError{What: whatDataType, Field: "name", Value: string(raw),
			Reason: "must be the string \"numpy.datetime64\" or \"numpy.timedelta64\", got " + jsonType(raw)}
	}
	switch name {
	case Datetime.ZarrName():
		return Datetime, nil
	case Timedelta.ZarrName():
		return Timedelta, nil
	}
	return 0, &ParseError{What: whatDataType, Field: "name", Value: string(raw),
		Reason: "unsupported data type (want \"numpy.datetime64\" or \"numpy.timedelta64\"; names are case-sensitive)"}
}

func parseConfiguration(raw json.RawMessage) (Unit, int64, error) {
	members, err := readObject(raw, "configuration")
	if err != nil {
		return 0, 0, err
	}
	var unit Unit
	var scale int64
	var haveUnit, haveScale bool
	for _, m := range members {
		switch m.key {
		case "unit":
			haveUnit = true
			if unit, err = parseJSONUnit(m.raw); err != nil {
				return 0, 0, err
			}
		case "scale_factor":
			haveScale = true
			if scale, err = parseScaleFactor(m.raw); err != nil {
				return 0, 0, err
			}
		default:
			return 0, 0, &ParseError{What: whatDataType, Field: "configuration." + strconv.Quote(m.key),
				Reason: "unexpected member (the configuration takes exactly \"unit\" and \"scale_factor\")"}
		}
	}
	if !haveUnit {
		return 0, 0, &ParseError{What: whatDataType, Field: "configuration.unit", Reason: "missing required member"}
	}
	if !haveScale {
		return 0, 0, &ParseError{What: whatDataType, Field: "configuration.scale_factor", Reason: "missing required member"}
	}
	return unit, scale, nil
}

func parseJSONUnit(raw json.RawMessage) (Unit, error) {
	var s string
	if jsonType(raw) != "string" || json.Unmarshal(raw, &s) != nil {
		return 0, &ParseError{What: whatDataType, Field: "configuration.unit", Value: string(raw),
			Reason: "must be a unit string, got " + jsonType(raw)}
	}
	u, err := ParseUnit(s)
	if err != nil {
		return 0, &ParseError{What: whatDataType, Field: "configuration.unit", Value: string(raw), Reason: unitHint(s)}
	}
	return u, nil
}

// unitHint says why a unit name was rejected, with advice for the two
// near misses: U+00B5 for U+03BC, and the wrong case.
func unitHint(s string) string {
	const want = "unknown unit (want one of Y M W D h m s ms us μs ns ps fs as generic)"
	if strings.Contains(s, "\u00b5") {
		return want + `; U+00B5 MICRO SIGN is rejected as NumPy rejects it: write "us", or "μs" with U+03BC`
	}
	for _, name := range unitNames {
		if strings.EqualFold(s, name) {
			return want + `; units are case-sensitive ("m" is minutes, "M" months, "ms" milliseconds)`
		}
	}
	return want
}

// jsonInteger is a JSON number with neither fraction nor exponent.
var jsonInteger = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

func parseScaleFactor(raw json.RawMessage) (int64, error) {
	const field = "configuration.scale_factor"
	lit := string(bytes.TrimSpace(raw))
	if jsonType(raw) != "number" {
		return 0, &ParseError{What: whatDataType, Field: field, Value: lit,
			Reason: fmt.Sprintf("must be a JSON integer in [1, %d], got %s", MaxScale, jsonType(raw))}
	}
	if !jsonInteger.MatchString(lit) {
		return 0, &ParseError{What: whatDataType, Field: field, Value: lit,
			Reason: fmt.Sprintf("must be an integer written without fraction or exponent, in [1, %d]", MaxScale)}
	}
	v, err := strconv.ParseInt(lit, 10, 64)
	if err != nil || v < 1 || v > MaxScale {
		return 0, &ParseError{What: whatDataType, Field: field, Value: lit,
			Reason: fmt.Sprintf("out of range [1, %d]", MaxScale)}
	}
	return v, nil
}
