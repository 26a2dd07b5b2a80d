package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The AVX-512 VBMI kernels do 64 elements (512 bytes) per iteration with
// 24 permutes instead of the 56 shuffles and inserts of the lane kernels.
// Elements are taken in pairs of 64-byte vectors (16 elements, c = 0..3);
// W(c, b) is byte b of pair c's 16 elements (16 bytes), and plane b of the
// block is [W(0,b) W(1,b) W(2,b) W(3,b)], one per 128-bit lane.
//
// Shuffle:
//
//	U(c,h)     = VPERMT2B of the pair          = [W(c,4h) W(c,4h+1) W(c,4h+2) W(c,4h+3)]
//	X(g,h,s)   = VSHUFI64X2 of U(2g,h), U(2g+1,h): lanes 2s, 2s+1 of each
//	           = [W(2g,b0) W(2g,b0+1) W(2g+1,b0) W(2g+1,b0+1)], b0 = 4h+2s
//	plane(b0+t) = VSHUFI64X2 of X(0,h,s), X(1,h,s): lanes t, 2+t of each
//
// Unshuffle runs the mirror image (lane selects, then VPERMT2B back into
// element order).

var (
	zmm = []reg.VecPhysical{reg.Z0, reg.Z1, reg.Z2, reg.Z3, reg.Z4, reg.Z5, reg.Z6, reg.Z7,
		reg.Z8, reg.Z9, reg.Z10, reg.Z11, reg.Z12, reg.Z13, reg.Z14, reg.Z15,
		reg.Z16, reg.Z17, reg.Z18, reg.Z19, reg.Z20, reg.Z21, reg.Z22, reg.Z23,
		reg.Z24, reg.Z25, reg.Z26, reg.Z27, reg.Z28, reg.Z29, reg.Z30, reg.Z31}
	idx0, idx1 = reg.Z30, reg.Z31 // the two VPERMT2B index vectors
)

// permTable declares 64 VPERMT2B indexes: output byte p takes byte from(p)
// of the 128-byte concatenation of the two tables.
func permTable(name string, from func(p int) int) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for q := 0; q < 8; q++ {
		var w uint64
		for k := 0; k < 8; k++ {
			w |= uint64(from(8*q+k)) << (8 * k)
		}
		DATA(8*q, U64(w))
	}
	return m
}

// lanes4 is a VSHUFI64X2 immediate: result lanes 0, 1 are lanes a, b of
// the first source, lanes 2, 3 lanes c, d of the second.
func lanes4(a, b, c, d int) U8 { return U8(a | b<<2 | c<<4 | d<<6) }

// shuffle128 emits dst = [first.lane(a) first.lane(b) second.lane(c) second.lane(d)].
func shuffle128(first, second reg.VecPhysical, a, b, c, d int, dst reg.VecPhysical) {
	VSHUFI64X2(lanes4(a, b, c, d), second, first, dst)
}

func shuffleVBMI() {
	// U(c,h) byte p: lane p/16 is byte b = 4h+p/16 of element p%16 of the pair.
	var tables [2]Mem
	for h := range tables {
		tables[h] = permTable([]string{"shuffle8_vbmi_h0", "shuffle8_vbmi_h1"}[h], func(p int) int {
			return 8*(p%16) + 4*h + p/16
		})
	}
	function("shuffle8AVX512VBMI", 64, false, func() {
		VMOVDQU64(tables[0], idx0)
		VMOVDQU64(tables[1], idx1)
	}, func(f *frame) {
		u := func(c, h int) reg.VecPhysical { return zmm[2*c+h] }
		for c := 0; c < 4; c++ {
			for h, idx := range []reg.VecPhysical{idx0, idx1} {
				VMOVDQU64(Mem{Base: f.elems, Disp: 128 * c}, u(c, h))
				VPERMT2B(Mem{Base: f.elems, Disp: 128*c + 64}, idx, u(c, h))
			}
		}
		x := func(g, h, s int) reg.VecPhysical { return zmm[8+4*g+2*h+s] }
		for g := 0; g < 2; g++ {
			for h := 0; h < 2; h++ {
				for s := 0; s < 2; s++ {
					shuffle128(u(2*g, h), u(2*g+1, h), 2*s, 2*s+1, 2*s, 2*s+1, x(g, h, s))
				}
			}
		}
		for h := 0; h < 2; h++ {
			for s := 0; s < 2; s++ {
				for t := 0; t < 2; t++ {
					b := 4*h + 2*s + t
					p := zmm[16+b]
					shuffle128(x(0, h, s), x(1, h, s), t, 2+t, t, 2+t, p)
					VMOVDQU64(p, f.plane(b))
				}
			}
		}
	})
}

func unshuffleVBMI() {
	// Element e of the pair, byte b, comes from U(c, b/4) lane b%4 byte
	// e: the first 8 elements from one table, the next 8 from the other.
	var tables [2]Mem
	for half := range tables {
		tables[half] = permTable([]string{"unshuffle8_vbmi_lo", "unshuffle8_vbmi_hi"}[half], func(p int) int {
			e, b := 8*half+p/8, p%8
			return 64*(b/4) + 16*(b%4) + e
		})
	}
	function("unshuffle8AVX512VBMI", 64, true, func() {
		VMOVDQU64(tables[0], idx0)
		VMOVDQU64(tables[1], idx1)
	}, func(f *frame) {
		p := func(b int) reg.VecPhysical { return zmm[16+b] }
		for b := 0; b < 8; b++ {
			VMOVDQU64(f.plane(b), p(b))
		}
		// X'(g,h,s) = [W(2g,b0) W(2g+1,b0) W(2g,b0+1) W(2g+1,b0+1)]
		x := func(g, h, s int) reg.VecPhysical { return zmm[8+4*g+2*h+s] }
		for h := 0; h < 2; h++ {
			for s := 0; s < 2; s++ {
				b0 := 4*h + 2*s
				shuffle128(p(b0), p(b0+1), 0, 1, 0, 1, x(0, h, s))
				shuffle128(p(b0), p(b0+1), 2, 3, 2, 3, x(1, h, s))
			}
		}
		// U(c,h) = [W(c,4h) .. W(c,4h+3)]
		u := func(c, h int) reg.VecPhysical { return zmm[2*c+h] }
		for g := 0; g < 2; g++ {
			for h := 0; h < 2; h++ {
				shuffle128(x(g, h, 0), x(g, h, 1), 0, 2, 0, 2, u(2*g, h))
				shuffle128(x(g, h, 0), x(g, h, 1), 1, 3, 1, 3, u(2*g+1, h))
			}
		}
		for c := 0; c < 4; c++ {
			for half, idx := range []reg.VecPhysical{idx0, idx1} {
				v := zmm[20+half]
				VMOVDQA64(u(c, 0), v)
				VPERMT2B(u(c, 1), idx, v)
				VMOVDQU64(v, Mem{Base: f.elems, Disp: 128*c + 64*half})
			}
		}
	})
}
