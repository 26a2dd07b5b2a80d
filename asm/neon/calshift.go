package main

import "fmt"

// The fast path of the CF calendar conversion (kernels/cf_calendar.go),
// the NEON twin of asm/calshift's AVX2 and AVX-512 kernels: add one shift
// to the leading elements v of dst with uint64(v-lo) < width, in place,
// host byte order, stopping before the first pair holding another value
// (NaT, or a count of another run) with nothing of that pair stored.
//
// Sorted data stays in one run for a month of counts, so the bulk goes
// eight words at a time (one VLD1 of four registers, one mask reduction);
// the block holding the run's end, and the last words, go a pair (one
// register) at a time, so that n is exact to two elements. AdvSIMD has the
// unsigned compare the range test needs (CMHS), which Go's assembler does
// not spell: a WORD.
//
// R0: next pair, R1: end of the last whole pair, R2: dst at entry;
// V28 = lo, V29 = width, V30 = shift in both lanes.

const blockCalendarShift = 8 // words per block iteration

var calshiftKernels = []kernel{
	{
		file: "calshift", name: "calendarShiftNEON",
		doc: fmt.Sprintf(`calendarShiftNEON adds shift to the leading elements v of dst with
uint64(v-lo) < width (wrapping), %d at a time and then a pair at a time,
and returns how many: n is even, and it stops before the first pair
holding another value, having stored nothing of it.`, blockCalendarShift),
		goSig: "(dst []uint64, lo int64, width uint64, shift int64) (n int)",
		args:  56, emit: emitCalendarShift,
	},
}

// calshiftOutside sets each lane of V<mask> to all ones where the value in
// V<value> is outside the run, zero where it is in it.
func calshiftOutside(a *asm, mask, value int) {
	a.op("VSUB V28.D2, V%d.D2, V%d.D2", value, mask)
	a.word(cmhs(d2, mask, mask, 29)) // v-lo >= width: outside
}

func emitCalendarShift(a *asm) {
	a.op("MOVD dst_base+0(FP), R0")
	a.op("MOVD dst_len+8(FP), R1")
	a.op("MOVD R0, R2")
	a.op("LSR $1, R1, R1")
	a.op("ADD R1<<4, R0, R1 // end of the last whole pair")
	for _, p := range []struct {
		arg string
		v   int
	}{{"lo+24(FP)", 28}, {"width+32(FP)", 29}, {"shift+40(FP)", 30}} {
		a.op("MOVD %s, R3", p.arg)
		a.op("VDUP R3, V%d.D2", p.v)
	}
	a.label("blocks")
	a.op("ADD $%d, R0, R4", 8*blockCalendarShift)
	a.op("CMP R1, R4")
	a.op("BHI pairs // fewer than %d words left", blockCalendarShift)
	a.op("VLD1 (R0), %s", vlist(0, "D2"))
	for v := 0; v < 4; v++ {
		calshiftOutside(a, 4+v, v)
	}
	a.op("VORR V5.B16, V4.B16, V4.B16")
	a.op("VORR V7.B16, V6.B16, V6.B16")
	a.op("VORR V6.B16, V4.B16, V4.B16")
	a.op("VMOV V4.D[0], R5")
	a.op("VMOV V4.D[1], R6")
	a.op("ORR R5, R6, R5")
	a.op("CBNZ R5, pairs // the run ends in this block: find its pair")
	for v := 0; v < 4; v++ {
		a.op("VADD V30.D2, V%d.D2, V%d.D2", v, v)
	}
	a.op("VST1.P %s, %d(R0)", vlist(0, "D2"), 8*blockCalendarShift)
	a.op("B blocks")
	a.label("pairs")
	a.op("CMP R1, R0")
	a.op("BHS done")
	a.op("VLD1 (R0), [V0.D2]")
	calshiftOutside(a, 4, 0)
	a.op("VMOV V4.D[0], R5")
	a.op("VMOV V4.D[1], R6")
	a.op("ORR R5, R6, R5")
	a.op("CBNZ R5, done")
	a.op("VADD V30.D2, V0.D2, V0.D2")
	a.op("VST1.P [V0.D2], 16(R0)")
	a.op("B pairs")
	a.label("done")
	a.op("SUB R2, R0, R0")
	a.op("LSR $3, R0, R0")
	a.op("MOVD R0, n+48(FP)")
	a.op("RET")
}
