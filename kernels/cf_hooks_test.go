package kernels

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/zarr-dt64/dt64/cf"
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
				k.loop == cfLoopFloat && active == "avx512" && len(k.fl.missing) <= 1)
			if k.loop != cfLoopMulAdd && k.loop != cfLoopFloat || k.c != 1 || k.miss.mspan != 0 {
				continue // multiply-add-divide has no hook; several missing values skip it
			}
			const n = 1000
			for _, ord := range orders {
				swapIn, swapOut := swapFor(ord.from), swapFor(ord.to)
				words := make([]uint64, n)
				for i := range words {
					switch {
					case cc.t != nil && len(cc.t.Missing) == 1 && i%9 == 0:
						words[i] = cc.t.Missing[0]
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
