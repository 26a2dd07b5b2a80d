//go:build !(386 || amd64 || arm64 || ppc64 || ppc64le || s390x)

package kernels

// unalignedLoads: this architecture may fault, or trap to the kernel, on a
// misaligned word load, so misaligned sources go through a stage.
const unalignedLoads = false
