package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	"github.com/zarr-dt64/dt64/dtype"
)

var byteOrderProbe = [2]byte{1, 0}

// hostLittle is the host's byte order (dtype.NativeOrder, the one place
// it is found), so that nothing assumes little-endian (s390x and ppc64
// are big-endian).
var hostLittle = dtype.NativeOrder() == binary.LittleEndian

// isLittle reports the order's endianness; nil means the host's.
func isLittle(o binary.ByteOrder) bool {
	if o == nil {
		return hostLittle
	}
	return o.Uint16(byteOrderProbe[:]) == 1
}

// swapFor reports whether elements in order o must be byte-reversed to be
// read as host integers.
func swapFor(o binary.ByteOrder) bool { return isLittle(o) != hostLittle }

// wordsOf views b as []uint64 when it is 8-byte aligned (ok=false otherwise).
// len(b) must be a multiple of 8.
func wordsOf(b []byte) (w []uint64, ok bool) {
	if len(b) == 0 {
		return nil, true
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	if uintptr(p)%8 != 0 {
		return nil, false
	}
	return unsafe.Slice((*uint64)(p), len(b)/8), true
}

// srcWordsOf views b as []uint64 for reading: as wordsOf, and also when
// it is misaligned on hosts whose loads need no alignment (unalignedLoads;
// Go's runtime reads unaligned words the same way there, and checkptr
// allows misaligned pointers to pointer-free types). A stored value's
// bytes lie wherever its header ends, so the kernels read them in place
// instead of copying them through a stage. Destinations keep to wordsOf:
// the non-temporal stores of the byte swap need aligned addresses.
func srcWordsOf(b []byte) (w []uint64, ok bool) {
	if w, ok := wordsOf(b); ok || !loadUnaligned {
		return w, ok
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8), true
}

// loadUnaligned is unalignedLoads, a variable so that tests can take the
// stage on any host.
var loadUnaligned = unalignedLoads

func int64Words(s []int64) []uint64 {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// elements checks that a byte buffer holds whole 8-byte elements.
func elements(what string, b []byte) (int, error) {
	if len(b)%8 != 0 {
		return 0, fmt.Errorf("kernels: %s has %d bytes, not a multiple of 8: %w", what, len(b), ErrLength)
	}
	return len(b) / 8, nil
}

// overlap classifies two byte ranges: 0 disjoint, 1 identical start and
// length, 2 partial overlap.
func overlap(a, b []byte) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	pa := uintptr(unsafe.Pointer(unsafe.SliceData(a)))
	pb := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if pa == pb && len(a) == len(b) {
		return 1
	}
	if pa < pb+uintptr(len(b)) && pb < pa+uintptr(len(a)) {
		return 2
	}
	return 0
}

func bitmapCheck(bitmap []byte, n int) error {
	if len(bitmap) < (n+7)/8 {
		return fmt.Errorf("kernels: validity bitmap has %d bytes, %d elements need %d: %w", len(bitmap), n, (n+7)/8, ErrLength)
	}
	return nil
}

func int64Bytes(s []int64) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*8)
}

// The range of valid (non-NaT) values: what the clamp policy saturates to.
const (
	minValue = math.MinInt64 + 1
	maxValue = math.MaxInt64
)
