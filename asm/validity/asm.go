// Command validity generates kernels/validity_amd64.{s,go}: count the NaT
// elements, and build the Arrow validity bitmap (1 = value, 0 = NaT).
//
// The kernels take the NaT bit pattern as it sits in memory: NaT itself for
// host byte order, bswap(NaT) for swapped data. Comparing against the
// swapped constant gives the same answer as swapping every element first,
// without the shuffle.
package main

//go:generate go run . -pkg kernels -out ../../kernels/validity_amd64.s -stubs ../../kernels/validity_amd64.go

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/zarr-dt64/dt64/asm/internal/gen"
)

func main() {
	gen.Header()
	for _, isa := range []gen.ISA{gen.AVX2, gen.AVX512} {
		countNaT(isa)
	}
	validityAVX2()
	validityAVX512()
	Generate()
}

func countNaT(isa gen.ISA) {
	name := gen.Name("countNaT", isa)
	TEXT(name, NOSPLIT, "func(src []uint64, pattern uint64) (n, nat int)")
	Pragma("noescape")
	Doc(name+" counts the elements equal to pattern among the leading n",
		"elements of src.")
	src := Load(Param("src").Base(), GP64())
	length := Load(Param("src").Len(), GP64())
	pattern := gen.Broadcast(isa, Load(Param("pattern"), GP64()))
	idx := GP64()
	XORQ(idx, idx)

	// One counter per unrolled vector keeps the additions independent.
	counts := make([]reg.VecVirtual, gen.Unroll)
	for i := range counts {
		counts[i] = gen.Zero(isa)
	}
	var body func(vectors int) func()
	if isa.Lanes == 8 {
		one := gen.BroadcastConst(isa, 1)
		body = func(vectors int) func() {
			return func() {
				for i := 0; i < vectors; i++ {
					k := K()
					VPCMPEQQ(gen.Elem(src, idx, i*isa.Lanes), pattern, k)
					VPADDQ(one, counts[i], k, counts[i])
				}
			}
		}
	} else {
		body = func(vectors int) func() {
			return func() {
				for i := 0; i < vectors; i++ {
					eq := isa.Vec()
					VPCMPEQQ(gen.Elem(src, idx, i*isa.Lanes), pattern, eq)
					VPSUBQ(eq, counts[i], counts[i]) // eq lanes are -1
				}
			}
		}
	}
	gen.Loop("blocks", idx, length, gen.Unroll*isa.Lanes, body(gen.Unroll))
	gen.Loop("vectors", idx, length, isa.Lanes, body(1))

	for _, c := range counts[1:] {
		VPADDQ(c, counts[0], counts[0])
	}
	Store(idx, Return("n"))
	Store(gen.HorizontalSum(isa, counts[0]), Return("nat"))
	gen.ReturnAfterVector()
}

// validityHeader declares a validity kernel and loads its arguments. The
// length is capped so the bitmap has a bit for every element processed.
func validityHeader(isa gen.ISA) (bitmap, src, length, idx reg.Register, pattern reg.VecVirtual) {
	name := gen.Name("validity", isa)
	TEXT(name, NOSPLIT, "func(bitmap []byte, src []uint64, pattern uint64) (n, nat int)")
	Pragma("noescape")
	Doc(name+" writes bit i of bitmap (LSB first) = src[i] != pattern for the",
		"leading n elements of src, n a multiple of 8 and n <= 8*len(bitmap),",
		"writing whole bytes bitmap[:n/8], and counts the elements equal to pattern.")
	bitmap = Load(Param("bitmap").Base(), GP64())
	bits := Load(Param("bitmap").Len(), GP64())
	SHLQ(Imm(3), bits)
	src = Load(Param("src").Base(), GP64())
	length = Load(Param("src").Len(), GP64())
	CMPQ(bits, length)
	CMOVQLT(bits, length)
	pattern = gen.Broadcast(isa, Load(Param("pattern"), GP64()))
	idx = GP64()
	XORQ(idx, idx)
	return
}

// validityAVX512 compares each vector into a mask register, whose eight
// bits are the bitmap byte as they stand; four masks are joined into one
// 32-bit store.
func validityAVX512() {
	isa := gen.AVX512
	bitmap, src, length, idx, pattern := validityHeader(isa)
	valid := GP64()
	XORQ(valid, valid)

	const notEqual = 4 // VPCMPQ predicate
	gen.Loop("blocks", idx, length, gen.Unroll*isa.Lanes, func() {
		ks := make([]reg.OpmaskVirtual, gen.Unroll)
		for i := range ks {
			ks[i] = K()
			VPCMPQ(Imm(notEqual), gen.Elem(src, idx, i*isa.Lanes), pattern, ks[i])
		}
		// KUNPCKBW a, b, d sets d = a | b<<8 (Go operand order).
		low, high, all := K(), K(), K()
		KUNPCKBW(ks[0], ks[1], low)
		KUNPCKBW(ks[2], ks[3], high)
		KUNPCKWD(low, high, all)
		bits := GP32()
		KMOVD(all, bits)
		MOVL(bits, Mem{Base: bitmap})
		POPCNTL(bits, bits)
		ADDQ(bits.As64(), valid)
		ADDQ(Imm(gen.Unroll), bitmap)
	})
	gen.Loop("vectors", idx, length, isa.Lanes, func() {
		k := K()
		VPCMPQ(Imm(notEqual), gen.Elem(src, idx, 0), pattern, k)
		bits := GP32()
		KMOVB(k, bits)
		MOVB(bits.As8(), Mem{Base: bitmap})
		POPCNTL(bits, bits)
		ADDQ(bits.As64(), valid)
		INCQ(bitmap)
	})
	Store(idx, Return("n"))
	SUBQ(valid, idx)
	Store(idx, Return("nat"))
	gen.ReturnAfterVector()
}

// validityAVX2 has no mask registers: VMOVMSKPD takes the sign bit of each
// compared lane, four bits per vector, which shifts assemble into bytes.
func validityAVX2() {
	isa := gen.AVX2
	bitmap, src, length, idx, pattern := validityHeader(isa)
	nat := GP64()
	XORQ(nat, nat)

	// natBits returns a register whose bit i is set when element idx+i
	// (i < 4*vectors) equals pattern.
	natBits := func(vectors int) reg.GPVirtual {
		var acc reg.GPVirtual
		for i := 0; i < vectors; i++ {
			eq := isa.Vec()
			VPCMPEQQ(gen.Elem(src, idx, i*isa.Lanes), pattern, eq)
			bits := GP32()
			VMOVMSKPD(eq, bits)
			if i == 0 {
				acc = bits
				continue
			}
			SHLL(Imm(uint64(4*i)), bits)
			ORL(bits, acc)
		}
		return acc
	}
	gen.Loop("blocks", idx, length, 32, func() {
		bits := natBits(8)
		count := GP32()
		POPCNTL(bits, count)
		ADDQ(count.As64(), nat)
		NOTL(bits)
		MOVL(bits, Mem{Base: bitmap})
		ADDQ(Imm(4), bitmap)
	})
	gen.Loop("bytes", idx, length, 8, func() {
		bits := natBits(2)
		count := GP32()
		POPCNTL(bits, count)
		ADDQ(count.As64(), nat)
		NOTL(bits)
		MOVB(bits.As8(), Mem{Base: bitmap})
		INCQ(bitmap)
	})
	Store(idx, Return("n"))
	Store(nat, Return("nat"))
	gen.ReturnAfterVector()
}
