package zarr

import (
	"bytes"
	"strings"
)

// Python's json module writes a float attribute that is not finite as a
// bare NaN, Infinity or -Infinity token (json.dumps' default
// allow_nan=True), and zarr-python 2 and xarray write attributes that way:
// {"valid_max": NaN}. That is not JSON, and encoding/json refuses it. So
// dt64 reads such a token as a placeholder string that no writer
// produces (a NUL byte and a marker, which ValidKey-style text never
// holds), keeps it through every parse, and writes it back as the bare
// token: a document with NaN attributes is read and written as Python
// would, and copied byte for byte as before.

// pyPrefix is a placeholder's prefix as JSON text, pyPlaceholderValue
// the same decoded.
const (
	pyPrefix           = `\u0000dt64:`
	pyPlaceholderValue = "\x00dt64:"
)

// pyTokens are the bare tokens and their placeholders' JSON text.
var pyTokens = [...]struct{ token, placeholder string }{
	{"-Infinity", `"` + pyPrefix + `-Infinity"`},
	{"Infinity", `"` + pyPrefix + `Infinity"`},
	{"NaN", `"` + pyPrefix + `NaN"`},
}

// fromPython returns b with each bare NaN, Infinity and -Infinity token
// outside strings replaced by its placeholder string; b itself when it
// holds none.
func fromPython(b []byte) []byte {
	var out []byte
	inString, last := false, 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			continue
		}
		if c != 'N' && c != 'I' && c != '-' {
			continue
		}
		for _, t := range pyTokens {
			if bytes.HasPrefix(b[i:], []byte(t.token)) && !identByte(b, i+len(t.token)) {
				if out == nil {
					out = make([]byte, 0, len(b)+32)
				}
				out = append(out, b[last:i]...)
				out = append(out, t.placeholder...)
				i += len(t.token) - 1
				last = i + 1
				break
			}
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// identByte reports whether b[i] continues a word (so "NaNx" is no NaN).
func identByte(b []byte, i int) bool {
	if i >= len(b) {
		return false
	}
	c := b[i]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// toPython returns b with each placeholder written back as its bare token.
func toPython(b []byte) []byte {
	if !bytes.Contains(b, []byte(pyPrefix)) {
		return b
	}
	s := string(b)
	for _, t := range pyTokens {
		s = strings.ReplaceAll(s, t.placeholder, t.token)
	}
	return []byte(s)
}

// pyToken returns the bare token a decoded placeholder string stands for.
func pyToken(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, pyPlaceholderValue)
	if !ok {
		return "", false
	}
	for _, t := range pyTokens {
		if t.token == rest {
			return rest, true
		}
	}
	return "", false
}

// StrictJSON returns a document dt64 read (a node's Attributes, say) as
// strict JSON: Python's bare NaN, Infinity and -Infinity as the strings
// "NaN", "Infinity" and "-Infinity", as the Zarr v3 fill value spells
// them, for output that JSON tools must parse (inspect --json).
func StrictJSON(b []byte) []byte {
	if !bytes.Contains(b, []byte(pyPrefix)) {
		return b
	}
	return []byte(strings.ReplaceAll(string(b), `"`+pyPrefix, `"`))
}
