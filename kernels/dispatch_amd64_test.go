package kernels

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/internal/impl"
)

// TestRequiredImplementations lets CI insist on the machine it runs on:
// DT64_REQUIRE=avx512,avx2 fails the run when one of them is not available,
// or when the fastest of them was not the start-up choice, so a broken
// feature check cannot quietly fall back to slower code. Names listed in
// DT64_DISABLE are exempt (the run switched them off on purpose).
func TestRequiredImplementations(t *testing.T) {
	require := os.Getenv("DT64_REQUIRE")
	if require == "" {
		t.Skip("DT64_REQUIRE is not set")
	}
	disable := os.Getenv("DT64_DISABLE")
	impl.Reset("kernels") // the start-up choice, whatever other tests selected

	registered := impl.List("kernels") // fastest first
	order := []string{}
	available := map[string]bool{"generic": true}
	for _, r := range registered {
		order = append(order, r.Name)
		available[r.Name] = r.Available
	}
	order = append(order, "generic") // the slowest, always there

	required := map[string]bool{}
	for _, name := range strings.Split(require, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "" {
			continue
		}
		if impl.Disabled(disable, name) {
			t.Logf("%s is required but DT64_DISABLE switches it off: not checked", name)
			continue
		}
		if !slices.Contains(order, name) {
			t.Errorf("DT64_REQUIRE names %q, which is not an implementation of kernels in this build (known: %s)",
				name, strings.Join(order, ", "))
			continue
		}
		if !available[name] {
			t.Errorf("DT64_REQUIRE names %q, but this CPU (or build) does not support it", name)
			continue
		}
		required[name] = true
	}
	for _, name := range order {
		if required[name] {
			if active := impl.Active("kernels"); active != name {
				t.Errorf("the fastest required implementation is %q, but start-up chose %q", name, active)
			}
			break
		}
	}
}
