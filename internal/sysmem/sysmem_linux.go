package sysmem

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

func limit() uint64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	n := uint64(si.Totalram) * uint64(si.Unit)
	// A container's limit (cgroup v2, then v1); "max" is none.
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if c, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64); err == nil && c > 0 && c < n {
			n = c
		}
		break
	}
	return n
}
