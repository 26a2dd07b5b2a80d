package kernels

import (
	"math/bits"
	"testing"
)

// hookSentinel fills the destination of a hook called out of place: what
// the hook must not write (past the n it reports) still holds it after.
const hookSentinel = 0x5a5a5a5a5a5a5a5a

// hookWords returns vals as a hook's source words, byte-swapped with swap.
func hookWords(vals []int64, swap bool) []uint64 {
	src := make([]uint64, len(vals))
	for i, v := range vals {
		src[i] = uint64(v)
		if swap {
			src[i] = bits.ReverseBytes64(src[i])
		}
	}
	return src
}

// hookBuffers returns the destination of a hook test and the source the
// hook is to read: for an in-place call a copy of src, read and written
// where it is; else a buffer of hookSentinel, the hook reading src.
func hookBuffers(src []uint64, inPlace bool) (dst, hookSrc []uint64) {
	dst = make([]uint64, len(src))
	if inPlace {
		copy(dst, src)
		return dst, dst
	}
	for i := range dst {
		dst[i] = hookSentinel
	}
	return dst, src
}

// checkUntouched fails the test when the hook wrote dst past the n
// elements it reports (src is the source as it was before the call).
func checkUntouched(t *testing.T, where any, dst, src []uint64, n int, inPlace bool) {
	t.Helper()
	for i := n; i < len(dst); i++ {
		if inPlace && dst[i] != src[i] || !inPlace && dst[i] != hookSentinel {
			t.Fatalf("%v: element %d past n = %d was written: %#x", where, i, n, dst[i])
		}
	}
}
