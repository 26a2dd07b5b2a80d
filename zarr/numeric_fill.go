package zarr

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Fill values of numeric types are held as element bits (NumericType.Bits),
// so every value, NaN payloads included, survives a read and a write.

var jsonIntegerLit = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// parseNumericFill parses the fill_value of a numeric type: JSON booleans
// for bool, integers for int and uint, numbers or "NaN", "Infinity",
// "-Infinity" (v3 also "0x…" with the float's bits) for floats, and
// [re, im] pairs of those for complex. v2 also takes null (isNull).
func parseNumericFill(raw json.RawMessage, t NumericType, v2 bool) (bits [2]uint64, isNull bool, err error) {
	lit := string(bytes.TrimSpace(raw))
	if lit == "null" {
		if v2 {
			return bits, true, nil
		}
		return bits, false, errors.New("null is not a Zarr v3 fill value")
	}
	switch t.Kind {
	case Bool:
		switch lit {
		case "true":
			return [2]uint64{1}, false, nil
		case "false":
			return [2]uint64{0}, false, nil
		}
		return bits, false, fmt.Errorf("%s for a bool array; want true or false", truncate(raw))
	case Int, Uint:
		v, err := parseIntFill(lit, t)
		return [2]uint64{v}, false, err
	case Float:
		v, err := parseFloatFill(lit, t.Size, v2)
		return [2]uint64{v}, false, err
	}
	var pair []json.RawMessage
	if err := json.Unmarshal(raw, &pair); err != nil || len(pair) != 2 {
		return bits, false, fmt.Errorf("%s for a %s array; want [real, imaginary]", truncate(raw), t)
	}
	for i, p := range pair {
		if bits[i], err = parseFloatFill(string(bytes.TrimSpace(p)), t.Size/2, v2); err != nil {
			return bits, false, fmt.Errorf("%s part: %w", [2]string{"real", "imaginary"}[i], err)
		}
	}
	return bits, false, nil
}

func parseIntFill(lit string, t NumericType) (uint64, error) {
	if !jsonIntegerLit.MatchString(lit) {
		return 0, fmt.Errorf("%s for a %s array; want an integer written without fraction or exponent", truncateString(lit), t)
	}
	bitsN := 8 * t.Size
	if t.Kind == Uint {
		v, err := strconv.ParseUint(lit, 10, bitsN)
		if err != nil {
			return 0, fmt.Errorf("%s is out of %s range [0, %d]", lit, t, uint64(math.MaxUint64)>>(64-bitsN))
		}
		return v, nil
	}
	v, err := strconv.ParseInt(lit, 10, bitsN)
	if err != nil {
		return 0, fmt.Errorf("%s is out of %s range [%d, %d]", lit, t, int64(-1)<<(bitsN-1), int64(uint64(1)<<(bitsN-1)-1))
	}
	return uint64(v), nil
}

// canonicalNaN is the quiet NaN NumPy produces, per float size.
var canonicalNaN = map[int]uint64{2: 0x7e00, 4: 0x7fc00000, 8: 0x7ff8000000000000}

// parseFloatFill parses one float of size bytes. A decimal number is read
// as float64 and then rounded to the size, as zarr-python does
// (numpy.array(value, dtype)); one outside the type's range is an error.
func parseFloatFill(lit string, size int, v2 bool) (uint64, error) {
	name := "float" + strconv.Itoa(8*size)
	if len(lit) > 0 && lit[0] == '"' {
		var s string
		if err := json.Unmarshal([]byte(lit), &s); err != nil {
			return 0, fmt.Errorf("malformed JSON string %s", truncateString(lit))
		}
		switch s {
		case "NaN":
			return canonicalNaN[size], nil
		case "Infinity":
			return floatBits(math.Inf(1), size), nil
		case "-Infinity":
			return floatBits(math.Inf(-1), size), nil
		}
		if h, ok := strings.CutPrefix(s, "0x"); ok && !v2 {
			v, err := strconv.ParseUint(h, 16, 64)
			if err != nil || len(h) != 2*size {
				return 0, fmt.Errorf("%s: a hexadecimal %s fill value has exactly %d hex digits after \"0x\"", lit, name, 2*size)
			}
			return v, nil
		}
		want := `"NaN", "Infinity" or "-Infinity"`
		if !v2 {
			want = `"NaN", "Infinity", "-Infinity" or "0x" and the bits in hex`
		}
		return 0, fmt.Errorf("%s for a %s array; want a number, %s", truncateString(lit), name, want)
	}
	var n json.Number
	if err := json.Unmarshal([]byte(lit), &n); err != nil {
		return 0, fmt.Errorf("%s for a %s array; want a number or \"NaN\", \"Infinity\", \"-Infinity\"", truncateString(lit), name)
	}
	f, err := strconv.ParseFloat(n.String(), 64)
	b := floatBits(f, size)
	if err != nil || math.IsInf(f, 0) || (size < 8 && math.IsInf(float64FromBits(b, size), 0)) {
		return 0, fmt.Errorf("%s is out of %s range (write \"Infinity\" for infinity)", lit, name)
	}
	return b, nil
}

func float64FromBits(b uint64, size int) float64 {
	return NumericType{Float, size}.Float64(b)
}

func truncateString(s string) string { return string(truncate([]byte(s))) }

// formatNumericFill writes a fill value as zarr-python writes it: floats
// as Python's repr, NaN and infinities as strings, complex as [re, im]. A
// NaN other than NumPy's quiet NaN is written in v3's hex form (v2 has
// none: it becomes "NaN").
func formatNumericFill(t NumericType, bits [2]uint64, v2 bool) json.RawMessage {
	switch t.Kind {
	case Bool:
		if bits[0] != 0 {
			return json.RawMessage("true")
		}
		return json.RawMessage("false")
	case Int:
		return strconv.AppendInt(nil, int64(bits[0]), 10)
	case Uint:
		return strconv.AppendUint(nil, bits[0], 10)
	case Float:
		return formatFloatFill(bits[0], t.Size, v2)
	}
	h := t.Size / 2
	out := []byte("[")
	out = append(out, formatFloatFill(bits[0], h, v2)...)
	out = append(out, ',')
	out = append(out, formatFloatFill(bits[1], h, v2)...)
	return append(out, ']')
}

func formatFloatFill(b uint64, size int, v2 bool) []byte {
	f := float64FromBits(b, size)
	switch {
	case math.IsNaN(f):
		if v2 || b == canonicalNaN[size] {
			return []byte(`"NaN"`)
		}
		return fmt.Appendf(nil, `"0x%0*x"`, 2*size, b)
	case math.IsInf(f, 1):
		return []byte(`"Infinity"`)
	case math.IsInf(f, -1):
		return []byte(`"-Infinity"`)
	}
	return []byte(pythonFloat(f))
}

// pythonFloat is Python's repr of a finite float: the shortest digits that
// read back, in fixed notation with ".0" for 1e-4 <= |f| < 1e16, else as
// "1e+16", "1.5e-05".
func pythonFloat(f float64) string {
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if f == 0 || exp >= -4 && exp < 16 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.ContainsAny(s, ".") {
			s += ".0"
		}
		return s
	}
	return e
}
