//go:build purego || !(amd64 || arm64)

package kernels

// No SIMD implementation on this platform or build (amd64 and arm64 have
// their own dispatch files unless built with -tags purego): every hook reports that
// it processed nothing, and the generic code does all the work.

func byteSwapSIMD(dst, src []uint64) (n int) { return 0 }

func byteSwapStreamSIMD(dst, src []uint64) (n int) { return 0 }

func countNaTSIMD(src []uint64, swap bool) (n, nat int) { return 0, 0 }

func validitySIMD(bitmap []byte, src []uint64, swap bool) (n, nat int) { return 0, 0 }

func minMaxSIMD(src []uint64, swap bool) (n int, min, max int64) { return 0, 1<<63 - 1, -1 << 63 }
