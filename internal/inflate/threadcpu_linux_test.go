package inflate

import (
	"syscall"
	"time"
	"unsafe"

	"github.com/zarr-dt64/dt64/internal/cputime"
)

// threadCPU is the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID),
// or the process's if that fails.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTimeID = 3
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return cputime.Process()
	}
	return time.Duration(ts.Nano())
}
