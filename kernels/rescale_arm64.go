//go:build !purego

package kernels

import "math"

// The arm64 rescale hooks run the generated loops of rescale_*_arm64.s
// under the "neon" implementation switch (they are the arm64 assembly
// path; they use scalar MUL/UMULH because AdvSIMD has no 64-bit lane
// multiply, see asm/neon/rescale.go). Like the other hooks they clamp src
// to dst, and they return 0 for parameters outside what the assembly's
// one-compare range test assumes: such parameters never come from
// compileLinear, and the generic loops handle them exactly anyway.

func mulCheckSIMD(dst, src []uint64, k uint64, lo, hi int64, swapIn, swapOut bool) (n, nat int) {
	// lo > MinInt64 keeps NaT out of range, which is how the loop finds it.
	if !useNEON || lo > hi || lo == math.MinInt64 {
		return 0, 0
	}
	if len(src) > len(dst) {
		src = src[:len(dst)]
	}
	return mulCheckARM64(dst, src, k, lo, hi, swapIn, swapOut)
}

func floorDivSIMD(dst, src []uint64, d, magic uint64, shift uint, swapIn, swapOut bool) (n, nat, lossy int) {
	if !useNEON {
		return 0, 0, 0
	}
	if len(src) > len(dst) {
		src = src[:len(dst)]
	}
	return floorDivARM64(dst, src, d, magic, shift, swapIn, swapOut)
}

func mulDivSIMD(dst, src []uint64, num, d, magic uint64, shift uint, qlo, qhi int64, swapIn, swapOut bool) (n, nat, lossy int) {
	if !useNEON || qlo > qhi {
		return 0, 0, 0
	}
	if len(src) > len(dst) {
		src = src[:len(dst)]
	}
	return mulDivARM64(dst, src, num, d, magic, shift, qlo, qhi, swapIn, swapOut)
}
