//go:build purego || !(amd64 || arm64)

package kernels

// No SIMD byte shuffle on this platform or build: the generic code does it.

func shuffle8SIMD(dst, src []byte, stride int) (n int) { return 0 }

func unshuffle8SIMD(dst, src []byte, stride int) (n int) { return 0 }
