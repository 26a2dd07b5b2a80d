package kernels

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/internal/impl"
)

// shuffleNaive is the definition, byte by byte, that the generic code is
// checked against (the generic code is then the oracle for the SIMD code).
func shuffleNaive(dst, src []byte) {
	n := len(src) / 8
	for i := range n {
		for j := range 8 {
			dst[j*n+i] = src[8*i+j]
		}
	}
	copy(dst[8*n:], src[8*n:])
}

func unshuffleNaive(dst, src []byte) {
	n := len(src) / 8
	for i := range n {
		for j := range 8 {
			dst[8*i+j] = src[j*n+i]
		}
	}
	copy(dst[8*n:], src[8*n:])
}

// shuffleLengths are byte lengths: every one up to 4096 (all tails and
// every SIMD block remainder), then some around the 64 KiB hook block.
func shuffleLengths() []int {
	var ls []int
	for n := 0; n <= 4096; n++ {
		ls = append(ls, n)
	}
	return append(ls, 8*8192-1, 8*8192, 8*8192+8, 8*8192+77, 3*8*8192+8*63+5, 1<<20+13)
}

// checkShuffle runs Shuffle8 and Unshuffle8 with src at byte offset so
// and dst at offset do against the naive definition, and the round trip.
func checkShuffle(t *testing.T, data []byte, so, do int) {
	t.Helper()
	n := len(data)
	src := make([]byte, n+8)[so : so+n]
	copy(src, data)
	want := make([]byte, n)
	shuffleNaive(want, src)
	dst := bytes.Repeat([]byte{0xEE}, n+16)[do : do+n+8]
	if err := Shuffle8(dst[:n], src); err != nil {
		t.Fatalf("Shuffle8(len %d, offsets %d/%d): %v", n, so, do, err)
	}
	if !bytes.Equal(dst[:n], want) {
		t.Fatalf("Shuffle8(len %d, offsets %d/%d) differs from the definition at byte %d", n, so, do, firstDiff(dst[:n], want))
	}
	if !bytes.Equal(dst[n:], bytes.Repeat([]byte{0xEE}, 8)) {
		t.Fatalf("Shuffle8(len %d, offsets %d/%d) wrote past dst", n, so, do)
	}
	back := bytes.Repeat([]byte{0xEE}, n+16)[so : so+n+8]
	if err := Unshuffle8(back[:n], dst[:n]); err != nil {
		t.Fatalf("Unshuffle8(len %d): %v", n, err)
	}
	if !bytes.Equal(back[:n], data) {
		t.Fatalf("Unshuffle8(Shuffle8(x)) != x (len %d, offsets %d/%d) at byte %d", n, so, do, firstDiff(back[:n], data))
	}
	if !bytes.Equal(back[n:], bytes.Repeat([]byte{0xEE}, 8)) {
		t.Fatalf("Unshuffle8(len %d, offsets %d/%d) wrote past dst", n, so, do)
	}
	// Unshuffle of arbitrary data, not only of a shuffle's output.
	unshuffleNaive(want, src)
	if err := Unshuffle8(dst[:n], src); err != nil || !bytes.Equal(dst[:n], want) {
		t.Fatalf("Unshuffle8(len %d, offsets %d/%d) differs from the definition (err %v)", n, so, do, err)
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestShuffle8(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		for _, n := range shuffleLengths() {
			data := randomBytes(r, n)
			if n <= 300 || n%64 == 0 || n > 4096 {
				for so := range 8 {
					checkShuffle(t, data, so, (so*5+3)%8)
				}
			}
			checkShuffle(t, data, r.IntN(8), r.IntN(8))
		}
	})
}

// TestShuffle8AllOffsets crosses every source offset with every
// destination offset for lengths around the vector block sizes.
func TestShuffle8AllOffsets(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(7, 8))
		for _, n := range []int{8 * 31, 8 * 32, 8*33 + 3, 8 * 64, 8*65 + 7, 8*127 + 1, 8 * 200} {
			data := randomBytes(r, n)
			for so := range 8 {
				for do := range 8 {
					checkShuffle(t, data, so, do)
				}
			}
		}
	})
}

// TestShuffle8Timestamps uses what the shuffle is for: int64 timestamps.
func TestShuffle8Timestamps(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{8 * 1000, 8*8192 + 24, 8 * 50000} {
			data := make([]byte, n)
			fillTimestamps(data, dtype.Nanosecond, binary.LittleEndian)
			checkShuffle(t, data, 0, 0)
		}
	})
}

// TestShuffle8Hooks calls the hooks the way the entry points do (a block in
// the middle of a larger array, so stride > block) and checks that they
// report a plausible count and write nothing outside the block's bytes of
// each plane.
func TestShuffle8Hooks(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(9, 10))
		// A SIMD implementation that is selected must do the bulk.
		simd := impl.Active("kernels") != "generic"
		for _, m := range []int{0, 1, 15, 16, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000, 8192} {
			const stride, first = 9000, 77
			src := randomBytes(r, 8*m)
			planes := bytes.Repeat([]byte{0xEE}, 8*stride)
			n := shuffle8SIMD(planes[first:], src, stride)
			if n < 0 || n > m || simd && m >= 64 && n == 0 {
				t.Fatalf("shuffle8SIMD(m=%d) with %s returned %d", m, impl.Active("kernels"), n)
			}
			shuffle8Generic(planes[first+n:], src[8*n:], stride)
			for j := range 8 {
				for i := range stride {
					want := byte(0xEE)
					if i >= first && i < first+m {
						want = src[8*(i-first)+j]
					}
					if got := planes[j*stride+i]; got != want {
						t.Fatalf("shuffle8SIMD(m=%d, n=%d): plane %d byte %d is %#x, want %#x", m, n, j, i, got, want)
					}
				}
			}
			out := bytes.Repeat([]byte{0xEE}, 8*m+64)
			n = unshuffle8SIMD(out[:8*m], planes[first:], stride)
			if n < 0 || n > m || simd && m >= 64 && n == 0 {
				t.Fatalf("unshuffle8SIMD(m=%d) with %s returned %d", m, impl.Active("kernels"), n)
			}
			unshuffle8Generic(out[8*n:8*m], planes[first+n:], stride)
			if !bytes.Equal(out[:8*m], src) || !bytes.Equal(out[8*m:], bytes.Repeat([]byte{0xEE}, 64)) {
				t.Fatalf("unshuffle8SIMD(m=%d, n=%d) differs from the source or wrote past dst", m, n)
			}
		}
	})
}

func TestShuffle8Errors(t *testing.T) {
	buf := make([]byte, 64)
	for _, f := range []struct {
		name string
		run  func(dst, src []byte) error
	}{{"Shuffle8", Shuffle8}, {"Unshuffle8", Unshuffle8}} {
		if err := f.run(buf[:16], buf[32:40]); !errors.Is(err, ErrLength) {
			t.Errorf("%s with lengths 16 and 8: %v, want ErrLength", f.name, err)
		}
		if err := f.run(buf[:32], buf[:32]); !errors.Is(err, ErrOverlap) {
			t.Errorf("%s in place: %v, want ErrOverlap", f.name, err)
		}
		if err := f.run(buf[:32], buf[8:40]); !errors.Is(err, ErrOverlap) {
			t.Errorf("%s on overlapping buffers: %v, want ErrOverlap", f.name, err)
		}
		if err := f.run(buf[:32], buf[32:]); err != nil {
			t.Errorf("%s on adjacent buffers: %v", f.name, err)
		}
		if err := f.run(nil, nil); err != nil {
			t.Errorf("%s of nothing: %v", f.name, err)
		}
	}
}

func BenchmarkShuffle8(b *testing.B) {
	benchShuffle(b, Shuffle8)
}

func BenchmarkUnshuffle8(b *testing.B) {
	benchShuffle(b, Unshuffle8)
}

func benchShuffle(b *testing.B, run func(dst, src []byte) error) {
	forEachBenchImpl(b, func(b *testing.B) {
		for _, size := range benchSizes {
			b.Run(sizeName(size), func(b *testing.B) {
				dst, src := benchBufs(size)
				fillTimestamps(src, dtype.Nanosecond, binary.LittleEndian)
				b.SetBytes(int64(size))
				for b.Loop() {
					if err := run(dst, src); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}
