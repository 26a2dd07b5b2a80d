package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestProcess: spinning shows up as CPU time, no faster than the wall
// clock allows on this many cores, and the figure never goes back. (The
// spin waits for 20 ms of CPU time, up to 10 s, so that a loaded machine
// does not fail it.)
func TestProcess(t *testing.T) {
	if !Known {
		t.Skip("no process CPU time on this system")
	}
	start, before := time.Now(), Process()
	x, last := uint64(1), before
	for time.Since(start) < 10*time.Second {
		for range 10000 {
			x = x*6364136223846793005 + 1442695040888963407
		}
		now := Process()
		if now < last {
			t.Fatalf("CPU time went back from %v to %v", last, now)
		}
		last = now
		if now-before >= 20*time.Millisecond {
			break
		}
	}
	wall := time.Since(start)
	if used := last - before; used < 20*time.Millisecond || used > wall*time.Duration(runtime.NumCPU())+10*time.Millisecond {
		t.Fatalf("%v of spinning gave %v of CPU time (%d)", wall, used, x&1)
	}
}
