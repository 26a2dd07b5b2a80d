//go:build purego || !(amd64 || arm64)

package kernels

// No assembly on this platform or build: the generic twin in minmax.go
// does all the work.

func minMaxSIMD(src []uint64, swap bool) (n int, min, max int64) { return 0, 1<<63 - 1, -1 << 63 }
