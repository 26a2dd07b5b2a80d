package kernels

import (
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/internal/impl"
)

// TestCFHooks calls the CF SIMD hooks directly: each implementation that
// has a kernel for a case must convert a long prefix of values in the fast
// range (a dispatch bug that left everything to the generic loop would
// pass the differential tests), and what it converted must equal the
// generic loop's result, NaT and lossy counts, in every byte order. A value
// outside the range at position stop must stop it at or before stop.
func TestCFHooks(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	forEachImpl(t, func(t *testing.T) {
		active := impl.Active("kernels")
		for _, c := range cfCases() {
			cc := compileCase(t, c)
			k := cc.core(t)
			simd := active != "generic" && k.c == 1 && (k.loop == cfLoopMulAdd ||
				k.loop == cfLoopFloat && active != "neon" && len(k.fl.missing) <= 1)
			if k.loop != cfLoopMulAdd && k.loop != cfLoopFloat || k.c != 1 || k.miss.mspan != 0 {
				continue // multiply-add-divide has no hook; several missing values skip it
			}
			const n = 1000
			for _, ord := range orders {
				swapIn, swapOut := swapFor(ord.from), swapFor(ord.to)
				words := make([]uint64, n)
				for i := range words {
					switch {
					case k.miss.single && i%9 == 0:
						words[i] = k.miss.mlo // the one missing value the hook compares
					case c.stored.Kind == cf.StoredFloat:
						words[i] = fbits(float64(r.IntN(1<<20)-1<<19) / 16)
					default:
						span := uint64(k.hi) - uint64(k.lo)
						words[i] = uint64(k.lo) + r.Uint64N(span|1)
					}
				}
				words = cc.fit(words)
				for i, w := range words {
					if k.loop == cfLoopMulAdd && (int64(w) < k.lo || int64(w) > k.hi) {
						words[i] = 0 // fitting to a narrow type left the range
					}
				}
				stop := n
				if r.IntN(2) == 0 && (c.stored.Size == 8 || c.stored.Kind == cf.StoredFloat) {
					stop = 100 + r.IntN(800)
					if c.stored.Kind == cf.StoredFloat {
						words[stop] = fbits(1e300)
					} else {
						for _, w := range []uint64{uint64(k.hi) + 1, uint64(k.lo) - 1, 1 << 63} {
							if (int64(w) < k.lo || int64(w) > k.hi) && !(k.miss.single && w == k.miss.mlo) {
								words[stop] = w
								break
							}
						}
					}
				}
				src := make([]uint64, n)
				for i, w := range words {
					src[i] = w
					if swapIn {
						src[i] = bits.ReverseBytes64(w)
					}
				}
				dst, ref := make([]uint64, n), make([]uint64, n)
				var got, nat, lossy int
				var wantN int
				if k.loop == cfLoopMulAdd {
					m := uint64(0)
					if k.miss.single {
						m = k.miss.mlo
					}
					got, nat = cfMulAddSIMD(dst, src, uint64(k.a), uint64(k.b), k.lo, k.hi, m, k.miss.single, swapIn, swapOut)
					wantN, _ = cfMulAddLoop(ref, src, k, swapIn, swapOut)
				} else {
					got, nat, lossy = cfFloatSIMD(dst, src, &k.fl, swapIn, swapOut)
					wantN, _, _ = cfFloatLoop(ref, src, k, swapIn, swapOut)
				}
				if wantN != stop {
					t.Fatalf("%s: the generic loop stopped at %d, want %d", cc.c.name, wantN, stop)
				}
				if simd && got < stop-16 || !simd && got != 0 || got > stop {
					t.Fatalf("%s %s (%s): the hook converted %d of %d (simd %v)", cc.c.name, ord.name, active, got, stop, simd)
				}
				// The generic loop's counts over the hook's prefix.
				_, pn, pl := cfPrefix(k, ref[:got], src[:got], swapIn, swapOut)
				if nat != pn || lossy != pl {
					t.Fatalf("%s %s: hook nat %d lossy %d, generic %d %d", cc.c.name, ord.name, nat, lossy, pn, pl)
				}
				for i := range got {
					if dst[i] != ref[i] {
						t.Fatalf("%s %s: element %d (%#x): hook %#x, generic %#x", cc.c.name, ord.name, i, words[i], dst[i], ref[i])
					}
				}
			}
		}
	})
}

// cfPrefix runs the generic loop over a prefix for its counts.
func cfPrefix(k *cfKernel, ref, src []uint64, swapIn, swapOut bool) (n, nat, lossy int) {
	out := make([]uint64, len(src))
	if k.loop == cfLoopMulAdd {
		n, nat = cfMulAddLoop(out, src, k, swapIn, swapOut)
		return n, nat, 0
	}
	return cfFloatLoop(out, src, k, swapIn, swapOut)
}

func fbits(f float64) uint64 { return math.Float64bits(f) }

// TestCFNaTMarkerFastPath: an int64 variable's NaT marker (-2^63,
// cf.NaTMarker) is missing without taking the common int64 cases off the
// SIMD path: with no other missing value it is the one value the hook
// compares, and beside one _FillValue it stays out of the fast range, so
// the hook compares the fill value and never stops at a valid count.
// Every implementation's hook must convert a run holding markers (no
// _FillValue) or fill values (one) whole, NaT counted, and Run the
// markers to NaT.
func TestCFNaTMarkerFastPath(t *testing.T) {
	cases := []struct {
		attrs  string
		to     dtype.DataType
		marker bool // the hook compares the marker (else the one fill value)
	}{
		{`{"units": "hours since 1900-01-01"}`, ns, true},
		{`{"units": "nanoseconds since 2000-01-01"}`, ns, true}, // -2^63 + B is in range
		{`{"units": "nanoseconds since 1970-01-01", "_FillValue": -9223372036854775808}`, ns, true},
		{`{"units": "hours since 1900-01-01", "_FillValue": -999}`, ns, false},
		{`{"units": "nanoseconds since 2000-01-01", "_FillValue": -1}`, ns, false},
		{`{"units": "hours"}`, tdNs, true},
		{`{"units": "seconds since 2000-01-01"}`, secs, true},
	}
	forEachImpl(t, func(t *testing.T) {
		active := impl.Active("kernels")
		for _, c := range cases {
			tm, err := cf.ParseAttributes([]byte(c.attrs), i64)
			if err != nil {
				t.Fatal(err)
			}
			d, err := NewCFDecoder(tm, c.to, Options{Overflow: dtype.OverflowError})
			if err != nil {
				t.Fatal(err)
			}
			k := &d.k
			if k.loop != cfLoopMulAdd || !k.miss.single || k.miss.mspan != 0 || k.lo == math.MinInt64 || c.marker && k.miss.inRange {
				t.Fatalf("%s: loop %s, missing %+v, range [%d, %d]: want the multiply-add loop comparing one missing value, the marker outside the range",
					c.attrs, k.loopName(), k.miss, k.lo, k.hi)
			}
			if (k.miss.mlo == natBits) != c.marker {
				t.Fatalf("%s: the loops compare %#x", c.attrs, k.miss.mlo)
			}
			const n = 1000
			src := make([]uint64, n)
			nat := 0
			for i := range src {
				src[i] = uint64(i * 7)
				if i%5 == 2 {
					src[i], nat = k.miss.mlo, nat+1
				}
			}
			dst := make([]uint64, n)
			got, gotNaT := cfMulAddSIMD(dst, src, uint64(k.a), uint64(k.b), k.lo, k.hi, k.miss.mlo, true, false, false)
			if active != "generic" && (got < n-16 || gotNaT > nat) || active == "generic" && got != 0 {
				t.Fatalf("%s (%s): the hook converted %d of %d", c.attrs, active, got, n)
			}
			// The whole run: markers (and the fill) are NaT, the rest
			// v×A + B.
			raw := make([]byte, 8*n)
			for i := range src {
				if !c.marker && i%10 == 7 {
					src[i] = natBits
				}
				binary.NativeEndian.PutUint64(raw[8*i:], src[i])
			}
			out := make([]byte, 8*n)
			st, err := d.Run(out, raw, nil)
			if err != nil {
				t.Fatal(err)
			}
			wantNaT := 0
			for i, w := range src {
				want := int64(w)*k.a + k.b
				if w == natBits || w == k.miss.mlo {
					want, wantNaT = math.MinInt64, wantNaT+1
				}
				if g := int64(binary.NativeEndian.Uint64(out[8*i:])); g != want {
					t.Fatalf("%s: element %d (%d): %d, want %d", c.attrs, i, int64(w), g, want)
				}
			}
			if st.NaT != wantNaT || st.Elements != n {
				t.Fatalf("%s: stats %+v, want %d NaT", c.attrs, st, wantNaT)
			}
		}
	})
}
