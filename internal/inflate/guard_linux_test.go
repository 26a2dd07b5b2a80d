package inflate

import (
	"syscall"
	"testing"
)

// guarded returns n pages of memory between two inaccessible pages: a
// read or write just before or after them kills the test with SIGSEGV.
func guarded(t *testing.T, n int) []byte {
	ps := syscall.Getpagesize()
	m, err := syscall.Mmap(-1, 0, (n+2)*ps, syscall.PROT_NONE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Munmap(m) })
	b := m[ps : (n+1)*ps : (n+1)*ps]
	if err := syscall.Mprotect(b, syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
		t.Fatal(err)
	}
	return b
}
