package zarr

import (
	"errors"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/internal/pyjson"
)

// TestLoneSurrogatesKept: strings holding lone UTF-16 surrogate escapes, in
// either case, at the start, middle and end, as keys and values, are
// written back escape for escape; valid pairs and brackets inside strings
// are untouched.
func TestLoneSurrogatesKept(t *testing.T) {
	for _, doc := range []string{
		`{"s": "\ud800"}`,
		`{"s": "a\uDC00b", "\udbff": ["\udfff\ud800", "x\\ud800"]}`,
		`{"pair": "\ud83d\ude00", "hi-then-hi": "\ud800\ud800", "NaN": NaN}`,
		`{"brackets": "[[[{{", "end": "\ud800"}`,
	} {
		if err := checkAttrs([]byte(doc)); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		n, err := pyjson.Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		// Python writes what it read (the pair included): only the
		// whitespace differs.
		if got := string(pyjson.Dumps(n, 0, false)); compact(got) != compact(doc) {
			t.Errorf("%s\n written as %s", doc, got)
		}
		if b := pyjson.ToPython(pyjson.FromPython([]byte(doc))); string(b) != doc {
			t.Errorf("%s\n comes back as %s", doc, b)
		}
	}
}

func compact(s string) string { return strings.Join(strings.Fields(s), "") }

// TestDepthBound: a document is refused past maxJSONDepth levels, naming
// the limit; brackets inside strings do not count; one at the limit reads,
// and pyDoc refuses to write one that would nest deeper.
func TestDepthBound(t *testing.T) {
	at := `{"a": ` + strings.Repeat("[", maxJSONDepth-1) + strings.Repeat("]", maxJSONDepth-1) + `, "s": "[[[[[[[[[["}`
	if _, err := parseObject([]byte(at), false); err != nil {
		t.Fatalf("%d levels: %v", maxJSONDepth, err)
	}
	over := `{"a": ` + strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth) + `}`
	_, err := parseObject([]byte(over), false)
	var de *DepthError
	if !errors.As(err, &de) || de.Limit != maxJSONDepth || !strings.Contains(err.Error(), "512") {
		t.Fatalf("%d levels: %v", maxJSONDepth+1, err)
	}
	n, err := pyjson.Parse([]byte(at))
	if err != nil {
		t.Fatal(err)
	}
	wrapped := pyjson.NewObject()
	wrapped.Add("metadata", n)
	var tl *DocumentTooLargeError
	if _, err := pyjson.Doc(".zmetadata", wrapped, 4, true); !errors.As(err, &tl) || !tl.TooDeep || !strings.Contains(err.Error(), ".zmetadata") {
		t.Fatalf("writing %d levels: %v", maxJSONDepth+1, err)
	}
}
