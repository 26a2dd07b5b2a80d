//go:build 386 || amd64 || arm64 || ppc64 || ppc64le || s390x

package kernels

// unalignedLoads: this architecture loads a word from any address (the
// list of Go's runtime/unaligned1.go, less wasm, which has no assembly
// and whose engines vary).
const unalignedLoads = true
