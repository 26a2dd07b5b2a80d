// Package gen holds what the avo generators of the kernel families share:
// the two vector widths, the loop shape, constants and the file header.
//
// Every kernel follows the contract in kernels/doc.go: it processes whole
// blocks from the start of its input and returns how many elements it did;
// Go finishes the tail. Inputs are []uint64 views (8-byte aligned, no more),
// so every load is unaligned (VMOVDQU / VMOVDQU64).
package gen

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// ISA is one vector width and the instructions that differ between them.
type ISA struct {
	Name  string // suffix of the generated function names: "AVX2", "AVX512"
	Lanes int    // 64-bit lanes per vector
	Vec   func() reg.VecVirtual
	Load  func(m Mem, v reg.VecVirtual) // unaligned load
	Store func(v reg.VecVirtual, m Mem) // unaligned store
}

// Bytes is the vector size in bytes.
func (i ISA) Bytes() int { return 8 * i.Lanes }

var (
	AVX2 = ISA{
		Name: "AVX2", Lanes: 4, Vec: YMM,
		Load:  func(m Mem, v reg.VecVirtual) { VMOVDQU(m, v) },
		Store: func(v reg.VecVirtual, m Mem) { VMOVDQU(v, m) },
	}
	AVX512 = ISA{
		Name: "AVX512", Lanes: 8, Vec: ZMM,
		Load:  func(m Mem, v reg.VecVirtual) { VMOVDQU64(m, v) },
		Store: func(v reg.VecVirtual, m Mem) { VMOVDQU64(v, m) },
	}
)

// NaT is NaT's bit pattern (math.MinInt64) as a word in host order; byte
// swapped data compares against its byte reversal, 0x80.
const NaT = uint64(1) << 63

// Header sets what every generated file shares. The build tag keeps the
// assembly out of purego builds, whose fallback hooks are the
// kernels/<op>_other.go files.
func Header() {
	ConstraintExpr("!purego")
}

// Unroll is how many vectors a main loop iteration handles: four
// independent chains hide the latency of compares and blends, and more
// does not help a kernel that is bound by memory.
const Unroll = 4

// Loop emits
//
//	for idx+step <= length { body(); idx += step }
//
// comparing unsigned, so a short input skips the loop. body addresses
// elements as Elem(base, idx, i).
func Loop(label string, idx, length reg.Register, step int, body func()) {
	next := GP64()
	Label(label)
	LEAQ(Mem{Base: idx, Disp: step}, next)
	CMPQ(next, length)
	JA(LabelRef(label + "_done"))
	body()
	MOVQ(next, idx)
	JMP(LabelRef(label))
	Label(label + "_done")
}

// Elem is the address of element idx+offset of the []uint64 at base.
func Elem(base, idx reg.Register, offset int) Mem {
	return Mem{Base: base, Index: idx, Scale: 8, Disp: 8 * offset}
}

// Broadcast returns a vector with every lane set to the 64-bit value in r.
func Broadcast(isa ISA, r reg.Register) reg.VecVirtual {
	v := isa.Vec()
	if isa.Lanes == 8 {
		VPBROADCASTQ(r, v)
		return v
	}
	VMOVQ(r, v.AsX())
	VPBROADCASTQ(v.AsX(), v)
	return v
}

// BroadcastConst returns a vector with every lane set to c.
func BroadcastConst(isa ISA, c uint64) reg.VecVirtual {
	r := GP64()
	MOVQ(U64(c), r)
	return Broadcast(isa, r)
}

var swapMask Mem
var swapMaskDeclared bool

// SwapMask returns a vector holding the VPSHUFB control that reverses the
// bytes of every 64-bit lane (VPSHUFB works within 128-bit lanes, so the
// 16-byte pattern repeats).
func SwapMask(isa ISA) reg.VecVirtual {
	if !swapMaskDeclared {
		swapMask = GLOBL("reverse_bytes_in_qwords", RODATA|NOPTR)
		for i := 0; i < 8; i++ {
			DATA(8*i, U64(0x0001020304050607+uint64(i%2)*0x0808080808080808))
		}
		swapMaskDeclared = true
	}
	v := isa.Vec()
	isa.Load(swapMask, v)
	return v
}

// Vectors allocates n vector registers.
func Vectors(isa ISA, n int) []reg.VecVirtual {
	vs := make([]reg.VecVirtual, n)
	for i := range vs {
		vs[i] = isa.Vec()
	}
	return vs
}

// Name is the generated function's name: kernel + ISA suffix.
func Name(kernel string, isa ISA) string { return fmt.Sprintf("%s%s", kernel, isa.Name) }

// ReturnAfterVector returns from a function that used vector registers,
// clearing their upper halves first so later SSE code pays no transition
// penalty.
func ReturnAfterVector() {
	VZEROUPPER()
	RET()
}

// Zero returns a vector of zeros.
func Zero(isa ISA) reg.VecVirtual {
	v := isa.Vec()
	if isa.Lanes == 8 {
		VPXORQ(v, v, v)
	} else {
		VPXOR(v, v, v)
	}
	return v
}

// HorizontalSum returns the sum of v's 64-bit lanes in a general register.
func HorizontalSum(isa ISA, v reg.VecVirtual) reg.GPVirtual {
	y := v
	if isa.Lanes == 8 {
		y = YMM()
		VEXTRACTI64X4(Imm(1), v, y)
		VPADDQ(v.AsY(), y, y)
	}
	x := XMM()
	VEXTRACTI128(Imm(1), y, x)
	VPADDQ(y.AsX(), x, x)
	x2 := XMM()
	VPSHUFD(Imm(0x4e), x, x2)
	VPADDQ(x2, x, x)
	r := GP64()
	VMOVQ(x, r)
	return r
}
