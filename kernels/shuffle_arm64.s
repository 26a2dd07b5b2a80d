//go:build !purego

#include "textflag.h"

// Byte shuffle of 8-byte elements with NEON, 16 elements (128 bytes) per
// iteration. VLD4 of 64 bytes de-interleaves by 4: register k gets bytes
// k and k+4 of each of 8 elements, alternating. VUZP1/VUZP2 across the two
// halves' registers k then separate byte k (even positions) from byte
// k+4 (odd positions) of all 16 elements: planes k and k+4. Unshuffle runs
// the inverse: VZIP1/VZIP2 of planes k and k+4, then VST4.
//
// R0: elements (src for shuffle, dst for unshuffle), R1..R8: planes 0..7,
// R9: iterations left.

// func shuffle8NEON(dst, src []byte, stride int) (n int)
TEXT ·shuffle8NEON(SB), NOSPLIT, $0-64
	MOVD dst_base+0(FP), R1
	MOVD src_base+24(FP), R0
	MOVD src_len+32(FP), R9
	MOVD stride+48(FP), R10
	LSR  $7, R9, R9 // 16 elements = 128 bytes per iteration
	LSL  $4, R9, R11
	MOVD R11, n+56(FP)
	CBZ  R9, shuffle_done
	ADD  R10, R1, R2
	ADD  R10, R2, R3
	ADD  R10, R3, R4
	ADD  R10, R4, R5
	ADD  R10, R5, R6
	ADD  R10, R6, R7
	ADD  R10, R7, R8

shuffle_loop:
	VLD4.P 64(R0), [V0.B16, V1.B16, V2.B16, V3.B16]
	VLD4.P 64(R0), [V4.B16, V5.B16, V6.B16, V7.B16]
	VUZP1  V4.B16, V0.B16, V16.B16
	VUZP2  V4.B16, V0.B16, V20.B16
	VUZP1  V5.B16, V1.B16, V17.B16
	VUZP2  V5.B16, V1.B16, V21.B16
	VUZP1  V6.B16, V2.B16, V18.B16
	VUZP2  V6.B16, V2.B16, V22.B16
	VUZP1  V7.B16, V3.B16, V19.B16
	VUZP2  V7.B16, V3.B16, V23.B16
	VST1.P [V16.B16], 16(R1)
	VST1.P [V17.B16], 16(R2)
	VST1.P [V18.B16], 16(R3)
	VST1.P [V19.B16], 16(R4)
	VST1.P [V20.B16], 16(R5)
	VST1.P [V21.B16], 16(R6)
	VST1.P [V22.B16], 16(R7)
	VST1.P [V23.B16], 16(R8)
	SUBS   $1, R9, R9
	BNE    shuffle_loop

shuffle_done:
	RET

// func unshuffle8NEON(dst, src []byte, stride int) (n int)
TEXT ·unshuffle8NEON(SB), NOSPLIT, $0-64
	MOVD dst_base+0(FP), R0
	MOVD dst_len+8(FP), R9
	MOVD src_base+24(FP), R1
	MOVD stride+48(FP), R10
	LSR  $7, R9, R9
	LSL  $4, R9, R11
	MOVD R11, n+56(FP)
	CBZ  R9, unshuffle_done
	ADD  R10, R1, R2
	ADD  R10, R2, R3
	ADD  R10, R3, R4
	ADD  R10, R4, R5
	ADD  R10, R5, R6
	ADD  R10, R6, R7
	ADD  R10, R7, R8

unshuffle_loop:
	VLD1.P 16(R1), [V16.B16]
	VLD1.P 16(R2), [V17.B16]
	VLD1.P 16(R3), [V18.B16]
	VLD1.P 16(R4), [V19.B16]
	VLD1.P 16(R5), [V20.B16]
	VLD1.P 16(R6), [V21.B16]
	VLD1.P 16(R7), [V22.B16]
	VLD1.P 16(R8), [V23.B16]
	VZIP1  V20.B16, V16.B16, V0.B16
	VZIP2  V20.B16, V16.B16, V4.B16
	VZIP1  V21.B16, V17.B16, V1.B16
	VZIP2  V21.B16, V17.B16, V5.B16
	VZIP1  V22.B16, V18.B16, V2.B16
	VZIP2  V22.B16, V18.B16, V6.B16
	VZIP1  V23.B16, V19.B16, V3.B16
	VZIP2  V23.B16, V19.B16, V7.B16
	VST4.P [V0.B16, V1.B16, V2.B16, V3.B16], 64(R0)
	VST4.P [V4.B16, V5.B16, V6.B16, V7.B16], 64(R0)
	SUBS   $1, R9, R9
	BNE    unshuffle_loop

unshuffle_done:
	RET
