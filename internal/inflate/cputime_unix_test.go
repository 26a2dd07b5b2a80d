//go:build unix

package inflate

import (
	"syscall"
	"time"
)

// cpuTime is the process's user plus system CPU time. Benchmarks report
// MB per CPU second besides the wall-clock MB/s because the machines they
// run on are shared: CPU time does not count the waits for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
