//go:build !purego

package kernels

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/zarr-dt64/dt64/internal/impl"
)

// Differential tests of the NEON assembly against references written here,
// independent of generic.go, so that a shared misreading of the contract
// cannot hide. hooks_test.go additionally runs every implementation through
// the exported entry points.

// neonAtStartup is the dispatch decision before any test calls impl.Select.
var neonAtStartup = useNEON

// TestNEONRequired fails when DT64_REQUIRE lists neon but dispatch did not
// pick it: a dispatch bug would otherwise leave every test green on the
// generic path.
func TestNEONRequired(t *testing.T) {
	req := os.Getenv("DT64_REQUIRE")
	if !impl.Disabled(req, "neon") { // same comma-list syntax as DT64_DISABLE
		t.Skip("DT64_REQUIRE does not list neon")
	}
	if !neonAtStartup {
		t.Fatalf("DT64_REQUIRE=%q but NEON was not selected at start-up (DT64_DISABLE=%q)", req, os.Getenv("DT64_DISABLE"))
	}
}

func TestNEONRegistered(t *testing.T) {
	found := false
	for _, r := range impl.List("kernels") {
		if r.Name == "neon" {
			found = true
			if !r.Available {
				t.Error("neon registered as unavailable; it is the arm64 baseline")
			}
		}
	}
	if !found {
		t.Fatal("neon not registered in impl")
	}
}

const natNative = uint64(1) << 63

func natRaw(swap bool) uint64 {
	if swap {
		return bits.ReverseBytes64(natNative)
	}
	return natNative
}

func valueOf(w uint64, swap bool) int64 {
	if swap {
		w = bits.ReverseBytes64(w)
	}
	return int64(w)
}

// rawOf stores v as it would sit in memory.
func rawOf(v int64, swap bool) uint64 {
	if swap {
		return bits.ReverseBytes64(uint64(v))
	}
	return uint64(v)
}

// testWords returns n raw words: random values, NaT about one in six, and
// the extremes next to NaT (MinInt64+1, MaxInt64, -1, 0, 0x80 which is NaT
// swapped).
func testWords(r *rand.Rand, n int, swap bool) []uint64 {
	special := []int64{math.MinInt64 + 1, math.MaxInt64, -1, 0, 1, 0x80, math.MinInt64 + 0x80}
	w := make([]uint64, n)
	for i := range w {
		switch r.IntN(6) {
		case 0:
			w[i] = natRaw(swap)
		case 1:
			w[i] = rawOf(special[r.IntN(len(special))], swap)
		default:
			w[i] = r.Uint64()
		}
	}
	return w
}

// testLengths: every length to 4096, then some beyond a hook block.
func testLengths() []int {
	var ls []int
	for n := 0; n <= 4096; n++ {
		ls = append(ls, n)
	}
	return append(ls, 8191, 8192, 8193, 65536+15, 1<<20+7)
}

func refCountNaT(src []uint64, swap bool) int {
	nat := 0
	for _, w := range src {
		if valueOf(w, swap) == math.MinInt64 {
			nat++
		}
	}
	return nat
}

func refMinMax(src []uint64, swap bool) (lo, hi int64) {
	lo, hi = math.MaxInt64, math.MinInt64
	for _, w := range src {
		v := valueOf(w, swap)
		if v == math.MinInt64 {
			continue
		}
		if v < lo {
			lo = v
		}
		if v > hi {
			hi = v
		}
	}
	return lo, hi
}

func refValidity(src []uint64, swap bool) []byte {
	bm := make([]byte, (len(src)+7)/8)
	for i, w := range src {
		if valueOf(w, swap) != math.MinInt64 {
			bm[i/8] |= 1 << (i % 8)
		}
	}
	return bm
}

// wantN is what a kernel with the given block must report for length n.
func wantN(n, block int) int { return n &^ (block - 1) }

func TestByteSwapNEON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range testLengths() {
		src := testWords(r, n, false)
		orig := append([]uint64(nil), src...)
		const guard = 3
		dst := make([]uint64, n+guard)
		for i := range dst {
			dst[i] = 0xdeadbeefcafef00d
		}
		got := byteSwapNEON(dst[:n], src)
		if want := wantN(n, 8); got != want {
			t.Fatalf("n=%d: processed %d, want %d", n, got, want)
		}
		for i := 0; i < got; i++ {
			if dst[i] != bits.ReverseBytes64(orig[i]) {
				t.Fatalf("n=%d: dst[%d] = %#x, want %#x", n, i, dst[i], bits.ReverseBytes64(orig[i]))
			}
		}
		for i := got; i < len(dst); i++ {
			if dst[i] != 0xdeadbeefcafef00d {
				t.Fatalf("n=%d: dst[%d] written beyond the %d processed", n, i, got)
			}
		}
		for i, w := range src {
			if w != orig[i] {
				t.Fatalf("n=%d: src[%d] modified", n, i)
			}
		}
		// In place, as the decompression-buffer path uses it.
		got = byteSwapNEON(src, src)
		for i := range src {
			want := orig[i]
			if i < got {
				want = bits.ReverseBytes64(orig[i])
			}
			if src[i] != want {
				t.Fatalf("n=%d in place: src[%d] = %#x, want %#x", n, i, src[i], want)
			}
		}
	}
}

func TestCountNaTNEON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, swap := range []bool{false, true} {
		for _, n := range testLengths() {
			src := testWords(r, n, swap)
			got, nat := countNaTNEON(src, swap)
			if want := wantN(n, 8); got != want {
				t.Fatalf("swap=%v n=%d: processed %d, want %d", swap, n, got, want)
			}
			if want := refCountNaT(src[:got], swap); nat != want {
				t.Fatalf("swap=%v n=%d: %d NaT, want %d", swap, n, nat, want)
			}
		}
	}
}

func TestValidityNEON(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, swap := range []bool{false, true} {
		for _, n := range testLengths() {
			src := testWords(r, n, swap)
			checkValidity(t, src, swap)
		}
	}
}

func checkValidity(t *testing.T, src []uint64, swap bool) {
	t.Helper()
	n := len(src)
	const guard = 3
	// Pre-filled with garbage: the kernel must store whole bytes, not OR.
	bm := make([]byte, n/8+guard)
	for i := range bm {
		bm[i] = 0x5a
	}
	got, nat := validityNEON(bm, src, swap)
	if want := wantN(n, 16); got != want {
		t.Fatalf("swap=%v n=%d: processed %d, want %d", swap, n, got, want)
	}
	want := refValidity(src[:got], swap)
	for i := range want {
		if bm[i] != want[i] {
			t.Fatalf("swap=%v n=%d: bitmap[%d] = %08b, want %08b", swap, n, i, bm[i], want[i])
		}
	}
	for i := got / 8; i < len(bm); i++ {
		if bm[i] != 0x5a {
			t.Fatalf("swap=%v n=%d: bitmap[%d] written beyond the %d elements processed", swap, n, i, got)
		}
	}
	if wantNaT := refCountNaT(src[:got], swap); nat != wantNaT {
		t.Fatalf("swap=%v n=%d: %d NaT, want %d", swap, n, nat, wantNaT)
	}
}

func TestMinMaxNEON(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, swap := range []bool{false, true} {
		for _, n := range testLengths() {
			src := testWords(r, n, swap)
			checkMinMax(t, src, swap)
		}
	}
}

func checkMinMax(t *testing.T, src []uint64, swap bool) {
	t.Helper()
	got, lo, hi := minMaxNEON(src, swap)
	if want := wantN(len(src), 8); got != want {
		t.Fatalf("swap=%v n=%d: processed %d, want %d", swap, len(src), got, want)
	}
	wlo, whi := refMinMax(src[:got], swap)
	if lo != wlo || hi != whi {
		t.Fatalf("swap=%v n=%d: min, max = %d, %d; want %d, %d", swap, len(src), lo, hi, wlo, whi)
	}
}

// TestNEONLanes puts NaT, and separately each extreme, at every lane
// position of every register of a block, for both byte orders and for
// source addresses that are and are not 16-byte aligned.
func TestNEONLanes(t *testing.T) {
	const n = 64
	for _, swap := range []bool{false, true} {
		for off := 0; off < 2; off++ {
			for p := 0; p < n; p++ {
				buf := make([]uint64, n+off)
				src := buf[off:]
				for i := range src {
					src[i] = rawOf(int64(i*1000-20000), swap)
				}
				src[p] = natRaw(swap)
				checkLaneKernels(t, src, swap)

				all := make([]uint64, n)
				for i := range all {
					all[i] = natRaw(swap)
				}
				all[p] = rawOf(7, swap)
				checkLaneKernels(t, all, swap) // one valid value among NaT

				for _, ext := range []int64{math.MinInt64 + 1, math.MaxInt64} {
					for i := range src {
						src[i] = rawOf(int64(i)-5, swap)
					}
					src[p] = rawOf(ext, swap)
					checkLaneKernels(t, src, swap)
					src[(p+1)%n] = natRaw(swap)
					checkLaneKernels(t, src, swap)
				}
			}
		}
		// Nothing valid at all, and nothing at all.
		all := make([]uint64, n)
		for i := range all {
			all[i] = natRaw(swap)
		}
		checkLaneKernels(t, all, swap)
		checkLaneKernels(t, nil, swap)
	}
}

func checkLaneKernels(t *testing.T, src []uint64, swap bool) {
	t.Helper()
	checkValidity(t, src, swap)
	checkMinMax(t, src, swap)
	got, nat := countNaTNEON(src, swap)
	if want := refCountNaT(src[:got], swap); nat != want {
		t.Fatalf("swap=%v: countNaT %d, want %d", swap, nat, want)
	}
}

// TestNEONHooksClamp: the hooks may be given a destination shorter than the
// source; the assembly must then stop at the destination's end.
func TestNEONHooksClamp(t *testing.T) {
	if !useNEON {
		t.Skip("NEON disabled")
	}
	src := make([]uint64, 100)
	for i := range src {
		src[i] = uint64(i)
	}
	dst := make([]uint64, 41)
	big := make([]uint64, 60)
	copy(big, dst)
	if n := byteSwapSIMD(big[:41], src); n != 40 {
		t.Errorf("byteSwapSIMD with len(dst)=41: processed %d, want 40", n)
	}
	if big[41] != 0 || big[48] != 0 {
		t.Error("byteSwapSIMD wrote beyond len(dst)")
	}
	bm := make([]byte, 8)
	if n, _ := validitySIMD(bm[:3], src, false); n != 16 {
		t.Errorf("validitySIMD with a 3-byte bitmap: processed %d, want 16", n)
	}
	if bm[2] != 0 || bm[3] != 0 {
		t.Error("validitySIMD wrote beyond the elements it reports")
	}
}

// TestNEONHooksOff: with NEON switched off every hook reports no progress,
// which is what lets impl.Select("generic") test the generic path on arm64.
func TestNEONHooksOff(t *testing.T) {
	if !impl.Select("kernels", "generic") {
		t.Fatal("cannot select generic")
	}
	defer impl.Reset("kernels")
	src := make([]uint64, 64)
	if n := byteSwapSIMD(src, src); n != 0 {
		t.Errorf("byteSwapSIMD: %d", n)
	}
	if n, _ := countNaTSIMD(src, false); n != 0 {
		t.Errorf("countNaTSIMD: %d", n)
	}
	if n, _ := validitySIMD(make([]byte, 8), src, false); n != 0 {
		t.Errorf("validitySIMD: %d", n)
	}
	if n, lo, hi := minMaxSIMD(src, false); n != 0 || lo != math.MaxInt64 || hi != math.MinInt64 {
		t.Errorf("minMaxSIMD: %d, %d, %d", n, lo, hi)
	}
	if !impl.Select("kernels", "neon") {
		t.Fatal("cannot select neon")
	}
	if n := byteSwapSIMD(src, src); n != 64 {
		t.Errorf("byteSwapSIMD with neon selected: %d", n)
	}
}
