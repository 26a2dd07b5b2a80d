package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/zarr-dt64/dt64/asm/internal/gen"
)

// floorDivEstAVX2 is floorDivEst for AVX2 with FMA3, the fused floor
// divide with validity of an Arrow µs column: AVX2 has neither a 64-bit
// multiply nor int64 <-> float64 conversions, so the quotient is computed
// in float64, where every step is exact or bounded for |w| <= 2^51:
//
//	x  = float64(w), w = v - base: w + M read as a float64, minus M
//	     (M = 2^52+2^51, whose float64 has an ulp of 1), exact for
//	     |w| <= 2^51
//	y  = fma(x, inv, M), inv = 1/d rounded to nearest: M plus x*inv
//	     rounded to an integer q0; |x*inv - w/d| <= 2^-53*|w/d| <= 1/8
//	     (|w/d| <= 2^50), so q0 is floor(w/d) or one more
//	r  = fma(-(y-M), d, x) = w - q0*d exactly: the exact value is an
//	     integer in [-d, d), d <= 2^52, so the one rounding of an FMA is
//	     none; r < 0 takes one from q0 and adds d to r
//	q  = y's bits minus M's (q0 as an int64), corrected, plus qbase;
//	     exact iff the final r is 0.
//
// No 32-bit products at all (the magic-number kernel floorDivAVX2 needs
// seven per vector), and the validity bits are written in the same pass.
// The lanes it converts have |v - base| <= lim, lim <= min(2^51,
// 2^63-1-|base|) (wrapping subtraction; a wrapped w is never in range, as
// for floorDivEst), so NaT never is: the main loop, four vectors (two
// bitmap bytes) at a time, takes no NaT into account, and a block with a
// lane out of range goes to a step of two vectors that keeps NaT and
// stops before two vectors holding another value.
func floorDivEstAVX2(o order) {
	isa := gen.AVX2
	k := begin(isa, o, true, "floorDivEst",
		"func(dst, src []uint64, bitmap []byte, d, inv, base, qbase, lim uint64) (n, nat, lossy int)",
		"is floorDivEstAVX512 for AVX2 with FMA3: it stores floor(src[i]/d) into",
		"dst[i] for the leading n elements, n a multiple of 8 and at most",
		"8*len(bitmap), and their validity bits into bitmap[:n/8]; NaT is kept",
		"and counted, lossy counts the non-NaT elements with a non-zero remainder.",
		"Every non-NaT source value v among them has |v - base| <= lim (wrapping",
		"subtraction), where base = qbase*d, 2 <= d <= 2^52 and lim <= min(2^51,",
		"2^63-1-|base|); inv is the float64 bits of 1/d rounded to nearest. It",
		"stops before the first 8 elements holding another value; dst may be src.")
	bm := Load(Param("bitmap").Base(), GP64())
	bmLen := Load(Param("bitmap").Len(), GP64())
	SHLQ(Imm(3), bmLen)
	CMPQ(bmLen, k.length)
	CMOVQLT(bmLen, k.length)

	// Loop constants: the most used in registers, the others in the frame
	// (a load folded into the instruction that uses it), since 16 vector
	// registers must also hold two vectors' temporaries.
	dReg := Load(Param("d"), GP64())
	dx := XMM()
	VXORPD(dx, dx, dx)
	VCVTSI2SDQ(dReg, dx, dx)
	dd := YMM()
	VBROADCASTSD(dx, dd)                                 // d as a float64 (exact: d <= 2^52)
	magic := gen.BroadcastConst(isa, 0x4338000000000000) // 2^52+2^51, as a float64 and as bits
	inv := k.broadcast("inv")
	base := k.spill(k.broadcast("base"))
	qbase := k.spill(k.broadcast("qbase"))
	// |w| <= lim as one signed compare: w + lim + 2^63 > 2*lim + 2^63.
	limR := Load(Param("lim"), GP64())
	lim2 := GP64()
	LEAQ(Mem{Base: limR, Index: limR, Scale: 1}, lim2)
	BTCQ(Imm(63), limR)
	BTCQ(Imm(63), lim2)
	limB := k.spill(gen.Broadcast(isa, limR))
	lim2B := k.spill(gen.Broadcast(isa, lim2))
	zero := gen.Zero(isa)
	c := k.counters(true) // a: NaT lanes, b: exact or NaT lanes
	byteAt := GP64()

	// offset returns w = v - base and the lanes out of range (NaT
	// included).
	offset := func(v reg.VecVirtual) (w, bad reg.VecVirtual) {
		w = isa.Vec()
		VPSUBQ(base, v, w)
		bad = isa.Vec()
		VPADDQ(limB, w, bad)
		VPCMPGTQ(lim2B, bad, bad) // w+lim+2^63 > 2*lim+2^63
		return w, bad
	}
	// quotient returns the quotient of the in-range lanes of w and the
	// lanes whose remainder is 0.
	quotient := func(w reg.VecVirtual) (q, exact reg.VecVirtual) {
		x := isa.Vec()
		VPADDQ(magic, w, x)
		VSUBPD(magic, x, x) // float64(w)
		y := isa.Vec()
		VMOVAPD(magic, y)
		VFMADD231PD(inv, x, y) // y = M + round(x*inv)
		q0 := isa.Vec()
		VSUBPD(magic, y, q0)
		VFNMADD231PD(dd, q0, x) // x = w - q0*d, exactly: the remainder r
		neg := isa.Vec()
		VCMPPD(Imm(cmpPDLtOQ), zero, x, neg) // r < 0: -1
		q = isa.Vec()
		VPSUBQ(magic, y, q) // q0 as an int64
		VPADDQ(neg, q, q)
		VANDPD(dd, neg, neg)
		VADDPD(neg, x, x)
		exact = isa.Vec()
		VCMPPD(Imm(cmpPDEqOQ), zero, x, exact)
		VPADDQ(qbase, q, q)
		return q, exact
	}
	setByte := func(r reg.GPVirtual) {
		MOVQ(k.idx, byteAt)
		SHRQ(Imm(3), byteAt)
		MOVB(r.As8(), Mem{Base: bm, Index: byteAt, Scale: 1})
	}
	// step converts the 8 elements at idx, keeping NaT, or jumps to done
	// before them when a lane that is not NaT is out of range.
	step := func() {
		v0, v1 := k.load(0), k.load(1)
		nat0, nat1 := isa.Vec(), isa.Vec()
		VPCMPEQQ(k.natVec, v0, nat0)
		VPCMPEQQ(k.natVec, v1, nat1)
		w0, bad0 := offset(v0)
		w1, bad1 := offset(v1)
		VPANDN(bad0, nat0, bad0) // out of range and not NaT
		VPANDN(bad1, nat1, bad1)
		VPOR(bad0, bad1, bad0)
		VPTEST(bad0, bad0)
		JNZ(LabelRef("done"))
		for i, p := range [][2]reg.VecVirtual{{w0, nat0}, {w1, nat1}} {
			w, nat := p[0], p[1]
			q, exact := quotient(w)
			out := isa.Vec()
			VPBLENDVB(nat, k.natVec, q, out)
			k.store(out, i)
			VPOR(nat, exact, exact)
			VPSUBQ(nat, c.a, c.a)
			VPSUBQ(exact, c.b, c.b)
		}
		m0, m1 := GP32(), GP32()
		VMOVMSKPD(nat0, m0)
		VMOVMSKPD(nat1, m1)
		SHLL(Imm(4), m1)
		ORL(m1, m0)
		NOTL(m0)
		setByte(m0)
	}

	next := GP64()
	Label("blocks")
	LEAQ(Mem{Base: k.idx, Disp: 16}, next)
	CMPQ(next, k.length)
	JA(LabelRef("pairs"))
	var ws [4]reg.VecVirtual
	var anyBad reg.VecVirtual
	for i := range ws {
		w, bad := offset(k.load(i))
		ws[i] = w
		if i == 0 {
			anyBad = bad
		} else {
			VPOR(bad, anyBad, anyBad)
		}
	}
	VPTEST(anyBad, anyBad)
	JNZ(LabelRef("slow"))
	for i, w := range ws {
		q, exact := quotient(w)
		k.store(q, i)
		VPSUBQ(exact, c.b, c.b)
	}
	MOVQ(k.idx, byteAt)
	SHRQ(Imm(3), byteAt)
	MOVW(U16(0xffff), Mem{Base: bm, Index: byteAt, Scale: 1})
	MOVQ(next, k.idx)
	JMP(LabelRef("blocks"))

	// A block with a lane out of range (NaT, or far from the base): its
	// first two vectors in one step (at least 16 elements are left), then
	// the main loop again.
	Label("slow")
	step()
	ADDQ(Imm(8), k.idx)
	JMP(LabelRef("blocks"))

	gen.Loop("pairs", k.idx, k.length, 8, step)

	Label("done")
	k.finish(c, true)
}
