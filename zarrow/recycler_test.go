package zarrow

import (
	"bytes"
	"fmt"
	"sync"
	"testing"
	"unsafe"
)

func TestRecycler(t *testing.T) {
	const k = 1 << 10
	r := NewRecycler(1 << 20)
	fill := func(b []byte) {
		for i := range b[:cap(b)] {
			b[:cap(b)][i] = byte(i) | 1
		}
	}
	zero := func(what string, b []byte) {
		t.Helper()
		if i := bytes.IndexFunc(b[:cap(b)], func(r rune) bool { return r != 0 }); i >= 0 {
			t.Errorf("%s: byte %d of %d is not zero", what, i, cap(b))
		}
	}
	same := func(a, b []byte) bool { return unsafe.SliceData(a) == unsafe.SliceData(b) }

	a := r.Allocate(100 * k)
	if len(a) != 100*k {
		t.Fatalf("Allocate(100 KiB) gave %d bytes", len(a))
	}
	zero("fresh", a)
	fill(a)
	r.Free(a)
	if r.Held() != 100*k {
		t.Errorf("held %d after freeing 100 KiB", r.Held())
	}
	// A smaller request takes the kept buffer, zeroed over its whole
	// capacity; a request more than twice as small does not.
	if b := r.Allocate(40 * k); same(a, b) {
		t.Error("a 40 KiB request took the 100 KiB buffer")
	}
	b := r.Allocate(90 * k)
	if !same(a, b) || len(b) != 90*k {
		t.Fatalf("a 90 KiB request did not take the kept 100 KiB buffer (len %d)", len(b))
	}
	zero("reused", b)
	if r.Held() != 0 {
		t.Errorf("held %d with nothing kept", r.Held())
	}
	// The smallest fitting buffer is chosen.
	big, mid := r.Allocate(200*k), r.Allocate(120*k)
	r.Free(big)
	r.Free(mid)
	if c := r.Allocate(110 * k); !same(c, mid) {
		t.Error("a 110 KiB request did not take the 120 KiB buffer, the smallest that fits")
	}
	// Reallocate keeps the contents and frees the old buffer.
	g := r.Allocate(64 * k)
	fill(g)
	want := append([]byte(nil), g...)
	g2 := r.Reallocate(300*k, g)
	if !bytes.Equal(g2[:64*k], want) || len(g2) != 300*k {
		t.Error("Reallocate lost the contents")
	}
	if r.Reallocate(10*k, g2)[0] != want[0] {
		t.Error("Reallocate within the capacity moved the buffer")
	}
	// Small buffers are left to Go; the limit holds.
	r.SetLimit(0)
	if r.Held() != 0 {
		t.Errorf("held %d after SetLimit(0)", r.Held())
	}
	r.Free(make([]byte, 1*k))
	r.SetLimit(250 * k)
	r.Free(make([]byte, 100*k))
	r.Free(make([]byte, 100*k))
	r.Free(make([]byte, 100*k))
	if r.Held() != 200*k {
		t.Errorf("held %d with a limit of 250 KiB after three 100 KiB frees, want 200 KiB", r.Held())
	}
	var z Recycler // keeps nothing
	z.Free(make([]byte, 100*k))
	if z.Held() != 0 || len(z.Allocate(100*k)) != 100*k {
		t.Error("the zero Recycler kept a buffer")
	}
}

// Goroutines allocating, writing, checking and freeing through one
// Recycler never see each other's bytes (run with -race too).
func TestRecyclerConcurrent(t *testing.T) {
	r := NewRecycler(8 << 20)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 200 {
				n := (64 + (g*7+i)%5*16) << 10
				b := r.Allocate(n)
				for j := range b {
					if b[j] != 0 {
						t.Errorf("goroutine %d: byte %d of a new buffer is %#x", g, j, b[j])
						return
					}
					b[j] = byte(g + 1)
				}
				for j := range b {
					if b[j] != byte(g+1) {
						t.Errorf("goroutine %d: byte %d changed under it", g, j)
						return
					}
				}
				r.Free(b)
			}
		})
	}
	wg.Wait()
	if r.reused == 0 {
		t.Error("no buffer was reused")
	}
}

// An export whose reader and writer share a Recycler writes the same
// bytes as one through Go's allocator. The Recycler here keeps every
// buffer and fills each freed one with garbage, so that a buffer used
// after its release would change the output.
func TestExportThroughRecycler(t *testing.T) {
	for _, prefetch := range []int{0, 3} {
		for name, tab := range exportTables(t, prefetch) {
			for _, w := range []int{1, 2, 7} {
				for _, o := range []ExportOptions{
					{Format: Parquet, RowGroupRows: 300, Workers: w},
					{Format: IPC, Workers: w},
					{Format: IPC, Compression: "zstd", Workers: w},
				} {
					what := fmt.Sprintf("%s, prefetch %d, %d workers, format %d %q", name, prefetch, w, o.Format, o.Compression)
					want := exportBytes(t, tab, o)
					r := &Recycler{limit: 1 << 30, min: 1, poison: true}
					tab.opts.Allocator, o.Allocator = r, r
					got := exportBytes(t, tab, o)
					tab.opts.Allocator = nil
					if !bytes.Equal(got, want) {
						t.Errorf("%s: %d bytes through the recycler differ from %d", what, len(got), len(want))
					}
					if r.reused == 0 && name != "empty" {
						t.Errorf("%s: the recycler reused no buffer", what)
					}
				}
			}
		}
	}
}
