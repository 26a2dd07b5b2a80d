package pyjson

import (
	"testing"
)

func TestFromPython(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"a": NaN}`, `{"a": "\u0000dt64:NaN"}`},
		{`[NaN,Infinity,-Infinity, -1, 2e3]`, `["\u0000dt64:NaN","\u0000dt64:Infinity","\u0000dt64:-Infinity", -1, 2e3]`},
		{`{"NaN": "NaN Infinity", "b": "\"NaN"}`, `{"NaN": "NaN Infinity", "b": "\"NaN"}`}, // in strings: untouched
		{`{"a": NaNx}`, `{"a": NaNx}`}, // no token: left to the parser to refuse
		{`{"a": {"b": [1, NaN]}}`, `{"a": {"b": [1, "\u0000dt64:NaN"]}}`},
	} {
		got := string(FromPython([]byte(c.in)))
		if got != c.want {
			t.Errorf("FromPython(%s) = %s, want %s", c.in, got, c.want)
		}
		if back := string(ToPython([]byte(got))); back != c.in {
			t.Errorf("ToPython(FromPython(%s)) = %s", c.in, back)
		}
	}
}
