// Command calendar generates kernels/calendar_amd64.s and its declarations
// kernels/calendar_amd64.go: AVX-512 (F+DQ+BW+VL) versions of the
// 32-bit calendar loops of kernels/calendar32.go behind the hooks
// toCalendarSIMD and fromCalendarSIMD, in four byte-order variants each.
//
// The arithmetic is the generic loops', lane by lane: Neri and Schneider's
// civil-from-days and days-from-civil with every intermediate a
// non-negative integer below 2^32, so each product is one VPMULUDQ
// (32x32->64 bits) and each division by a constant a VPMULUDQ by its magic
// number and a shift. The one division by a variable (an instant's units
// per day) is a float64 estimate, floor(x * (1/upd)), corrected exactly by
// one step either way with the integer remainder: |x| <= 60e6 days' worth
// keeps the estimate within one of the quotient.
//
// A kernel converts whole vectors from the start of its input and stops
// before the first vector holding a value outside the 32-bit range (NaT
// excepted), having stored nothing of it; Go finishes from there. Each
// vector is loaded and computed completely before it is stored, so dst may
// be src.
package main

//go:generate go run . -pkg kernels -out ../../kernels/calendar_amd64.s -stubs ../../kernels/calendar_amd64.go

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/zarr-dt64/dt64/asm/internal/gen"
)

func main() {
	gen.Header()
	for _, o := range orders {
		toCalendar(o)
	}
	for _, o := range orders {
		fromCalendar(o)
	}
	Generate()
}

type order struct {
	name            string
	swapIn, swapOut bool
}

var orders = []order{
	{"", false, false},
	{"SwapIn", true, false},
	{"SwapOut", false, true},
	{"Swap", true, true},
}

// The constants of kernels/calendar32.go.
const (
	fastEras        = 420
	fastDayOffset   = fastEras*146097 + 719468
	centuryMagic    = (1<<48 + 146097 - 1) / 146097
	fastMonthOffset = 12*(1970+400*fastEras) - 2
	dayBias         = fastEras*146097 + 719468

	// Predicates of VPCMPQ/VPCMPUQ.
	cmpEQ  = 0
	cmpLT  = 1
	cmpNE  = 4
	cmpNLT = 5 // >=
	cmpNLE = 6 // >
)

type kernel struct {
	swapIn, swapOut bool
	dst, src        reg.Register
	length, idx     reg.Register
	swapMask        reg.VecVirtual
	natVec          reg.VecVirtual
	nat, lossy      reg.Register
}

func begin(o order, name, signature string, doc ...string) *kernel {
	name = name + o.name + "AVX512"
	TEXT(name, NOSPLIT, signature)
	Pragma("noescape")
	doc[0] = name + " " + doc[0]
	switch {
	case o.swapIn && o.swapOut:
		doc = append(doc, "Source and destination words are byte-swapped.")
	case o.swapIn:
		doc = append(doc, "Source words are byte-swapped.")
	case o.swapOut:
		doc = append(doc, "Destination words are byte-swapped.")
	}
	Doc(doc...)
	k := &kernel{swapIn: o.swapIn, swapOut: o.swapOut}
	k.dst = Load(Param("dst").Base(), GP64())
	k.length = Load(Param("dst").Len(), GP64())
	k.src = Load(Param("src").Base(), GP64())
	srcLen := Load(Param("src").Len(), GP64())
	CMPQ(srcLen, k.length)
	CMOVQLT(srcLen, k.length)
	if o.swapIn || o.swapOut {
		k.swapMask = gen.SwapMask(gen.AVX512)
	}
	k.natVec = gen.BroadcastConst(gen.AVX512, gen.NaT)
	k.idx = GP64()
	XORQ(k.idx, k.idx)
	k.nat = GP64()
	XORQ(k.nat, k.nat)
	k.lossy = GP64()
	XORQ(k.lossy, k.lossy)
	return k
}

func (k *kernel) load() reg.VecVirtual {
	v := ZMM()
	VMOVDQU64(gen.Elem(k.src, k.idx, 0), v)
	if k.swapIn {
		VPSHUFB(k.swapMask, v, v)
	}
	return v
}

func (k *kernel) store(v reg.VecVirtual) {
	if k.swapOut {
		VPSHUFB(k.swapMask, v, v)
	}
	VMOVDQU64(v, gen.Elem(k.dst, k.idx, 0))
}

func broadcastParam(name string) reg.VecVirtual {
	return gen.Broadcast(gen.AVX512, Load(Param(name), GP64()))
}

func broadcastConst(c uint64) reg.VecVirtual { return gen.BroadcastConst(gen.AVX512, c) }

// rangeCheck returns the valid (not NaT) lanes of v and jumps to done when a
// lane that is not NaT lies outside [-vlim, vlim].
func (k *kernel) rangeCheck(v, vlim, span reg.VecVirtual, done string) reg.OpmaskVirtual {
	valid := K()
	VPCMPQ(Imm(cmpNE), k.natVec, v, valid)
	t := ZMM()
	VPADDQ(vlim, v, t)
	bad := K()
	VPCMPUQ(Imm(cmpNLE), span, t, valid, bad) // v+vlim > 2*vlim
	KORTESTB(bad, bad)
	JNZ(LabelRef(done))
	return valid
}

// countLanes adds the number of set lanes of m to r.
func countLanes(m reg.OpmaskVirtual, r reg.Register) {
	g := GP32()
	KMOVB(m, g)
	c := GP32()
	POPCNTL(g, c)
	ADDQ(c.As64(), r)
}

// finish stores n and the counters and returns.
func (k *kernel) finish(lossy bool) {
	Store(k.idx, Return("n"))
	Store(k.nat, Return("nat"))
	if lossy {
		Store(k.lossy, Return("lossy"))
	}
	gen.ReturnAfterVector()
}

// loop emits the one-vector loop: body converts the vector at idx.
func (k *kernel) loop(label string, body func(done string)) {
	gen.Loop(label, k.idx, k.length, 8, func() { body(label + "_done") })
}

func toCalendar(o order) {
	k := begin(o, "toCalendar", "func(dst, src []uint64, vlim, mul, upd, rcp, a, b, c, bias, yearMask uint64) (n, nat, lossy int)",
		"converts a prefix of src from a linear unit to Y or M: with",
		"x = v*mul and days = floor(x/upd) (rcp holds the float64 bits of 1/upd),",
		"the proleptic Gregorian year y and month m of the day, the result is",
		"a*y + b*m + c*(1 if m is 13 or 14) - bias, m = 3..14 counting from March",
		"(a=12, b=1, c=0 to months; a=1, b=0, c=1 to years), lossy unless the",
		"day is the 1st of a month (and, when yearMask is 0xff, of January) and",
		"x a whole day. It stops before the first vector holding a value",
		"beyond |v| <= vlim other than NaT.")
	vlim := broadcastParam("vlim")
	span := ZMM()
	VPADDQ(vlim, vlim, span)
	mul := broadcastParam("mul")
	upd := broadcastParam("upd")
	rcp := broadcastParam("rcp")
	a := broadcastParam("a")
	b := broadcastParam("b")
	c := broadcastParam("c")
	bias := broadcastParam("bias")
	yearMask := K()
	ym := GP64()
	Load(Param("yearMask"), ym)
	KMOVB(ym.As32(), yearMask)
	dayOffset := broadcastConst(fastDayOffset)
	three := broadcastConst(3)
	one := broadcastConst(1)
	cmagic := broadcastConst(centuryMagic)
	era := broadcastConst(146097)
	yearMul := broadcastConst(2939745)
	doyMagic := broadcastConst(0xb69fff96) // x/11758980 = x*doyMagic >> 55 for x < 2^32
	monthMul := broadcastConst(2141)
	monthAdd := broadcastConst(197913)
	dayMask := broadcastConst(0xffff)
	dayOne := broadcastConst(2141)
	thirteen := broadcastConst(13)
	hundred := broadcastConst(100)

	k.loop("to_calendar", func(done string) {
		v := k.load()
		valid := k.rangeCheck(v, vlim, span, done)
		x := ZMM()
		VPMULLQ(mul, v, x)
		// days = floor(x/upd): a float64 estimate, then one exact step.
		f := ZMM()
		VCVTQQ2PD(x, f)
		VMULPD(rcp, f, f)
		VRNDSCALEPD(Imm(9), f, f) // round down, no precision exception
		days := ZMM()
		VCVTPD2QQ(f, days)
		r := ZMM()
		VPMULLQ(upd, days, r)
		VPSUBQ(r, x, r)
		low := K()
		VPMOVQ2M(r, low) // r < 0: the estimate was one too high
		VPSUBQ(one, days, low, days)
		VPADDQ(upd, r, low, r)
		high := K()
		VPCMPQ(Imm(cmpNLT), upd, r, high) // r >= upd: one too low
		VPADDQ(one, days, high, days)
		VPSUBQ(upd, r, high, r)
		miss := K()
		VPTESTMQ(r, r, miss)

		// Civil from days, 32-bit: n1 = 4*(days+offset)+3.
		n1 := ZMM()
		VPADDQ(dayOffset, days, n1)
		VPSLLQ(Imm(2), n1, n1)
		VPORQ(three, n1, n1)
		cent := ZMM()
		VPMULUDQ(cmagic, n1, cent)
		VPSRLQ(Imm(48), cent, cent)
		t := ZMM()
		VPMULUDQ(era, cent, t)
		VPSUBQ(t, n1, t)
		VPORQ(three, t, t)
		p2 := ZMM()
		VPMULUDQ(yearMul, t, p2)
		ny := ZMM()
		VPMULUDQ(doyMagic, p2, ny) // low 32 bits of p2: the day of the year
		VPSRLQ(Imm(55), ny, ny)
		n3 := ZMM()
		VPMULUDQ(monthMul, ny, n3)
		VPADDQ(monthAdd, n3, n3)
		m := ZMM()
		VPSRLQ(Imm(16), n3, m) // month 3..14 of the March-based year
		VPANDQ(dayMask, n3, n3)
		notFirst := K()
		VPCMPUQ(Imm(cmpNLT), dayOne, n3, notFirst)
		y := ZMM()
		VPSRLQ(Imm(32), p2, y)
		VPMULUDQ(hundred, cent, cent)
		VPADDQ(cent, y, y)

		// val = a*y + b*m + c*(m >= 13) - bias.
		val := ZMM()
		VPMULUDQ(a, y, val)
		VPMULUDQ(b, m, t)
		VPADDQ(t, val, val)
		jan := K()
		VPCMPUQ(Imm(cmpNLT), thirteen, m, jan)
		VPADDQ(c, val, jan, val)
		VPSUBQ(bias, val, val)
		notJan := K()
		VPCMPUQ(Imm(cmpNE), thirteen, m, yearMask, notJan)
		KORB(notFirst, miss, miss)
		KORB(notJan, miss, miss)
		KANDB(valid, miss, miss)
		countLanes(miss, k.lossy)
		nat := K()
		KNOTB(valid, nat)
		countLanes(nat, k.nat)
		out := ZMM()
		// Go operand order: the first source is taken where the mask is set.
		VPBLENDMQ(val, k.natVec, valid, out)
		k.store(out)
	})
	k.finish(true)
}

func fromCalendar(o order) {
	k := begin(o, "fromCalendar", "func(dst, src []uint64, vlim, mul, dayLim, upd uint64) (n, nat int)",
		"converts a prefix of src from Y or M to a linear unit: months =",
		"v*mul, days = the day count of the 1st of that month, result =",
		"days*upd. It stops before the first vector holding a value beyond",
		"|v| <= vlim (NaT excepted) or a day count beyond |days| <= dayLim.")
	vlim := broadcastParam("vlim")
	span := ZMM()
	VPADDQ(vlim, vlim, span)
	mul := broadcastParam("mul")
	dayLim := broadcastParam("dayLim")
	daySpan := ZMM()
	VPADDQ(dayLim, dayLim, daySpan)
	upd := broadcastParam("upd")
	monthOffset := broadcastConst(fastMonthOffset)
	div12 := broadcastConst(0xaaaaaaab) // x/12 = x*div12 >> 35 for x < 2^32
	twelve := broadcastConst(12)
	div100 := broadcastConst(0x51eb851f) // x/100 = x*div100 >> 37 for x < 2^32
	daysMul := broadcastConst(979)
	eighteen := broadcastConst(18)
	leap := broadcastConst(1461)
	bias := broadcastConst(dayBias)

	k.loop("from_calendar", func(done string) {
		v := k.load()
		valid := k.rangeCheck(v, vlim, span, done)
		t := ZMM()
		VPMULLQ(mul, v, t)
		VPADDQ(monthOffset, t, t) // months from a March
		y := ZMM()
		VPMULUDQ(div12, t, y)
		VPSRLQ(Imm(35), y, y) // its March-based year
		mi := ZMM()
		VPMULUDQ(twelve, y, mi)
		VPSUBQ(mi, t, mi) // 0 = March .. 11 = February
		cent := ZMM()
		VPMULUDQ(div100, y, cent)
		VPSRLQ(Imm(37), cent, cent)
		doy := ZMM()
		VPMULUDQ(daysMul, mi, doy)
		VPADDQ(eighteen, doy, doy)
		VPSRLQ(Imm(5), doy, doy)
		days := ZMM()
		VPMULUDQ(leap, y, days)
		VPSRLQ(Imm(2), days, days)
		VPSUBQ(cent, days, days)
		VPSRLQ(Imm(2), cent, cent)
		VPADDQ(cent, days, days)
		VPADDQ(doy, days, days)
		VPSUBQ(bias, days, days)
		// |days| <= dayLim, or days*upd would overflow.
		d := ZMM()
		VPADDQ(dayLim, days, d)
		bad := K()
		VPCMPUQ(Imm(cmpNLE), daySpan, d, valid, bad)
		KORTESTB(bad, bad)
		JNZ(LabelRef(done))
		val := ZMM()
		VPMULLQ(upd, days, val)
		nat := K()
		KNOTB(valid, nat)
		countLanes(nat, k.nat)
		out := ZMM()
		VPBLENDMQ(val, k.natVec, valid, out)
		k.store(out)
	})
	k.finish(false)
}
