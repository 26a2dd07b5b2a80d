package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/zarr-dt64/dt64/asm/internal/gen"
)

// The CF time kernels behind cfMulAddSIMD and cfFloatSIMD
// (kernels/cf_loops.go): the affine map v×A + B of a CF decoding or
// encoding, with at most one missing value compared in the vector loop.

// VCMPPD predicates.
const (
	cmpPDEqOQ   = 0x00 // ordered and equal
	cmpPDNeqUQ  = 0x04 // unordered or not equal
	cmpPDNleUQ  = 0x06 // unordered or greater than
	cmpPDOrdQ   = 0x07 // ordered
	roundFloorX = 0x09 // VRNDSCALEPD: toward -inf, precision exception suppressed
)

// cfMulAdd: dst = src*a + b for src in [lo, lo+span], the one missing value
// to NaT; stops before the first vector with another value.
func cfMulAdd(isa gen.ISA, o order) {
	// AVX2 has 16 vector registers: heavy spills the range and the
	// multiplier's high half to the frame and runs one vector at a time.
	k := begin(isa, o, isa.Lanes == 4, "cfMulAdd",
		"func(dst, src []uint64, a, b uint64, lo int64, span uint64, miss, missMask uint64) (n, nat int)",
		"stores src[i]*a + b (wrapping) into dst[i] for the leading n",
		"elements, n a multiple of the vector width; every source value v among",
		"them has lo <= v <= lo+span (unsigned span) or is miss, which is stored",
		"as NaT and counted, when missMask is all ones (0: no missing value). It",
		"stops before the first vector holding another value; dst may be src.")
	mul := k.constant("a")
	lo, span := k.rangeArgs("lo", "span")
	b := k.spill(k.broadcast("b"))
	miss := k.spill(k.broadcast("miss"))
	mm := Load(Param("missMask"), GP64())
	var missOp Op
	if k.avx512() {
		NOTQ(mm) // AVX-512 wants the lanes that cannot be missing: all of them without one
		missOp = gen.Broadcast(isa, mm)
	} else {
		missOp = k.spill(gen.Broadcast(isa, mm))
	}
	c := k.counters(false)
	k.loops(unroll(isa, k.heavy), true, false, c, func(v reg.VecVirtual) lane {
		var l lane
		if k.avx512() {
			// valid: ((v ^ miss) | ^missMask) != 0.
			t := k.isa.Vec()
			VPXORQ(miss, v, t)
			VPORQ(missOp, t, t)
			l.valid = K()
			VPTESTMQ(t, t, l.valid)
		} else {
			l.nat = k.isa.Vec()
			VPCMPEQQ(miss, v, l.nat)
			VPAND(missOp, l.nat, l.nat)
		}
		k.outside(v, lo, span, &l)
		out := k.mulLow(v, mul)
		VPADDQ(b, out, out)
		l.out = k.keepNaT(out, &l)
		return l
	})
	k.finish(c, false)
}

// cfFloat (AVX-512): float64 source words f; x = floor(f*af) + b exactly,
// from the rounded product p and its FMA residual r = f*af - p (exact): if
// p is not an integer, floor(f*af) = floor(p) (and the element is lossy);
// else it is p + floor(r) (lossy when r has a fraction). |p| < 2^64 is
// converted through its magnitude (VCVTTPD2UQQ) and the sign, the sums
// wrap: the estimate |floor(p) + bf| <= 2^63-8192 guarantees the exact
// result fits. NaN and missF are missing (missF NaN: none).
func cfFloat(isa gen.ISA, o order) {
	k := begin(isa, o, false, "cfFloat",
		"func(dst, src []uint64, af, bf, b, missF uint64) (n, nat, lossy int)",
		"stores floor(f*af) + b into dst[i] for the float64 f of src[i], exactly,",
		"for the leading n elements, n a multiple of the vector width; af, bf",
		"(b as a float64) and missF are float64 bits. Every f among them has",
		"|floor(f*af) + bf| <= 2^63-8192, or is NaN or missF (stored as NaT and",
		"counted; missF NaN: no missing value). lossy counts the other elements",
		"whose product had a fraction. It stops before the first vector holding",
		"another value; dst may be src.")
	af := k.broadcast("af")
	bf := k.broadcast("bf")
	b := k.broadcast("b")
	missF := k.broadcast("missF")
	tmax := gen.BroadcastConst(isa, 0x43dffffffffffff8) // float64(2^63 - 8192)
	abs := gen.BroadcastConst(isa, 0x7fffffffffffffff)
	zero := gen.Zero(isa)
	c := k.counters(true)
	k.loops(1, true, true, c, func(v reg.VecVirtual) lane {
		var l lane
		ord := K()
		VCMPPD(Imm(cmpPDOrdQ), v, v, ord)
		l.valid = K()
		VCMPPD(Imm(cmpPDNeqUQ), missF, v, ord, l.valid) // ordered, and not missF
		p := k.isa.Vec()
		VMULPD(af, v, p)
		fp := k.isa.Vec()
		VRNDSCALEPD(Imm(roundFloorX), p, fp)
		t := k.isa.Vec()
		VADDPD(bf, fp, t)
		VANDPD(abs, t, t)
		l.badK = K()
		VCMPPD(Imm(cmpPDNleUQ), tmax, t, l.valid, l.badK) // not |fp + bf| <= tmax
		r := k.isa.Vec()
		VMOVAPD(p, r)
		VFMSUB231PD(af, v, r) // r = f*af - p
		integer := K()
		VCMPPD(Imm(cmpPDEqOQ), fp, p, l.valid, integer)
		fr := k.isa.Vec()
		VRNDSCALEPD(Imm(roundFloorX), r, fr)
		l.exactK = K()
		VCMPPD(Imm(cmpPDEqOQ), fr, r, integer, l.exactK)
		neg := K()
		VPMOVQ2M(fp, neg) // the sign bit; floor(-0) = -0 converts to 0 either way
		VANDPD(abs, fp, fp)
		x := k.isa.Vec()
		VCVTTPD2UQQ(fp, x)
		VPSUBQ(x, zero, neg, x) // -|floor(p)| where it is negative
		fix := k.isa.Vec()
		VCVTTPD2QQ(fr, fix)
		VPADDQ(fix, x, integer, x) // + floor(r) where p is an integer
		VPADDQ(b, x, x)
		l.out = k.keepNaT(x, &l)
		return l
	})
	k.finish(c, true)
}
