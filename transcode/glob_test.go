package transcode

import "testing"

// A "**" segment matches any number of segments; other segments match as
// path.Match matches them, so "*" never crosses a "/".
func TestMatchGlob(t *testing.T) {
	for _, tc := range []struct {
		g, p string
		want bool
	}{
		{"sub/*", "sub/t", true},
		{"sub/*", "sub/deep/t", false},
		{"sub/**", "sub/t", true},
		{"sub/**", "sub/deep/t", true},
		{"sub/**", "other/t", false},
		{"sub/**", "sub", true}, // none: the group's own path
		{"**/time", "time", true},
		{"**/time", "a/b/time", true},
		{"**/time", "a/b/time2", false},
		{"a/**/t", "a/t", true},
		{"a/**/t", "a/x/y/t", true},
		{"a/**/t", "b/x/t", false},
		{"**", "any/thing", true},
		{"**/**/t?", "x/t1", true},
		{"t*", "time", true},
		{"t*", "x/time", false},
		{"a**b", "aXXb", true}, // "**" inside a segment is two "*"
		{"a**b", "a/b", false},
	} {
		if got := matchGlob(tc.g, tc.p); got != tc.want {
			t.Errorf("matchGlob(%q, %q) = %v, want %v", tc.g, tc.p, got, tc.want)
		}
	}
	if checkGlob("a/[") == nil || checkGlob("**/x") != nil {
		t.Error("checkGlob")
	}
}
