package sysmem

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// On Linux Total is at most MemTotal of /proc/meminfo, and more than the
// process uses; elsewhere 0.
func TestTotal(t *testing.T) {
	n := Total()
	if runtime.GOOS != "linux" {
		if n != 0 {
			t.Fatalf("Total() = %d off Linux, want 0", n)
		}
		return
	}
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			if n == 0 || n > kb*1024 {
				t.Fatalf("Total() = %d, MemTotal %d kB", n, kb)
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if n < ms.Sys {
				t.Fatalf("Total() = %d below the process's %d", n, ms.Sys)
			}
			return
		}
	}
	t.Skip("no MemTotal")
}
