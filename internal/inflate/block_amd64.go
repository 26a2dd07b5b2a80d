//go:build !purego

package inflate

import (
	"os"

	"github.com/klauspost/cpuid/v2"

	"github.com/zarr-dt64/dt64/internal/impl"
)

// huffFastBMI2 is huffFast in assembly (block_amd64.s), with BMI2's
// SHRX, SHLX and BZHI: the same table format, contract and exits.
//
//go:noescape
func huffFastBMI2(dst, in []byte, t *tables, lk uint, pos, op int) (posOut, opOut, dist, exit int)

// availableBMI2: the CPU has BMI2 (SHRX, SHLX, BZHI). useBMI2 is decided
// once at start (DT64_DISABLE=bmi2 turns it off); impl.Select flips it in
// tests and benchmarks, where "generic" is the Go loop. An amd64 without
// BMI2 runs the Go loop.
var (
	availableBMI2 = cpuid.CPU.Supports(cpuid.BMI2)
	useBMI2       = availableBMI2 && !impl.Disabled(os.Getenv("DT64_DISABLE"), "bmi2")
)

func init() { impl.Register("inflate", "bmi2", &useBMI2, availableBMI2) }
