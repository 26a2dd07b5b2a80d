package kernels

import "unsafe"

// The primitives (byteswap.go, validity.go, minmax.go) share one shape:
// each entry point checks lengths, views an 8-byte aligned []byte as words,
// cuts the words into blocks of at most blockWords elements, lets the
// platform hook do what it can and finishes every block with the generic
// code. []byte inputs that are not 8-byte aligned go through a stage
// (sources only where the host needs aligned loads: srcWordsOf).

// blockWords bounds the elements per hook call (64 KiB), so an assembly
// loop never runs long enough to delay goroutine preemption noticeably.
const blockWords = 8192

// stageWords is the size of the aligned staging buffer used for []byte
// inputs that are not 8-byte aligned (4 KiB, on the stack).
const stageWords = 512

// stage walks a misaligned src in aligned pieces of at most stageWords
// elements: next copies the following piece into its buffer, where the
// caller works on it as words (in place), and store copies the result to
// dst at the piece's place. It is a struct with methods rather than a loop
// taking a function value, because a buffer passed to a function value
// escapes to the heap; and it keeps no slices, only offsets, so that the
// caller's buffers do not escape through it either.
//
//	var s stage
//	for w, first, ok := s.next(src); ok; w, first, ok = s.next(src) {
//		... work on w, elements first..first+len(w) of src ...
//		s.store(dst, len(w))
//	}
type stage struct {
	buf      [stageWords]uint64
	off, end int // the current piece is src[off:end]
}

// next loads the piece of src after the current one and returns its words
// and the index of its first element; ok is false when src is done.
func (s *stage) next(src []byte) (w []uint64, first int, ok bool) {
	s.off = s.end
	if s.off >= len(src) {
		return nil, 0, false
	}
	s.end = min(s.off+stageWords*8, len(src))
	copy(s.bytes(), src[s.off:s.end])
	return s.buf[:(s.end-s.off)/8], s.off / 8, true
}

// store copies the first done words of the current piece to dst, at the
// piece's place.
func (s *stage) store(dst []byte, done int) {
	copy(dst[s.off:s.off+8*done], s.bytes())
}

// into is where the current piece w is converted: straight into dst's
// own words dw when dst is aligned (dok; then dst is not src, which would
// be misaligned too), else in the stage, for put to store.
func (s *stage) into(dw []uint64, dok bool, w []uint64) []uint64 {
	if dok {
		return dw[s.off/8 : s.end/8]
	}
	return w
}

// put stores the first done words of the current piece converted by into
// in dst (nothing when into gave dst's own words).
func (s *stage) put(dst []byte, dok bool, done int) {
	if !dok {
		s.store(dst, done)
	}
}

func (s *stage) bytes() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&s.buf)), stageWords*8)
}
