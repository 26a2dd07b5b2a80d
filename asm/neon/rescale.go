package main

import "fmt"

// The rescale loops: multiply with an overflow check, floor divide by a
// magic number, and multiply-divide. Each is the generic loop of the same
// name in kernels/linear.go transcribed instruction for instruction.
//
// They are scalar, not NEON, by choice. Every one of them needs 64x64-bit
// products (low half for v*k, q*num and the remainder checks, high half
// for the magic-number division), and AdvSIMD has no 64-bit lane multiply:
// built from 32-bit UMULL pieces, one high half costs four widening
// multiplies and about ten adds and shifts per two lanes, while MUL and
// UMULH are one instruction per element on every arm64 core. The scalar
// form also stops at the exact element that needs Go's exact path, with
// no per-block mask reduction. Speed could not be measured where this was
// written (qemu only), so the choice favours the code that is plainly
// correct; a UMULL version can replace any of the three behind the same
// Go declaration if a real core says it is faster.
//
// Structure shared by the three: the swap flags choose one of four
// copies of the loop (no per-element branch on them); each loop step
// converts blockRescale elements, one at a time, with post-incremented
// loads and stores; an element that must go to Go branches to done before
// anything of it is stored or counted, so n = (dst pointer - dst base)/8
// is exact whether the loop finished or stopped.

const blockRescale = 4

// Registers every rescale loop uses the same way. R16, R17 (linker
// scratch), R18 (platform), R26-R30 are never touched.
const (
	regDst   = "R0"  // next dst word
	regSrc   = "R1"  // next src word
	regIter  = "R2"  // blocks left
	regNaT   = "R3"  // 1<<63, NaT in registers (after any byte swap)
	regNat   = "R4"  // NaT count
	regLossy = "R5"  // lossy count
	regBase  = "R19" // dst at entry, to turn the dst pointer into n
)

// The element bodies use R6-R15 and R20-R23 as they like; R24 and R25 hold
// the swap flags while the loop is chosen, after the kernel's setup.

var rescaleKernels = []kernel{
	{
		file: "rescale", name: "mulCheckARM64",
		doc: fmt.Sprintf(`mulCheckARM64 is mulLoop for a prefix of src: dst[i] = v*k for the value
v of src[i] (byte-reversed when swapIn; the result byte-reversed when
swapOut) while lo <= v <= hi, NaT kept and counted. It stops before the
first non-NaT element outside [lo, hi], or at len(src) rounded down to a
multiple of %d, and returns how many elements it converted.
Needs MinInt64 < lo <= hi (so NaT is out of range) and len(dst) >= len(src);
dst may be src. Scalar MUL: AdvSIMD has no 64-bit lane multiply.`, blockRescale),
		goSig: "(dst, src []uint64, k uint64, lo, hi int64, swapIn, swapOut bool) (n, nat int)",
		args:  96, emit: emitMulCheck,
	},
	{
		file: "rescale", name: "floorDivARM64",
		doc: fmt.Sprintf(`floorDivARM64 is divLoop for a prefix of src: dst[i] = floor(v/d) for the
value v of src[i] (byte-reversed when swapIn; the result byte-reversed
when swapOut), computed as (hi64(u*magic) >> shift) ^ s with s = v>>63 and
u = v^s; NaT kept and counted. lossy counts the non-NaT elements with a
non-zero remainder. It converts len(src) rounded down to a multiple of %d.
len(dst) >= len(src); dst may be src. Scalar UMULH: AdvSIMD has no 64-bit
lane multiply.`, blockRescale),
		goSig: "(dst, src []uint64, d, magic uint64, shift uint, swapIn, swapOut bool) (n, nat, lossy int)",
		args:  104, emit: emitFloorDiv,
	},
	{
		file: "rescale", name: "mulDivARM64",
		doc: fmt.Sprintf(`mulDivARM64 is mulDivLoop for a prefix of src: with q, r = floordiv(v, d)
for the value v of src[i] (byte-reversed when swapIn), dst[i] =
q*num + floor(r*num/d) (byte-reversed when swapOut), both divisions by the
magic number; NaT kept and counted; lossy counts the non-NaT elements where
r*num is not a multiple of d. It stops before the first non-NaT element
whose q is outside [qlo, qhi], or at len(src) rounded down to a multiple
of %d, and returns how many elements it converted. Needs qlo <= qhi,
num*d < 2^63 and len(dst) >= len(src); dst may be src. Scalar MUL/UMULH:
AdvSIMD has no 64-bit lane multiply.`, blockRescale),
		goSig: "(dst, src []uint64, num, d, magic uint64, shift uint, qlo, qhi int64, swapIn, swapOut bool) (n, nat, lossy int)",
		args:  128, emit: emitMulDiv,
	},
	{
		file: "rescale", name: "cfMulAddARM64",
		doc: fmt.Sprintf(`cfMulAddARM64 is cfMulAddLoop for a prefix of src with at most one
missing value: dst[i] = v*a + b (wrapping) for the value v of src[i]
(byte-reversed when swapIn; the result byte-reversed when swapOut) while
lo <= v <= hi; v == miss, when hasMiss, is stored as NaT and counted. It
stops before the first other element, or at len(src) rounded down to a
multiple of %d, and returns how many elements it converted. Needs lo <= hi
and len(dst) >= len(src); dst may be src. Scalar MADD: AdvSIMD has no
64-bit lane multiply.`, blockRescale),
		goSig: "(dst, src []uint64, a, b uint64, lo, hi int64, miss uint64, hasMiss, swapIn, swapOut bool) (n, nat int)",
		args:  112, emit: emitCFMulAdd,
	},
}

// rescaleFrame names the Go arguments every rescale kernel shares and the
// frame offsets that differ: swapIn (swapOut is the next byte), and the
// results.
type rescaleFrame struct {
	swapIn        int
	n, nat, lossy int // lossy < 0: no lossy result
	setup         func(a *asm)
	element       func(a *asm, swapIn, swapOut bool)
	lanes         int // elements one element call converts (0: 1)
}

// emitRescale writes the frame-independent part of a rescale kernel: load
// the slices, count blocks, pick the loop for the swap flags, the four
// loops, and the exit that turns the dst pointer back into n.
func emitRescale(a *asm, f rescaleFrame) {
	a.op("MOVD dst_base+0(FP), %s", regDst)
	a.op("MOVD %s, %s", regDst, regBase)
	a.op("MOVD src_base+24(FP), %s", regSrc)
	a.op("MOVD src_len+32(FP), %s", regIter)
	a.op("LSR $%d, %s, %s", log2(blockRescale), regIter, regIter)
	a.op("MOVD $0x8000000000000000, %s", regNaT)
	a.op("MOVD ZR, %s", regNat)
	a.op("MOVD ZR, %s", regLossy)
	f.setup(a)
	a.op("CBZ %s, done", regIter)
	a.comment("one loop per (swapIn, swapOut), so the loops do not branch on them")
	a.op("MOVBU swapIn+%d(FP), R24", f.swapIn)
	a.op("MOVBU swapOut+%d(FP), R25", f.swapIn+1)
	a.op("CBNZ R24, swappedIn")
	a.op("CBNZ R25, loop01")
	a.op("B loop00")
	a.label("swappedIn")
	a.op("CBNZ R25, loop11")
	a.op("B loop10")
	for _, in := range []bool{false, true} {
		for _, out := range []bool{false, true} {
			a.label(fmt.Sprintf("loop%d%d", b2i(in), b2i(out)))
			lanes := max(f.lanes, 1)
			for e := 0; e < blockRescale; e += lanes {
				a.comment("element %d", e)
				f.element(a, in, out)
			}
			a.op("SUB $1, %s", regIter)
			a.op("CBNZ %s, loop%d%d", regIter, b2i(in), b2i(out))
			if !(in && out) { // the last loop falls through to done
				a.op("B done")
			}
		}
	}
	a.label("done")
	a.comment("n = words stored: the dst pointer has moved past each of them")
	a.op("SUB %s, %s, R7", regBase, regDst)
	a.op("LSR $3, R7, R7")
	a.op("MOVD R7, n+%d(FP)", f.n)
	a.op("MOVD %s, nat+%d(FP)", regNat, f.nat)
	if f.lossy >= 0 {
		a.op("MOVD %s, lossy+%d(FP)", regLossy, f.lossy)
	}
	a.op("RET")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// load reads the next src word into reg as a value.
func load(a *asm, reg string, swapIn bool) {
	a.op("MOVD.P 8(%s), %s", regSrc, reg)
	if swapIn {
		a.op("REV %s, %s", reg, reg)
	}
}

// store writes reg, a value, as the next dst word.
func store(a *asm, reg string, swapOut bool) {
	if swapOut {
		a.op("REV %s, %s", reg, reg)
	}
	a.op("MOVD.P %s, 8(%s)", reg, regDst)
}

// keepNaT replaces the result in res by NaT when the value in v is NaT,
// and counts it.
func keepNaT(a *asm, v, res string) {
	a.op("CMP %s, %s", regNaT, v)
	a.op("CSEL EQ, %s, %s, %s", regNaT, res, res)
	a.op("CINC EQ, %s, %s", regNat, regNat)
}

// Go's operand order, for reading the element bodies: CMP Rm, Rn sets the
// flags of Rn - Rm; CCMP cond, Rn, Rm, $nzcv compares Rn - Rm if cond
// holds, else sets the flags to nzcv ($4 = Z: "equal"); MSUB Rm, Ra, Rn, Rd
// is Rd = Ra - Rn*Rm; MADD Rm, Ra, Rn, Rd is Rd = Ra + Rn*Rm.

// emitMulCheck: R6 = k, R8 = lo, R9 = hi - lo. v is in range exactly when
// uint64(v - lo) <= uint64(hi - lo) (one compare instead of two; lo <= hi).
func emitMulCheck(a *asm) {
	emitRescale(a, rescaleFrame{
		swapIn: 72, n: 80, nat: 88, lossy: -1,
		setup: func(a *asm) {
			a.op("MOVD k+48(FP), R6")
			a.op("MOVD lo+56(FP), R8")
			a.op("MOVD hi+64(FP), R9")
			a.op("SUB R8, R9, R9")
		},
		element: func(a *asm, swapIn, swapOut bool) {
			load(a, "R7", swapIn)
			a.op("SUB R8, R7, R10")
			a.op("CMP R9, R10 // HI: v outside [lo, hi]")
			a.op("CCMP HI, R7, R3, $4 // outside: NE unless v is NaT; inside: EQ")
			a.op("BNE done")
			a.op("MUL R6, R7, R11")
			keepNaT(a, "R7", "R11")
			store(a, "R11", swapOut)
		},
	})
}

// emitFloorDiv: R6 = d, R8 = magic, R9 = shift, R10 = d-1.
func emitFloorDiv(a *asm) {
	emitRescale(a, rescaleFrame{
		swapIn: 72, n: 80, nat: 88, lossy: 96,
		setup: func(a *asm) {
			a.op("MOVD d+48(FP), R6")
			a.op("MOVD magic+56(FP), R8")
			a.op("MOVD shift+64(FP), R9")
			a.op("SUB $1, R6, R10")
		},
		element: func(a *asm, swapIn, swapOut bool) {
			load(a, "R7", swapIn)
			a.op("ASR $63, R7, R11 // s: all ones when v < 0")
			a.op("EOR R11, R7, R12 // u = v ^ s >= 0")
			a.op("UMULH R8, R12, R13")
			a.op("LSR R9, R13, R13 // qu = floor(u/d)")
			a.op("MSUB R6, R12, R13, R14 // u - qu*d")
			a.op("AND R10, R11, R15 // exact when that is 0 (v >= 0) or d-1 (v < 0)")
			a.op("CMP R15, R14")
			a.op("CCMP NE, R7, R3, $4 // NaT is never lossy")
			a.op("CINC NE, %s, %s", regLossy, regLossy)
			a.op("EOR R11, R13, R13 // q = qu ^ s")
			keepNaT(a, "R7", "R13")
			store(a, "R13", swapOut)
		},
	})
}

// emitMulDiv: R6 = num, R8 = d, R9 = magic, R10 = shift, R11 = qlo,
// R12 = qhi - qlo (the range test of emitMulCheck, on q).
func emitMulDiv(a *asm) {
	emitRescale(a, rescaleFrame{
		swapIn: 96, n: 104, nat: 112, lossy: 120,
		setup: func(a *asm) {
			a.op("MOVD num+48(FP), R6")
			a.op("MOVD d+56(FP), R8")
			a.op("MOVD magic+64(FP), R9")
			a.op("MOVD shift+72(FP), R10")
			a.op("MOVD qlo+80(FP), R11")
			a.op("MOVD qhi+88(FP), R12")
			a.op("SUB R11, R12, R12")
		},
		element: func(a *asm, swapIn, swapOut bool) {
			load(a, "R7", swapIn)
			a.op("ASR $63, R7, R13 // s")
			a.op("EOR R13, R7, R14 // u = v ^ s")
			a.op("UMULH R9, R14, R15")
			a.op("LSR R10, R15, R15 // qu")
			a.op("MSUB R8, R14, R15, R20 // u - qu*d, the truncated remainder of u")
			a.op("EOR R13, R15, R15 // q = floor(v/d)")
			a.op("EOR R13, R20, R20")
			a.op("AND R8, R13, R21")
			a.op("ADD R21, R20, R20 // r = floor remainder: (rem ^ s) + (d & s)")
			a.op("MUL R6, R20, R20 // rn = r*num < 2^63")
			a.op("UMULH R9, R20, R21")
			a.op("LSR R10, R21, R21 // t = floor(rn/d)")
			a.op("MADD R6, R21, R15, R22 // result = q*num + t")
			a.op("SUB R11, R15, R23")
			a.op("CMP R12, R23 // HI: q outside [qlo, qhi]")
			a.op("CCMP HI, R7, R3, $4 // outside: NE unless v is NaT")
			a.op("BNE done")
			a.op("MSUB R8, R20, R21, R23 // rn - t*d")
			a.op("CMP $0, R23")
			a.op("CCMP NE, R7, R3, $4 // NaT is never lossy")
			a.op("CINC NE, %s, %s", regLossy, regLossy)
			keepNaT(a, "R7", "R22")
			store(a, "R22", swapOut)
		},
	})
}

// emitCFMulAdd: R6 = a, R15 = b, R8 = lo, R9 = hi - lo, R12 = miss,
// R13 = hasMiss. R14 = 1 for a missing value; the range test is
// emitMulCheck's, with "missing" in place of "NaT".
func emitCFMulAdd(a *asm) {
	emitRescale(a, rescaleFrame{
		swapIn: 89, n: 96, nat: 104, lossy: -1,
		setup: func(a *asm) {
			a.op("MOVD a+48(FP), R6")
			a.op("MOVD b+56(FP), R15")
			a.op("MOVD lo+64(FP), R8")
			a.op("MOVD hi+72(FP), R9")
			a.op("SUB R8, R9, R9")
			a.op("MOVD miss+80(FP), R12")
			a.op("MOVBU hasMiss+88(FP), R13")
		},
		element: func(a *asm, swapIn, swapOut bool) {
			load(a, "R7", swapIn)
			a.op("CMP $0, R13")
			a.op("CCMP NE, R7, R12, $0 // with a missing value: EQ when v is it")
			a.op("CSET EQ, R14")
			a.op("SUB R8, R7, R10")
			a.op("CMP R9, R10 // HI: v outside [lo, hi]")
			a.op("CCMP HI, R14, $1, $4 // outside: NE unless v is missing; inside: EQ")
			a.op("BNE done")
			a.op("MADD R6, R15, R7, R11 // v*a + b")
			a.op("CMP $0, R14")
			a.op("CSEL NE, %s, R11, R11", regNaT)
			a.op("CINC NE, %s, %s", regNat, regNat)
			store(a, "R11", swapOut)
		},
	})
}
