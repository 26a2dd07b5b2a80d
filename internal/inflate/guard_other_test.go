//go:build !linux

package inflate

import "testing"

// guarded returns n pages of memory; only on Linux are they fenced by
// inaccessible pages (guard_linux_test.go).
func guarded(t *testing.T, n int) []byte { return make([]byte, n*4096) }
