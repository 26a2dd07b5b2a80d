package storage

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// TestDirListPrefix: List walks only the directory its prefix names,
// and finds the same keys as a filter over everything would.
func TestDirListPrefix(t *testing.T) {
	ctx := context.Background()
	d := NewDir(filepath.Join(t.TempDir(), "s"))
	all := []string{".zgroup", "a/.zarray", "a/0", "a/b/1", "a/bc", "ab/2", "x"}
	for _, k := range all {
		if err := d.Set(ctx, k, []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	for _, prefix := range []string{"", "a", "a/", "a/b", "a/b/", "ab/", "a/bc/", "none/", "none/deeper/", "x/"} {
		got, err := d.List(ctx, prefix)
		if err != nil {
			t.Fatalf("%q: %v", prefix, err)
		}
		var want []string
		for _, k := range all {
			if len(k) >= len(prefix) && k[:len(prefix)] == prefix {
				want = append(want, k)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("List(%q) = %v, want %v", prefix, got, want)
		}
	}
}
