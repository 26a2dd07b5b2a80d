package zarrow

import (
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Recycler is a memory.Allocator that keeps the large buffers freed to
// it and hands them out again, for readers and writers that allocate
// buffers of the same sizes batch after batch, as an export does. Fresh
// memory is not free: the first write to each 4 KiB page faults it in,
// about 11 µs a page on the VM of docs/performance.md (2.8 ms a MiB,
// more than zstd takes to decode one). Go's allocator reuses memory only
// after a garbage collection has found it dead, and meanwhile the reader
// takes fresh pages for the next batches; with a Recycler a batch's
// buffers go back to the reader as soon as the writer released them
// (`dt64 export` of the demo's 32 Mi timestamps: 28 % fewer faults, 8 %
// less CPU time; docs/engines.md).
//
// Buffers from Allocate are zeroed, as arrow-go's own allocators give
// them. A request is served by the smallest kept buffer of at least its
// size and at most twice it, else by a new one. Buffers under 64 KiB are
// left to Go's allocator. At most the limit's bytes of freed buffers are
// kept; further ones are left to the garbage collector. A buffer in use
// is never kept, so what the readers and writers hold is bounded as
// without a Recycler, and the kept buffers are memory they held before.
//
// A Recycler is safe for concurrent use. Its zero value keeps nothing;
// NewRecycler or SetLimit sets the limit.
type Recycler struct {
	mu    sync.Mutex
	limit int64
	held  int64
	free  [][]byte // by capacity, ascending; each at full length

	min    int   // smallest buffer kept (recyclerMin; tests lower it)
	poison bool  // tests: fill freed buffers, so a use after Free shows
	reused int64 // tests: Allocate calls served by a kept buffer
}

// recyclerMin is the smallest buffer a Recycler keeps: below it Go's
// allocator serves small objects from warm spans anyway.
const recyclerMin = 64 << 10

// NewRecycler returns a Recycler that keeps at most limit bytes of freed
// buffers.
func NewRecycler(limit int64) *Recycler {
	return &Recycler{limit: limit, min: recyclerMin}
}

// SetLimit sets the bytes of freed buffers r keeps from now on; it drops
// kept buffers beyond it.
func (r *Recycler) SetLimit(limit int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.limit = limit
	for r.held > r.limit && len(r.free) > 0 { // the largest go first
		last := r.free[len(r.free)-1]
		r.free, r.held = r.free[:len(r.free)-1], r.held-int64(cap(last))
	}
}

// Held is how many bytes of freed buffers r keeps.
func (r *Recycler) Held() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.held
}

func (r *Recycler) minSize() int {
	if r.min == 0 {
		return recyclerMin
	}
	return r.min
}

// Allocate returns a zeroed buffer of size bytes.
func (r *Recycler) Allocate(size int) []byte {
	if size < r.minSize() {
		return memory.DefaultAllocator.Allocate(size) // 64-byte aligned
	}
	r.mu.Lock()
	i, _ := slices.BinarySearchFunc(r.free, size, func(b []byte, size int) int { return cap(b) - size })
	if i == len(r.free) || cap(r.free[i]) > 2*size {
		r.mu.Unlock()
		return make([]byte, size) // a large object: page-aligned
	}
	b := r.free[i]
	r.free = slices.Delete(r.free, i, i+1)
	r.held -= int64(cap(b))
	r.reused++
	r.mu.Unlock()
	clear(b) // the whole capacity: a Reallocate within it sees zeros too
	return b[:size]
}

// Reallocate returns b resized to size bytes, its contents kept: b
// itself when its capacity holds size, else a new buffer, b freed.
func (r *Recycler) Reallocate(size int, b []byte) []byte {
	if size <= cap(b) {
		return b[:size]
	}
	nb := r.Allocate(size)
	copy(nb, b)
	r.Free(b)
	return nb
}

// Free takes back a buffer from Allocate or Reallocate; it must not be
// used after.
func (r *Recycler) Free(b []byte) {
	if cap(b) < r.minSize() {
		return
	}
	b = b[:cap(b)]
	if r.poison {
		for i := range b {
			b[i] = 0xa5
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.held+int64(cap(b)) > r.limit {
		return
	}
	i, _ := slices.BinarySearchFunc(r.free, cap(b), func(f []byte, c int) int { return cap(f) - c })
	r.free = slices.Insert(r.free, i, b)
	r.held += int64(cap(b))
}
