//go:build purego || !(amd64 || arm64)

package kernels

// No assembly on this platform or build: the generic twins in validity.go
// do all the work.

func countNaTSIMD(src []uint64, swap bool) (n, nat int) { return 0, 0 }

func validitySIMD(bitmap []byte, src []uint64, swap bool) (n, nat int) { return 0, 0 }
