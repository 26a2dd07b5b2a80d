package dtype

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// nativeOrder is the host's byte order as one of the two comparable values
// binary.LittleEndian or binary.BigEndian (binary.NativeEndian is a third
// type, which == would not match).
var nativeOrder = func() binary.ByteOrder {
	if binary.NativeEndian.Uint16([]byte{1, 0}) == 1 {
		return binary.LittleEndian
	}
	return binary.BigEndian
}()

// NativeOrder returns the host's byte order as binary.LittleEndian or
// binary.BigEndian, so that it can be compared with ==.
func NativeOrder() binary.ByteOrder { return nativeOrder }

// normalizeOrder maps any binary.ByteOrder (binary.NativeEndian, a custom
// implementation, or nil for native) to binary.LittleEndian or
// binary.BigEndian by what it does, not by its type.
func normalizeOrder(order binary.ByteOrder) binary.ByteOrder {
	switch order {
	case nil:
		return nativeOrder
	case binary.LittleEndian, binary.BigEndian:
		return order
	}
	if order.Uint16([]byte{1, 0}) == 1 {
		return binary.LittleEndian
	}
	return binary.BigEndian
}

// HasByteOrder reports whether a NumPy dtype string names its byte order
// explicitly ('<' or '>'); '=', '|' and no prefix mean the host's order.
func HasByteOrder(s string) bool {
	return len(s) > 0 && (s[0] == '<' || s[0] == '>')
}

// ParseNumPy parses a NumPy datetime64/timedelta64 dtype string, as found in
// Zarr v2 .zarray files and NumPy code: "<M8[10us]", ">m8[ns]", "M8[D]",
// "=M8[s]", "|M8[s]", "datetime64[ns]", "timedelta64[25h]", "<M8" (generic),
// "M8[generic]", "M8[2generic]", "M8[μs]", and NumPy's divisor form
// "M8[s/4]" (= 250ms).
//
// The byte order is binary.LittleEndian for '<', binary.BigEndian for '>',
// and the host's order (one of those two values) for '=', '|' or none.
//
// The grammar is NumPy's (parse_dtype_from_datetime_typestr and
// parse_datetime_extended_unit_from_string), case-sensitive, with these
// deliberate differences, all of which NumPy accepts but produces nonsense
// from or crashes on:
//   - a scale of 0 ("[0s]") is rejected: the Zarr specification requires
//     [1, 2147483647], and NumPy 1.24 crashes casting it;
//   - the scale and divisor are plain decimal digits: NumPy's strtol also
//     takes leading white space and a sign ("[+1s]", "[ 10s]", "[s/-1]"
//     giving a negative scale);
//   - divisors of 0 (NumPy: SIGFPE) or above 2147483647 (NumPy truncates
//     them to 32 bits) are rejected, and so is a divisor that leaves no
//     whole multiple of a finer unit even where NumPy falls off its table
//     ("[W/11]" becomes [0Y] in NumPy) or a result above the maximum scale
//     ("[2147483647s/2]" wraps to [-500ms] in NumPy);
//   - comma (structured) dtype strings are not datetime dtypes here, and
//     neither is NumPy's deprecated repeat-count prefix ("1M8", which NumPy
//     warns will mean a sub-array).
//
// Errors are *ParseError values whose Field is "scale", "unit", "divisor" or
// "" (the overall form).
func ParseNumPy(s string) (DataType, binary.ByteOrder, error) {
	order := nativeOrder
	rest := s
	if rest != "" {
		switch rest[0] {
		case '<':
			order, rest = binary.LittleEndian, rest[1:]
		case '>':
			order, rest = binary.BigEndian, rest[1:]
		case '=', '|':
			rest = rest[1:]
		}
	}
	var kind Kind
	var meta string
	switch {
	case rest == "M": // NumPy's one-character type codes
		kind = Datetime
	case rest == "m":
		kind = Timedelta
	case strings.HasPrefix(rest, "M8"):
		kind, meta = Datetime, rest[2:]
	case strings.HasPrefix(rest, "m8"):
		kind, meta = Timedelta, rest[2:]
	case strings.HasPrefix(rest, "datetime64"):
		kind, meta = Datetime, rest[len("datetime64"):]
	case strings.HasPrefix(rest, "timedelta64"):
		kind, meta = Timedelta, rest[len("timedelta64"):]
	default:
		return DataType{}, nil, numpyError(s, "", "not a datetime64 or timedelta64 dtype string "+
			"(want M8[unit], m8[unit], datetime64[unit] or timedelta64[unit], optionally prefixed with <, >, = or |)")
	}
	unit, scale, err := parseNumPyMeta(s, meta)
	if err != nil {
		return DataType{}, nil, err
	}
	return DataType{Kind: kind, Unit: unit, Scale: scale}, order, nil
}

func numpyError(s, field, reason string) *ParseError {
	return &ParseError{What: whatNumPy, Field: field, Value: s, Reason: reason}
}

// parseNumPyMeta parses the bracketed metadata: "" (generic), or
// "[" [scale] unit ["/" divisor] "]".
func parseNumPyMeta(s, meta string) (Unit, int64, error) {
	if meta == "" {
		return Generic, 1, nil
	}
	if meta[0] != '[' {
		return 0, 0, numpyError(s, "", fmt.Sprintf("unexpected %q after the type code (want [unit] or nothing)", meta))
	}
	end := strings.IndexByte(meta, ']')
	switch {
	case end < 0:
		return 0, 0, numpyError(s, "", "missing ']'")
	case end == 1:
		return 0, 0, numpyError(s, "unit", "empty brackets (want a unit such as [ns] or [10us])")
	case end != len(meta)-1:
		return 0, 0, numpyError(s, "", fmt.Sprintf("unexpected %q after ']'", meta[end+1:]))
	}
	inner := meta[1:end]

	digits := leadingDigits(inner)
	scale := int64(1)
	if digits != "" {
		v, err := strconv.ParseInt(digits, 10, 64)
		if err != nil || v > MaxScale {
			return 0, 0, numpyError(s, "scale", fmt.Sprintf("scale factor %s out of range [1, %d]", digits, MaxScale))
		}
		scale = v
	} else if signedOrSpacedNumber(inner) {
		return 0, 0, numpyError(s, "scale", "the scale factor must be plain decimal digits (no sign, no white space)")
	}
	unitText, divisor, hasDivisor := strings.Cut(inner[len(digits):], "/")
	if unitText == "" {
		return 0, 0, numpyError(s, "unit", "missing unit (want Y M W D h m s ms us μs ns ps fs as generic)")
	}
	unit, err := ParseUnit(unitText)
	if err != nil {
		return 0, 0, numpyError(s, "unit", fmt.Sprintf("%q: %s", unitText, unitHint(unitText)))
	}
	if hasDivisor {
		d := leadingDigits(divisor)
		if d == "" || d != divisor {
			return 0, 0, numpyError(s, "divisor", "the divisor after '/' must be plain decimal digits")
		}
		den, err := strconv.ParseInt(d, 10, 64)
		if err != nil || den > MaxScale {
			return 0, 0, numpyError(s, "divisor", fmt.Sprintf("divisor %s out of range [1, %d]", d, MaxScale))
		}
		if den == 0 {
			return 0, 0, numpyError(s, "divisor", "divisor 0 (NumPy crashes on it)")
		}
		if den != 1 {
			if unit, scale, err = convertDivisor(s, unit, scale, den); err != nil {
				return 0, 0, err
			}
		}
	}
	if scale == 0 {
		return 0, 0, numpyError(s, "scale", fmt.Sprintf("scale factor 0 out of range [1, %d] "+
			"(NumPy accepts it but cannot cast it; the Zarr specification requires at least 1)", MaxScale))
	}
	return unit, scale, nil
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

// signedOrSpacedNumber reports whether s starts with what C's strtol would
// read as a number but dt64 does not: white space and/or a sign, then digits.
func signedOrSpacedNumber(s string) bool {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	return i > 0 && leadingDigits(s[i:]) != ""
}

// isCSpace is C's isspace in the "C" locale, what NumPy's strtol skips.
func isCSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}

// divisorMultiples is NumPy's _multiples_table: for each unit, the multiples
// of finer units it is tried against, in order. For s and finer NumPy uses
// {1000, 1000000} with the next two units (fs: only as; as: none). NumPy
// also tries a fourth, zero entry for W, which turns any divisor into [0Y];
// dt64 stops after the three real ones.
func divisorMultiples(u Unit) ([]int64, []Unit) {
	switch u {
	case Year:
		return []int64{12, 52, 365}, []Unit{Month, Week, Day}
	case Month:
		return []int64{4, 30, 720}, []Unit{Week, Day, Hour}
	case Week:
		return []int64{7, 168, 10080}, []Unit{Day, Hour, Minute}
	case Day:
		return []int64{24, 1440, 86400}, []Unit{Hour, Minute, Second}
	case Hour:
		return []int64{60, 3600}, []Unit{Minute, Second}
	case Minute:
		return []int64{60, 60000}, []Unit{Second, Millisecond}
	case Femtosecond:
		return []int64{1000}, []Unit{Attosecond}
	case Attosecond:
		return nil, nil
	}
	return []int64{1000, 1000000}, []Unit{u + 1, u + 2}
}

// convertDivisor ports NumPy's convert_datetime_divisor_to_multiple:
// [k unit/den] becomes [k·q finer] for the first multiple m of a finer unit
// with m = q·den.
func convertDivisor(s string, unit Unit, scale, den int64) (Unit, int64, error) {
	if unit == Generic {
		return 0, 0, numpyError(s, "divisor", "a divisor cannot be used with generic units")
	}
	multiples, units := divisorMultiples(unit)
	for i, m := range multiples {
		if m%den == 0 {
			scale *= m / den // at most 2147483647·1000000: no int64 overflow
			if scale > MaxScale {
				return 0, 0, numpyError(s, "divisor", fmt.Sprintf("the result [%d%s] has a scale factor above %d", scale, units[i], MaxScale))
			}
			return units[i], scale, nil
		}
	}
	return 0, 0, numpyError(s, "divisor", fmt.Sprintf("divisor (%d) is not a multiple of a lower-unit", den))
}

// NumPy returns NumPy's dtype.str for d in the given byte order:
// "<M8[10us]", ">m8[ns]", "<M8" (generic). binary.LittleEndian gives '<',
// binary.BigEndian '>', and any other order (binary.NativeEndian, nil for
// the host's) the character of what it does.
//
// A generic unit with a scale other than 1 is written "<M8[2generic]",
// which NumPy parses back to the same metadata; NumPy's own dtype.str
// drops that scale ("<M8").
func (d DataType) NumPy(order binary.ByteOrder) string {
	c := byte('<')
	if normalizeOrder(order) == binary.BigEndian {
		c = '>'
	}
	s := string([]byte{c, d.Kind.code(), '8'})
	if u := d.unitString(); u != "" {
		s += "[" + u + "]"
	}
	return s
}
