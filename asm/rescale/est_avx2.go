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
// in float64, for |w| <= 2^50 and d <= 2^48:
//
//	x = float64(w), w = v - base: v + (M - base) read as a float64, minus
//	    M (M = 2^52+2^51, whose float64 has an ulp of 1): exact
//	a = fma(x, inv, c), inv = 1/d and c = -1/2 + 1/(2d) rounded to
//	    nearest: w/d = k + f/d with k = floor(w/d), 0 <= f < d, and a is
//	    k + f/d - 1/2 + 1/(2d) within 1/(4d) + 2^-53 (the errors of inv,
//	    of c and of a's rounding, each |w/d|*2^-53 <= 1/(8d) or 2^-54):
//	    strictly between k - 1/2 and k + 1/2
//	y = a + M, rounded to an integer: M + k exactly, so q = y's bits
//	    minus M's plus qbase, with no correction
//	e = a - (y - M), exact (Sterbenz), is below T = -1/2 + 1/d (rounded)
//	    iff f = 0: then e <= -1/2 + 3/(4d) + 2^-53, else e >= -1/2 +
//	    5/(4d) - 2^-53, both 2^-54 or more from T for d <= 2^50.
//
// That is 13 vector instructions a vector of 4 with the loads, the
// store, the range check and the lossy count, where the estimate rounded
// to nearest and corrected by the exact remainder took about 20; no
// 32-bit products at all (the magic-number kernel floorDivAVX2 needs
// seven per vector), and the validity bits are written in the same pass.
// The lanes it converts have |v - base| <= lim, lim <= min(2^50,
// 2^63-1-|base|) (wrapping subtraction; a wrapped w is never in range, as
// for floorDivEst), so NaT never is: the main loop, eight vectors at a
// time (four with a swapped source), checks their range first and only
// then converts them (so dst may be src), takes no NaT into account, and
// a block with a lane out of range goes to steps of two vectors that
// keep NaT and stop before two vectors holding another value.
func floorDivEstAVX2(o order) {
	isa := gen.AVX2
	k := begin(isa, o, true, "floorDivEst",
		"func(dst, src []uint64, bitmap []byte, d, inv, base, qbase, lim uint64) (n, nat, lossy int)",
		"is floorDivEstAVX512 for AVX2 with FMA3: it stores floor(src[i]/d) into",
		"dst[i] for the leading n elements, n a multiple of 8 and at most",
		"8*len(bitmap), and their validity bits into bitmap[:n/8]; NaT is kept",
		"and counted, lossy counts the non-NaT elements with a non-zero remainder.",
		"Every non-NaT source value v among them has |v - base| <= lim (wrapping",
		"subtraction), where base = qbase*d, 2 <= d <= 2^48 and lim <= min(2^50,",
		"2^63-1-|base|); inv is the float64 bits of 1/d rounded to nearest. It",
		"stops before the first 8 elements holding another value; dst may be src.")
	bm := Load(Param("bitmap").Base(), GP64())
	bmLen := Load(Param("bitmap").Len(), GP64())
	SHLQ(Imm(3), bmLen)
	CMPQ(bmLen, k.length)
	CMOVQLT(bmLen, k.length)

	// Loop constants in registers, but for 2*lim (in the frame, a load
	// folded into the compare) and, when a swap mask takes a register,
	// T and qbase - M: 16 vector registers must also hold a step's four
	// vectors and masks, or a swapped block's four vectors, and their
	// temporaries. (All but c in the frame ran as fast on the 2-vCPU EPYC
	// VM: the loop is bound by its vector operations.)
	swapped := func(v reg.VecVirtual) Op {
		if o.swapIn || o.swapOut {
			return k.spill(v)
		}
		return v
	}
	const mBits = 0x4338000000000000 // M = 2^52+2^51, as a float64
	magic := gen.BroadcastConst(isa, mBits)
	inv := k.broadcast("inv")
	half := gen.BroadcastConst(isa, 0x3fe0000000000000) // 0.5
	c := isa.Vec()
	VMULPD(half, inv, c)
	VSUBPD(half, c, c) // c = 1/(2d) - 1/2: 1/(2d) is exact from inv
	t := isa.Vec()
	VSUBPD(half, inv, t) // T = 1/d - 1/2
	thr := swapped(t)
	baseR := Load(Param("base"), GP64())
	// M - base, added to v: w + M, the bits of float64(w) + M.
	mb := GP64()
	MOVQ(U64(mBits), mb)
	SUBQ(baseR, mb)
	mOff := gen.Broadcast(isa, mb)
	// qbase - M, added to y's bits: k + qbase.
	qb := Load(Param("qbase"), GP64())
	MOVQ(U64(mBits), mb)
	SUBQ(mb, qb)
	qOff := swapped(gen.Broadcast(isa, qb))
	// |w| <= lim as one signed compare: v + lim + 2^63 - base (= w + lim +
	// 2^63) > 2*lim + 2^63.
	limR := Load(Param("lim"), GP64())
	lim2R := GP64()
	LEAQ(Mem{Base: limR, Index: limR, Scale: 1}, lim2R)
	BTCQ(Imm(63), limR)
	SUBQ(baseR, limR)
	BTCQ(Imm(63), lim2R)
	limOff := gen.Broadcast(isa, limR)
	lim2 := k.spill(gen.Broadcast(isa, lim2R))
	cnt := k.counters(true) // a: NaT lanes, b: exact or NaT lanes
	byteAt := GP64()

	// outside returns the lanes of v out of range (NaT included).
	outside := func(v Op) reg.VecVirtual {
		bad := isa.Vec()
		VPADDQ(v, limOff, bad)
		VPCMPGTQ(lim2, bad, bad)
		return bad
	}
	// quotient returns the quotient of v and the lanes whose remainder
	// is 0.
	quotient := func(v Op) (q, exact reg.VecVirtual) {
		x := isa.Vec()
		VPADDQ(v, mOff, x)
		VSUBPD(magic, x, x)    // float64(w)
		VFMADD213PD(c, inv, x) // a = x*inv + c
		y := isa.Vec()
		VADDPD(magic, x, y) // M + k
		q = isa.Vec()
		VPADDQ(qOff, y, q)                // k + qbase
		VSUBPD(magic, y, y)               // k
		VSUBPD(y, x, x)                   // e = a - k
		VCMPPD(Imm(cmpPDLtOQ), thr, x, x) // e < T: f = 0
		return q, x
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
		bad0, bad1 := outside(v0), outside(v1)
		VPANDN(bad0, nat0, bad0) // out of range and not NaT
		VPANDN(bad1, nat1, bad1)
		VPOR(bad0, bad1, bad0)
		VPTEST(bad0, bad0)
		JNZ(LabelRef("done"))
		for i, p := range [][2]reg.VecVirtual{{v0, nat0}, {v1, nat1}} {
			v, nat := p[0], p[1]
			q, exact := quotient(v)
			out := isa.Vec()
			VPBLENDVB(nat, k.natVec, q, out)
			k.store(out, i)
			VPOR(nat, exact, exact)
			VPSUBQ(nat, cnt.a, cnt.a)
			VPSUBQ(exact, cnt.b, cnt.b)
		}
		m0, m1 := GP32(), GP32()
		VMOVMSKPD(nat0, m0)
		VMOVMSKPD(nat1, m1)
		SHLL(Imm(4), m1)
		ORL(m1, m0)
		NOTL(m0)
		setByte(m0)
	}

	// The main loop: a block of vectors (two bitmap bytes each), their
	// range checked first, then converted. Eight vectors when they can be
	// read again from memory (from L1, folded into the first instruction
	// that uses each), which more vectors than AVX2 has registers for
	// would otherwise need; four held in registers when each is swapped
	// first, so that none is loaded and swapped twice.
	vecs := 8
	if o.swapIn {
		vecs = 4
	}
	next := GP64()
	Label("blocks")
	LEAQ(Mem{Base: k.idx, Disp: vecs * isa.Lanes}, next)
	CMPQ(next, k.length)
	JA(LabelRef("pairs"))
	srcs := make([]Op, vecs)
	var anyBad reg.VecVirtual
	for i := range srcs {
		srcs[i] = gen.Elem(k.src, k.idx, i*isa.Lanes)
		if o.swapIn {
			srcs[i] = k.load(i)
		}
		bad := outside(srcs[i])
		if i == 0 {
			anyBad = bad
		} else {
			VPOR(bad, anyBad, anyBad)
		}
	}
	VPTEST(anyBad, anyBad)
	JNZ(LabelRef("slow"))
	for i, v := range srcs {
		q, exact := quotient(v)
		k.store(q, i)
		VPSUBQ(exact, cnt.b, cnt.b)
	}
	MOVQ(k.idx, byteAt)
	SHRQ(Imm(3), byteAt)
	if vecs == 8 {
		MOVL(U32(0xffffffff), Mem{Base: bm, Index: byteAt, Scale: 1})
	} else {
		MOVW(U16(0xffff), Mem{Base: bm, Index: byteAt, Scale: 1})
	}
	MOVQ(next, k.idx)
	JMP(LabelRef("blocks"))

	// A block with a lane out of range (NaT, or far from the base): in
	// steps of two vectors, then the main loop again.
	Label("slow")
	for range vecs / 2 {
		step()
		ADDQ(Imm(8), k.idx)
	}
	JMP(LabelRef("blocks"))

	gen.Loop("pairs", k.idx, k.length, 8, step)

	Label("done")
	k.finish(cnt, true)
}
