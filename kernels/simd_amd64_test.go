//go:build !purego

package kernels

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/internal/impl"
)

// These tests call each assembly function directly and compare it with the
// plain loops below, written here so they do not share a bug with the
// generic kernels. hooks_test.go compares the hooks with the generic code.

type simdKernels struct {
	name          string
	available     bool
	lanes         int // elements per vector: the unit the kernels return
	byteSwap      func(dst, src []uint64) int
	byteSwapNT    func(dst, src []uint64) int
	countNaT      func(src []uint64, pattern uint64) (int, int)
	validity      func(bitmap []byte, src []uint64, pattern uint64) (int, int)
	minMax        func(src []uint64) (int, int64, int64)
	minMaxSwapped func(src []uint64) (int, int64, int64)
}

var simdImplementations = []simdKernels{
	{"avx512", availableAVX512, 8, byteSwapAVX512, byteSwapStreamAVX512, countNaTAVX512, validityAVX512, minMaxAVX512, minMaxSwappedAVX512},
	{"avx2", availableAVX2, 4, byteSwapAVX2, byteSwapStreamAVX2, countNaTAVX2, validityAVX2, minMaxAVX2, minMaxSwappedAVX2},
}

func forEachSIMD(t *testing.T, f func(t *testing.T, k simdKernels)) {
	ran := false
	for _, k := range simdImplementations {
		t.Run(k.name, func(t *testing.T) {
			if !k.available {
				t.Skipf("%s is not available on this CPU", k.name)
			}
			ran = true
			f(t, k)
		})
	}
	if !ran {
		t.Log("no SIMD implementation available: nothing tested")
	}
}

const asmNaT = uint64(1) << 63

func asmRefValue(w uint64, swap bool) int64 {
	if swap {
		w = bits.ReverseBytes64(w)
	}
	return int64(w)
}

func asmRefCountNaT(src []uint64, swap bool) (nat int) {
	for _, w := range src {
		if asmRefValue(w, swap) == math.MinInt64 {
			nat++
		}
	}
	return nat
}

func asmRefValidity(src []uint64, swap bool) []byte {
	bitmap := make([]byte, (len(src)+7)/8)
	for i, w := range src {
		if asmRefValue(w, swap) != math.MinInt64 {
			bitmap[i/8] |= 1 << (i % 8)
		}
	}
	return bitmap
}

func asmRefMinMax(src []uint64, swap bool) (lo, hi int64) {
	lo, hi = math.MaxInt64, math.MinInt64
	for _, w := range src {
		v := asmRefValue(w, swap)
		if v == math.MinInt64 {
			continue
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// asmTestWords returns n words mixing random values with every pattern that
// matters: NaT in both byte orders (bswap(NaT) is 128 read in host order),
// the int64 extremes next to NaT, and small values around zero.
func asmTestWords(rng *rand.Rand, n int) []uint64 {
	special := []uint64{asmNaT, bits.ReverseBytes64(asmNaT), asmNaT + 1, math.MaxInt64,
		bits.ReverseBytes64(asmNaT + 1), bits.ReverseBytes64(math.MaxInt64), 0, ^uint64(0), 1, 128}
	w := make([]uint64, n)
	for i := range w {
		if rng.IntN(4) == 0 {
			w[i] = special[rng.IntN(len(special))]
		} else {
			w[i] = rng.Uint64()
		}
	}
	return w
}

// asmTestLengths is every length up to 4096 plus a large one that crosses
// many blocks.
func asmTestLengths() []int {
	var ls []int
	for n := 0; n <= 4096; n++ {
		ls = append(ls, n)
	}
	if testing.Short() {
		return ls[:600]
	}
	return append(ls, 1<<20+3)
}

// asmWantDone is how many elements a kernel that works in whole units of step
// must process out of n.
func asmWantDone(n, step int) int { return n - n%step }

// asmWindow returns data[off:off+n] with its capacity cut to its length, so a
// kernel reading past the end would fault in -race or at least be seen by
// the canaries the callers place after it. off varies the 64-byte alignment.
func asmWindow(data []uint64, off, n int) []uint64 { return data[off : off+n : off+n] }

func TestSIMDByteSwap(t *testing.T) {
	forEachSIMD(t, func(t *testing.T, k simdKernels) {
		rng := rand.New(rand.NewPCG(1, 2))
		maxLen := slices.Max(asmTestLengths())
		data := asmTestWords(rng, maxLen+8)
		outBuf := make([]uint64, maxLen+16)
		const canary = 0x5a5a5a5a5a5a5a5a
		for _, stream := range []bool{false, true} {
			f, kind := k.byteSwap, "byteSwap"
			if stream {
				f, kind = k.byteSwapNT, "byteSwapStream"
			}
			for _, n := range asmTestLengths() {
				off := n % 8
				src := asmWindow(data, off, n)
				out := outBuf[:off+n+8] // canaries on both sides of dst
				for i := range out {
					out[i] = canary
				}
				dst := out[off : off+n]
				done := f(dst, src)
				if stream {
					// The stream kernel swaps a few single elements first to
					// align its stores, so it may end off the vector grid.
					if done > n || n-done >= k.lanes {
						t.Fatalf("%s(n=%d, offset %d) processed %d elements", kind, n, off, done)
					}
				} else if want := asmWantDone(n, k.lanes); done != want {
					t.Fatalf("%s(n=%d) processed %d elements, want %d", kind, n, done, want)
				}
				for i := range done {
					if dst[i] != bits.ReverseBytes64(src[i]) {
						t.Fatalf("%s(n=%d): dst[%d] = %#x, want %#x", kind, n, i, dst[i], bits.ReverseBytes64(src[i]))
					}
				}
				for i := off + done; i < len(out); i++ {
					if out[i] != canary {
						t.Fatalf("%s(n=%d) processed %d but wrote element %d", kind, n, done, i-off)
					}
				}
				for i := range off {
					if out[i] != canary {
						t.Fatalf("%s(n=%d) wrote before dst (element %d)", kind, n, i-off)
					}
				}

				// In place: dst == src.
				inPlace := slices.Clone(src)
				done = f(inPlace, inPlace)
				for i := range n {
					want := src[i]
					if i < done {
						want = bits.ReverseBytes64(src[i])
					}
					if inPlace[i] != want {
						t.Fatalf("%s in place (n=%d, done %d): element %d = %#x, want %#x", kind, n, done, i, inPlace[i], want)
					}
				}
			}
			// Unequal lengths: the shorter one bounds the work.
			if done := f(outBuf[:10], data[:100]); done > 10 {
				t.Errorf("%s(dst len 10, src len 100) processed %d", kind, done)
			}
			if done := f(outBuf[:100], data[:10]); done > 10 {
				t.Errorf("%s(dst len 100, src len 10) processed %d", kind, done)
			}
		}
	})
}

func TestSIMDCountNaTAndValidity(t *testing.T) {
	forEachSIMD(t, func(t *testing.T, k simdKernels) {
		rng := rand.New(rand.NewPCG(3, 4))
		maxLen := slices.Max(asmTestLengths())
		data := asmTestWords(rng, maxLen+8)
		bitmapBuf := make([]byte, maxLen/8+16)
		const canary = 0xa5
		for _, swap := range []bool{false, true} {
			pattern := natWord(swap)
			for _, n := range asmTestLengths() {
				src := asmWindow(data, n%8, n)
				asmCheckCountAndValidity(t, k, src, swap, pattern, bitmapBuf, canary)
			}
		}
	})
}

func asmCheckCountAndValidity(t *testing.T, k simdKernels, src []uint64, swap bool, pattern uint64, bitmapBuf []byte, canary byte) {
	t.Helper()
	n := len(src)
	done, nat := k.countNaT(src, pattern)
	if want := asmWantDone(n, k.lanes); done != want {
		t.Fatalf("countNaT(n=%d, swap=%v) processed %d elements, want %d", n, swap, done, want)
	}
	if want := asmRefCountNaT(src[:done], swap); nat != want {
		t.Fatalf("countNaT(n=%d, swap=%v) = %d NaT in %d elements, want %d", n, swap, nat, done, want)
	}

	bitmapBuf = bitmapBuf[:(n+7)/8+8] // canaries after the bitmap
	for i := range bitmapBuf {
		bitmapBuf[i] = canary
	}
	bitmap := bitmapBuf[:(n+7)/8]
	done, nat = k.validity(bitmap, src, pattern)
	if want := asmWantDone(n, 8); done != want {
		t.Fatalf("validity(n=%d, swap=%v) processed %d elements, want %d", n, swap, done, want)
	}
	if want := asmRefCountNaT(src[:done], swap); nat != want {
		t.Fatalf("validity(n=%d, swap=%v) counted %d NaT in %d elements, want %d", n, swap, nat, done, want)
	}
	want := asmRefValidity(src[:done], swap)
	for i := range want {
		if bitmap[i] != want[i] {
			t.Fatalf("validity(n=%d, swap=%v): bitmap byte %d = %08b, want %08b", n, swap, i, bitmap[i], want[i])
		}
	}
	for i := done / 8; i < len(bitmapBuf); i++ {
		if bitmapBuf[i] != canary {
			t.Fatalf("validity(n=%d, swap=%v) processed %d elements but wrote bitmap byte %d", n, swap, done, i)
		}
	}

	// A short bitmap bounds the work: never a bit past its end.
	if n >= 16 {
		for i := range bitmapBuf {
			bitmapBuf[i] = canary
		}
		short := bitmapBuf[:n/8-1]
		done, _ = k.validity(short, src, pattern)
		if done != 8*len(short) {
			t.Fatalf("validity(n=%d, bitmap of %d bytes) processed %d elements, want %d", n, len(short), done, 8*len(short))
		}
		if bitmapBuf[len(short)] != canary {
			t.Fatalf("validity(n=%d, bitmap of %d bytes) wrote past the bitmap", n, len(short))
		}
	}
}

// TestSIMDNaTAtEveryLane puts NaT (in the order being tested, and its
// swapped twin as a decoy) at each position of two whole unrolled blocks.
func TestSIMDNaTAtEveryLane(t *testing.T) {
	forEachSIMD(t, func(t *testing.T, k simdKernels) {
		const n = 64 // two AVX-512 blocks of 4 vectors, four AVX2 blocks
		bitmapBuf := make([]byte, n/8+8)
		for _, swap := range []bool{false, true} {
			pattern := natWord(swap)
			decoy := bits.ReverseBytes64(pattern)
			for pos := range n {
				for _, fill := range []uint64{7, decoy, pattern} {
					src := make([]uint64, n)
					for i := range src {
						src[i] = fill
					}
					src[pos] = pattern
					if fill == pattern {
						src[pos] = 7 // the one value among NaT
					}
					asmCheckCountAndValidity(t, k, src, swap, pattern, bitmapBuf, 0x3c)
					asmCheckMinMax(t, k, src, swap)
				}
			}
		}
	})
}

func asmCheckMinMax(t *testing.T, k simdKernels, src []uint64, swap bool) {
	t.Helper()
	f := k.minMax
	if swap {
		f = k.minMaxSwapped
	}
	n := len(src)
	done, lo, hi := f(src)
	if want := asmWantDone(n, k.lanes); done != want {
		t.Fatalf("minMax(n=%d, swap=%v) processed %d elements, want %d", n, swap, done, want)
	}
	wantLo, wantHi := asmRefMinMax(src[:done], swap)
	if lo != wantLo || hi != wantHi {
		t.Fatalf("minMax(n=%d, swap=%v) = (%d, %d), want (%d, %d)", n, swap, lo, hi, wantLo, wantHi)
	}
}

func TestSIMDMinMax(t *testing.T) {
	forEachSIMD(t, func(t *testing.T, k simdKernels) {
		rng := rand.New(rand.NewPCG(5, 6))
		maxLen := slices.Max(asmTestLengths())
		data := asmTestWords(rng, maxLen+8)
		for _, swap := range []bool{false, true} {
			for _, n := range asmTestLengths() {
				asmCheckMinMax(t, k, asmWindow(data, n%8, n), swap)
			}
		}
	})
}

// TestSIMDMinMaxExtremes places the bounds of the valid range, and the
// values just inside them, at every lane among NaT and among ordinary
// values: the AVX2 kernel shifts values down by one, so MinInt64+1 and an
// all-NaT input are its edge cases.
func TestSIMDMinMaxExtremes(t *testing.T) {
	forEachSIMD(t, func(t *testing.T, k simdKernels) {
		const n = 64
		extremes := []int64{math.MinInt64 + 1, math.MinInt64 + 2, math.MaxInt64, math.MaxInt64 - 1, -1, 0}
		for _, swap := range []bool{false, true} {
			word := func(v int64) uint64 {
				if swap {
					return bits.ReverseBytes64(uint64(v))
				}
				return uint64(v)
			}
			for _, background := range []int64{math.MinInt64, 0, math.MinInt64 + 1, math.MaxInt64} {
				src := make([]uint64, n)
				for i := range src {
					src[i] = word(background)
				}
				asmCheckMinMax(t, k, src, swap) // uniform, including all NaT
				for pos := range n {
					for _, v := range extremes {
						src[pos] = word(v)
						asmCheckMinMax(t, k, src, swap)
					}
					src[pos] = word(background)
				}
			}
		}
	})
}

// TestSIMDHooks checks the dispatch: with each implementation selected the
// hooks give the reference answer over their processed prefix, and with
// generic selected they process nothing.
func TestSIMDHooks(t *testing.T) {
	defer impl.Reset("kernels")
	rng := rand.New(rand.NewPCG(7, 8))
	src := asmTestWords(rng, 1000)
	for _, name := range impl.Names("kernels") {
		if !impl.Select("kernels", name) {
			t.Fatalf("impl.Select(kernels, %s) failed", name)
		}
		for _, swap := range []bool{false, true} {
			dst := make([]uint64, len(src))
			n := byteSwapSIMD(dst, src)
			if (name == "generic") != (n == 0) || n > len(src) {
				t.Errorf("%s: byteSwapSIMD processed %d of %d", name, n, len(src))
			}
			for i := range n {
				if dst[i] != bits.ReverseBytes64(src[i]) {
					t.Fatalf("%s: byteSwapSIMD element %d wrong", name, i)
				}
			}
			n = byteSwapStreamSIMD(dst, src)
			if (name == "generic") != (n == 0) || n > len(src) {
				t.Errorf("%s: byteSwapStreamSIMD processed %d of %d", name, n, len(src))
			}
			n, nat := countNaTSIMD(src, swap)
			if (name == "generic") != (n == 0) || nat != asmRefCountNaT(src[:n], swap) {
				t.Errorf("%s: countNaTSIMD(swap=%v) = %d, %d", name, swap, n, nat)
			}
			bitmap := make([]byte, len(src)/8)
			n, nat = validitySIMD(bitmap, src, swap)
			if (name == "generic") != (n == 0) || nat != asmRefCountNaT(src[:n], swap) ||
				!slices.Equal(bitmap[:n/8], asmRefValidity(src[:n], swap)) {
				t.Errorf("%s: validitySIMD(swap=%v) = %d, %d or bitmap wrong", name, swap, n, nat)
			}
			n, lo, hi := minMaxSIMD(src, swap)
			wantLo, wantHi := asmRefMinMax(src[:n], swap)
			if (name == "generic") != (n == 0) || lo != wantLo || hi != wantHi {
				t.Errorf("%s: minMaxSIMD(swap=%v) = %d, %d, %d; want %d, %d", name, swap, n, lo, hi, wantLo, wantHi)
			}
		}
	}
}

// Benchmarks: each hook over a buffer in 64 KiB calls, as the entry points
// make them, next to copy() of the same bytes. Compare the ratio, not the
// absolute figure (the machine is shared).

var hookBenchSizes = []struct {
	name  string
	bytes int
}{{"64KiB", 64 << 10}, {"8MiB", 8 << 20}, {"256MiB", 256 << 20}}

// hookBenchBuffers returns src and dst of size bytes from one allocation, dst
// starting a page and a bit after src ends: buffers exactly a power of two
// apart alias in the cache and slow streaming loops down.
// The buffers are made on first use and kept, so a -bench filter that
// skips a size does not pay for it.
func hookBenchBuffers(size int) (src, dst []uint64) {
	if b, ok := hookBenchCache[size]; ok {
		return b[0], b[1]
	}
	words := size / 8
	const pad = 512 + 24 // 4 KiB + 192 bytes
	buf := make([]uint64, 2*words+pad)
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range buf {
		buf[i] = rng.Uint64() >> 1
		if i%16 == 3 {
			buf[i] = asmNaT
		}
	}
	src, dst = buf[:words:words], buf[words+pad:2*words+pad]
	hookBenchCache[size] = [2][]uint64{src, dst}
	return src, dst
}

var hookBenchCache = map[int][2][]uint64{}

func forEachHookBench(b *testing.B, prefix string, f func(b *testing.B, src, dst []uint64)) {
	for _, size := range hookBenchSizes {
		for _, name := range impl.Names("kernels")[1:] {
			b.Run(fmt.Sprintf("%simpl=%s/size=%s", prefix, name, size.name), func(b *testing.B) {
				src, dst := hookBenchBuffers(size.bytes)
				impl.Select("kernels", name)
				defer impl.Reset("kernels")
				b.SetBytes(int64(size.bytes))
				f(b, src, dst)
			})
		}
	}
}

func BenchmarkHookCopy(b *testing.B) {
	for _, size := range hookBenchSizes {
		b.Run("size="+size.name, func(b *testing.B) {
			src, dst := hookBenchBuffers(size.bytes)
			b.SetBytes(int64(size.bytes))
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}

func benchHookByteSwap(b *testing.B, src, dst []uint64, hook func(dst, src []uint64) int) {
	for b.Loop() {
		for i := 0; i < len(src); i += blockWords {
			k := min(blockWords, len(src)-i)
			if n := hook(dst[i:i+k], src[i:i+k]); n != k {
				b.Fatalf("hook processed %d of %d", n, k)
			}
		}
	}
}

func BenchmarkHookByteSwap(b *testing.B) {
	forEachHookBench(b, "", func(b *testing.B, src, dst []uint64) { benchHookByteSwap(b, src, dst, byteSwapSIMD) })
}

func BenchmarkHookByteSwapStream(b *testing.B) {
	forEachHookBench(b, "", func(b *testing.B, src, dst []uint64) { benchHookByteSwap(b, src, dst, byteSwapStreamSIMD) })
}

func BenchmarkHookByteSwapInPlace(b *testing.B) {
	forEachHookBench(b, "", func(b *testing.B, src, _ []uint64) { benchHookByteSwap(b, src, src, byteSwapSIMD) })
}

func BenchmarkHookCountNaT(b *testing.B) {
	forEachHookBench(b, "", func(b *testing.B, src, _ []uint64) {
		for b.Loop() {
			for i := 0; i < len(src); i += blockWords {
				countNaTSIMD(src[i:min(i+blockWords, len(src))], true)
			}
		}
	})
}

func BenchmarkHookValidity(b *testing.B) {
	forEachHookBench(b, "", func(b *testing.B, src, _ []uint64) {
		bitmap := make([]byte, len(src)/8)
		for b.Loop() {
			for i := 0; i < len(src); i += blockWords {
				validitySIMD(bitmap[i/8:], src[i:min(i+blockWords, len(src))], false)
			}
		}
	})
}

func BenchmarkHookMinMax(b *testing.B) {
	forEachHookBench(b, "", func(b *testing.B, src, _ []uint64) {
		for b.Loop() {
			for i := 0; i < len(src); i += blockWords {
				minMaxSIMD(src[i:min(i+blockWords, len(src))], false)
			}
		}
	})
}

// BenchmarkHookVsCopy reports each hook's time as a multiple of copy() of
// the same buffers (metric x-copy, the median over b.N rounds). Each round
// times copy() and then the hook back to back, twice each after a warm-up
// pass, so both see the same machine: on a shared host the separate
// benchmarks above drift by 2-3x between runs, the paired ratio far less.
func BenchmarkHookVsCopy(b *testing.B) {
	ops := []struct {
		name string
		run  func(dst, src []uint64, bitmap []byte)
	}{
		{"ByteSwap", func(dst, src []uint64, _ []byte) {
			hookBlocks(src, func(i, j int) { byteSwapSIMD(dst[i:j], src[i:j]) })
		}},
		{"ByteSwapStream", func(dst, src []uint64, _ []byte) {
			hookBlocks(src, func(i, j int) { byteSwapStreamSIMD(dst[i:j], src[i:j]) })
		}},
		{"ByteSwapInPlace", func(_, src []uint64, _ []byte) { hookBlocks(src, func(i, j int) { byteSwapSIMD(src[i:j], src[i:j]) }) }},
		{"Validity", func(_, src []uint64, bitmap []byte) {
			hookBlocks(src, func(i, j int) { validitySIMD(bitmap[i/8:], src[i:j], false) })
		}},
		{"MinMax", func(_, src []uint64, _ []byte) { hookBlocks(src, func(i, j int) { minMaxSIMD(src[i:j], false) }) }},
	}
	for _, op := range ops {
		forEachHookBench(b, "op="+op.name+"/", func(b *testing.B, src, dst []uint64) {
			b.SetBytes(0) // a round is six passes of two kinds: only x-copy means anything
			bitmap := make([]byte, len(src)/8)
			var ratios []float64
			timed := func(f func()) time.Duration {
				f() // warm-up: same cache and TLB state as a steady loop
				start := time.Now()
				f()
				f()
				return time.Since(start)
			}
			for b.Loop() {
				c := timed(func() { copy(dst, src) })
				k := timed(func() { op.run(dst, src, bitmap) })
				ratios = append(ratios, float64(k)/float64(c))
			}
			slices.Sort(ratios)
			b.ReportMetric(ratios[len(ratios)/2], "x-copy")
		})
	}
}

// hookBlocks calls f on each 64 KiB block of src, as the entry points do.
func hookBlocks(src []uint64, f func(i, j int)) {
	for i := 0; i < len(src); i += blockWords {
		f(i, min(i+blockWords, len(src)))
	}
}
