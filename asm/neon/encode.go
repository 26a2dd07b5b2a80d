package main

import "fmt"

// Encoders for the AdvSIMD instructions Go's arm64 assembler does not know.
// Each returns the 32-bit instruction word and its GNU spelling; the test
// assembles the spelling with aarch64-linux-gnu-as and compares the words,
// so a wrong bit here cannot reach a .s file unnoticed.

type encoded struct {
	bits uint32
	gnu  string
}

// arrangement is a vector shape: lane size (the "size" field) and whether
// the full 128-bit register is used (the "Q" bit).
type arrangement struct {
	name string // GNU suffix: "16b", "2d", ...
	size uint32 // log2(lane bytes)
	q    uint32
}

var (
	b8  = arrangement{"8b", 0, 0}
	b16 = arrangement{"16b", 0, 1}
	h4  = arrangement{"4h", 1, 0}
	h8  = arrangement{"8h", 1, 1}
	s2  = arrangement{"2s", 2, 0}
	s4  = arrangement{"4s", 2, 1}
	d2  = arrangement{"2d", 3, 1}
)

func vreg(r int) uint32 {
	if r < 0 || r > 31 {
		panic(fmt.Sprintf("neon: vector register V%d out of range", r))
	}
	return uint32(r)
}

// cmgt: Vd = (Vn > Vm) signed, per lane, all ones or zero. The signed
// 64-bit compare min/max needs (CMHI, CMEQ and friends exist in Go, CMGT does not).
// Encoding: 0 Q 0 01110 size 1 Rm 00110 1 Rn Rd.
func cmgt(arr arrangement, d, n, m int) encoded {
	bits := 0x0e203400 | arr.q<<30 | arr.size<<22 | vreg(m)<<16 | vreg(n)<<5 | vreg(d)
	return encoded{bits, fmt.Sprintf("cmgt v%d.%s, v%d.%s, v%d.%s", d, arr.name, n, arr.name, m, arr.name)}
}

// cmhs: Vd = (Vn >= Vm) unsigned, per lane, all ones or zero: the range
// test uint64(v-lo) < width of the calendar shift, negated.
// Encoding: 0 Q 1 01110 size 1 Rm 00111 1 Rn Rd.
func cmhs(arr arrangement, d, n, m int) encoded {
	bits := 0x2e203c00 | arr.q<<30 | arr.size<<22 | vreg(m)<<16 | vreg(n)<<5 | vreg(d)
	return encoded{bits, fmt.Sprintf("cmhs v%d.%s, v%d.%s, v%d.%s", d, arr.name, n, arr.name, m, arr.name)}
}

// addpScalar: Dd = Vn.D[0] + Vn.D[1], the final reduction of the 64-bit
// count accumulators. Go's VADDP is only the vector form.
// Encoding: 01 0 11110 11 11000 11011 10 Rn Rd.
func addpScalar(d, n int) encoded {
	bits := 0x5ef1b800 | vreg(n)<<5 | vreg(d)
	return encoded{bits, fmt.Sprintf("addp d%d, v%d.2d", d, n)}
}

// sshr: arithmetic shift right by imm (1..lane bits): the sign mask of a
// lane (imm = lane bits) that floor division and clamping in the rescale
// kernels are built from. Encoding: 0 Q 0 011110 immh:immb 00000 1 Rn Rd,
// where immh:immb = 2*lanebits - imm.
func sshr(arr arrangement, d, n, imm int) encoded {
	lane := 8 << arr.size
	if imm < 1 || imm > lane {
		panic(fmt.Sprintf("neon: sshr shift %d out of range for %s", imm, arr.name))
	}
	if arr.size == 3 && arr.q == 0 {
		panic("neon: sshr 1d is a scalar instruction")
	}
	immhb := uint32(2*lane - imm)
	bits := 0x0f000400 | arr.q<<30 | immhb<<16 | vreg(n)<<5 | vreg(d)
	return encoded{bits, fmt.Sprintf("sshr v%d.%s, v%d.%s, #%d", d, arr.name, n, arr.name, imm)}
}

// neg: Vd = -Vn per lane (wrapping). Encoding: 0 Q 1 01110 size 10000 01011 10 Rn Rd.
func neg(arr arrangement, d, n int) encoded {
	bits := 0x2e20b800 | arr.q<<30 | arr.size<<22 | vreg(n)<<5 | vreg(d)
	return encoded{bits, fmt.Sprintf("neg v%d.%s, v%d.%s", d, arr.name, n, arr.name)}
}

// xtn: narrow each lane of Vn to half its width into the low half of Vd
// (the source arrangement is the wide one: 8h->8b, 4s->4h, 2d->2s).
// Encoding: 0 0 0 01110 size 10000 10010 10 Rn Rd, size of the narrow lane.
func xtn(wide arrangement, d, n int) encoded {
	if wide.q != 1 || wide.size == 0 {
		panic("neon: xtn takes a 8h, 4s or 2d source")
	}
	narrow := map[uint32]string{1: "8b", 2: "4h", 3: "2s"}[wide.size]
	bits := 0x0e212800 | (wide.size-1)<<22 | vreg(n)<<5 | vreg(d)
	return encoded{bits, fmt.Sprintf("xtn v%d.%s, v%d.%s", d, narrow, n, wide.name)}
}

// The float64 lane ops of the CF fast check (2d only: two float64 lanes),
// none of which Go's assembler spells. Three-register forms: Vd = Vn op Vm
// (fmla: Vd += Vn*Vm; the compares give all ones or zero per lane).
// Encodings from the Arm ARM, 2d (Q = 1, sz = 1): base | Rm<<16 | Rn<<5 | Rd.
var fp2dOps = map[string]uint32{
	"fcmeq": 0x4e60e400, // 0 1 0 01110 0 1 1 Rm 111001 Rn Rd
	"fcmge": 0x6e60e400, // 0 1 1 01110 0 1 1 Rm 111001 Rn Rd
	"fcmgt": 0x6ee0e400, // 0 1 1 01110 1 1 1 Rm 111001 Rn Rd
	"fmul":  0x6e60dc00, // 0 1 1 01110 0 1 1 Rm 110111 Rn Rd
	"fsub":  0x4ee0d400, // 0 1 0 01110 1 1 1 Rm 110101 Rn Rd
	"fmla":  0x4e60cc00, // 0 1 0 01110 0 1 1 Rm 110011 Rn Rd
}

func fp2d(op string, d, n, m int) encoded {
	base, ok := fp2dOps[op]
	if !ok {
		panic("neon: no float op " + op)
	}
	return encoded{base | vreg(m)<<16 | vreg(n)<<5 | vreg(d), fmt.Sprintf("%s v%d.2d, v%d.2d, v%d.2d", op, d, n, m)}
}

// Two-register forms: Vd = op(Vn). frintn rounds to nearest even, fcvtzs
// converts to int64 toward zero, fcmeq0 compares with +0.0, fcvtl and
// fcvtl2 widen the low and high two float32 lanes to float64.
var fp2dUnary = map[string]struct {
	base uint32
	gnu  string
}{
	"frintn": {0x4e618800, "frintn v%d.2d, v%d.2d"},      // 0 1 0 01110 0 1 10000 11000 10 Rn Rd
	"fcvtzs": {0x4ee1b800, "fcvtzs v%d.2d, v%d.2d"},      // 0 1 0 01110 1 1 10000 11011 10 Rn Rd
	"fcmeq0": {0x4ee0d800, "fcmeq v%d.2d, v%d.2d, #0.0"}, // 0 1 0 01110 1 1 10000 01101 10 Rn Rd
	"fcvtl":  {0x0e617800, "fcvtl v%d.2d, v%d.2s"},       // 0 0 0 01110 0 1 10000 10111 10 Rn Rd
	"fcvtl2": {0x4e617800, "fcvtl2 v%d.2d, v%d.4s"},      // 0 1 0 01110 0 1 10000 10111 10 Rn Rd
}

func fp2dOne(op string, d, n int) encoded {
	u, ok := fp2dUnary[op]
	if !ok {
		panic("neon: no float op " + op)
	}
	return encoded{u.base | vreg(n)<<5 | vreg(d), fmt.Sprintf(u.gnu, d, n)}
}
