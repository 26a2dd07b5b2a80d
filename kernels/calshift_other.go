//go:build purego || !(amd64 || arm64)

package kernels

// No calendar-shift kernel on this platform or build: runCalendar's Go
// loop does all the work.
func calendarShiftSIMD(dst []uint64, lo int64, width uint64, shift int64) int { return 0 }
