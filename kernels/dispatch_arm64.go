//go:build !purego

package kernels

import (
	"os"

	"github.com/zarr-dt64/dt64/internal/impl"
)

// NEON (AdvSIMD) is part of the arm64 baseline: every arm64 CPU Go runs on
// has it, so there is no feature detection, only the DT64_DISABLE=neon kill
// switch.
var useNEON = !impl.Disabled(os.Getenv("DT64_DISABLE"), "neon")

func init() {
	impl.Register("kernels", "neon", &useNEON, true)
}

// The hooks clamp their slices to what the assembly may touch, so the
// assembly itself never has to compare two lengths.

func byteSwapSIMD(dst, src []uint64) (n int) {
	if !useNEON {
		return 0
	}
	if len(src) > len(dst) {
		src = src[:len(dst)]
	}
	return byteSwapNEON(dst, src)
}

// byteSwapStreamSIMD is the hook for a large out-of-place swap: on arm64
// the plain NEON kernel (no non-temporal variant was measured faster).
func byteSwapStreamSIMD(dst, src []uint64) (n int) { return byteSwapSIMD(dst, src) }

func countNaTSIMD(src []uint64, swap bool) (n, nat int) {
	if !useNEON {
		return 0, 0
	}
	return countNaTNEON(src, swap)
}

func validitySIMD(bitmap []byte, src []uint64, swap bool) (n, nat int) {
	if !useNEON {
		return 0, 0
	}
	if len(src)/8 > len(bitmap) {
		src = src[:8*len(bitmap)]
	}
	return validityNEON(bitmap, src, swap)
}

func minMaxSIMD(src []uint64, swap bool) (n int, min, max int64) {
	if !useNEON {
		return 0, 1<<63 - 1, -1 << 63
	}
	return minMaxNEON(src, swap)
}
