//go:build !purego

package kernels

import (
	"math"

	"github.com/zarr-dt64/dt64/dtype"
)

// The SIMD calendar hooks for amd64: AVX-512 versions of the 32-bit loops
// (asm/calendar), which need 64-bit multiplies (VPMULLQ) and float64
// conversions of 64-bit integers (VCVTQQ2PD, VCVTPD2QQ). AVX2 has neither:
// emulated, they cost more than the generic loop saves, so AVX2 machines
// run the generic loop. Conversions with a final division by the
// destination scale (a scale other than 1, or weeks) are rare and stay
// generic too.

func calendarSIMD() bool { return useAVX512 }

// The byte-order variant is picked by a switch, not from a table of
// function values, which would make every buffer escape to the heap.

func toCalendarSIMD(dst, src []uint64, c *calParams, swapIn, swapOut bool) (n, nat, lossy int) {
	if !useAVX512 || c.outDiv {
		return 0, 0, 0
	}
	upd := uint64(1)
	if c.srcDiv {
		upd = c.srcDv.d
	}
	rcp := math.Float64bits(1 / float64(upd))
	yearBias := uint64(400*fastEras + 1970)
	a, b, cc, bias, yearMask := uint64(12), uint64(1), uint64(0), 12*yearBias+1, uint64(0)
	if c.dst == dtype.Year {
		a, b, cc, bias, yearMask = 1, 0, 1, yearBias, 0xff
	}
	vlim, mul := uint64(c.vlim32), uint64(c.s1*c.srcDPU)
	switch {
	case !swapIn && !swapOut:
		return toCalendarAVX512(dst, src, vlim, mul, upd, rcp, a, b, cc, bias, yearMask)
	case !swapOut:
		return toCalendarSwapInAVX512(dst, src, vlim, mul, upd, rcp, a, b, cc, bias, yearMask)
	case !swapIn:
		return toCalendarSwapOutAVX512(dst, src, vlim, mul, upd, rcp, a, b, cc, bias, yearMask)
	}
	return toCalendarSwapAVX512(dst, src, vlim, mul, upd, rcp, a, b, cc, bias, yearMask)
}

func fromCalendarSIMD(dst, src []uint64, c *calParams, swapIn, swapOut bool) (n, nat, lossy int) {
	if !useAVX512 || c.outDiv {
		return 0, 0, 0
	}
	vlim, mul, dayLim, upd := uint64(c.vlim32), uint64(c.s1*c.srcMPU), uint64(c.dayLim), uint64(c.upd)
	switch {
	case !swapIn && !swapOut:
		n, nat = fromCalendarAVX512(dst, src, vlim, mul, dayLim, upd)
	case !swapOut:
		n, nat = fromCalendarSwapInAVX512(dst, src, vlim, mul, dayLim, upd)
	case !swapIn:
		n, nat = fromCalendarSwapOutAVX512(dst, src, vlim, mul, dayLim, upd)
	default:
		n, nat = fromCalendarSwapAVX512(dst, src, vlim, mul, dayLim, upd)
	}
	return n, nat, 0
}
