package kernels

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
)

// TestGenericLoopBounds aims at the bounds of the generic loops' fast
// ranges, which edgeValues does not list: mulDivLoopOf's |v| <= vmax (where
// values move to mulDivWide and the loop resumes), toCalendar32Of's and
// fromCalendar32Of's vlim32, and the block cut at blockWords. Values around
// each bound are mixed with NaT and ordinary values in one long input, in
// both byte orders, and compared with the math/big reference, counts
// included.
func TestGenericLoopBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	type pair struct{ from, to dtype.DataType }
	var pairs []pair
	dts := func(k dtype.Kind, u dtype.Unit, s int64) dtype.DataType { return dt(k, u, s) }
	for _, s1 := range []int64{1, 7, 25, 1000} {
		for _, s2 := range []int64{1, 24} {
			pairs = append(pairs,
				pair{dts(dtype.Timedelta, dtype.Hour, s1), dts(dtype.Timedelta, dtype.Day, s2)},
				pair{dts(dtype.Datetime, dtype.Hour, s1), dts(dtype.Datetime, dtype.Day, s2)},
				pair{dts(dtype.Timedelta, dtype.Minute, s1), dts(dtype.Timedelta, dtype.Hour, s2)},
				pair{dts(dtype.Datetime, dtype.Nanosecond, s1), dts(dtype.Datetime, dtype.Second, s2)},
				pair{dts(dtype.Datetime, dtype.Nanosecond, s1), dts(dtype.Datetime, dtype.Month, s2)},
				pair{dts(dtype.Datetime, dtype.Second, s1), dts(dtype.Datetime, dtype.Year, s2)},
				pair{dts(dtype.Datetime, dtype.Day, s1), dts(dtype.Datetime, dtype.Month, s2)},
				pair{dts(dtype.Datetime, dtype.Month, s1), dts(dtype.Datetime, dtype.Day, s2)},
				pair{dts(dtype.Datetime, dtype.Year, s1), dts(dtype.Datetime, dtype.Second, s2)},
			)
		}
	}
	forEachImpl(t, func(t *testing.T) {
		for _, pr := range pairs {
			for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
				o := Options{Overflow: dtype.OverflowClamp, From: order, To: order}
				tr := mustTr(t, mustConv(t, pr.from, pr.to), o)
				var bounds []int64
				if tr.op == opMulDiv {
					bounds = append(bounds, int64(uint64(math.MaxInt64)/tr.lin.num))
				}
				if tr.op == opToCalendar || tr.op == opFromCalendar {
					bounds = append(bounds, tr.cal.vlim32, tr.cal.vlim)
				}
				var vs []int64
				for len(vs) < blockWords+blockWords/4 {
					switch r.IntN(5) {
					case 0:
						vs = append(vs, math.MinInt64)
					case 1, 2:
						if len(bounds) > 0 {
							b := bounds[r.IntN(len(bounds))] + int64(r.IntN(5)-2)
							if r.IntN(2) == 0 {
								b = -b
							}
							vs = append(vs, b)
							continue
						}
						fallthrough
					default:
						vs = append(vs, int64(r.IntN(2_000_000))-1_000_000)
					}
				}
				src, dst := alignedBytes(8*len(vs)), alignedBytes(8*len(vs))
				for i, v := range vs {
					order.PutUint64(src[8*i:], uint64(v))
				}
				st, err := tr.Run(dst, src, nil)
				if err != nil {
					t.Fatalf("%s: %v", tr, err)
				}
				lossy, over, nat := 0, 0, 0
				for i, v := range vs {
					got := int64(order.Uint64(dst[8*i:]))
					if v == math.MinInt64 {
						nat++
						if got != math.MinInt64 {
							t.Fatalf("%s: NaT became %d", tr, got)
						}
						continue
					}
					want, o, l := refClamp(pr.from, pr.to, v)
					over, lossy = over+b2i(o), lossy+b2i(l)
					if got != want {
						t.Fatalf("%s (%s): element %d: %d -> %d, want %d", tr, order, i, v, got, want)
					}
				}
				if st.Lossy != lossy || st.Overflowed != over || st.NaT != nat || st.Elements != len(vs) {
					t.Fatalf("%s (%s): stats %+v, want lossy %d overflowed %d NaT %d", tr, order, st, lossy, over, nat)
				}
			}
		}
	})
}
