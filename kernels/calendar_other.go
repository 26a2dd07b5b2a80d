//go:build purego || !amd64

package kernels

// No SIMD calendar on this platform or build (arm64 included): the 32-bit
// generic loops do it all.

func calendarSIMD() bool { return false }

func toCalendarSIMD(dst, src []uint64, c *calParams, swapIn, swapOut bool) (n, nat, lossy int) {
	return 0, 0, 0
}

func fromCalendarSIMD(dst, src []uint64, c *calParams, swapIn, swapOut bool) (n, nat, lossy int) {
	return 0, 0, 0
}
