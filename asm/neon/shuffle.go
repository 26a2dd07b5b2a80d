package main

import "fmt"

// The byte shuffle of Blosc for 8-byte elements (Shuffle8, Unshuffle8),
// 16 elements (128 bytes) per iteration. VLD4 of 64 bytes de-interleaves
// by 4: register k gets bytes k and k+4 of each of 8 elements, alternating.
// VUZP1/VUZP2 across the two halves' registers k then separate byte k (even
// positions) from byte k+4 (odd positions) of all 16 elements: planes k and
// k+4. Unshuffle runs the inverse: VZIP1/VZIP2 of planes k and k+4, then
// VST4. Every instruction has a Go assembler spelling: no WORD encodings.
//
// R0: the elements (src for shuffle, dst for unshuffle), R1..R8: planes
// 0..7, R9: iterations left, R10: stride.

const blockShuffle = 16 // elements per iteration

var shuffleKernels = []kernel{
	{
		file: "shuffle", name: "shuffle8NEON",
		doc: fmt.Sprintf(`shuffle8NEON sets dst[j*stride+i] = src[8*i+j] for j < 8 and i < n, where
n is len(src)/8 rounded down to a multiple of %d. The caller guarantees
len(dst) >= 7*stride+n; dst and src do not overlap.`, blockShuffle),
		goSig: "(dst, src []byte, stride int) (n int)", args: 64, emit: emitShuffle8,
	},
	{
		file: "shuffle", name: "unshuffle8NEON",
		doc: fmt.Sprintf(`unshuffle8NEON sets dst[8*i+j] = src[j*stride+i] for j < 8 and i < n,
where n is len(dst)/8 rounded down to a multiple of %d. The caller
guarantees len(src) >= 7*stride+n; dst and src do not overlap.`, blockShuffle),
		goSig: "(dst, src []byte, stride int) (n int)", args: 64, emit: emitUnshuffle8,
	},
}

// planes points R2..R8 at planes 1..7, stride apart from R1 (plane 0).
func planes(a *asm) {
	for r := 2; r <= 8; r++ {
		a.op("ADD R10, R%d, R%d", r-1, r)
	}
}

// shuffleBlocks turns the byte length in R9 into iterations (R9) and
// stores n, in elements, into the result.
func shuffleBlocks(a *asm) {
	a.op("LSR $%d, R9, R9", log2(8*blockShuffle))
	a.op("LSL $%d, R9, R11", log2(blockShuffle))
	a.op("MOVD R11, n+56(FP)")
}

func emitShuffle8(a *asm) {
	a.op("MOVD dst_base+0(FP), R1")
	a.op("MOVD src_base+24(FP), R0")
	a.op("MOVD src_len+32(FP), R9")
	a.op("MOVD stride+48(FP), R10")
	shuffleBlocks(a)
	a.op("CBZ R9, done")
	planes(a)
	a.label("loop")
	a.op("VLD4.P 64(R0), %s", vlist(0, "B16"))
	a.op("VLD4.P 64(R0), %s", vlist(4, "B16"))
	for k := 0; k < 4; k++ {
		a.op("VUZP1 V%d.B16, V%d.B16, V%d.B16", 4+k, k, 16+k)
		a.op("VUZP2 V%d.B16, V%d.B16, V%d.B16", 4+k, k, 20+k)
	}
	for p := 0; p < 8; p++ {
		a.op("VST1.P [V%d.B16], 16(R%d)", 16+p, 1+p)
	}
	a.op("SUBS $1, R9, R9")
	a.op("BNE loop")
	a.label("done")
	a.op("RET")
}

func emitUnshuffle8(a *asm) {
	a.op("MOVD dst_base+0(FP), R0")
	a.op("MOVD dst_len+8(FP), R9")
	a.op("MOVD src_base+24(FP), R1")
	a.op("MOVD stride+48(FP), R10")
	shuffleBlocks(a)
	a.op("CBZ R9, done")
	planes(a)
	a.label("loop")
	for p := 0; p < 8; p++ {
		a.op("VLD1.P 16(R%d), [V%d.B16]", 1+p, 16+p)
	}
	for k := 0; k < 4; k++ {
		a.op("VZIP1 V%d.B16, V%d.B16, V%d.B16", 20+k, 16+k, k)
		a.op("VZIP2 V%d.B16, V%d.B16, V%d.B16", 20+k, 16+k, 4+k)
	}
	a.op("VST4.P %s, 64(R0)", vlist(0, "B16"))
	a.op("VST4.P %s, 64(R0)", vlist(4, "B16"))
	a.op("SUBS $1, R9, R9")
	a.op("BNE loop")
	a.label("done")
	a.op("RET")
}
