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
// get or getSpare), when appending moved it to a new array: the new array
// takes orig's place, so that it goes back to the pool instead of orig's,
// which was too small. (Putting both back, the pool's per-P slot kept the
// one put first, orig's: every read of a chunk larger than the last
// allocated again, 30 000 page faults for `dt64 validate` of the demo's
// 32 chunks; docs/engines.md.)
func (s *scratch) keep(orig, grown []byte) {
	if cap(grown) == 0 || unsafe.SliceData(orig) == unsafe.SliceData(grown) {
		return
	}
	for i := len(s.bufs) - 1; i >= 0; i-- {
		if p := s.bufs[i]; unsafe.SliceData((*p)[:cap(*p)]) == unsafe.SliceData(orig[:cap(orig)]) {
			*p = grown
			return
		}
	}
	p := new([]byte) // orig was not from this scratch
	*p = grown
	s.bufs = append(s.bufs, p)
}

func (s *scratch) release() {
	for i, p := range s.bufs {
		putBuffer(p)
		s.bufs[i] = nil
	}
	s.bufs = s.bufs[:0]
	scratchPool.Put(s)
}

// putBuffer returns a buffer to the pool; very large ones are dropped
// rather than pinned in it.
func putBuffer(p *[]byte) {
	if cap(*p) <= 256<<20 {
		bufferPool.Put(p)
	}
}
