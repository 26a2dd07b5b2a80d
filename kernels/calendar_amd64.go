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

type (
	toCalendarKernel   func(dst, src []uint64, vlim, mul, upd, rcp, a, b, c, bias, yearMask uint64) (n, nat, lossy int)
	fromCalendarKernel func(dst, src []uint64, vlim, mul, dayLim, upd uint64) (n, nat int)
)

// Indexed by calendarOrder(swapIn, swapOut).
var (
	toCalendarAVX512Orders   = [4]toCalendarKernel{toCalendarAVX512, toCalendarSwapInAVX512, toCalendarSwapOutAVX512, toCalendarSwapAVX512}
	fromCalendarAVX512Orders = [4]fromCalendarKernel{fromCalendarAVX512, fromCalendarSwapInAVX512, fromCalendarSwapOutAVX512, fromCalendarSwapAVX512}
)

func calendarOrder(swapIn, swapOut bool) int { return b2i(swapIn) | b2i(swapOut)<<1 }

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
	return toCalendarAVX512Orders[calendarOrder(swapIn, swapOut)](dst, src, uint64(c.vlim32), uint64(c.s1*c.srcDPU), upd, rcp, a, b, cc, bias, yearMask)
}

func fromCalendarSIMD(dst, src []uint64, c *calParams, swapIn, swapOut bool) (n, nat, lossy int) {
	if !useAVX512 || c.outDiv {
		return 0, 0, 0
	}
	n, nat = fromCalendarAVX512Orders[calendarOrder(swapIn, swapOut)](dst, src, uint64(c.vlim32), uint64(c.s1*c.srcMPU), uint64(c.dayLim), uint64(c.upd))
	return n, nat, 0
}
