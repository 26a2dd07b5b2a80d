// Command byteswap generates kernels/byteswap_amd64.{s,go}: reverse the
// bytes of every 64-bit element, out of place or in place (dst == src).
package main

//go:generate go run . -pkg kernels -out ../../kernels/byteswap_amd64.s -stubs ../../kernels/byteswap_amd64.go

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"

	"github.com/mmcloughlin/avo/reg"
	"github.com/zarr-dt64/dt64/asm/internal/gen"
)

func main() {
	gen.Header()
	for _, isa := range []gen.ISA{gen.AVX2, gen.AVX512} {
		byteSwap(isa, false)
		byteSwap(isa, true)
	}
	Generate()
}

// byteSwap emits byteSwap<ISA> or, with stream, byteSwapStream<ISA>, whose
// stores are non-temporal: an out-of-place swap much larger than the cache
// then moves two streams (read src, write dst) instead of three (the
// ordinary store first reads the destination line), as copy() does above
// 1 MiB.
func byteSwap(isa gen.ISA, stream bool) {
	kernel := "byteSwap"
	if stream {
		kernel = "byteSwapStream"
	}
	name := gen.Name(kernel, isa)
	TEXT(name, NOSPLIT, "func(dst, src []uint64) (n int)")
	Pragma("noescape")
	if stream {
		Doc(name+" stores bswap(src[i]) into dst[i] with non-temporal stores",
			"for the leading n elements, n <= min(len(dst), len(src)); dst may be src.",
			"Use it only when dst is far larger than the cache.")
	} else {
		Doc(name+" stores bswap(src[i]) into dst[i] for the leading n elements,",
			"n <= min(len(dst), len(src)); dst may be src.")
	}
	dst := Load(Param("dst").Base(), GP64())
	length := Load(Param("dst").Len(), GP64())
	src := Load(Param("src").Base(), GP64())
	srcLen := Load(Param("src").Len(), GP64())
	CMPQ(srcLen, length)
	CMOVQLT(srcLen, length)

	idx := GP64()
	XORQ(idx, idx)
	store := isa.Store
	if stream {
		// VMOVNTDQ faults unless its address is a multiple of the vector
		// size: swap single elements until dst reaches a 64-byte boundary
		// (a whole cache line, which also suits the 32-byte AVX2 stores).
		head := GP64()
		MOVQ(dst, head)
		NEGQ(head)
		ANDQ(Imm(63), head)
		SHRQ(Imm(3), head)
		CMPQ(head, length)
		CMOVQGT(length, head)
		Label("head")
		CMPQ(idx, head)
		JAE(LabelRef("head_done"))
		word := GP64()
		MOVQ(gen.Elem(src, idx, 0), word)
		BSWAPQ(word)
		MOVQ(word, gen.Elem(dst, idx, 0))
		INCQ(idx)
		JMP(LabelRef("head"))
		Label("head_done")
		store = func(v reg.VecVirtual, m Mem) { VMOVNTDQ(v, m) }
	}

	mask := gen.SwapMask(isa)
	body := func(vectors int) func() {
		return func() {
			vs := gen.Vectors(isa, vectors)
			for i, v := range vs {
				isa.Load(gen.Elem(src, idx, i*isa.Lanes), v)
			}
			for _, v := range vs {
				VPSHUFB(mask, v, v)
			}
			for i, v := range vs {
				store(v, gen.Elem(dst, idx, i*isa.Lanes))
			}
		}
	}
	gen.Loop("blocks", idx, length, gen.Unroll*isa.Lanes, body(gen.Unroll))
	gen.Loop("vectors", idx, length, isa.Lanes, body(1))
	if stream {
		// Non-temporal stores are weakly ordered: make them visible before
		// Go code (or another goroutine) reads dst.
		SFENCE()
	}
	Store(idx, Return("n"))
	gen.ReturnAfterVector()
}
