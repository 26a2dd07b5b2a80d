//go:build !linux

package inflate

import (
	"time"

	"github.com/zarr-dt64/dt64/internal/cputime"
)

// threadCPU is the process's CPU time here (see internal/cputime).
func threadCPU() time.Duration { return cputime.Process() }
