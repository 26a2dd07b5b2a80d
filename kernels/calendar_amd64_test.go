//go:build !purego

package kernels

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zarr-dt64/dt64/internal/impl"
)

// TestCalendarHooksAVX512 calls the calendar hooks directly: with AVX-512
// selected they must convert whole vectors up to the vector holding the
// first value the 32-bit loop stops at, exactly as that loop does (words,
// NaT and lossy counts), and write nothing beyond; otherwise they must do
// nothing.
func TestCalendarHooksAVX512(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	trs := calendarCases(t)
	for _, name := range impl.Names("kernels") {
		t.Run("impl="+name, func(t *testing.T) {
			impl.Select("kernels", name)
			defer impl.Reset("kernels")
			for _, tr := range trs {
				c := &tr.cal
				vs := calendarValues(r, c)
				for _, swapIn := range []bool{false, true} {
					for _, swapOut := range []bool{false, true} {
						for _, inPlace := range []bool{false, true} {
							for start := 0; start < len(vs); start += 1 + r.IntN(200) {
								end := min(len(vs), start+r.IntN(100))
								checkCalendarHook(t, tr, vs[start:end], swapIn, swapOut, inPlace)
							}
							// Long runs inside the 32-bit range, NaT
							// sprinkled, then one value beyond it.
							run := inRange(r, c, 50+r.IntN(150))
							if c.vlim32 < 1<<62 {
								run[r.IntN(len(run))] = c.vlim32 + 1
							}
							checkCalendarHook(t, tr, run, swapIn, swapOut, inPlace)
						}
					}
				}
			}
		})
	}
}

func checkCalendarHook(t *testing.T, tr *Transcoder, vals []int64, swapIn, swapOut, inPlace bool) {
	t.Helper()
	c := &tr.cal
	src := make([]uint64, len(vals))
	for i, v := range vals {
		src[i] = storeSwapped(uint64(v), swapIn)
	}
	dst, hookSrc := hookBuffers(src, inPlace)
	want := make([]uint64, len(src))
	var n, nat, lossy, stop, wnat, wlossy int
	if tr.op == opToCalendar {
		n, nat, lossy = toCalendarSIMD(dst, hookSrc, c, swapIn, swapOut)
		stop, _, _ = toCalendar32(want, src, c, swapIn, swapOut)
	} else {
		n, nat, lossy = fromCalendarSIMD(dst, hookSrc, c, swapIn, swapOut)
		stop, _, _ = fromCalendar32(want, src, c, swapIn, swapOut)
	}
	wantN := 0
	if useAVX512 && !c.outDiv {
		wantN = stop &^ 7
	}
	if n != wantN {
		t.Fatalf("%s swap %v/%v in place %v len %d: n = %d, want %d (32-bit loop stops at %d)",
			tr, swapIn, swapOut, inPlace, len(src), n, wantN, stop)
	}
	if tr.op == opToCalendar {
		_, wnat, wlossy = toCalendar32(want, src[:n], c, swapIn, swapOut)
	} else {
		_, wnat, wlossy = fromCalendar32(want, src[:n], c, swapIn, swapOut)
	}
	if nat != wnat || lossy != wlossy {
		t.Fatalf("%s swap %v/%v: nat, lossy = %d, %d, want %d, %d", tr, swapIn, swapOut, nat, lossy, wnat, wlossy)
	}
	for i := 0; i < n; i++ {
		if dst[i] != want[i] {
			t.Fatalf("%s swap %v/%v: %d -> %d, want %d", tr, swapIn, swapOut, vals[i],
				int64(storeSwapped(dst[i], swapOut)), int64(storeSwapped(want[i], swapOut)))
		}
	}
	checkUntouched(t, tr, dst, src, n, inPlace)
}

func inRange(r *rand.Rand, c *calParams, n int) []int64 {
	vs := make([]int64, n)
	for i := range vs {
		switch {
		case r.IntN(30) == 0:
			vs[i] = math.MinInt64
		case c.vlim32 > 0:
			vs[i] = r.Int64N(c.vlim32+1) * int64(1-2*r.IntN(2))
		}
	}
	return vs
}

// TestCalendarHooksLengths runs the calendar hooks over every length
// 0..4096 (every 7th above 300 with -short), values inside the 32-bit range
// with NaT sprinkled and, for every other length, one value beyond it at a
// position rotating with the length, so every tail and every stopping lane
// is seen; conversions, byte orders and in place rotate with the length.
func TestCalendarHooksLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 30))
	var trs []*Transcoder
	for _, tr := range calendarCases(t) {
		if !tr.cal.outDiv && tr.cal.vlim32 > 0 && tr.cal.vlim32 < 1<<62 {
			trs = append(trs, tr)
		}
	}
	forEachImpl(t, func(t *testing.T) {
		for n := 0; n <= 4096; n++ {
			if testing.Short() && n > 300 && n%7 != 0 {
				continue
			}
			for k := range 2 {
				tr := trs[(2*n+k)%len(trs)]
				vals := inRange(r, &tr.cal, n)
				if n > 0 && n%2 == 0 {
					vals[(n*5+k)%n] = tr.cal.vlim32 + 1
				}
				sw := swapVariants[(n+k)%4]
				checkCalendarHook(t, tr, vals, sw[0], sw[1], (n+k)%3 == 0)
			}
		}
	})
}

// TestCalendarHooksEveryLane puts NaT and the 32-bit range's bound ±1 at
// every position of 80 in-range values.
func TestCalendarHooksEveryLane(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	forEachImpl(t, func(t *testing.T) {
		for i, tr := range calendarCases(t) {
			c := &tr.cal
			if i%3 != 0 || c.vlim32 == 0 || c.vlim32 >= 1<<62 {
				continue // a third of the cases: each costs 80 x 7 runs
			}
			base := inRange(r, c, 80)
			for j, e := range []int64{math.MinInt64, c.vlim32 - 1, c.vlim32, c.vlim32 + 1, -c.vlim32 - 1, -c.vlim32, 1 - c.vlim32} {
				for pos := range base {
					vals := append([]int64(nil), base...)
					vals[pos] = e
					sw := swapVariants[(pos+j)%4]
					checkCalendarHook(t, tr, vals, sw[0], sw[1], pos%2 == 1)
				}
			}
		}
	})
}
