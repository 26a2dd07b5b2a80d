// Package impl is a registry of alternative implementations of the kernels,
// so that tests, fuzzers and benchmarks can run each of them, not only the
// one dispatch picked for this CPU.
//
// A package with SIMD kernels keeps one boolean per implementation ("use
// AVX-512"), set once at start-up from the CPU features, and registers it
// here. Select switches all of that package's booleans off except one;
// Reset restores the start-up choice. The generic Go code is always there
// and is what remains when every boolean is off.
//
// Select and Reset are for tests and benchmarks: they are not safe to call
// while kernels run in other goroutines.
package impl

import (
	"slices"
	"strings"
)

// Implementation is one registered alternative.
type Implementation struct {
	Package   string // e.g. "kernels"
	Name      string // e.g. "avx512", "avx2", "neon"
	Available bool   // the CPU supports it and it was not disabled
	toggle    *bool
	initial   bool
}

var registry []*Implementation

// Register adds an implementation of pkg. toggle is the boolean the package
// consults on each call; its value at registration is the start-up choice.
// available says whether the CPU can run it at all (DT64_DISABLE does not
// change availability, only the start-up choice).
func Register(pkg, name string, toggle *bool, available bool) {
	for _, r := range registry {
		if r.Package == pkg && r.Name == name {
			panic("impl: " + pkg + "/" + name + " registered twice")
		}
	}
	registry = append(registry, &Implementation{Package: pkg, Name: name, Available: available, toggle: toggle, initial: *toggle})
}

// List returns pkg's registered implementations, generic not included.
func List(pkg string) []Implementation {
	var out []Implementation
	for _, r := range registry {
		if r.Package == pkg {
			out = append(out, *r)
		}
	}
	return out
}

// Names returns "generic" followed by the names of pkg's available
// implementations: everything a test should run.
func Names(pkg string) []string {
	names := []string{"generic"}
	for _, r := range registry {
		if r.Package == pkg && r.Available {
			names = append(names, r.Name)
		}
	}
	return names
}

// Select makes name the only implementation of pkg in use ("generic"
// switches all of them off). It reports false, changing nothing, when name
// is not registered or not available on this CPU.
func Select(pkg, name string) bool {
	if name != "generic" {
		i := slices.IndexFunc(registry, func(r *Implementation) bool { return r.Package == pkg && r.Name == name })
		if i < 0 || !registry[i].Available {
			return false
		}
	}
	for _, r := range registry {
		if r.Package == pkg {
			*r.toggle = r.Name == name
		}
	}
	return true
}

// Reset restores pkg's start-up choice.
func Reset(pkg string) {
	for _, r := range registry {
		if r.Package == pkg {
			*r.toggle = r.initial
		}
	}
}

// Active returns the name of the implementation of pkg in use: the first
// registered one whose boolean is on, or "generic". Packages register their
// fastest implementation first.
func Active(pkg string) string {
	for _, r := range registry {
		if r.Package == pkg && *r.toggle {
			return r.Name
		}
	}
	return "generic"
}

// Disabled reports whether name appears in the comma-separated value of
// DT64_DISABLE (passed in, so callers read the environment once).
func Disabled(disable, name string) bool {
	for _, f := range strings.Split(disable, ",") {
		if strings.EqualFold(strings.TrimSpace(f), name) {
			return true
		}
	}
	return false
}
