//go:build purego || !(amd64 || arm64)

package kernels

// No SIMD rescale on this platform or build: the generic loops do it all.

func mulCheckSIMD(dst, src []uint64, k uint64, lo, hi int64, swapIn, swapOut bool) (n, nat int) {
	return 0, 0
}

func floorDivSIMD(dst, src []uint64, d, magic uint64, shift uint, swapIn, swapOut bool) (n, nat, lossy int) {
	return 0, 0, 0
}

func floorDivValiditySIMD(dst, src []uint64, bitmap []byte, d, magic uint64, shift uint, swapIn, swapOut bool) (n, nat, lossy int) {
	return 0, 0, 0
}

func mulDivSIMD(dst, src []uint64, num, d, magic uint64, shift uint, qlo, qhi int64, swapIn, swapOut bool) (n, nat, lossy int) {
	return 0, 0, 0
}
