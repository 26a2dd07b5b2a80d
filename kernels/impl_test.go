package kernels

import (
	"testing"

	"github.com/zarr-dt64/dt64/internal/impl"
)

// forEachImpl runs f once per implementation this CPU can run ("generic"
// first), with that implementation selected, and restores the start-up
// choice afterwards.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, name := range impl.Names("kernels") {
		t.Run("impl="+name, func(t *testing.T) {
			if !impl.Select("kernels", name) {
				t.Fatalf("impl.Select(kernels, %s) failed", name)
			}
			defer impl.Reset("kernels")
			f(t)
		})
	}
}

// TestRequire fails when an implementation named in DT64_REQUIRE (comma
// list) is not available on this machine or was switched off at start-up,
// so CI on a known CPU cannot silently test only the generic code.
