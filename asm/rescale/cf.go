package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/zarr-dt64/dt64/asm/internal/cfargs"
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
	cmpPDUnordQ = 0x03 // unordered
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

// floatMissing sets l.valid (AVX-512: lanes that are neither NaN nor
// miss) or l.nat (AVX2: -1 in the lanes that are) for float64 words v;
// miss NaN stands for no missing value.
func (k *kernel) floatMissing(v reg.VecVirtual, miss Op, l *lane) {
	if k.avx512() {
		ord := K()
		VCMPPD(Imm(cmpPDOrdQ), v, v, ord)
		l.valid = K()
		VCMPPD(Imm(cmpPDNeqUQ), miss, v, ord, l.valid) // ordered, and not miss
		return
	}
	l.nat = k.isa.Vec()
	VCMPPD(Imm(cmpPDUnordQ), v, v, l.nat)
	eq := k.isa.Vec()
	VCMPPD(Imm(cmpPDEqOQ), miss, v, eq)
	VORPD(eq, l.nat, l.nat)
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
		k.floatMissing(v, missF, &l)
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

// cfFloatAVX2: cfFloat without AVX-512's conversions and mask registers.
// The integer-valued double floor(p) becomes an int64 from its bits: the
// mantissa with its implicit bit, shifted left by exponent-1075 or right by
// 1075-exponent (VPSLLVQ and VPSRLVQ give 0 for the count that is out of
// range, and both for a zero), then the sign; the small floor(r) by the
// 2^52+2^51 rounding constant.
// Needs FMA3 for the residual.
func cfFloatAVX2(o order) {
	isa := gen.AVX2
	k := begin(isa, o, true, "cfFloat",
		"func(dst, src []uint64, af, bf, b, missF uint64) (n, nat, lossy int)",
		"is cfFloatAVX512 for AVX2 with FMA3: stores floor(f*af) + b into dst[i]",
		"for the float64 f of src[i], exactly, for the leading n elements, n a",
		"multiple of the vector width; af, bf (b as a float64) and missF are",
		"float64 bits. Every f among them has |floor(f*af) + bf| <= 2^63-8192, or",
		"is NaN or missF (stored as NaT and counted; missF NaN: no missing value).",
		"lossy counts the other elements whose product had a fraction. It stops",
		"before the first vector holding another value; dst may be src.")
	af := k.spill(k.broadcast("af"))
	bf := k.spill(k.broadcast("bf"))
	b := k.spill(k.broadcast("b"))
	missF := k.spill(k.broadcast("missF"))
	tmax := k.spill(gen.BroadcastConst(isa, 0x43dffffffffffff8)) // float64(2^63 - 8192)
	abs := k.spill(gen.BroadcastConst(isa, 0x7fffffffffffffff))
	expMask := k.spill(gen.BroadcastConst(isa, 0x7ff))
	mantMask := k.spill(gen.BroadcastConst(isa, 1<<52-1))
	implicit := k.spill(gen.BroadcastConst(isa, 1<<52))
	bias := k.spill(gen.BroadcastConst(isa, 1075))
	magic := k.spill(gen.BroadcastConst(isa, 0x4338000000000000)) // float64(2^52 + 2^51)
	zero := gen.Zero(isa)
	// toInt converts the integer-valued double y (|y| < 2^64) to its
	// int64 (modulo 2^64).
	toInt := func(y reg.VecVirtual) reg.VecVirtual {
		e := isa.Vec()
		VPSRLQ(Imm(52), y, e)
		VPAND(expMask, e, e)
		m := isa.Vec()
		VPAND(mantMask, y, m)
		VPOR(implicit, m, m)
		left := isa.Vec()
		VPSUBQ(bias, e, left) // e - 1075
		right := isa.Vec()
		VPSUBQ(left, zero, right) // 1075 - e
		VPSLLVQ(left, m, left)
		VPSRLVQ(right, m, right)
		VPOR(right, left, left)
		s := isa.Vec()
		VPCMPGTQ(y, zero, s) // the sign bit: y < 0 as an int64
		VPXOR(s, left, left)
		VPSUBQ(s, left, left)
		return left
	}
	c := k.counters(true)
	k.loops(1, true, true, c, func(v reg.VecVirtual) lane {
		var l lane
		k.floatMissing(v, missF, &l)
		p := isa.Vec()
		VMULPD(af, v, p)
		fp := isa.Vec()
		VROUNDPD(Imm(roundFloorX), p, fp)
		t := isa.Vec()
		VADDPD(bf, fp, t)
		VANDPD(abs, t, t)
		l.badV = isa.Vec()
		VCMPPD(Imm(cmpPDNleUQ), tmax, t, l.badV) // not |fp + bf| <= tmax
		VPANDN(l.badV, l.nat, l.badV)
		r := isa.Vec()
		VMOVAPD(p, r)
		VFMSUB231PD(af, v, r) // r = f*af - p
		integer := isa.Vec()
		VCMPPD(Imm(cmpPDEqOQ), fp, p, integer)
		fr := isa.Vec()
		VROUNDPD(Imm(roundFloorX), r, fr)
		l.exactOrNaT = isa.Vec()
		VCMPPD(Imm(cmpPDEqOQ), fr, r, l.exactOrNaT)
		VANDPD(integer, l.exactOrNaT, l.exactOrNaT)
		VORPD(l.nat, l.exactOrNaT, l.exactOrNaT)
		x := toInt(fp)
		// floor(r) is an integer below 2^10 in magnitude: adding
		// 2^52+2^51 puts it in the low mantissa bits, and subtracting the
		// constant's bits as integers leaves it as an int64.
		fix := isa.Vec()
		VADDPD(magic, fr, fix)
		VPSUBQ(magic, fix, fix)
		VPAND(integer, fix, fix) // + floor(r) where p is an integer
		VPADDQ(fix, x, x)
		VPADDQ(b, x, x)
		l.out = k.keepNaT(x, &l)
		return l
	})
	k.finish(c, true)
}

// More VCMPPD predicates (VEX and EVEX encodings take all 32).
const (
	cmpPDLtOQ = 0x11 // ordered and less than
	cmpPDLeOQ = 0x12 // ordered and less than or equal
	cmpPDGeOQ = 0x1d // ordered and greater than or equal
	roundEven = 0x08 // VROUNDPD/VRNDSCALEPD: to nearest even, precision exception suppressed
)

// cfShortest: cf.FastCheck (kernels/cf_shortest.go, proof in
// cf/fastcheck.go) on float64 source words. Per lane:
//
//	valid   f is not NaN and not miss (else NaT)
//	decided |f| < Max, KLo <= k <= KHi for k = roundEven(f*Mul), and
//	        r = fma(f, N1, -(k*N2)) is 0 or |r| < (|f| - pred(|f|))*HalfN1,
//	        pred(|f|) = bits(|f|) - GapBits
//	out     k*Step + Base
//
// A vector with a valid lane that is not decided stops the kernel before
// it. AVX-512 converts k with VCVTPD2QQ; AVX2 through the rounding
// constant 2^52+2^51 (|k| <= 2^51) and multiplies from 32-bit products.
// The AVX2 kernel needs FMA3.
func cfShortest(isa gen.ISA, o order) {
	k := begin(isa, o, true, "cfShortest",
		"func(dst, src []uint64, c *[11]uint64) (n, nat int)",
		"stores the fast check's k*Step + Base into dst[i] for the float64",
		"f of src[i] (cf.FastCheck.Decide; c holds its constants as",
		"kernels.cfCheckArgs) for the leading n elements, n a multiple of the",
		"vector width; NaN and the missing value c[10] are stored as NaT and",
		"counted. It stops before the first vector holding an element the",
		"check does not decide; dst may be src.")
	if !k.avx512() {
		Comment("Needs FMA3.")
	}
	// c holds the constants at the offsets of package cfargs.
	cp := Load(Param("c"), GP64())
	arg := func(i int) Op {
		v := isa.Vec()
		VPBROADCASTQ(Mem{Base: cp, Disp: 8 * i}, v)
		return k.spill(v)
	}
	mul, n1, n2, halfN1 := arg(cfargs.Mul), arg(cfargs.N1), arg(cfargs.N2), arg(cfargs.HalfN1)
	gapBits, fmax, kLo, kHi := arg(cfargs.GapBits), arg(cfargs.Max), arg(cfargs.KLo), arg(cfargs.KHi)
	base, miss := arg(cfargs.Base), arg(cfargs.Miss)
	step := constant{full: arg(cfargs.Step)}
	if !k.avx512() {
		h := GP64()
		MOVQ(Mem{Base: cp, Disp: 8 * cfargs.Step}, h)
		SHRQ(Imm(32), h)
		step.high = k.spill(gen.Broadcast(isa, h))
	}
	abs := k.spill(gen.BroadcastConst(isa, 0x7fffffffffffffff))
	zero := gen.Zero(isa)
	var magic, ones Op
	if !k.avx512() {
		magic = k.spill(gen.BroadcastConst(isa, 0x4338000000000000)) // float64(2^52 + 2^51)
		ones = k.spill(gen.BroadcastConst(isa, ^uint64(0)))
	}
	c := k.counters(false)
	k.loops(unroll(isa, k.heavy), true, false, c, func(v reg.VecVirtual) lane {
		var l lane
		k.floatMissing(v, miss, &l)
		a := isa.Vec()
		VANDPD(abs, v, a)
		p := isa.Vec()
		VMULPD(mul, v, p)
		kk := isa.Vec()
		r := isa.Vec()
		gap := isa.Vec()
		if k.avx512() {
			VRNDSCALEPD(Imm(roundEven), p, kk)
		} else {
			VROUNDPD(Imm(roundEven), p, kk)
		}
		VMULPD(n2, kk, r)
		VFMSUB231PD(n1, v, r) // r = f*N1 - k*N2
		VPSUBQ(gapBits, a, gap)
		VSUBPD(gap, a, gap) // |f| - pred(|f|)
		VMULPD(halfN1, gap, gap)
		ar := isa.Vec()
		VANDPD(abs, r, ar)
		var out reg.VecVirtual
		if k.avx512() {
			ok := K()
			VCMPPD(Imm(cmpPDLtOQ), fmax, a, l.valid, ok)
			VCMPPD(Imm(cmpPDGeOQ), kLo, kk, ok, ok)
			VCMPPD(Imm(cmpPDLeOQ), kHi, kk, ok, ok)
			in := K()
			VCMPPD(Imm(cmpPDLtOQ), gap, ar, ok, in)
			z := K()
			VCMPPD(Imm(cmpPDEqOQ), zero, r, ok, z)
			KORB(in, z, in)
			l.badK = K()
			KXORB(in, l.valid, l.badK) // valid and not decided (decided lanes are valid)
			ki := isa.Vec()
			VCVTPD2QQ(kk, ki)
			out = k.mulLow(ki, step)
		} else {
			ok := isa.Vec()
			VCMPPD(Imm(cmpPDLtOQ), fmax, a, ok)
			t := isa.Vec()
			VCMPPD(Imm(cmpPDGeOQ), kLo, kk, t)
			VANDPD(t, ok, ok)
			VCMPPD(Imm(cmpPDLeOQ), kHi, kk, t)
			VANDPD(t, ok, ok)
			VCMPPD(Imm(cmpPDLtOQ), gap, ar, t)
			z := isa.Vec()
			VCMPPD(Imm(cmpPDEqOQ), zero, r, z)
			VORPD(z, t, t)
			VANDPD(t, ok, ok)
			VORPD(l.nat, ok, ok) // decided or NaT
			l.badV = isa.Vec()
			VPXOR(ones, ok, l.badV)
			ki := isa.Vec()
			VADDPD(magic, kk, ki)
			VPSUBQ(magic, ki, ki) // k as an int64
			out = k.mulLow(ki, step)
		}
		VPADDQ(base, out, out)
		l.out = k.keepNaT(out, &l)
		return l
	})
	k.finish(c, false)
}

var dwordMask *Mem

// dwordSwapMask is the VPSHUFB control that reverses the bytes of every
// 32-bit lane of a YMM register, declared once.
func dwordSwapMask() Mem {
	if dwordMask == nil {
		m := GLOBL("reverse_bytes_in_dwords", RODATA|NOPTR)
		for i := 0; i < 4; i++ {
			DATA(8*i, U64(0x0405060700010203+uint64(i%2)*0x0808080808080808))
		}
		dwordMask = &m
	}
	return *dwordMask
}

// widenFloat32: dst[i] = the float64 bits of the float32 at src[4i:]
// (byte-reversed first with swap), the stage the CF float loops read
// narrow stored floats from. VCVTPS2PD is exact (every float32 is a
// float64) and quiets a signalling NaN, as Go's float64(float32) does.
func widenFloat32(isa gen.ISA, swap bool) {
	name := "widenFloat32"
	if swap {
		name += "Swap"
	}
	name += isa.Name
	TEXT(name, NOSPLIT, "func(dst []uint64, src []byte) (n int)")
	Pragma("noescape")
	doc := []string{name + " stores float64(float32 at src[4i:]) as bits into dst[i]",
		"for the leading n elements, n <= min(len(dst), len(src)/4) a multiple",
		"of the vector width; src is read unaligned."}
	if swap {
		doc = append(doc, "The float32 words are byte-reversed.")
	}
	Doc(doc...)
	dst := Load(Param("dst").Base(), GP64())
	length := Load(Param("dst").Len(), GP64())
	src := Load(Param("src").Base(), GP64())
	srcLen := Load(Param("src").Len(), GP64())
	SHRQ(Imm(2), srcLen)
	CMPQ(srcLen, length)
	CMOVQLT(srcLen, length)
	var mask reg.VecVirtual
	if swap {
		mask = YMM()
		VMOVDQU(dwordSwapMask(), mask)
	}
	idx := GP64()
	XORQ(idx, idx)
	half := func() reg.VecVirtual { // the float32 half of a vector
		if isa.Lanes == 8 {
			return YMM()
		}
		return XMM()
	}
	gen.Loop("vectors", idx, length, isa.Lanes, func() {
		h := half()
		VMOVDQU(Mem{Base: src, Index: idx, Scale: 4}, h)
		if swap {
			if isa.Lanes == 8 {
				VPSHUFB(mask, h, h)
			} else {
				VPSHUFB(mask.AsX(), h, h)
			}
		}
		v := isa.Vec()
		VCVTPS2PD(h, v)
		isa.Store(v, gen.Elem(dst, idx, 0))
	})
	Store(idx, ReturnIndex(0))
	gen.ReturnAfterVector()
}
