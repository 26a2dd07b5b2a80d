// Command shuffle generates kernels/shuffle_amd64.s and
// kernels/shuffle_amd64.go: Blosc's byte
// shuffle of 8-byte elements (dst[j*stride+i] = src[8*i+j], eight byte
// planes) and its inverse.
//
// Every 128-bit lane works on its own group of 16 elements (128 bytes):
// the loads put chunk k (elements 2k, 2k+1) of group L into lane L of
// vector k, so all later work stays inside lanes, where shuffles are
// cheapest. Per lane:
//
//  1. VPSHUFB turns [a0..a7 b0..b7] into [a0 b0 a1 b1 .. a7 b7]: 16-bit
//     word j holds byte j of the lane's two elements.
//  2. An 8x8 transpose of words across the eight vectors (unpack words,
//     then dwords, then qwords) leaves word k of vector j = word j of
//     vector k: vector j holds byte j of elements 0..15 of every group,
//     in order, ready to store into plane j.
//
// The transpose is its own inverse, so unshuffle runs the same network on
// the planes and undoes step 1 with the inverse VPSHUFB.
package main

//go:generate go run . -pkg kernels -out ../../kernels/shuffle_amd64.s -stubs ../../kernels/shuffle_amd64.go

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/zarr-dt64/dt64/asm/internal/gen"
)

func main() {
	gen.Header()
	constants()
	for _, isa := range []gen.ISA{gen.AVX2, gen.AVX512} {
		kernel(isa, false)
		kernel(isa, true)
	}
	shuffleVBMI()
	unshuffleVBMI()
	Generate()
}

// Lane is 16 bytes: two elements, and in a plane 16 elements.
const laneBytes = 16

// groupBytes is the source bytes one lane works on: 16 elements.
const groupBytes = 8 * laneBytes

// lanes is the number of 128-bit lanes in a vector.
func lanes(isa gen.ISA) int { return isa.Bytes() / laneBytes }

// The VPSHUFB controls, repeated for every 128-bit lane (64 bytes cover
// both widths). interleave: [a0..a7 b0..b7] -> [a0 b0 .. a7 b7];
// deinterleave is its inverse.
var interleave, deinterleave Mem

func constants() {
	interleave = table("shuffle8_interleave", func(b int) int { return b/2 + 8*(b%2) })
	deinterleave = table("shuffle8_deinterleave", func(b int) int { return 2*(b%8) + b/8 })
}

// table declares a 64-byte VPSHUFB control: output byte b of every lane
// takes input byte from(b).
func table(name string, from func(b int) int) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for q := 0; q < 8; q++ {
		var w uint64
		for k := 0; k < 8; k++ {
			w |= uint64(from((8*q+k)%16)) << (8 * k)
		}
		DATA(8*q, U64(w))
	}
	return m
}

func kernel(isa gen.ISA, inverse bool) {
	name := gen.Name("shuffle8", isa)
	if inverse {
		name = gen.Name("unshuffle8", isa)
	}
	// The VPSHUFB control stays in memory (L1): AVX2 has 16 registers and
	// the transpose needs all of them.
	ctl := interleave
	if inverse {
		ctl = deinterleave
	}
	function(name, lanes(isa)*16, inverse, nil, func(f *frame) {
		vs := bank(isa, 0)
		if inverse {
			for j, v := range vs {
				load(isa, f.plane(j), v)
			}
			vs = transposeWords(isa, vs)
			for k, v := range vs {
				VPSHUFB(ctl, v, v)
				storeLanes(isa, v, f.elems, laneBytes*k)
			}
			return
		}
		for k, v := range vs {
			loadLanes(isa, f.elems, laneBytes*k, v)
			VPSHUFB(ctl, v, v)
		}
		vs = transposeWords(isa, vs)
		for j, v := range vs {
			store(isa, v, f.plane(j))
		}
	})
}

// frame is what a kernel's loop body addresses: the interleaved side
// (8 bytes per element) and the eight planes of the strided side.
type frame struct {
	elems, planes, planes4, stride, stride3 reg.Register
}

// plane is the address of the current block's bytes in plane j. Planes
// 0-3 are based at planes, 4-7 at planes4 = planes+4*stride; planes 3 and
// 7 go through stride3 = 3*stride (x86 scales go up to 8, not 3).
func (f *frame) plane(j int) Mem {
	base := f.planes
	if j >= 4 {
		base = f.planes4
	}
	switch j % 4 {
	case 0:
		return Mem{Base: base}
	case 1:
		return Mem{Base: base, Index: f.stride, Scale: 1}
	case 2:
		return Mem{Base: base, Index: f.stride, Scale: 2}
	}
	return Mem{Base: base, Index: f.stride3, Scale: 1}
}

// function emits a kernel that runs setup (if any) once and body once per
// block of elements (a power of two), and returns how many elements it did.
func function(name string, block int, inverse bool, setup func(), body func(f *frame)) {
	TEXT(name, NOSPLIT, "func(dst, src []byte, stride int) (n int)")
	Pragma("noescape")
	if inverse {
		Doc(name+" sets dst[8*i+j] = src[j*stride+i] for j < 8 and i < n, where n is",
			fmt.Sprintf("len(dst)/8 rounded down to a multiple of %d. The caller guarantees", block),
			"len(src) >= 7*stride+n; dst and src do not overlap.")
	} else {
		Doc(name+" sets dst[j*stride+i] = src[8*i+j] for j < 8 and i < n, where n is",
			fmt.Sprintf("len(src)/8 rounded down to a multiple of %d. The caller guarantees", block),
			"len(dst) >= 7*stride+n; dst and src do not overlap.")
	}
	f := &frame{}
	var count reg.Register
	if inverse {
		f.elems = Load(Param("dst").Base(), GP64())
		count = Load(Param("dst").Len(), GP64())
		f.planes = Load(Param("src").Base(), GP64())
	} else {
		f.planes = Load(Param("dst").Base(), GP64())
		f.elems = Load(Param("src").Base(), GP64())
		count = Load(Param("src").Len(), GP64())
	}
	f.stride = Load(Param("stride"), GP64())
	// n = elements rounded down to the block; count = iterations.
	SHRQ(Imm(3+uint64(log2(block))), count)
	n := GP64()
	MOVQ(count, n)
	SHLQ(Imm(uint64(log2(block))), n)
	Store(n, Return("n"))
	f.planes4 = GP64()
	LEAQ(Mem{Base: f.planes, Index: f.stride, Scale: 4}, f.planes4)
	f.stride3 = GP64()
	LEAQ(Mem{Base: f.stride, Index: f.stride, Scale: 2}, f.stride3)

	TESTQ(count, count)
	JZ(LabelRef(name + "_done"))
	if setup != nil {
		setup()
	}
	Label(name + "_loop")
	body(f)
	ADDQ(U32(8*block), f.elems)
	ADDQ(U32(block), f.planes)
	ADDQ(U32(block), f.planes4)
	DECQ(count)
	JNZ(LabelRef(name + "_loop"))
	Label(name + "_done")
	gen.ReturnAfterVector()
}

// load and store move whole vectors, unaligned.
func load(isa gen.ISA, m Mem, v reg.VecPhysical) {
	if isa.Lanes == 8 {
		VMOVDQU64(m, v)
	} else {
		VMOVDQU(m, v)
	}
}

func store(isa gen.ISA, v reg.VecPhysical, m Mem) {
	if isa.Lanes == 8 {
		VMOVDQU64(v, m)
	} else {
		VMOVDQU(v, m)
	}
}

// loadLanes fills lane L of v with the 16 bytes at base+disp+L*groupBytes.
func loadLanes(isa gen.ISA, base reg.Register, disp int, v reg.VecPhysical) {
	m := Mem{Base: base, Disp: disp}
	if isa.Lanes == 8 {
		VMOVDQU64(m, v.AsX())
		for l := 1; l < 4; l++ {
			VINSERTI32X4(U8(l), m.Offset(l*groupBytes), v, v)
		}
		return
	}
	VMOVDQU(m, v.AsX())
	VINSERTI128(U8(1), m.Offset(groupBytes), v, v)
}

// storeLanes is the inverse of loadLanes.
func storeLanes(isa gen.ISA, v reg.VecPhysical, base reg.Register, disp int) {
	m := Mem{Base: base, Disp: disp}
	if isa.Lanes == 8 {
		VMOVDQU64(v.AsX(), m)
		for l := 1; l < 4; l++ {
			VEXTRACTI32X4(U8(l), v, m.Offset(l*groupBytes))
		}
		return
	}
	VMOVDQU(v.AsX(), m)
	VEXTRACTI128(U8(1), v, m.Offset(groupBytes))
}

// transposeWords returns t with word k of t[j] = word j of v[k] in every
// 128-bit lane: three rounds of unpacks, each pairing vectors and
// interleaving ever wider units (words, dwords, qwords).
func transposeWords(isa gen.ISA, v []reg.VecPhysical) []reg.VecPhysical {
	p := bank(isa, 8)
	for m := 0; m < 4; m++ {
		VPUNPCKLWD(v[2*m+1], v[2*m], p[2*m])
		VPUNPCKHWD(v[2*m+1], v[2*m], p[2*m+1])
	}
	// p[2m] dword j = (v[2m] w_j, v[2m+1] w_j); p[2m+1]: words j+4.
	q := v // free once p holds everything
	for h := 0; h < 2; h++ {
		a, b, c, d := p[4*h], p[4*h+1], p[4*h+2], p[4*h+3]
		VPUNPCKLDQ(c, a, q[4*h+0]) // words 0,1 of v[4h..4h+3]
		VPUNPCKHDQ(c, a, q[4*h+1]) // words 2,3
		VPUNPCKLDQ(d, b, q[4*h+2]) // words 4,5
		VPUNPCKHDQ(d, b, q[4*h+3]) // words 6,7
	}
	t := p
	for m := 0; m < 4; m++ {
		VPUNPCKLQDQ(q[4+m], q[m], t[2*m])
		VPUNPCKHQDQ(q[4+m], q[m], t[2*m+1])
	}
	return t
}

// bank returns eight vector registers starting at number first. The
// vectors are assigned by hand, in two banks of eight that the transpose
// rounds alternate between: avo's allocator otherwise reaches for Y16 and
// up, which exist only with AVX-512 (the Go assembler would silently
// encode them with EVEX, and the AVX2 kernel would fault on an AVX2-only
// CPU).
func bank(isa gen.ISA, first int) []reg.VecPhysical {
	ys := []reg.VecPhysical{reg.Y0, reg.Y1, reg.Y2, reg.Y3, reg.Y4, reg.Y5, reg.Y6, reg.Y7,
		reg.Y8, reg.Y9, reg.Y10, reg.Y11, reg.Y12, reg.Y13, reg.Y14, reg.Y15}
	zs := []reg.VecPhysical{reg.Z0, reg.Z1, reg.Z2, reg.Z3, reg.Z4, reg.Z5, reg.Z6, reg.Z7,
		reg.Z8, reg.Z9, reg.Z10, reg.Z11, reg.Z12, reg.Z13, reg.Z14, reg.Z15}
	if isa.Lanes == 8 {
		return zs[first : first+8]
	}
	return ys[first : first+8]
}

func log2(x int) int {
	n := 0
	for x > 1 {
		x >>= 1
		n++
	}
	return n
}
