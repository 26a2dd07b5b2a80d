//go:build !purego

package kernels

import (
	"math/rand/v2"
	"testing"
)

// TestShuffle8WithoutVBMI runs the AVX-512 lane kernels that a CPU without
// VBMI (Skylake-X) uses, on a CPU that has VBMI and so normally takes the
// VPERMT2B kernels.
func TestShuffle8WithoutVBMI(t *testing.T) {
	if !shuffleVBMI {
		t.Skip("no AVX-512 VBMI: the default run already covers the lane kernels")
	}
	shuffleVBMI = false
	defer func() { shuffleVBMI = true }()
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(11, 12))
		for _, n := range []int{0, 7, 8 * 63, 8 * 64, 8*65 + 3, 8*200 + 5, 8*8192 + 8*64 + 1, 1<<20 + 13} {
			data := randomBytes(r, n)
			for so := range 8 {
				checkShuffle(t, data, so, (so+3)%8)
			}
		}
	})
}
