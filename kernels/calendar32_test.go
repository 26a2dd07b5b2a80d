package kernels

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
)

// calendarCases are calendar conversions with every linear unit on the
// other side, scales 1, 7 and a large one, to and from Y and M.
func calendarCases(t *testing.T) []*Transcoder {
	var trs []*Transcoder
	for u := dtype.Week; u <= dtype.Attosecond; u++ {
		for _, s := range []int64{1, 7, 1000, 2147483647} {
			for _, cu := range []dtype.Unit{dtype.Year, dtype.Month} {
				for _, cs := range []int64{1, 3} {
					lin, cal := dt(dtype.Datetime, u, s), dt(dtype.Datetime, cu, cs)
					trs = append(trs, mustTr(t, mustConv(t, lin, cal), Options{}), mustTr(t, mustConv(t, cal, lin), Options{}))
				}
			}
		}
	}
	return trs
}

// calendarValues are the values around every bound of the calendar loops
// and random ones of every magnitude.
func calendarValues(r *rand.Rand, c *calParams) []int64 {
	vs := []int64{0, 1, -1, math.MinInt64, math.MaxInt64, math.MinInt64 + 1}
	for _, b := range []int64{c.vlim32, c.vlim, c.dayLim} {
		for d := int64(-2); d <= 2; d++ {
			if x := b + d; x >= 0 {
				vs = append(vs, x, -x)
			}
		}
	}
	if c.s1 != 0 && c.srcMPU != 0 { // months whose day count is near dayLim
		for _, per := range []int64{28, 30, 31, 365, 366} {
			x := c.dayLim / per / c.s1
			vs = append(vs, x, -x, x+1, -x-1)
		}
	}
	for range 1500 {
		switch r.IntN(3) {
		case 0:
			vs = append(vs, int64(r.Uint64())>>r.IntN(64))
		case 1:
			if c.vlim32 > 0 {
				x := r.Int64N(c.vlim32) + 1
				if r.IntN(2) == 0 {
					x = -x
				}
				vs = append(vs, x)
			}
		default:
			if r.IntN(20) == 0 {
				vs = append(vs, math.MinInt64)
			} else {
				vs = append(vs, int64(r.IntN(20000)-10000))
			}
		}
	}
	return vs
}

// TestCalendar32AgainstWide checks that the calendar loops (32-bit loop,
// SIMD hook when one is selected, wide loop beyond) convert exactly what the
// wide 64-bit loop converts, stop where it stops, and count the same NaT
// and lossy elements, in every byte order.
func TestCalendar32AgainstWide(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	trs := calendarCases(t)
	gotBuf, wantBuf := make([]uint64, 300), make([]uint64, 300)
	forEachImpl(t, func(t *testing.T) {
		for _, tr := range trs {
			if tr.op != opToCalendar && tr.op != opFromCalendar {
				t.Fatalf("%s: op %s", tr, tr.op)
			}
			c := &tr.cal
			vs := calendarValues(r, c)
			for _, swapIn := range []bool{false, true} {
				for _, swapOut := range []bool{false, true} {
					src := make([]uint64, len(vs))
					for i, v := range vs {
						src[i] = storeSwapped(uint64(v), swapIn)
					}
					// Convert from after every stop (the loops stop at
					// values only the exact path can do), in windows.
					for off := 0; off < len(src); {
						s := src[off:min(off+300, len(src))]
						got, want := gotBuf[:len(s)], wantBuf[:len(s)]
						var n, nat, lossy, wn, wnat, wlossy int
						if tr.op == opToCalendar {
							n, nat, lossy = toCalendarLoop(got, s, c, swapIn, swapOut)
							wn, wnat, wlossy = toCalendarWide(want, s, c, swapIn, swapOut)
						} else {
							n, nat, lossy = fromCalendarLoop(got, s, c, swapIn, swapOut)
							wn, wnat, wlossy = fromCalendarWide(want, s, c, swapIn, swapOut)
						}
						if n != wn || nat != wnat || lossy != wlossy {
							t.Fatalf("%s swap %v/%v from %d: n, nat, lossy = %d, %d, %d; wide loop %d, %d, %d",
								tr, swapIn, swapOut, off, n, nat, lossy, wn, wnat, wlossy)
						}
						for i := 0; i < n; i++ {
							if got[i] != want[i] {
								t.Fatalf("%s swap %v/%v: %d -> %d, wide loop %d", tr, swapIn, swapOut, vs[off+i],
									int64(storeSwapped(got[i], swapOut)), int64(storeSwapped(want[i], swapOut)))
							}
						}
						if n == len(s) {
							off += n
						} else {
							off += n + 1
						}
					}
				}
			}
		}
	})
}

func storeSwapped(w uint64, swap bool) uint64 {
	if swap {
		return bits.ReverseBytes64(w)
	}
	return w
}
