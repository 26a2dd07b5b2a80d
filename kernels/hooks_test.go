package kernels

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// Differential tests of the platform hooks: every implementation against
// the generic twins, over many lengths, NaT at every lane, both swap values,
// and the []byte entry points at every byte offset.

func hookLengths() []int {
	var ls []int
	for n := 0; n <= 300; n++ {
		ls = append(ls, n)
	}
	for n := 301; n <= 4096; n += 37 {
		ls = append(ls, n)
	}
	return append(ls, 4096, 8191, 8192, 8193, 3*8192+5, 100_003)
}

// hookData returns n random words, some of them NaT in either byte order and
// some next to NaT, so that compares are tested on both sides.
func hookData(r *rand.Rand, n int) []uint64 {
	s := make([]uint64, n)
	special := []uint64{1 << 63, 0x80, 1<<63 + 1, 0x8000000000000080, 0x81, 0, math.MaxUint64, 1<<63 - 1}
	for i := range s {
		if r.IntN(8) == 0 {
			s[i] = special[r.IntN(len(special))]
		} else {
			s[i] = r.Uint64()
		}
	}
	return s
}

func checkHooks(t *testing.T, src []uint64) {
	t.Helper()
	n := len(src)
	// byte swap, out of place and in place
	want := make([]uint64, n)
	byteSwapGeneric(want, src)
	got := make([]uint64, n)
	k := byteSwapSIMD(got, src)
	if k < 0 || k > n {
		t.Fatalf("byteSwapSIMD(n=%d) returned %d", n, k)
	}
	byteSwapGeneric(got[k:], src[k:])
	if !equalWords(got, want) {
		t.Fatalf("byteSwapSIMD n=%d differs from generic", n)
	}
	got = make([]uint64, n)
	k = byteSwapStreamSIMD(got, src)
	if k < 0 || k > n {
		t.Fatalf("byteSwapStreamSIMD(n=%d) returned %d", n, k)
	}
	byteSwapGeneric(got[k:], src[k:])
	if !equalWords(got, want) {
		t.Fatalf("byteSwapStreamSIMD n=%d differs from generic", n)
	}
	inplace := append([]uint64(nil), src...)
	k = byteSwapSIMD(inplace, inplace)
	byteSwapGeneric(inplace[k:], inplace[k:])
	if !equalWords(inplace, want) {
		t.Fatalf("byteSwapSIMD in place n=%d differs from generic", n)
	}
	for _, swap := range []bool{false, true} {
		_, wantNaT := countNaTGeneric(src, swap)
		k, nat := countNaTSIMD(src, swap)
		if k < 0 || k > n {
			t.Fatalf("countNaTSIMD(n=%d) returned %d", n, k)
		}
		_, rest := countNaTGeneric(src[k:], swap)
		if nat+rest != wantNaT {
			t.Fatalf("countNaTSIMD n=%d swap=%v: %d+%d NaT, want %d", n, swap, nat, rest, wantNaT)
		}

		wantBM := make([]byte, (n+7)/8)
		validityGeneric(wantBM, src, swap)
		gotBM := bytes.Repeat([]byte{0xA5}, (n+7)/8)
		k, nat = validitySIMD(gotBM, src, swap)
		if k < 0 || k > n || k%8 != 0 {
			t.Fatalf("validitySIMD(n=%d) returned %d", n, k)
		}
		_, rest = validityGeneric(gotBM[k/8:], src[k:], swap)
		if nat+rest != wantNaT || !bytes.Equal(gotBM, wantBM) {
			t.Fatalf("validitySIMD n=%d swap=%v: bitmap or NaT count (%d+%d, want %d) differs", n, swap, nat, rest, wantNaT)
		}

		_, wlo, whi := minMaxGeneric(src, swap)
		k, lo, hi := minMaxSIMD(src, swap)
		if k < 0 || k > n {
			t.Fatalf("minMaxSIMD(n=%d) returned %d", n, k)
		}
		if k == 0 && (lo != math.MaxInt64 || hi != math.MinInt64) {
			t.Fatalf("minMaxSIMD processing nothing returned %d, %d", lo, hi)
		}
		_, lo2, hi2 := minMaxGeneric(src[k:], swap)
		if min(lo, lo2) != wlo || max(hi, hi2) != whi {
			t.Fatalf("minMaxSIMD n=%d swap=%v: (%d,%d), want (%d,%d)", n, swap, min(lo, lo2), max(hi, hi2), wlo, whi)
		}
	}
}

func equalWords(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestHooksRandom(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for _, n := range hookLengths() {
			checkHooks(t, hookData(r, n))
		}
	})
}

// TestHooksNaTEveryLane puts a single NaT (in either byte order) at every
// position of blocks up to 64 elements, and all-NaT / no-NaT blocks.
func TestHooksNaTEveryLane(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65} {
			for _, nat := range []uint64{1 << 63, 0x80} {
				for pos := 0; pos < n; pos++ {
					src := make([]uint64, n)
					for i := range src {
						src[i] = uint64(i+1) * 0x0101010101010101
					}
					src[pos] = nat
					checkHooks(t, src)
				}
				all := make([]uint64, n)
				for i := range all {
					all[i] = nat
				}
				checkHooks(t, all)
			}
		}
		// Values that are extremes in one byte order and ordinary in the other.
		checkHooks(t, []uint64{1<<63 - 1, 1 << 63, 1<<63 + 1, 0x7f, 0x80, 0x81, 0xff, 0xffffffffffffff7f, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	})
}

// TestByteSwapLarge crosses streamBytes, where an out-of-place ByteSwap
// switches to non-temporal stores, with dst at every 8-byte alignment
// within a cache line (the stream kernel aligns its stores itself).
func TestByteSwapLarge(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{streamBytes/8 - 1, streamBytes/8 + 13} {
			words := hookData(r, n)
			want := make([]uint64, n)
			byteSwapGeneric(want, words)
			src := encode(binary.NativeEndian, int64sOf(words), 0)
			for _, off := range []int{0, 8, 24, 56} {
				dst := make([]byte, len(src)+64)[off:][:len(src)]
				if err := ByteSwap(dst, src); err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if binary.NativeEndian.Uint64(dst[8*i:]) != want[i] {
						t.Fatalf("ByteSwap n=%d dst offset %d: element %d wrong", n, off, i)
					}
				}
			}
			out := make([]int64, n)
			if err := ByteSwapInt64(out, int64sOf(words)); err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if uint64(out[i]) != want[i] {
					t.Fatalf("ByteSwapInt64 n=%d: element %d wrong", n, i)
				}
			}
		}
	})
}

func int64sOf(w []uint64) []int64 {
	s := make([]int64, len(w))
	for i, x := range w {
		s[i] = int64(x)
	}
	return s
}

// TestEntryPointsOffsets checks the []byte entry points at byte offsets 0..7
// against per-element encoding/binary.
func TestEntryPointsOffsets(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 4))
		for _, n := range []int{0, 1, 5, 8, 63, 64, 65, 511, 512, 513, 1000, 8192, 8200, 20000} {
			words := hookData(r, n)
			for off := 0; off < 8; off++ {
				for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
					checkEntryPoints(t, words, off, order)
				}
			}
		}
	})
}

func checkEntryPoints(t *testing.T, words []uint64, off int, order binary.ByteOrder) {
	t.Helper()
	n := len(words)
	vals := make([]int64, n)
	for i, w := range words {
		vals[i] = int64(w)
	}
	src := encode(order, vals, off)
	nat, lo, hi := 0, int64(math.MaxInt64), int64(math.MinInt64)
	for _, v := range vals {
		if v == math.MinInt64 {
			nat++
		} else {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	// ByteSwap out of place (dst at another offset) and in place.
	dst := make([]byte, len(src)+7)[(off+3)%8:][:len(src)]
	if err := ByteSwap(dst, src); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if binary.LittleEndian.Uint64(dst[8*i:]) != bits.ReverseBytes64(binary.LittleEndian.Uint64(src[8*i:])) {
			t.Fatalf("ByteSwap n=%d off=%d: element %d wrong", n, off, i)
		}
	}
	again := append([]byte(nil), dst...)
	if err := ByteSwap(again, again); err != nil || !bytes.Equal(again, src) {
		t.Fatalf("ByteSwap in place n=%d off=%d: %v", n, off, err)
	}
	if c, err := CountNaT(src, order); err != nil || c != nat {
		t.Fatalf("CountNaT n=%d off=%d: %d, %v; want %d", n, off, c, err, nat)
	}
	bm := bytes.Repeat([]byte{0x5A}, (n+7)/8+1)
	c, err := Validity(bm, src, order)
	if err != nil || c != nat {
		t.Fatalf("Validity n=%d off=%d: %d, %v; want %d", n, off, c, err, nat)
	}
	for i, v := range vals {
		if (bm[i/8]>>(i%8)&1 == 1) != (v != math.MinInt64) {
			t.Fatalf("Validity n=%d off=%d: bit %d wrong", n, off, i)
		}
	}
	if n%8 != 0 && bm[n/8]>>(n%8) != 0 {
		t.Fatalf("Validity n=%d: unused bits of the last byte not cleared: %08b", n, bm[n/8])
	}
	if bm[(n+7)/8] != 0x5A {
		t.Fatalf("Validity n=%d wrote past the bitmap", n)
	}
	l, h, valid, err := MinMax(src, order)
	if err != nil || valid != n-nat || (valid > 0 && (l != lo || h != hi)) {
		t.Fatalf("MinMax n=%d off=%d: %d %d %d %v; want %d %d %d", n, off, l, h, valid, err, lo, hi, n-nat)
	}
	// ApplyValidity round trip: clear a pattern of bits, apply, re-derive.
	mask := append([]byte(nil), bm...)
	for i := range mask {
		mask[i] &= 0xB7
	}
	work := append([]byte(nil), src...)
	set, err := ApplyValidity(work, mask, order)
	if err != nil {
		t.Fatal(err)
	}
	wantSet := 0
	for i := range vals {
		if mask[i/8]>>(i%8)&1 == 0 {
			wantSet++
		}
	}
	if set != wantSet {
		t.Fatalf("ApplyValidity set %d, want %d", set, wantSet)
	}
	bm2 := make([]byte, len(bm))
	if _, err := Validity(bm2, work, order); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if bm2[i/8]>>(i%8)&1 != mask[i/8]>>(i%8)&1 {
			t.Fatalf("ApplyValidity round trip n=%d off=%d: bit %d differs", n, off, i)
		}
	}
}
