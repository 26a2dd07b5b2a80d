package storage

import (
	"runtime"
	"testing"
)

// withPaths runs f on the direct path (Linux: openat2 and plain system
// calls) and on os.Root's, which every other system and an old kernel
// take: the two must behave alike.
func withPaths(t *testing.T, f func(t *testing.T)) {
	t.Run("direct", func(t *testing.T) {
		if runtime.GOOS != "linux" {
			t.Skip("the direct path is Linux's")
		}
		f(t)
	})
	t.Run("root", func(t *testing.T) {
		was := noOpenat2.Swap(true)
		defer noOpenat2.Store(was)
		f(t)
	})
}
