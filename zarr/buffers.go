package zarr

import (
	"sync"
	"unsafe"
)

// Buffers for encoding and decoding come from a pool so that a worker
// reading chunk after chunk reuses the same memory: after warm-up, reading
// or writing a chunk allocates nothing proportional to its size.
var bufferPool = sync.Pool{New: func() any { return new([]byte) }}

// scratch collects the pooled buffers one chunk operation uses, and returns
// them all at once.
type scratch struct{ bufs []*[]byte }

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

// get returns a buffer of length n (contents undefined), valid until release.
func (s *scratch) get(n int) []byte {
	p := bufferPool.Get().(*[]byte)
	if cap(*p) < n {
		*p = make([]byte, n)
	}
	s.bufs = append(s.bufs, p)
	return (*p)[:n]
}

// getSpare returns a pooled buffer of length 0 and whatever capacity it
// has, valid until release, for a callee that grows it by append or
// allocates when it is too small (record the result with keep).
func (s *scratch) getSpare() []byte {
	p := bufferPool.Get().(*[]byte)
	s.bufs = append(s.bufs, p)
	return (*p)[:0]
}

// keep records grown, a slice appended to from orig (a buffer returned by
// get), when appending moved it to a new array, so that array goes back to
// the pool too. A slice that did not move is already recorded.
func (s *scratch) keep(orig, grown []byte) {
	if cap(grown) == 0 || unsafe.SliceData(orig) == unsafe.SliceData(grown) {
		return
	}
	p := new([]byte)
	*p = grown
	s.bufs = append(s.bufs, p)
}

func (s *scratch) release() {
	for i, p := range s.bufs {
		// Very large buffers are dropped rather than pinned in the pool.
		if cap(*p) <= 256<<20 {
			bufferPool.Put(p)
		}
		s.bufs[i] = nil
	}
	s.bufs = s.bufs[:0]
	scratchPool.Put(s)
}
