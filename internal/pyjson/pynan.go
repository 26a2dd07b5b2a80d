package pyjson

import (
	"bytes"
	"strconv"
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

// Python's json also writes and reads back a string holding a lone UTF-16
// surrogate (json.dumps("\ud800") is "\ud800"), which encoding/json
// decodes as U+FFFD. So each such escape \uXXXX is read as the text
// \u0000dt64:uXXXX (the same NUL marker, then the escape's own four hex
// digits) inside its string, and written back as the escape, byte for byte.

// surrogatePrefix is a lone surrogate's placeholder before its hex digits,
// as JSON text.
const surrogatePrefix = pyPrefix + "u"

// fromPython returns b with each bare NaN, Infinity and -Infinity token
// outside strings replaced by its placeholder string, and each lone
// surrogate escape inside strings by its placeholder text; b itself when it
// holds none.
func FromPython(b []byte) []byte {
	var out []byte
	inString, last := false, 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inString {
			switch c {
			case '\\':
				lone, n := loneSurrogate(b, i)
				if lone {
					if out == nil {
						out = make([]byte, 0, len(b)+32)
					}
					out = append(out, b[last:i]...)
					out = append(out, surrogatePrefix...)
					out = append(out, b[i+2:i+6]...)
					last = i + 6
				}
				i += n - 1
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

// loneSurrogate reports whether the escape at b[i] is \uXXXX of a UTF-16
// surrogate that is not half of a pair, and the length of the escape (2 for
// others; a pair counts as one escape of 12 bytes).
func loneSurrogate(b []byte, i int) (bool, int) {
	hi, ok := hexEscape(b, i)
	if !ok {
		return false, 2
	}
	switch {
	case hi < 0xd800 || hi > 0xdfff:
		return false, 6
	case hi <= 0xdbff:
		if lo, ok := hexEscape(b, i+6); ok && lo >= 0xdc00 && lo <= 0xdfff {
			return false, 12
		}
	}
	return true, 6
}

// hexEscape returns the code unit of the escape \uXXXX at b[i].
func hexEscape(b []byte, i int) (rune, bool) {
	if i+6 > len(b) || b[i] != '\\' || b[i+1] != 'u' {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[i+2:i+6]), 16, 16)
	return rune(v), err == nil
}

// identByte reports whether b[i] continues a word (so "NaNx" is no NaN).
func identByte(b []byte, i int) bool {
	if i >= len(b) {
		return false
	}
	c := b[i]
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// toPython returns b with each placeholder written back as its bare token
// or escape.
func ToPython(b []byte) []byte {
	if !bytes.Contains(b, []byte(pyPrefix)) {
		return b
	}
	s := string(b)
	for _, t := range pyTokens {
		s = strings.ReplaceAll(s, t.placeholder, t.token)
	}
	return []byte(restoreSurrogates(s))
}

// restoreSurrogates writes each lone surrogate placeholder in s back as
// its escape \uXXXX.
func restoreSurrogates(s string) string {
	if !strings.Contains(s, surrogatePrefix) {
		return s
	}
	var out strings.Builder
	for {
		before, after, found := strings.Cut(s, surrogatePrefix)
		out.WriteString(before)
		if !found {
			return out.String()
		}
		out.WriteString(`\u`)
		s = after
	}
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
func Strict(b []byte) []byte {
	if !bytes.Contains(b, []byte(pyPrefix)) {
		return b
	}
	s := restoreSurrogates(string(b)) // valid JSON text, if not valid Unicode
	return []byte(strings.ReplaceAll(s, `"`+pyPrefix, `"`))
}

// StrictFloats turns every bare NaN, Infinity and -Infinity of the tree n
// (Python's tokens, read as number nodes) into the strings "NaN",
// "Infinity" and "-Infinity": as Strict does for a document, and as
// zarr-python 3 writes them in a v3 document, which must be JSON.
func (n *Node) StrictFloats() {
	switch n.Kind {
	case 'n':
		for _, t := range pyTokens {
			if n.Text == t.token {
				n.Kind = '"'
			}
		}
	case '{', '[':
		for i := range n.Vals {
			n.Vals[i].StrictFloats()
		}
	}
}
