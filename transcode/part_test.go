package transcode

import (
	"math"
	"math/big"
	"testing"
)

// Part ranges are exact at the int64 limits, where n·I overflows 64 bits,
// and tile [0, n) without gaps or overlaps.
func TestPartUnitsLimits(t *testing.T) {
	for _, n := range []int64{0, 1, 7, 1 << 40, math.MaxInt64 / 3, math.MaxInt64 - 1, math.MaxInt64} {
		for _, c := range []int{1, 2, 3, 4, 7, 1000, math.MaxInt32} {
			for _, i := range []int{0, 1, c / 2, c - 2, c - 1} {
				if i < 0 || i >= c {
					continue
				}
				lo, hi := Part{Index: i, Count: c}.units(n)
				want := func(i int) int64 {
					q := new(big.Int).Mul(big.NewInt(n), big.NewInt(int64(i)))
					return q.Quo(q, big.NewInt(int64(c))).Int64()
				}
				if lo != want(i) || hi != want(i+1) || lo < 0 || hi > n || lo > hi {
					t.Fatalf("part %d/%d of %d: [%d, %d), want [%d, %d)", i, c, n, lo, hi, want(i), want(i+1))
				}
				if i == 0 && lo != 0 || i == c-1 && hi != n {
					t.Fatalf("part %d/%d of %d: [%d, %d) does not reach the end", i, c, n, lo, hi)
				}
				if i+1 < c {
					if next, _ := (Part{Index: i + 1, Count: c}).units(n); next != hi {
						t.Fatalf("part %d/%d of %d starts at %d, part %d ended at %d", i+1, c, n, next, i, hi)
					}
				}
			}
		}
	}
}
