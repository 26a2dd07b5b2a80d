package kernels

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/zarr-dt64/dt64/dtype"
)

// BenchmarkToCalendar32 times the generic 32-bit loop alone on a block
// that stays in cache: nanoseconds to months, the case `dt64 bench` reports
// as Calendar(ns->M). Compare with BenchmarkCopy in the same run.
func BenchmarkToCalendar32(b *testing.B) {
	const size = 64 << 10
	src, dst := alignedBytes(size), alignedBytes(size)
	fillTimestamps(src, dtype.Nanosecond, binary.NativeEndian)
	c := compileCalendar(dt(dtype.Datetime, dtype.Nanosecond, 1), dt(dtype.Datetime, dtype.Month, 1))
	s := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(src))), size/8)
	d := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(dst))), size/8)
	b.SetBytes(size)
	for b.Loop() {
		if n, _, _ := toCalendar32(d, s, &c, false, false); n != len(s) {
			b.Fatalf("stopped at %d", n)
		}
	}
}

// TestCalendarYearDayMagic checks the day-of-year multiplier of
// toCalendar32Of on every value it meets: the low words of 2939745*(4k+3)
// for the 36525 days k of a century.
func TestCalendarYearDayMagic(t *testing.T) {
	for k := uint64(0); k < 36525; k++ {
		lo := uint32(2939745 * (4*k + 3))
		if got, want := uint32(uint64(lo)*yearDayMagic>>54), lo/11758980; got != want {
			t.Fatalf("k = %d: %d, want %d", k, got, want)
		}
	}
}

// TestDivisorExactTo checks exactTo against the quotient at the multiples
// of d around the bound it accepts, where an inexact magic fails first.
func TestDivisorExactTo(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ds := []uint64{2, 3, 7, 24, 1440, 86400, 86400e3, 86400e6, 86400e9, 86400e12, 1<<62 + 1, math.MaxUint64}
	for range 200 {
		ds = append(ds, 2+r.Uint64N(1<<uint(2+r.IntN(61))))
	}
	for _, d := range ds {
		dv := newDivisor(d)
		if !dv.exactTo(1<<63 - 1) {
			t.Fatalf("d = %d: not exact below 2^63", d)
		}
		// The largest accepted bound, by bisection over [2^63-1, 2^64-1].
		lo, hi := uint64(1<<63-1), uint64(math.MaxUint64)
		for lo < hi {
			mid := lo + (hi-lo+1)/2
			if dv.exactTo(mid) {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		for _, base := range []uint64{lo, lo / 2, 1<<63 - 1} {
			for j := uint64(0); j < 4; j++ {
				m := (base/d - j) * d // multiples of d at or below the bound
				for _, u := range []uint64{m, m - 1, m + d - 1} {
					if u <= lo && dv.quo(u) != u/d {
						t.Fatalf("d = %d, bound %d: quo(%d) = %d, want %d", d, lo, u, dv.quo(u), u/d)
					}
				}
			}
		}
	}
}

// TestCalendar32Offsets checks, for every linear unit and scale, that the
// dividend offset keeps the whole 32-bit range exact (vlim32 is not cut to
// 0) and that the loop's day number at both ends and around 0 is
// 4*(floor(x/upd)+fastDayOffset)+3.
func TestCalendar32Offsets(t *testing.T) {
	for u := dtype.Week; u <= dtype.Attosecond; u++ {
		for _, s := range []int64{1, 7, 1000, 2147483647} {
			c := compileCalendar(dt(dtype.Datetime, u, s), dt(dtype.Datetime, dtype.Month, 1))
			upd := uint64(1)
			if c.srcDiv {
				upd = c.srcDv.d
			}
			if lim, _ := bits.Mul64(fastDays, upd); lim == 0 && c.vlim > 0 {
				want := min(c.vlim, int64(fastDays*upd/uint64(s*c.srcDPU)))
				if c.vlim32 != want {
					t.Fatalf("%s*%d: vlim32 = %d, want %d", u, s, c.vlim32, want)
				}
			}
			for _, v := range []int64{-c.vlim32, -c.vlim32 + 1, -1, 0, 1, c.vlim32 - 1, c.vlim32} {
				if v < -c.vlim32 || v > c.vlim32 {
					continue
				}
				x := new(big.Int).Mul(big.NewInt(v), big.NewInt(s*c.srcDPU))
				days := new(big.Int)
				days.Div(x, new(big.Int).SetUint64(upd)) // Euclidean = floor for upd > 0
				want := uint32(4*(days.Int64()+fastDayOffset) + 3)
				uu := uint64(v+c.vlim32)*uint64(s*c.srcDPU) + c.off32
				q := uu
				if c.srcDiv {
					q = c.srcDv.quo(uu)
				}
				if got := 4*uint32(q) + c.dayBias32; got != want {
					t.Fatalf("%s*%d, v = %d: 4N+3 = %d, want %d", u, s, v, got, want)
				}
			}
		}
	}
}
