package main

import (
	"github.com/zarr-dt64/dt64/asm/internal/cfargs"
)

// The CF fast check of the shortest rule (cf.FastCheck, proof in
// cf/fastcheck.go) on two float64 lanes per step: the float work in
// AdvSIMD (compares, FMUL, FRINTN, the fused FMLA residual, FCVTZS, all
// as WORDs), then k*Step + Base in scalar MADD (no 64-bit lane multiply)
// with NaT and the byte order per lane.

var cfKernels = []kernel{
	{
		file: "cf", name: "cfShortestNEON",
		doc: `cfShortestNEON stores the fast check's k*Step + Base into dst[i] for the
float64 f of src[i] (cf.FastCheck.Decide; c holds its constants as
kernels.cfCheckArgs; src words byte-reversed when swapIn, dst words when
swapOut) for the leading n elements, n even; NaN and the missing value
c[10] are stored as NaT and counted. It stops before the first pair of
elements holding one the check does not decide, or at len(src) rounded
down to a multiple of 4. len(dst) >= len(src); dst may be src.`,
		goSig: "(dst, src []uint64, c *[11]uint64, swapIn, swapOut bool) (n, nat int)",
		args:  80, emit: emitCFShortest,
	},
	{
		file: "cf", name: "widenFloat32NEON",
		doc: `widenFloat32NEON stores float64(float32 at src[4i:]) as bits into dst[i]
for the leading n elements, n <= min(len(dst), len(src)/4) a multiple of 4
(FCVTL, FCVTL2); the float32 words are byte-reversed when swap. src is
read unaligned.`,
		goSig: "(dst []uint64, src []byte, swap bool) (n int)",
		args:  64, emit: emitWidenFloat32,
	},
}

// Vector registers of emitCFShortest: V16-V25 hold the constants, V0-V8
// the lanes of one step.
const (
	vMul, vN1, vNegN2, vHalfN1, vGapBits, vMax, vKLo, vKHi, vMiss, vAbs = 16, 17, 18, 19, 20, 21, 22, 23, 24, 25
)

// emitCFShortest is a rescale loop (emitRescale: R0 dst, R1 src, R3 NaT,
// R4 the NaT count) whose element step converts two lanes; R6 = Step,
// R7 = Base, R12 the constants' address while they are loaded.
func emitCFShortest(a *asm) {
	emitRescale(a, rescaleFrame{
		swapIn: 56, n: 64, nat: 72, lossy: -1, lanes: 2,
		setup: func(a *asm) {
			a.op("MOVD c+48(FP), R12")
			for _, c := range []struct{ v, off int }{{vMul, cfargs.Mul}, {vN1, cfargs.N1}, {vNegN2, cfargs.N2}, {vHalfN1, cfargs.HalfN1},
				{vGapBits, cfargs.GapBits}, {vMax, cfargs.Max}, {vKLo, cfargs.KLo}, {vKHi, cfargs.KHi}, {vMiss, cfargs.Miss}} {
				a.op("MOVD %d(R12), R6", 8*c.off)
				if c.v == vNegN2 {
					a.op("EOR R3, R6, R6 // -N2: the residual is one FMLA onto -k*N2")
				}
				a.op("VDUP R6, V%d.D2", c.v)
			}
			a.op("MOVD $0x7fffffffffffffff, R6")
			a.op("VDUP R6, V%d.D2", vAbs)
			a.op("MOVD %d(R12), R6 // Step", 8*cfargs.Step)
			a.op("MOVD %d(R12), R7 // Base", 8*cfargs.Base)
		},
		element: cfShortestStep,
	})
}

// cfShortestStep converts the two lanes at R1 into R0, or branches to
// done before storing anything when one of them is valid and not decided.
func cfShortestStep(a *asm, swapIn, swapOut bool) {
	a.op("VLD1.P 16(R1), [V0.D2]")
	if swapIn {
		a.op("VREV64 V0.B16, V0.B16")
	}
	a.word(fp2d("fcmeq", 1, 0, 0))     // ordered: not NaN
	a.word(fp2d("fcmeq", 2, 0, vMiss)) // the missing value
	a.op("VEOR V2.B16, V1.B16, V1.B16 // valid (a missing value is ordered)")
	a.op("VAND V%d.B16, V0.B16, V3.B16 // |f|", vAbs)
	a.word(fp2d("fmul", 4, 0, vMul))
	a.word(fp2dOne("frintn", 4, 4)) // k
	a.word(fp2d("fmul", 5, 4, vNegN2))
	a.word(fp2d("fmla", 5, 0, vN1)) // r = f*N1 - k*N2, one rounding
	a.op("VSUB V%d.D2, V3.D2, V6.D2 // pred(|f|) bits", vGapBits)
	a.word(fp2d("fsub", 6, 3, 6))
	a.word(fp2d("fmul", 6, 6, vHalfN1)) // T = gap*N1/2
	a.op("VAND V%d.B16, V5.B16, V7.B16 // |r|", vAbs)
	a.word(fp2d("fcmgt", 7, 6, 7))  // |r| < T
	a.word(fp2dOne("fcmeq0", 5, 5)) // r == 0
	a.op("VORR V5.B16, V7.B16, V7.B16")
	a.word(fp2d("fcmgt", 8, vMax, 3)) // |f| < Max
	a.op("VAND V8.B16, V7.B16, V7.B16")
	a.word(fp2d("fcmge", 8, 4, vKLo))
	a.op("VAND V8.B16, V7.B16, V7.B16")
	a.word(fp2d("fcmge", 8, vKHi, 4))
	a.op("VAND V8.B16, V7.B16, V7.B16")
	a.op("VAND V1.B16, V7.B16, V7.B16 // decided")
	a.op("VEOR V1.B16, V7.B16, V7.B16 // valid and not decided")
	a.op("VMOV V7.D[0], R8")
	a.op("VMOV V7.D[1], R9")
	a.op("ORR R8, R9, R8")
	a.op("CBNZ R8, done")
	a.word(fp2dOne("fcvtzs", 4, 4)) // k is an integer below 2^51: exact
	a.op("VMOV V4.D[0], R8")
	a.op("VMOV V4.D[1], R9")
	a.op("MADD R6, R7, R8, R8 // k*Step + Base")
	a.op("MADD R6, R7, R9, R9")
	a.op("VMOV V1.D[0], R10")
	a.op("VMOV V1.D[1], R11")
	for _, l := range []struct{ mask, out string }{{"R10", "R8"}, {"R11", "R9"}} {
		a.op("CMP $0, %s", l.mask)
		a.op("CSEL EQ, R3, %s, %s // NaN or missing: NaT", l.out, l.out)
		a.op("CINC EQ, R4, R4")
		if swapOut {
			a.op("REV %s, %s", l.out, l.out)
		}
	}
	a.op("STP.P (R8, R9), 16(R0)")
}

// emitWidenFloat32: four float32 lanes per step, R4 steps.
func emitWidenFloat32(a *asm) {
	a.op("MOVD dst_base+0(FP), R0")
	a.op("MOVD src_base+24(FP), R1")
	a.op("MOVD src_len+32(FP), R2")
	a.op("LSR $2, R2, R2")
	a.op("MOVD dst_len+8(FP), R3")
	a.op("CMP R3, R2")
	a.op("CSEL LT, R2, R3, R2 // min(len(dst), len(src)/4)")
	a.op("LSR $2, R2, R4")
	a.op("LSL $2, R4, R5")
	a.op("MOVD R5, n+56(FP)")
	a.op("CBZ R4, done")
	a.op("MOVBU swap+48(FP), R6")
	a.op("CBNZ R6, swapped")
	for _, swap := range []bool{false, true} {
		label := "loop"
		if swap {
			label = "swapped"
		}
		a.label(label)
		a.op("VLD1.P 16(R1), [V0.B16]")
		if swap {
			a.op("VREV32 V0.B16, V0.B16")
		}
		a.word(fp2dOne("fcvtl", 1, 0))
		a.word(fp2dOne("fcvtl2", 2, 0))
		a.op("VST1.P [V1.D2, V2.D2], 32(R0)")
		a.op("SUB $1, R4")
		a.op("CBNZ R4, %s", label)
		if !swap {
			a.op("B done")
		}
	}
	a.label("done")
	a.op("RET")
}
