package kernels

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"math/big"
	"math/bits"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/internal/impl"
)

// shortestCases are decodings with a fast check: float64 and float32, each
// form of the check (steps per stored unit and stored units per step),
// with and without a missing value, and one with two (no kernel).
var shortestCases = []cfCase{
	{name: "float64 days ns", attrs: `{"units": "days since 1850-01-01", "_FillValue": "NaN"}`, stored: f64, to: ns, shortest: true},
	{name: "float64 hours us fill", attrs: `{"units": "hours since 1900-01-01 12:00", "_FillValue": -9999.0}`, stored: f64, to: us, shortest: true},
	{name: "float64 ms ns", attrs: `{"units": "milliseconds since 1970-01-01"}`, stored: f64, to: ns, shortest: true},
	{name: "float64 minutes s zone", attrs: `{"units": "minutes since 1600-01-01 00:00:00 -05:30"}`, stored: f64, to: secs, shortest: true},
	{name: "float32 days ns", attrs: `{"units": "days since 1850-01-01", "_FillValue": 9.96921e36}`, stored: f32, to: ns, shortest: true},
	{name: "float32 hours s", attrs: `{"units": "hours since 2000-01-01"}`, stored: f32, to: secs, shortest: true},
	{name: "float64 days ns two fills", attrs: `{"units": "days since 1850-01-01", "missing_value": [-1, -2]}`, stored: f64, to: ns, shortest: true},
}

// shortestWordsFor returns n float64 words: values on the check's grid
// (decided), with NaN and the missing value at some lanes and, at the
// positions in leave, floats the check does not decide.
func shortestWordsFor(r *rand.Rand, cc *cfCompiled, k *cfKernel, n int, leave map[int]bool) []uint64 {
	c := k.fc
	w := make([]uint64, n)
	for i := range w {
		switch x := r.IntN(40); {
		case leave[i]:
			// Off the grid, beyond Max, or Inf.
			fs := []float64{0.1234567, c.Max * 2, math.Inf(1), 1e300, 0.5 / c.N1 * c.N2 * 1.0000001}
			w[i] = math.Float64bits(storedRound(fs[r.IntN(len(fs))], cc.c.stored.Size))
		case x == 0:
			w[i] = math.Float64bits(math.NaN())
		case x == 1 && len(cc.t.Missing) > 0:
			w[i] = cc.t.Missing[r.IntN(len(cc.t.Missing))]
		default:
			// A grid point within the check's reach, as the nearest stored float.
			lim := math.Min(c.Max*c.N1/c.N2/2, 1<<40)
			lo, hi := int64(math.Max(-lim, c.KLo)), int64(math.Min(lim, c.KHi))
			step := lo + r.Int64N(hi-lo+1)
			x := new(big.Rat).SetFrac(new(big.Int).Mul(big.NewInt(step), big.NewInt(int64(c.N2))), big.NewInt(int64(c.N1)))
			f, _ := x.Float64()
			w[i] = math.Float64bits(storedRound(f, cc.c.stored.Size))
		}
	}
	return w
}

func storedRound(f float64, size int) float64 {
	if size == 4 {
		return float64(float32(f))
	}
	return f
}

// TestCFShortestHook: the hook of every implementation against the
// generic twin, over lengths 0..130 at element offsets 0..3, NaN and
// missing values at random lanes, an undecided element at random places
// (the hook must stop at the vector that holds it, the twin at it), all
// four byte orders, in place and not; and the twin against the exact rule.
func TestCFShortestHook(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 3))
	forEachImpl(t, func(t *testing.T) {
		lanes := cfShortestLanes()
		for _, c := range shortestCases {
			cc := compileCase(t, c)
			k := cc.core(t)
			if !k.hasCheck || k.loop != cfLoopShortest {
				t.Fatalf("%s: no fast check (loop %s)", c.name, k.loopName())
			}
			simd := lanes > 0 && len(k.fl.missing) <= 1
			for n := 0; n <= 130; n++ {
				for _, ord := range orders {
					off := r.IntN(4)
					stop := n
					leave := map[int]bool{}
					if n > 0 && r.IntN(3) == 0 {
						stop = r.IntN(n)
						leave[stop] = true
					}
					words := shortestWordsFor(r, cc, k, n, leave)
					swapIn, swapOut := swapFor(ord.from), swapFor(ord.to)
					buf := make([]uint64, n+off)
					src := buf[off:]
					for i, w := range words {
						src[i] = w
						if swapIn {
							src[i] = bits.ReverseBytes64(w)
						}
					}
					ref := make([]uint64, n)
					wantN, _ := cfShortestCheckLoop(ref, src, k, swapIn, swapOut)
					if wantN != stop {
						t.Fatalf("%s n=%d: the twin stopped at %d, want %d (%v)", c.name, n, wantN, stop, math.Float64frombits(words[min(wantN, n-1)]))
					}
					inPlace := r.IntN(2) == 0
					dst := make([]uint64, n)
					if inPlace {
						dst = src
						src = append([]uint64(nil), src...) // the hook's input, kept to check against
						copy(dst, src)
					}
					got, nat := cfShortestSIMD(dst, dst[:0:0], &k.check, swapIn, swapOut) // empty source: nothing
					if got != 0 || nat != 0 {
						t.Fatalf("%s: an empty source converted %d", c.name, got)
					}
					switch {
					case !simd: // several missing values: shortestWords calls no hook
					case inPlace:
						got, nat = cfShortestSIMD(dst, dst, &k.check, swapIn, swapOut)
					default:
						got, nat = cfShortestSIMD(dst, src, &k.check, swapIn, swapOut)
					}
					switch {
					case lanes == 0 && got != 0:
						t.Fatalf("%s: the hook converted %d without a kernel", c.name, got)
					case simd && (got > stop || got < stop-stop%lanes):
						t.Fatalf("%s %s n=%d off=%d: the hook converted %d, want %d (stop %d)", c.name, ord.name, n, off, got, stop-stop%lanes, stop)
					}
					_, pn := cfShortestCheckLoop(make([]uint64, got), src[:got], k, swapIn, swapOut)
					if nat != pn {
						t.Fatalf("%s %s: hook nat %d, twin %d", c.name, ord.name, nat, pn)
					}
					for i := range got {
						if dst[i] != ref[i] {
							t.Fatalf("%s %s n=%d: element %d (%v): hook %#x, twin %#x", c.name, ord.name, n, i, math.Float64frombits(words[i]), dst[i], ref[i])
						}
					}
					// The twin against cf.FastCheck.Decide (it stops where Decide
					// leaves a value) and the exact rule.
					if stop < n {
						if _, ok := k.fc.Decide(math.Float64frombits(words[stop])); ok {
							t.Fatalf("%s: Decide decides %v, where the twin stopped", c.name, math.Float64frombits(words[stop]))
						}
					}
					for i := range wantN {
						f := math.Float64frombits(words[i])
						want := uint64(natBits)
						if !k.isMissing(words[i]) {
							out := ref[i]
							if swapOut {
								out = bits.ReverseBytes64(out)
							}
							if q, ok := k.fc.Decide(f); !ok || uint64(q) != out {
								t.Fatalf("%s: %v: Decide %d %v, twin %#x", c.name, f, q, ok, out)
							}
							q, res, _ := cc.dec.DecodeFloat(f)
							if res != cf.Exact {
								t.Fatalf("%s: %v decided by the check, %v by the rule", c.name, f, res)
							}
							want = uint64(q)
						}
						if swapOut {
							want = bits.ReverseBytes64(want)
						}
						if ref[i] != want {
							t.Fatalf("%s: %v: twin %#x, rule %#x", c.name, f, ref[i], want)
						}
					}
				}
			}
		}
	})
}

// TestCFShortestFallback: Run over data where every fourth element is off
// the grid decodes all of it as the exact rule does (each undecided
// element stops the kernel and takes the exact path, and after runs of
// them the decided ones that follow too), in every
// implementation, with the policies applying to the elements the check
// leaves (an overflow far out, under each policy).
func TestCFShortestFallback(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 4))
	forEachImpl(t, func(t *testing.T) {
		for _, c := range shortestCases {
			cc := compileCase(t, c)
			k := cc.core(t)
			const n = 1000
			scattered, runs := map[int]bool{}, map[int]bool{}
			for i := 0; i < n; i += 1 + r.IntN(7) {
				scattered[i] = true
			}
			// Runs of 1 to 150 left elements, 1 to 20 decided between
			// them: runBlock's back-off (slowRun) sends decided elements,
			// NaN and missing values to the exact path after a run.
			for i := 0; i < n; i += 1 + r.IntN(20) {
				for e := min(i+1+r.IntN(150), n); i < e; i++ {
					runs[i] = true
				}
			}
			for _, leave := range []map[int]bool{scattered, runs} {
				words := shortestWordsFor(r, cc, k, n, leave)
				words[n/2] = math.Float64bits(storedRound(1e30, c.stored.Size)) // overflows
				model := cc.oracle(t, words)
				for _, o := range cfOptionSets {
					checkRun(t, cc, o, words, model, 0, 0, false)
					checkRun(t, cc, o, words, model, 3, 5, true)
				}
			}
		}
	})
}

// TestCFShortestCftime: every implementation decodes the committed
// cftime vectors (testdata/cf/float_cftime.jsonl, written by
// tools/cftime/float_vectors.py: hourly, 15-minute, minute and
// whole-second data as float64 and float32 in days, hours and minutes)
// to what cftime.num2date gives wherever cftime's answer is on a grid as
// coarse as dt64's (else cftime keeps float noise, as for float32 hourly
// data, and dt64's coarser instant is the exact rule's); and always to the
// exact rule's answer.
func TestCFShortestCftime(t *testing.T) {
	raw, err := os.ReadFile("../testdata/cf/float_cftime.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	type vec struct {
		Units string `json:"units"`
		Size  int    `json:"size"`
		V     string `json:"v"`
		Us    int64  `json:"us"`
	}
	type group struct {
		units string
		size  int
	}
	groups := map[group][]vec{}
	var order []group
	for _, l := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var v vec
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		g := group{v.Units, v.Size}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], v)
	}
	// grid is the index of the coarsest grid (day, hour, … 1 µs) us is on.
	grid := func(us int64) int {
		for i, g := range []int64{86400e6, 3600e6, 60e6, 1e6, 1e5, 1e4, 1e3, 100, 10} {
			if us%g == 0 {
				return i
			}
		}
		return 9
	}
	forEachImpl(t, func(t *testing.T) {
		same, noise := 0, 0
		for _, g := range order {
			vs := groups[g]
			stored := cf.Stored{Kind: cf.StoredFloat, Size: g.size}
			tm, err := cf.ParseAttributes([]byte(`{"units": "`+g.units+`", "calendar": "proleptic_gregorian"}`), stored)
			if err != nil {
				t.Fatal(err)
			}
			d, err := NewCFDecoder(tm, us, Options{From: binary.LittleEndian, To: binary.LittleEndian})
			if err != nil {
				t.Fatal(err)
			}
			if !d.k.hasCheck {
				t.Fatalf("%s %s: no fast check", g.units, stored)
			}
			ref, _ := cf.NewDecoderWith(tm, us, cf.DecoderOptions{Reference: true})
			src := make([]byte, g.size*len(vs))
			for i, v := range vs {
				f, err := strconv.ParseFloat(v.V, 64)
				if err != nil {
					t.Fatal(err)
				}
				putElement(src[g.size*i:], math.Float64bits(f), stored, binary.LittleEndian)
			}
			dst := make([]byte, 8*len(vs))
			if _, err := d.Run(dst, src, nil); err != nil {
				t.Fatalf("%s %s: %v", g.units, stored, err)
			}
			for i, v := range vs {
				got := int64(binary.LittleEndian.Uint64(dst[8*i:]))
				f, _ := strconv.ParseFloat(v.V, 64)
				if q, _, _ := ref.DecodeFloat(f); got != q {
					t.Fatalf("%s %s %s: %d µs, the exact rule %d", g.units, stored, v.V, got, q)
				}
				if grid(v.Us) <= grid(got) {
					same++
					if got != v.Us {
						t.Errorf("%s %s %s: dt64 %d µs, cftime %d", g.units, stored, v.V, got, v.Us)
					}
				} else {
					noise++
				}
			}
		}
		if same < 400 || noise == 0 {
			t.Errorf("%d equal to cftime, %d where cftime keeps noise: both kinds must be checked", same, noise)
		}
	})
}

// TestWidenFloat32Hook: the float32 widening hook of every implementation
// against Go's float64(float32) over lengths 0..70, unaligned sources and
// both byte orders, with zeros, subnormals, infinities and NaNs (which
// must stay NaN; VCVTPS2PD quiets a signalling one, as Go does on amd64).
func TestWidenFloat32Hook(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 5))
	specials := []uint32{0, 0x80000000, 1, 0x807fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001, 0xffffffff, 0x3f800000, 0x4b000000}
	forEachImpl(t, func(t *testing.T) {
		active := impl.Active("kernels")
		for n := 0; n <= 70; n++ {
			for off := range 4 {
				for _, swap := range []bool{false, true} {
					buf := make([]byte, 4*n+off)
					src := buf[off:]
					want := make([]uint64, n)
					for i := range n {
						u := r.Uint32()
						if r.IntN(4) == 0 {
							u = specials[r.IntN(len(specials))]
						}
						binary.LittleEndian.PutUint32(src[4*i:], u)
						if swap {
							binary.BigEndian.PutUint32(src[4*i:], u)
						}
						want[i] = math.Float64bits(float64(math.Float32frombits(u)))
					}
					dst := make([]uint64, n)
					got := widenFloat32SIMD(dst, src, swap != (binary.NativeEndian.Uint16([]byte{1, 0}) != 1))
					switch {
					case got > n || active == "generic" && got != 0:
						t.Fatalf("n=%d: the hook widened %d", n, got)
					case (runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64") && active != "generic" && got < n-7:
						t.Fatalf("n=%d: the hook widened only %d", n, got)
					}
					for i := range got {
						g, w := math.Float64frombits(dst[i]), math.Float64frombits(want[i])
						if dst[i] != want[i] && !(g != g && w != w) {
							t.Fatalf("n=%d off=%d swap=%v: element %d: %#x, want %#x", n, off, swap, i, dst[i], want[i])
						}
					}
				}
			}
		}
	})
}
