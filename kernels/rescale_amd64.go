//go:build !purego

package kernels

// The SIMD rescale hooks for amd64: generated kernels (asm/rescale) in four
// byte-order variants each, picked here once per call so that no loop tests
// a flag. The kernels take the accepted range as lo and an unsigned span
// (lo <= v <= lo+span is one unsigned compare of v-lo), which Go derives
// from the [lo, hi] of the generic loops.

// The byte-order variant is picked by a switch, not from a table of
// function values: calling through a function value would make every
// buffer escape to the heap.

func mulCheckSIMD(dst, src []uint64, k uint64, lo, hi int64, swapIn, swapOut bool) (n, nat int) {
	if lo > hi {
		return 0, 0
	}
	span := uint64(hi) - uint64(lo)
	switch {
	case useAVX512 && !swapIn && !swapOut:
		return mulCheckAVX512(dst, src, k, lo, span)
	case useAVX512 && !swapOut:
		return mulCheckSwapInAVX512(dst, src, k, lo, span)
	case useAVX512 && !swapIn:
		return mulCheckSwapOutAVX512(dst, src, k, lo, span)
	case useAVX512:
		return mulCheckSwapAVX512(dst, src, k, lo, span)
	case useAVX2 && !swapIn && !swapOut:
		return mulCheckAVX2(dst, src, k, lo, span)
	case useAVX2 && !swapOut:
		return mulCheckSwapInAVX2(dst, src, k, lo, span)
	case useAVX2 && !swapIn:
		return mulCheckSwapOutAVX2(dst, src, k, lo, span)
	case useAVX2:
		return mulCheckSwapAVX2(dst, src, k, lo, span)
	}
	return 0, 0
}

func floorDivSIMD(dst, src []uint64, d, magic uint64, shift uint, swapIn, swapOut bool) (n, nat, lossy int) {
	if d < 2 {
		return 0, 0, 0
	}
	sh := uint64(shift & 63)
	switch {
	case useAVX512 && !swapIn && !swapOut:
		return floorDivAVX512(dst, src, d, magic, sh)
	case useAVX512 && !swapOut:
		return floorDivSwapInAVX512(dst, src, d, magic, sh)
	case useAVX512 && !swapIn:
		return floorDivSwapOutAVX512(dst, src, d, magic, sh)
	case useAVX512:
		return floorDivSwapAVX512(dst, src, d, magic, sh)
	case useAVX2 && !swapIn && !swapOut:
		return floorDivAVX2(dst, src, d, magic, sh)
	case useAVX2 && !swapOut:
		return floorDivSwapInAVX2(dst, src, d, magic, sh)
	case useAVX2 && !swapIn:
		return floorDivSwapOutAVX2(dst, src, d, magic, sh)
	case useAVX2:
		return floorDivSwapAVX2(dst, src, d, magic, sh)
	}
	return 0, 0, 0
}

func mulDivSIMD(dst, src []uint64, num, d, magic uint64, shift uint, qlo, qhi int64, swapIn, swapOut bool) (n, nat, lossy int) {
	if d < 2 || qlo > qhi {
		return 0, 0, 0
	}
	sh := uint64(shift & 63)
	qspan := uint64(qhi) - uint64(qlo)
	switch {
	case useAVX512 && !swapIn && !swapOut:
		return mulDivAVX512(dst, src, num, d, magic, sh, qlo, qspan)
	case useAVX512 && !swapOut:
		return mulDivSwapInAVX512(dst, src, num, d, magic, sh, qlo, qspan)
	case useAVX512 && !swapIn:
		return mulDivSwapOutAVX512(dst, src, num, d, magic, sh, qlo, qspan)
	case useAVX512:
		return mulDivSwapAVX512(dst, src, num, d, magic, sh, qlo, qspan)
	}
	// No AVX2 kernel: without a 64-bit multiply it needs 20 VPMULUDQ per
	// vector, and it measured slower than the generic Go loop at every
	// size, so it was deleted (asm/rescale). Factor 25/24, MB/s, AVX2
	// kernel vs generic loop, 3 runs each on a loaded 2-core Xeon (noisy;
	// compare within a row): 64 KiB 1805-2045 vs 2270-2671, 8 MiB
	// 668-1413 vs 2027-2395, 256 MiB 1392-1890 vs 3281-3853. Earlier,
	// quiet: 6.0 vs 4.0 x copy() at 8 MiB, 5.3 vs 4.2 at 256 MiB.
	return 0, 0, 0
}
