// Command calshift generates kernels/calshift_amd64.s and its declarations
// kernels/calshift_amd64.go: AVX2 and AVX-512 versions of the fast path
// of the CF calendar conversion (kernels/cf_calendar.go), behind the hook
// calendarShiftSIMD.
//
// A conversion adds one shift to every count of a run of days (a month
// converted by date, a day by year): the elements v with
// uint64(v-lo) < width. The kernel adds shift to such elements, a whole
// vector at a time, in place, and stops before the first vector holding
// another value (NaT, or a count of another run), having stored nothing
// of it; Go handles that element and calls again. Host byte order only.
package main

//go:generate go run . -pkg kernels -out ../../kernels/calshift_amd64.s -stubs ../../kernels/calshift_amd64.go

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/zarr-dt64/dt64/asm/internal/gen"
)

func main() {
	gen.Header()
	calendarShift(gen.AVX2)
	calendarShift(gen.AVX512)
	Generate()
}

func calendarShift(isa gen.ISA) {
	name := gen.Name("calendarShift", isa)
	TEXT(name, NOSPLIT, "func(dst []uint64, lo int64, width uint64, shift int64) (n int)")
	Pragma("noescape")
	Doc(name+" adds shift to the leading elements v of dst with",
		"uint64(v-lo) < width, whole vectors at a time, and returns how many;",
		"it stops before the first vector holding another value.")
	dst := Load(Param("dst").Base(), GP64())
	length := Load(Param("dst").Len(), GP64())
	lo := gen.Broadcast(isa, Load(Param("lo"), GP64()))
	shift := gen.Broadcast(isa, Load(Param("shift"), GP64()))
	width := Load(Param("width"), GP64())
	idx := GP64()
	XORQ(idx, idx)
	var inRange func(v reg.VecVirtual) // jumps to done unless every lane is in the run
	if isa.Lanes == 8 {
		w := gen.Broadcast(isa, width)
		inRange = func(v reg.VecVirtual) {
			x := isa.Vec()
			VPSUBQ(lo, v, x)
			k := K()
			const less = 1 // VPCMPUQ predicate: x < width, unsigned
			VPCMPUQ(Imm(less), w, x, k)
			m := GP32()
			KMOVB(k, m)
			CMPL(m, U32(0xff))
			JNE(LabelRef("done"))
		}
	} else {
		// AVX2 compares signed only: flipping the sign bit of both sides
		// turns the unsigned x < width into a signed one.
		sign := gen.BroadcastConst(isa, gen.NaT)
		flipped := GP64()
		MOVQ(U64(gen.NaT), flipped)
		XORQ(width, flipped)
		w := gen.Broadcast(isa, flipped)
		inRange = func(v reg.VecVirtual) {
			x := isa.Vec()
			VPSUBQ(lo, v, x)
			VPXOR(sign, x, x)
			VPCMPGTQ(x, w, x) // width' > x'
			m := GP32()
			VMOVMSKPD(x, m)
			CMPL(m, U32(0xf))
			JNE(LabelRef("done"))
		}
	}
	gen.Loop("vectors", idx, length, isa.Lanes, func() {
		v := isa.Vec()
		isa.Load(gen.Elem(dst, idx, 0), v)
		inRange(v)
		VPADDQ(shift, v, v)
		isa.Store(v, gen.Elem(dst, idx, 0))
	})
	Label("done")
	Store(idx, Return("n"))
	gen.ReturnAfterVector()
}
