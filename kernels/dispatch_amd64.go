//go:build !purego

package kernels

import (
	"math"
	"math/bits"
	"os"

	"github.com/klauspost/cpuid/v2"

	"github.com/zarr-dt64/dt64/internal/impl"
)

// The AVX-512 kernels use mask registers (F), KMOVB (DQ), byte shuffles
// and 32-bit mask moves (BW) and 256/128-bit forms of VPMINSQ in their
// reductions (VL): only the four together make a usable AVX-512. Both
// widths also use POPCNT and the AVX2 lane extracts. cpuid also checks that
// the OS saves the wide registers.
var (
	availableAVX512 = cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512BW, cpuid.AVX512VL,
		cpuid.AVX2, cpuid.POPCNT)
	availableAVX2 = cpuid.CPU.Supports(cpuid.AVX2, cpuid.POPCNT)
)

// useAVX512 and useAVX2 are decided once here; impl.Select flips them in
// tests and benchmarks. The hooks try the widest enabled one first.
var useAVX512, useAVX2 bool

func init() {
	disable := os.Getenv("DT64_DISABLE")
	useAVX512 = availableAVX512 && !impl.Disabled(disable, "avx512")
	useAVX2 = availableAVX2 && !impl.Disabled(disable, "avx2")
	// Fastest first: impl.Active reports the first one switched on.
	impl.Register("kernels", "avx512", &useAVX512, availableAVX512)
	impl.Register("kernels", "avx2", &useAVX2, availableAVX2)
}

// natPattern is how a NaT element sits in memory: swapped data is compared
// against the swapped constant instead of swapping every element.
func natPattern(swap bool) uint64 {
	if swap {
		return bits.ReverseBytes64(1 << 63)
	}
	return 1 << 63
}

func byteSwapSIMD(dst, src []uint64) (n int) {
	switch {
	case useAVX512:
		return byteSwapAVX512(dst, src)
	case useAVX2:
		return byteSwapAVX2(dst, src)
	}
	return 0
}

// byteSwapStreamSIMD is byteSwapSIMD with non-temporal stores, for an
// out-of-place swap of a whole buffer of streamBytes or more (the caller
// knows the total size; a hook sees one 64 KiB block).
func byteSwapStreamSIMD(dst, src []uint64) (n int) {
	switch {
	case useAVX512:
		return byteSwapStreamAVX512(dst, src)
	case useAVX2:
		return byteSwapStreamAVX2(dst, src)
	}
	return 0
}

func countNaTSIMD(src []uint64, swap bool) (n, nat int) {
	switch {
	case useAVX512:
		return countNaTAVX512(src, natPattern(swap))
	case useAVX2:
		return countNaTAVX2(src, natPattern(swap))
	}
	return 0, 0
}

func validitySIMD(bitmap []byte, src []uint64, swap bool) (n, nat int) {
	switch {
	case useAVX512:
		return validityAVX512(bitmap, src, natPattern(swap))
	case useAVX2:
		return validityAVX2(bitmap, src, natPattern(swap))
	}
	return 0, 0
}

func minMaxSIMD(src []uint64, swap bool) (n int, min, max int64) {
	switch {
	case useAVX512 && swap:
		return minMaxSwappedAVX512(src)
	case useAVX512:
		return minMaxAVX512(src)
	case useAVX2 && swap:
		return minMaxSwappedAVX2(src)
	case useAVX2:
		return minMaxAVX2(src)
	}
	return 0, math.MaxInt64, math.MinInt64
}
