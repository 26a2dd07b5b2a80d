//go:build purego || !(amd64 || arm64)

package kernels

// No SIMD CF kernels on this platform or build: the generic loops do it all.

func cfMulAddSIMD(dst, src []uint64, a, b uint64, lo, hi int64, miss uint64, hasMiss, swapIn, swapOut bool) (n, nat int) {
	return 0, 0
}

func cfFloatSIMD(dst, src []uint64, p *cfFloatParams, swapIn, swapOut bool) (n, nat, lossy int) {
	return 0, 0, 0
}

func cfShortestSIMD(dst, src []uint64, c *cfCheckArgs, swapIn, swapOut bool) (n, nat int) {
	return 0, 0
}

func cfShortestLanes() int { return 0 }

func widenFloat32SIMD(dst []uint64, src []byte, swap bool) (n int) { return 0 }
