//go:build purego || !(amd64 || arm64)

package kernels

// No assembly on this platform or build (amd64 and arm64 have kernels
// unless built with -tags purego): the hooks process nothing and the
// generic twins in byteswap.go do all the work.

func byteSwapSIMD(dst, src []uint64) (n int) { return 0 }

func byteSwapStreamSIMD(dst, src []uint64) (n int) { return 0 }
