// Command minmax generates kernels/minmax_amd64.{s,go}: the least and
// greatest signed value among the elements that are not NaT.
package main

//go:generate go run . -pkg kernels -out ../../kernels/minmax_amd64.s -stubs ../../kernels/minmax_amd64.go

import (
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/zarr-dt64/dt64/asm/internal/gen"
)

const (
	nat    = uint64(1) << 63 // math.MinInt64, NaT's bit pattern
	maxI64 = uint64(math.MaxInt64)
)

func main() {
	gen.Header()
	for _, swapped := range []bool{false, true} {
		minMaxAVX2(swapped)
		minMaxAVX512(swapped)
	}
	Generate()
}

// header declares minMax<ISA> or minMaxSwapped<ISA>, whose elements are in
// the other byte order and are reversed (VPSHUFB) before they are compared.
// It returns the loader: one element vector, in host order.
func header(isa gen.ISA, swapped bool) (load func(offset int) reg.VecVirtual, length, idx reg.Register) {
	kernel := "minMax"
	order := ""
	if swapped {
		kernel = "minMaxSwapped"
		order = " bswap(src[i])"
	}
	name := gen.Name(kernel, isa)
	TEXT(name, NOSPLIT, "func(src []uint64) (n int, lo, hi int64)")
	Pragma("noescape")
	Doc(name+" returns the least and greatest of the values"+order+" that are",
		"not NaT among the leading n elements of src; lo = MaxInt64 and",
		"hi = MinInt64 when there are none.")
	src := Load(Param("src").Base(), GP64())
	length = Load(Param("src").Len(), GP64())
	var mask reg.VecVirtual
	if swapped {
		mask = gen.SwapMask(isa)
	}
	idx = GP64()
	XORQ(idx, idx)
	load = func(offset int) reg.VecVirtual {
		v := isa.Vec()
		isa.Load(gen.Elem(src, idx, offset), v)
		if swapped {
			VPSHUFB(mask, v, v)
		}
		return v
	}
	return
}

// minMaxAVX512 merges only the lanes that are not NaT into the minimum
// (VPMINSQ under a mask). The maximum needs no mask: NaT is the least
// int64, so it never raises a maximum that starts at MinInt64, and "none"
// comes out as MinInt64 as the contract asks.
func minMaxAVX512(swapped bool) {
	isa := gen.AVX512
	load, length, idx := header(isa, swapped)
	natVec := gen.BroadcastConst(isa, nat)
	lows := make([]reg.VecVirtual, gen.Unroll)
	highs := make([]reg.VecVirtual, gen.Unroll)
	for i := range lows {
		lows[i] = gen.BroadcastConst(isa, maxI64)
		highs[i] = isa.Vec()
		VMOVDQA64(natVec, highs[i])
	}
	const notEqual = 4 // VPCMPQ predicate
	body := func(vectors int) func() {
		return func() {
			for i := 0; i < vectors; i++ {
				v := load(i * isa.Lanes)
				valid := K()
				VPCMPQ(Imm(notEqual), natVec, v, valid)
				VPMINSQ(v, lows[i], valid, lows[i])
				VPMAXSQ(v, highs[i], highs[i])
			}
		}
	}
	gen.Loop("blocks", idx, length, gen.Unroll*isa.Lanes, body(gen.Unroll))
	gen.Loop("vectors", idx, length, isa.Lanes, body(1))

	for i := 1; i < gen.Unroll; i++ {
		VPMINSQ(lows[i], lows[0], lows[0])
		VPMAXSQ(highs[i], highs[0], highs[0])
	}
	// Halve the width until one lane is left; AVX512VL gives VPMINSQ and
	// VPMAXSQ on YMM and XMM.
	reduce := func(v reg.VecVirtual, op func(a, b, dst Op)) reg.GPVirtual {
		y := YMM()
		VEXTRACTI64X4(Imm(1), v, y)
		op(v.AsY(), y, y)
		x := XMM()
		VEXTRACTI128(Imm(1), y, x)
		op(y.AsX(), x, x)
		x2 := XMM()
		VPSHUFD(Imm(0x4e), x, x2)
		op(x2, x, x)
		r := GP64()
		VMOVQ(x, r)
		return r
	}
	Store(idx, Return("n"))
	Store(reduce(lows[0], func(a, b, d Op) { VPMINSQ(a, b, d) }), Return("lo"))
	Store(reduce(highs[0], func(a, b, d Op) { VPMAXSQ(a, b, d) }), Return("hi"))
	gen.ReturnAfterVector()
}

// minMaxAVX2 has signed 64-bit compares (VPCMPGTQ) but no 64-bit min or
// max and no masks. The maximum works as for AVX-512 (NaT never raises it).
// The minimum is taken over v-1 instead of v: that maps NaT to MaxInt64,
// which never lowers a minimum, and every other value down by one without
// wrapping. Adding the one back at the end overflows only when every lane
// was NaT (the minimum of v-1 is then MaxInt64), which is the "none" case
// whose answer is MaxInt64 again.
func minMaxAVX2(swapped bool) {
	isa := gen.AVX2
	load, length, idx := header(isa, swapped)
	minusOne := gen.BroadcastConst(isa, ^uint64(0))
	lows := make([]reg.VecVirtual, gen.Unroll)
	highs := make([]reg.VecVirtual, gen.Unroll)
	for i := range lows {
		lows[i] = gen.BroadcastConst(isa, maxI64)
		highs[i] = gen.BroadcastConst(isa, nat)
	}
	// lower sets acc = min(acc, v); raise sets acc = max(acc, v).
	// Both work on YMM and, for the final reduction, on XMM.
	scratch := func(like reg.Register) reg.VecVirtual {
		if like.Size() == 16 {
			return XMM()
		}
		return YMM()
	}
	lower := func(v, acc reg.Register) {
		greater := scratch(acc)
		VPCMPGTQ(v, acc, greater) // acc > v
		VPBLENDVB(greater, v, acc, acc)
	}
	raise := func(v, acc reg.Register) {
		greater := scratch(acc)
		VPCMPGTQ(acc, v, greater) // v > acc
		VPBLENDVB(greater, v, acc, acc)
	}
	body := func(vectors int) func() {
		return func() {
			for i := 0; i < vectors; i++ {
				v := load(i * isa.Lanes)
				below := isa.Vec()
				VPADDQ(minusOne, v, below)
				lower(below, lows[i])
				raise(v, highs[i])
			}
		}
	}
	gen.Loop("blocks", idx, length, gen.Unroll*isa.Lanes, body(gen.Unroll))
	gen.Loop("vectors", idx, length, isa.Lanes, body(1))

	for i := 1; i < gen.Unroll; i++ {
		lower(lows[i], lows[0])
		raise(highs[i], highs[0])
	}
	reduce := func(v reg.VecVirtual, merge func(v, acc reg.Register)) reg.GPVirtual {
		x := XMM()
		VEXTRACTI128(Imm(1), v, x)
		merge(v.AsX(), x)
		x2 := XMM()
		VPSHUFD(Imm(0x4e), x, x2)
		merge(x2, x)
		r := GP64()
		VMOVQ(x, r)
		return r
	}
	lo := reduce(lows[0], lower)
	hi := reduce(highs[0], raise)
	none := GP64()
	MOVQ(U64(maxI64), none)
	ADDQ(Imm(1), lo)
	CMOVQOS(none, lo)
	Store(idx, Return("n"))
	Store(lo, Return("lo"))
	Store(hi, Return("hi"))
	gen.ReturnAfterVector()
}
