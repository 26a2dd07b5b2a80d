package kernels

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/internal/impl"
)

// forEachImpl runs f once per implementation this CPU can run ("generic"
// first), with that implementation selected, and restores the start-up
// choice afterwards. DT64_TEST_IMPLS (a comma list) keeps only the
// implementations it names: the emulated CI runs name the one SIMD
// implementation they exist for, as the generic twins are Go code tested
// natively, in the pure-Go build and big-endian (the SIMD tests compare
// with them directly, not through this loop).
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	names := impl.Names("kernels")
	if only := os.Getenv("DT64_TEST_IMPLS"); only != "" {
		var kept []string
		for _, name := range strings.Split(only, ",") {
			if name = strings.TrimSpace(name); !slices.Contains(names, name) {
				t.Fatalf("DT64_TEST_IMPLS names %q, which this CPU or build cannot run (it can: %s)", name, strings.Join(names, ", "))
			}
			kept = append(kept, name)
		}
		names = kept
	}
	for _, name := range names {
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
