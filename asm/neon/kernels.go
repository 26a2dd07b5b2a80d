package main

import "fmt"

// A kernel is one TEXT symbol in kernels/<file>_arm64.s with its Go
// declaration in kernels/<file>_arm64.go; the kernels of one op share the
// pair, as the amd64 ones share <op>_amd64.{s,go}.
type kernel struct {
	file  string // the op: kernels/<file>_arm64.s and <file>_arm64.go
	name  string // TEXT symbol and Go function name
	doc   string // Go doc comment (also the .s file's header comment)
	goSig string // Go signature after "func name"
	args  int    // argument+result frame size in bytes
	emit  func(a *asm)
}

// fileDoc is the header comment of each generated pair.
var fileDoc = map[string]string{
	"byteswap": "NEON byte swap of 8-byte elements.",
	"validity": "NEON NaT count and validity bitmap.",
	"minmax":   "NEON min/max of the non-NaT values.",
	"rescale":  "The rescale loops in scalar MUL/UMULH (AdvSIMD has no 64-bit lane multiply).",
	"shuffle":  "NEON byte shuffle and unshuffle of 8-byte elements (Blosc's shuffle).",
	"cf":       "NEON CF float decoding by the fast check of the shortest rule.",
	"calshift": "NEON run of one shift of the CF calendar conversion.",
}

// Block sizes, in words per loop iteration: 8 words are four 128-bit
// registers, one VLD1 of 64 bytes. Validity takes 16 so that each iteration
// stores a whole 16-bit halfword of bitmap.
const (
	blockByteSwap = 8
	blockCountNaT = 8
	blockValidity = 16
	blockMinMax   = 8
)

// kernelList is every kernel, in output order; the rescale kernels
// (rescale.go), the shuffle (shuffle.go), the CF fast check (cfshortest.go)
// and the calendar shift (calshift.go) follow the NEON primitives.
var kernelList = append(append([]kernel{
	{
		file: "byteswap", name: "byteSwapNEON",
		doc: fmt.Sprintf(`byteSwapNEON sets dst[i] = bits.ReverseBytes64(src[i]) for the first
n = len(src) rounded down to a multiple of %d elements and returns n.
len(dst) >= len(src); dst may be src (each block is loaded before it is stored).`, blockByteSwap),
		goSig: "(dst, src []uint64) (n int)", args: 56, emit: emitByteSwap,
	},
	{
		file: "validity", name: "countNaTNEON",
		doc: fmt.Sprintf(`countNaTNEON counts the NaT words among the first n = len(src) rounded
down to a multiple of %d elements. swap: the words are byte-reversed, so
NaT is the pattern 0x80 rather than 1<<63 (no swapping needed to find it).`, blockCountNaT),
		goSig: "(src []uint64, swap bool) (n, nat int)", args: 48, emit: emitCountNaT,
	},
	{
		file: "validity", name: "validityNEON",
		doc: fmt.Sprintf(`validityNEON writes the validity bitmap (Arrow layout: bit i of byte i/8,
least significant first, 1 = not NaT) of the first n = len(src) rounded
down to a multiple of %d elements into bitmap[:n/8], whole bytes, and
returns n and the number of NaT among them. len(bitmap) >= len(src)/8.`, blockValidity),
		goSig: "(bitmap []byte, src []uint64, swap bool) (n, nat int)", args: 72, emit: emitValidity,
	},
	{
		file: "minmax", name: "minMaxNEON",
		doc: fmt.Sprintf(`minMaxNEON returns the least and greatest non-NaT value among the first
n = len(src) rounded down to a multiple of %d elements (lo = MaxInt64 and
hi = MinInt64 when there is none). swap: the words are byte-reversed.`, blockMinMax),
		goSig: "(src []uint64, swap bool) (n int, lo, hi int64)", args: 56, emit: emitMinMax,
	},
}, rescaleKernels...), append(shuffleKernels, append(cfKernels, calshiftKernels...)...)...)

// log2 of a block size, for the shifts that split a length into blocks.
func log2(n int) int {
	s := 0
	for 1<<s < n {
		s++
	}
	if 1<<s != n {
		panic(fmt.Sprintf("neon: block size %d is not a power of two", n))
	}
	return s
}

// vlist spells a VLD1/VST1 register list of four consecutive registers.
func vlist(first int, arr string) string {
	return fmt.Sprintf("[V%d.%s, V%d.%s, V%d.%s, V%d.%s]", first, arr, first+1, arr, first+2, arr, first+3, arr)
}

// blocks loads len from lenArg into R1, leaves the iteration count in R5 and
// stores n = R5*block into the result slot nArg.
func blocks(a *asm, lenArg string, block int, nArg string) {
	a.op("MOVD %s, R1", lenArg)
	a.op("LSR $%d, R1, R5", log2(block))
	a.op("LSL $%d, R5, R6", log2(block))
	a.op("MOVD R6, %s", nArg)
}

// natPattern puts NaT as it sits in memory into both lanes of V31: 1<<63,
// or 0x80 when the words are byte-reversed (swap+off(FP) is non-zero).
func natPattern(a *asm, swapArg string) {
	a.op("MOVBU %s, R2", swapArg)
	a.op("MOVD $0x8000000000000000, R3")
	a.op("MOVD $0x80, R4")
	a.op("CMP $0, R2")
	a.op("CSEL NE, R4, R3, R3")
	a.op("VDUP R3, V31.D2")
}

func emitByteSwap(a *asm) {
	a.op("MOVD dst_base+0(FP), R0")
	a.op("MOVD src_base+24(FP), R7")
	blocks(a, "src_len+32(FP)", blockByteSwap, "n+48(FP)")
	a.op("CBZ R5, done")
	a.label("loop")
	a.op("VLD1.P 64(R7), %s", vlist(0, "B16"))
	for v := 0; v < 4; v++ {
		a.op("VREV64 V%d.B16, V%d.B16", v, v)
	}
	a.op("VST1.P %s, 64(R0)", vlist(0, "B16"))
	a.op("SUB $1, R5")
	a.op("CBNZ R5, loop")
	a.label("done")
	a.op("RET")
}

func emitCountNaT(a *asm) {
	a.op("MOVD src_base+0(FP), R0")
	blocks(a, "src_len+8(FP)", blockCountNaT, "n+32(FP)")
	natPattern(a, "swap+24(FP)")
	a.comment("V16-V19 count per lane: a NaT lane compares to all ones (-1), which is subtracted")
	for v := 16; v < 20; v++ {
		a.op("VEOR V%d.B16, V%d.B16, V%d.B16", v, v, v)
	}
	a.op("CBZ R5, reduce")
	a.label("loop")
	a.op("VLD1.P 64(R0), %s", vlist(0, "D2"))
	for v := 0; v < 4; v++ {
		a.op("VCMEQ V31.D2, V%d.D2, V%d.D2", v, v)
	}
	for v := 0; v < 4; v++ {
		a.op("VSUB V%d.D2, V%d.D2, V%d.D2", v, 16+v, 16+v)
	}
	a.op("SUB $1, R5")
	a.op("CBNZ R5, loop")
	a.label("reduce")
	a.op("VADD V17.D2, V16.D2, V16.D2")
	a.op("VADD V19.D2, V18.D2, V18.D2")
	a.op("VADD V18.D2, V16.D2, V16.D2")
	a.word(addpScalar(16, 16))
	a.op("FMOVD F16, R7")
	a.op("MOVD R7, nat+40(FP)")
	a.op("RET")
}

func emitValidity(a *asm) {
	a.op("MOVD bitmap_base+0(FP), R0")
	a.op("MOVD src_base+24(FP), R7")
	blocks(a, "src_len+32(FP)", blockValidity, "n+56(FP)")
	natPattern(a, "swap+48(FP)")
	a.comment("V24-V27 hold each lane's bit weight within a byte: {1,2} {4,8} {16,32} {64,128}")
	for i := 0; i < 8; i++ {
		a.op("MOVD $%d, R8", 1<<i)
		a.op("VMOV R8, V%d.D[%d]", 24+i/2, i%2)
	}
	a.comment("V30 counts NaT per lane (a NaT lane compares to -1, which is subtracted)")
	a.op("VEOR V30.B16, V30.B16, V30.B16")
	a.op("CBZ R5, reduce")
	a.label("loop")
	a.op("VLD1.P 64(R7), %s", vlist(0, "D2"))
	a.op("VLD1.P 64(R7), %s", vlist(4, "D2"))
	for v := 0; v < 8; v++ {
		a.op("VCMEQ V31.D2, V%d.D2, V%d.D2", v, v)
	}
	a.comment("count: sum the eight masks, subtract from V30")
	a.op("VADD V1.D2, V0.D2, V16.D2")
	a.op("VADD V3.D2, V2.D2, V17.D2")
	a.op("VADD V5.D2, V4.D2, V18.D2")
	a.op("VADD V7.D2, V6.D2, V19.D2")
	a.op("VADD V17.D2, V16.D2, V16.D2")
	a.op("VADD V19.D2, V18.D2, V18.D2")
	a.op("VADD V18.D2, V16.D2, V16.D2")
	a.op("VSUB V16.D2, V30.D2, V30.D2")
	a.comment("bitmap: keep each NaT lane's weight and OR them; words 8-15 move to the high byte")
	for v := 0; v < 8; v++ {
		a.op("VAND V%d.B16, V%d.B16, V%d.B16", 24+v%4, v, v)
	}
	a.op("VORR V1.B16, V0.B16, V0.B16")
	a.op("VORR V3.B16, V2.B16, V2.B16")
	a.op("VORR V2.B16, V0.B16, V0.B16")
	a.op("VORR V5.B16, V4.B16, V4.B16")
	a.op("VORR V7.B16, V6.B16, V6.B16")
	a.op("VORR V6.B16, V4.B16, V4.B16")
	a.op("VSHL $8, V4.D2, V4.D2")
	a.op("VORR V4.B16, V0.B16, V0.B16")
	a.comment("lane 0 has the even words' bits, lane 1 the odd ones': disjoint, so add = or")
	a.op("VADDP V0.D2, V0.D2, V0.D2")
	a.op("VMOV V0.D[0], R4")
	a.comment("the bits say NaT; the bitmap says valid")
	a.op("EOR $0xffff, R4")
	a.op("MOVH.P R4, 2(R0)")
	a.op("SUB $1, R5")
	a.op("CBNZ R5, loop")
	a.label("reduce")
	a.word(addpScalar(30, 30))
	a.op("FMOVD F30, R6")
	a.op("MOVD R6, nat+64(FP)")
	a.op("RET")
}

// minMaxStep folds the four value registers V0-V3 into the running minima
// V16-V19 and maxima V20-V23. NaT (MinInt64) can never raise a maximum, so
// only the minimum needs it masked: NaT + (-1), the CMEQ mask, wraps to
// MaxInt64, which can never lower a minimum. V4-V15 are scratch.
func minMaxStep(a *asm) {
	for v := 0; v < 4; v++ {
		a.op("VCMEQ V31.D2, V%d.D2, V%d.D2", v, 4+v)
	}
	for v := 0; v < 4; v++ {
		a.op("VADD V%d.D2, V%d.D2, V%d.D2", v, 4+v, 4+v)
	}
	for v := 0; v < 4; v++ {
		a.word(cmgt(d2, 8+v, 16+v, 4+v)) // min_v > x: take x
		a.word(cmgt(d2, 12+v, v, 20+v))  // x > max_v: take x
	}
	for v := 0; v < 4; v++ {
		a.op("VBIT V%d.B16, V%d.B16, V%d.B16", 8+v, 4+v, 16+v)
		a.op("VBIT V%d.B16, V%d.B16, V%d.B16", 12+v, v, 20+v)
	}
}

func emitMinMax(a *asm) {
	a.op("MOVD src_base+0(FP), R0")
	blocks(a, "src_len+8(FP)", blockMinMax, "n+32(FP)")
	a.comment("V31 = NaT, V30 = MaxInt64 (after any byte swap the values are native)")
	a.op("MOVD $0x8000000000000000, R3")
	a.op("VDUP R3, V31.D2")
	a.op("MOVD $0x7fffffffffffffff, R3")
	a.op("VDUP R3, V30.D2")
	for v := 0; v < 4; v++ {
		a.op("VMOV V30.B16, V%d.B16", 16+v)
		a.op("VMOV V31.B16, V%d.B16", 20+v)
	}
	a.op("CBZ R5, reduce")
	a.op("MOVBU swap+24(FP), R2")
	a.op("CBNZ R2, swapped")
	a.label("native")
	a.op("VLD1.P 64(R0), %s", vlist(0, "D2"))
	minMaxStep(a)
	a.op("SUB $1, R5")
	a.op("CBNZ R5, native")
	a.op("B reduce")
	a.label("swapped")
	a.op("VLD1.P 64(R0), %s", vlist(0, "B16"))
	for v := 0; v < 4; v++ {
		a.op("VREV64 V%d.B16, V%d.B16", v, v)
	}
	minMaxStep(a)
	a.op("SUB $1, R5")
	a.op("CBNZ R5, swapped")
	a.label("reduce")
	a.comment("four accumulators to one, then its two lanes in scalar registers")
	for _, p := range [][2]int{{16, 17}, {18, 19}, {16, 18}} {
		a.word(cmgt(d2, 8, p[0], p[1]))
		a.op("VBIT V8.B16, V%d.B16, V%d.B16", p[1], p[0])
	}
	for _, p := range [][2]int{{20, 21}, {22, 23}, {20, 22}} {
		a.word(cmgt(d2, 8, p[1], p[0]))
		a.op("VBIT V8.B16, V%d.B16, V%d.B16", p[1], p[0])
	}
	a.op("VMOV V16.D[0], R3")
	a.op("VMOV V16.D[1], R4")
	a.op("CMP R4, R3")
	a.op("CSEL LT, R3, R4, R3")
	a.op("MOVD R3, lo+40(FP)")
	a.op("VMOV V20.D[0], R3")
	a.op("VMOV V20.D[1], R4")
	a.op("CMP R4, R3")
	a.op("CSEL GT, R3, R4, R3")
	a.op("MOVD R3, hi+48(FP)")
	a.op("RET")
}
