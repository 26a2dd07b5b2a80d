package transcode

import (
	"os"
	"path/filepath"
	"testing"
)

// sameDirectory compares the directories themselves, whatever their
// paths: here paths it is given unresolved, through links (which the
// paths CheckOverlap gives it never hold; another mount of the source is
// the alias it is for, TestOverlapBindMount). The destination, or a
// directory above it, is the source; the destination is a directory
// above the source; a sibling is neither.
func TestSameDirectory(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "a", "src")
	if err := os.MkdirAll(filepath.Join(src, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, l := range [][2]string{{"a/src", "tosrc"}, {"a", "toa"}, {"b", "tob"}} {
		if err := os.Symlink(filepath.Join(dir, l[0]), filepath.Join(dir, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		dst              string
		found            bool
		dstSide, srcSide string
	}{
		{"tosrc", true, "tosrc", "a/src"},
		{"tosrc/sub", true, "tosrc", "a/src"},
		{"tosrc/new/deeper", true, "tosrc", "a/src"},
		{"toa", true, "toa", "a"},
		{"toa/other", false, "", ""},
		{"tob/x", false, "", ""},
		{".", true, ".", "."}, // which the paths show too
	} {
		d, s, ok := sameDirectory(src, filepath.Join(dir, c.dst))
		if ok != c.found || ok && (d != filepath.Join(dir, c.dstSide) || s != filepath.Join(dir, c.srcSide)) {
			t.Errorf("%s: %q %q %v, want %v %s %s", c.dst, d, s, ok, c.found, c.dstSide, c.srcSide)
		}
	}
}
