//go:build purego || !(amd64 || arm64)

package kernels

// No SIMD calendar on this platform or build: the 32-bit generic loops do
// it all (arm64 has no calendar kernel either: see dispatch_arm64.go).

func calendarSIMD() bool { return false }

func toCalendarSIMD(dst, src []uint64, c *calParams, swapIn, swapOut bool) (n, nat, lossy int) {
	return 0, 0, 0
}

func fromCalendarSIMD(dst, src []uint64, c *calParams, swapIn, swapOut bool) (n, nat, lossy int) {
	return 0, 0, 0
}
