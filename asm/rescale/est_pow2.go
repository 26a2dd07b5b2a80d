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
// in float64, for -2^50 <= w < 2^50 and d <= 2^32:
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
//	exact: f = v - q*d is 0 iff its low 32 bits are (0 <= f < d <= 2^32),
//	    and those are the low 32 bits of v minus those of lo32(q)*lo32(d),
//	    one VPMULUDQ: the lanes where the low doublewords of v and of that
//	    product are equal (VPCMPEQD) are exact, counted in the low
//	    doubleword of each lane of a counter (the high ones are ignored)
//
// The range is a power of two, lim = 2^j: -lim <= w < lim iff w + lim
// has no bit at or above 2^(j+1), so the main loop ORs the vectors' w +
// lim and tests the bits once a block, two instructions a vector.
//
// That is 11 vector instructions a vector of 4 with the loads, the
// store, the range check and the lossy count (13 before session 15,
// which compared the range vector by vector and tested the remainder in
// float64 with two subtractions and a compare); no 32-bit
// products but the one of the exact test (the magic-number kernel
// floorDivAVX2 needs seven per vector), and the validity bits are
// written in the same pass. The lanes it converts have -lim <= v - base
// < lim, lim a power of two <= min(2^50, 2^63-1-|base|) (wrapping
// subtraction; a wrapped w is never in range, as for floorDivEst), so NaT
// never is: the main loop, eight vectors at a time (four with a swapped
// source), checks their range first and only then converts them (so dst
// may be src), takes no NaT into account, and a block with a lane out of
// range goes to steps of two vectors that keep NaT and stop before two
// vectors holding another value. At most 2^34-1 elements a call (the
// doubleword counters).
func floorDivEstAVX2(o order) {
	k, p := pow2Begin(gen.AVX2, o, "floorDivEst", "is floorDivEstAVX512 for AVX2 with FMA3: it stores floor(src[i]/d) into")
	isa, bm, limR, tOffR, high := k.isa, p.bm, p.limR, p.tOffR, p.high
	// The steps compare lane by lane: in range iff t + 2^63 < 2*lim +
	// 2^63 as signed integers.
	limOffR := GP64()
	MOVQ(U64(1<<63), limOffR)
	ADDQ(tOffR, limOffR)
	limOff := k.spill(gen.Broadcast(isa, limOffR))
	lim2R := GP64()
	LEAQ(Mem{Base: limR, Index: limR, Scale: 1, Disp: -1}, lim2R)
	BTCQ(Imm(63), lim2R)
	lim2 := k.spill(gen.Broadcast(isa, lim2R)) // 2*lim - 1 + 2^63
	// Counters: a of NaT lanes, b of exact or NaT lanes (in the low
	// doubleword of each lane).
	cnt := k.counters(true)
	byteAt := GP64()

	// outside returns the lanes of v out of range (NaT included).
	outside := func(v reg.VecVirtual) reg.VecVirtual {
		bad := isa.Vec()
		VPADDQ(limOff, v, bad)
		VPCMPGTQ(lim2, bad, bad)
		return bad
	}
	// quotient returns the quotient of v and, in the low doubleword of
	// each lane, all ones where the remainder is 0.
	quotient := func(v Op) (q, exact reg.VecVirtual) {
		q = p.quotient(v)
		x := isa.Vec()
		VPMULUDQ(p.dv, q, x) // lo32(q)*lo32(d)
		VPCMPEQD(v, x, x)    // low doublewords equal: f = 0
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
		for i, vn := range [][2]reg.VecVirtual{{v0, nat0}, {v1, nat1}} {
			v, nat := vn[0], vn[1]
			q, exact := quotient(v)
			out := isa.Vec()
			VPBLENDVB(nat, k.natVec, q, out)
			k.store(out, i)
			VPOR(nat, exact, exact)
			VPSUBQ(nat, cnt.a, cnt.a)
			VPSUBD(exact, cnt.b, cnt.b)
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
	// read again from memory (from L1, folded into the instructions that
	// use each), which more vectors than AVX2 has registers for would
	// otherwise need; four held in registers when each is swapped first,
	// so that none is loaded and swapped twice.
	vecs := 8
	if o.swapIn {
		vecs = 4
	}
	next := GP64()
	Label("blocks")
	LEAQ(Mem{Base: k.idx, Disp: vecs * isa.Lanes}, next)
	CMPQ(next, k.length)
	JA(LabelRef("pairs"))
	srcs, offs := p.offsets(k, vecs, func(i int) Op {
		if o.swapIn {
			return k.load(i)
		}
		return gen.Elem(k.src, k.idx, i*isa.Lanes)
	})
	VPTEST(high, offs)
	JNZ(LabelRef("slow"))
	for i, v := range srcs {
		q, exact := quotient(v)
		VPSUBD(exact, cnt.b, cnt.b)
		k.store(q, i) // after the exact test, which may read v from dst
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
	// Only the low doubleword of each lane of cnt.b counts.
	VPSLLQ(Imm(32), cnt.b, cnt.b)
	VPSRLQ(Imm(32), cnt.b, cnt.b)
	k.finish(cnt, true)
}

// floorDivEstPow2 is floorDivEstAVX2's algorithm for AVX-512: the same
// float64 quotient with no correction, in [-lim, lim) around the base with
// lim = 2^j <= 2^50 and d <= 2^32, the same range test (the OR of the
// block's w + lim, tested once against -(2*lim), VPTESTMQ and KORTESTB
// here) and the same exact test (the low doublewords of v and of
// lo32(q)*lo32(d), VPCMPEQD into a mask here), on eight lanes a vector:
// 12 vector instructions a vector with the load (into a register, see
// the main loop), the store, the range check and the lossy count,
// against floorDivEst's 16 (its conversions, VPMULLQ and the correction
// step). The exact lanes are counted by a masked VPADDD of the counter
// and 1 per lane: a doubleword mask, so only the low doubleword of a lane
// is added to (the high one adds 0), at most 2^30 a lane for the 2^33
// elements a call at most.
//
// The main loop takes eight vectors (64 elements) a block; a block with a
// lane out of range (NaT, or a value far from the base) goes to steps of
// one vector up to its end, which keep NaT (their exact test takes the
// whole remainder, with VPMULLQ, masked to the valid lanes) and stop
// before a vector with another value.
func floorDivEstPow2(o order) {
	k, p := pow2Begin(gen.AVX512, o, "floorDivEstPow2", "is floorDivEstAVX2 for AVX-512: it stores floor(src[i]/d) into")
	isa, bm, limR, tOff, high, dv := k.isa, p.bm, p.limR, p.tOff, p.high, p.dv
	// The steps compare lane by lane: in range iff t <= 2*lim - 1
	// unsigned.
	lim2R := GP64()
	LEAQ(Mem{Base: limR, Index: limR, Scale: 1, Disp: -1}, lim2R)
	lim2 := gen.Broadcast(isa, lim2R) // 2*lim - 1
	cnt := k.counters(true)           // a: valid lanes of steps, b: exact lanes
	fastValid := GP64()               // valid lanes of main-loop blocks
	XORQ(fastValid, fastValid)
	byteAt := GP64()

	// step converts the vector at idx, keeping NaT, or jumps to done
	// before it when a lane that is not NaT is out of range.
	step := func() {
		var l lane
		v := k.load(0)
		k.natLanes(v, &l)
		t := isa.Vec()
		VPADDQ(tOff, v, t)
		bad := K()
		VPCMPUQ(Imm(cmpNLE), lim2, t, l.valid, bad)
		KORTESTB(bad, bad)
		JNZ(LabelRef("done"))
		q := p.quotient(v)
		r := isa.Vec()
		VPMULLQ(dv, q, r)
		VPSUBQ(r, v, r) // v - q*d, the remainder in the valid lanes
		l.exactK = K()
		VPTESTNMQ(r, r, l.valid, l.exactK)
		k.store(k.keepNaT(q, &l), 0)
		k.count(cnt, l, true)
		MOVQ(k.idx, byteAt)
		SHRQ(Imm(3), byteAt)
		KMOVB(l.valid, Mem{Base: bm, Index: byteAt, Scale: 1})
	}

	// The main loop: eight vectors, their range checked first, then
	// converted. Each is loaded once into a register (AVX-512 has 32):
	// folded into the three instructions that read it, a source that is
	// not 64-byte aligned (a raw zstd block's, 3 bytes off) would split
	// three loads a vector across cache lines, and the Arrow column of
	// such chunks ran 5 % slower.
	const vecs = 8
	next := GP64()
	Label("blocks")
	LEAQ(Mem{Base: k.idx, Disp: vecs * isa.Lanes}, next)
	CMPQ(next, k.length)
	JA(LabelRef("vectors"))
	srcs, offs := p.offsets(k, vecs, func(i int) Op { return k.load(i) })
	out := K()
	VPTESTMQ(high, offs, out)
	KORTESTB(out, out)
	JNZ(LabelRef("slow"))
	for i, v := range srcs {
		q := p.quotient(v)
		prod := isa.Vec()
		VPMULUDQ(dv, q, prod) // lo32(q)*lo32(d)
		exact := K()
		VPCMPEQD(v, prod, exact) // low doublewords equal: f = 0
		VPADDD(k.one, cnt.b, exact, cnt.b)
		k.store(q, i)
	}
	MOVQ(k.idx, byteAt)
	SHRQ(Imm(3), byteAt)
	MOVQ(I32(-1), Mem{Base: bm, Index: byteAt, Scale: 1})
	ADDQ(Imm(vecs*8), fastValid)
	MOVQ(next, k.idx)
	JMP(LabelRef("blocks"))

	// A block with a lane out of range (NaT, or far from the base): in
	// steps of one vector, then the main loop again.
	Label("slow")
	step()
	ADDQ(Imm(8), k.idx)
	CMPQ(k.idx, next)
	JB(LabelRef("slow"))
	JMP(LabelRef("blocks"))

	gen.Loop("vectors", k.idx, k.length, 8, step)

	Label("done")
	// finish counts nat = n - valid: add the main loop's valid lanes to
	// the steps'.
	fv := XMM()
	VMOVQ(fastValid, fv) // lane 0, the others zeroed
	VPADDQ(fv.AsZ(), cnt.a, cnt.a)
	k.finish(cnt, true)
}

// pow2 is what the two power-of-two kernels share: the bitmap, the loop
// constants and the quotient.
type pow2 struct {
	isa                       gen.ISA
	bm, limR                  reg.Register
	tOffR                     reg.GPVirtual
	magic, inv, c, mOff, tOff reg.VecVirtual
	dv, qOff, high            Op
}

// pow2Begin declares a power-of-two kernel (first: its doc's first line
// after the name), caps the length at the bitmap's and loads the
// constants. AVX2 keeps in registers all but those the main loop uses
// once a block (the range's mask) or only the steps use (their range
// compare), and, when a swap mask takes a register, qbase - M and d: 16
// vector registers must also hold a step's four vectors and masks, or a
// swapped block's four vectors, and their temporaries. (All but c in the
// frame ran as fast on the 2-vCPU EPYC VM: the loop is bound by its
// vector operations.) AVX-512 keeps them all (k.spill does nothing).
func pow2Begin(isa gen.ISA, o order, name, first string) (*kernel, pow2) {
	k := begin(isa, o, true, name,
		"func(dst, src []uint64, bitmap []byte, d, inv, base, qbase, lim uint64) (n, nat, lossy int)",
		first,
		"dst[i] for the leading n elements, n a multiple of 8 and at most",
		"8*len(bitmap), and their validity bits into bitmap[:n/8]; NaT is kept",
		"and counted, lossy counts the non-NaT elements with a non-zero remainder.",
		"Every non-NaT source value v among them has -lim <= v - base < lim",
		"(wrapping subtraction), where base = qbase*d, 2 <= d <= 2^32, lim is a",
		"power of two at most min(2^50, 2^63-1-|base|) and len(dst) < 2^34; inv",
		"is the float64 bits of 1/d rounded to nearest. It stops before the",
		"first 8 elements holding another value; dst may be src.")
	p := pow2{isa: isa}
	p.bm = Load(Param("bitmap").Base(), GP64())
	bmLen := Load(Param("bitmap").Len(), GP64())
	SHLQ(Imm(3), bmLen)
	CMPQ(bmLen, k.length)
	CMOVQLT(bmLen, k.length)

	swapped := func(v reg.VecVirtual) Op {
		if o.swapIn || o.swapOut {
			return k.spill(v)
		}
		return v
	}
	const mBits = 0x4338000000000000 // M = 2^52+2^51, as a float64
	p.magic = gen.BroadcastConst(isa, mBits)
	p.inv = k.broadcast("inv")
	half := gen.BroadcastConst(isa, 0x3fe0000000000000) // 0.5
	p.c = isa.Vec()
	VMULPD(half, p.inv, p.c)
	VSUBPD(half, p.c, p.c) // c = 1/(2d) - 1/2: 1/(2d) is exact from inv
	p.dv = swapped(k.broadcast("d"))
	baseR := Load(Param("base"), GP64())
	// M - base, added to v: w + M, the bits of float64(w) + M.
	mb := GP64()
	MOVQ(U64(mBits), mb)
	SUBQ(baseR, mb)
	p.mOff = gen.Broadcast(isa, mb)
	// qbase - M, added to y's bits: k + qbase.
	qb := Load(Param("qbase"), GP64())
	MOVQ(U64(mBits), mb)
	SUBQ(mb, qb)
	p.qOff = swapped(gen.Broadcast(isa, qb))
	// The range, lim = 2^j: t = v + lim - base = w + lim, in range iff t
	// (unsigned) < 2*lim, that is iff t & -(2*lim) is 0 (the main loop,
	// for an OR of vectors; the steps compare lane by lane).
	p.limR = Load(Param("lim"), GP64())
	p.tOffR = GP64()
	MOVQ(p.limR, p.tOffR)
	SUBQ(baseR, p.tOffR)
	p.tOff = gen.Broadcast(isa, p.tOffR)
	highR := GP64()
	LEAQ(Mem{Base: p.limR, Index: p.limR, Scale: 1}, highR)
	NEGQ(highR)
	p.high = k.spill(gen.Broadcast(isa, highR)) // -(2*lim): the bits at or above 2*lim
	return k, p
}

// quotient returns the quotient of v (a register or a memory operand):
// w + M read as a float64 minus M, one FMA, M added and taken off as an
// integer with qbase (the kernels' doc has the bounds).
func (p pow2) quotient(v Op) reg.VecVirtual {
	x := p.isa.Vec()
	VPADDQ(v, p.mOff, x)
	VSUBPD(p.magic, x, x)      // float64(w)
	VFMADD213PD(p.c, p.inv, x) // a = x*inv + c
	VADDPD(p.magic, x, x)      // y = M + k
	q := p.isa.Vec()
	VPADDQ(p.qOff, x, q) // k + qbase
	return q
}

// offsets returns a block's n source vectors (src(i), a register or a
// memory operand) and the OR of their w + lim: they are all in range iff
// no bit of it is at or above 2*lim.
func (p pow2) offsets(k *kernel, n int, src func(i int) Op) (srcs []Op, offs reg.VecVirtual) {
	srcs = make([]Op, n)
	for i := range srcs {
		srcs[i] = src(i)
		t := p.isa.Vec()
		VPADDQ(srcs[i], p.tOff, t)
		if i == 0 {
			offs = t
		} else {
			k.or(t, offs, offs)
		}
	}
	return srcs, offs
}
