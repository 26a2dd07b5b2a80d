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
func TestRequire(t *testing.T) {
	req := os.Getenv("DT64_REQUIRE")
	if req == "" {
		t.Skip("DT64_REQUIRE not set")
	}
	names := impl.Names("kernels")
	for _, r := range strings.Split(req, ",") {
		r = strings.TrimSpace(r)
		if r == "" {
			continue
		}
		if !slices.Contains(names, r) {
			t.Errorf("DT64_REQUIRE=%s: implementation %q is not available (have %v)", req, r, names)
		}
		if impl.Disabled(os.Getenv("DT64_DISABLE"), r) {
			t.Errorf("DT64_REQUIRE=%s: implementation %q is disabled by DT64_DISABLE", req, r)
		}
	}
}
