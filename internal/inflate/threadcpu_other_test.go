//go:build !linux

package inflate

import "time"

// threadCPU is the process's CPU time here (see cpuTime).
func threadCPU() time.Duration { return cpuTime() }
