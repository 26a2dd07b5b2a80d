package dtype

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ParseFillValue parses a Zarr v3 fill_value for numpy.datetime64 and
// numpy.timedelta64 from its raw JSON text: a JSON integer in int64 range
// written without fraction or exponent, or exactly the string "NaT". Both
// "NaT" and -9223372036854775808 give NaT. Errors are *ParseError values.
func ParseFillValue(b []byte) (int64, error) {
	v, isNull, err := parseFill(b)
	if err != nil {
		return 0, err
	}
	if isNull {
		return 0, &ParseError{What: whatFill, Value: "null",
			Reason: `must be an integer or "NaT" (null is not a Zarr v3 fill value)`}
	}
	return v, nil
}

// ParseFillValueV2 parses a Zarr v2 .zarray fill_value: an integer, "NaT",
// or null. Null means the array has no fill value; it is reported as
// isNull and what missing chunks then read as is the caller's decision.
func ParseFillValueV2(b []byte) (v int64, isNull bool, err error) {
	return parseFill(b)
}

// FormatFillValue writes a fill value as a JSON integer. NaT is written as
// -9223372036854775808, as zarr-python writes it, rather than "NaT".
func FormatFillValue(v int64) []byte {
	return strconv.AppendInt(nil, v, 10)
}

func parseFill(b []byte) (v int64, isNull bool, err error) {
	lit := string(bytes.TrimSpace(b))
	switch jsonType(b) {
	case "null":
		if lit == "null" {
			return 0, true, nil
		}
	case "string":
		var s string
		if err := json.Unmarshal([]byte(lit), &s); err != nil {
			return 0, false, &ParseError{What: whatFill, Value: lit, Reason: "malformed JSON string", Err: err}
		}
		if s == "NaT" {
			return NaT, false, nil
		}
		if tok, ok := strings.CutPrefix(s, "\x00dt64:"); ok {
			// A bare NaN or Infinity token (Python's json writes them),
			// which dt64 reads as a placeholder string (internal/pyjson).
			return 0, false, &ParseError{What: whatFill, Value: tok,
				Reason: `not a datetime64 fill value (NaN and the infinities are float values); want an integer or "NaT"`}
		}
		return 0, false, &ParseError{What: whatFill, Value: lit,
			Reason: `the only string allowed is exactly "NaT" (case-sensitive; dates are not fill values)`}
	case "number":
		if !jsonInteger.MatchString(lit) {
			return 0, false, &ParseError{What: whatFill, Value: lit,
				Reason: "must be an integer written without fraction or exponent, or \"NaT\""}
		}
		v, err := strconv.ParseInt(lit, 10, 64)
		if err != nil {
			return 0, false, &ParseError{What: whatFill, Value: lit,
				Reason: "out of int64 range [-9223372036854775808, 9223372036854775807]"}
		}
		return v, false, nil
	}
	if lit == "" {
		return 0, false, &ParseError{What: whatFill, Reason: "empty; want an integer or \"NaT\""}
	}
	return 0, false, &ParseError{What: whatFill, Value: lit,
		Reason: fmt.Sprintf("must be an integer or \"NaT\", got %s", jsonType(b))}
}
