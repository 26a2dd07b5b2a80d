// Command rescale generates kernels/rescale_amd64.s and its declarations
// kernels/rescale_amd64.go: the SIMD rescale loops behind the hooks
// mulCheckSIMD, floorDivSIMD and mulDivSIMD (kernels/rescale.go), for AVX2
// and AVX-512 (F+DQ+BW+VL; multiply-divide AVX-512 only), each in four
// byte-order variants (source
// swapped or not, destination swapped or not) so that no loop tests a flag.
//
// Every kernel converts whole vectors from the start of its input and
// returns how many elements it did, with the NaT count (and the lossy count
// for the divisions); Go finishes the tail and any element a kernel stopped
// before. Each unrolled block is loaded and computed completely before
// anything is stored, so dst may be src (in place), and a kernel that must
// stop (a multiply or multiply-divide result out of range) stops before the
// vector that holds the offending element, having stored nothing of it.
package main

//go:generate go run . -pkg kernels -out ../../kernels/rescale_amd64.s -stubs ../../kernels/rescale_amd64.go

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"

	"github.com/zarr-dt64/dt64/asm/internal/gen"
)

func main() {
	gen.Header()
	for _, isa := range []gen.ISA{gen.AVX2, gen.AVX512} {
		for _, o := range orders {
			mulCheck(isa, o)
		}
		for _, o := range orders {
			floorDiv(isa, o)
		}
		if isa.Name == gen.AVX512.Name {
			// No AVX2 multiply-divide: without a 64-bit multiply it needs 20
			// VPMULUDQ per vector and measured slower than the generic Go
			// loop at every size (see mulDivSIMD in kernels/rescale_amd64.go).
			for _, o := range orders {
				mulDiv(isa, o)
			}
		}
		for _, o := range orders {
			cfMulAdd(isa, o)
		}
		if isa.Name == gen.AVX512.Name {
			// No AVX2 float kernel: AVX2 has no float64 -> int64 conversion.
			for _, o := range orders {
				cfFloat(isa, o)
			}
		}
	}
	Generate()
}

// order is one byte-order variant: whether the source words and the
// destination words are in the other byte order than the host's.
type order struct {
	name            string // infix of the function name
	swapIn, swapOut bool
}

var orders = []order{
	{"", false, false},
	{"SwapIn", true, false},
	{"SwapOut", false, true},
	{"Swap", true, true},
}

const (
	low32 = uint64(0xffffffff)

	// VPCMPQ/VPCMPUQ predicates.
	cmpEQ  = 0
	cmpNE  = 4
	cmpNLE = 6 // greater than
)

// kernel is the state one generated function shares between its parts.
type kernel struct {
	isa             gen.ISA
	swapIn, swapOut bool
	dst, src        reg.Register
	length, idx     reg.Register
	swapMask        reg.VecVirtual
	natVec          reg.VecVirtual
	mask32          Op             // AVX2 and the high multiply: low 32 bits of each lane
	one             reg.VecVirtual // AVX-512 counters: masked adds of ones
	shift           reg.VecVirtual // XMM shift count of the divisor
	heavy           bool           // a division: many constants, AVX2 spills some
}

// begin declares the function and loads the slices; the length is
// min(len(dst), len(src)).
func begin(isa gen.ISA, o order, heavy bool, kernelName, signature string, doc ...string) *kernel {
	name := kernelName + o.name + isa.Name
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
	k := &kernel{isa: isa, swapIn: o.swapIn, swapOut: o.swapOut, heavy: heavy}
	k.dst = Load(Param("dst").Base(), GP64())
	k.length = Load(Param("dst").Len(), GP64())
	k.src = Load(Param("src").Base(), GP64())
	srcLen := Load(Param("src").Len(), GP64())
	CMPQ(srcLen, k.length)
	CMOVQLT(srcLen, k.length)
	if o.swapIn || o.swapOut {
		k.swapMask = gen.SwapMask(isa)
	}
	k.natVec = gen.BroadcastConst(isa, gen.NaT)
	k.idx = GP64()
	XORQ(k.idx, k.idx)
	return k
}

func (k *kernel) avx512() bool { return k.isa.Lanes == 8 }

// load returns the vector at element offset i of src, in host byte order.
func (k *kernel) load(i int) reg.VecVirtual {
	v := k.isa.Vec()
	k.isa.Load(gen.Elem(k.src, k.idx, i*k.isa.Lanes), v)
	if k.swapIn {
		VPSHUFB(k.swapMask, v, v)
	}
	return v
}

// store writes v (host byte order) at element offset i of dst.
func (k *kernel) store(v reg.VecVirtual, i int) {
	if k.swapOut {
		VPSHUFB(k.swapMask, v, v)
	}
	k.isa.Store(v, gen.Elem(k.dst, k.idx, i*k.isa.Lanes))
}

// broadcast loads a 64-bit argument into every lane.
func (k *kernel) broadcast(param string) reg.VecVirtual {
	return gen.Broadcast(k.isa, Load(Param(param), GP64()))
}

// broadcastHigh broadcasts the high 32 bits of a 64-bit argument: the
// second factor of a 64-bit multiply built from 32-bit products.
func (k *kernel) broadcastHigh(param string) reg.VecVirtual {
	r := Load(Param(param), GP64())
	SHRQ(Imm(32), r)
	return gen.Broadcast(k.isa, r)
}

// constant is a loop-invariant 64-bit multiplier: the full value and, for
// AVX2, its high 32 bits.
type constant struct {
	full, high Op
}

func (k *kernel) constant(param string) constant {
	c := constant{full: k.broadcast(param)}
	if !k.avx512() {
		c.high = k.spill(k.broadcastHigh(param))
	}
	return c
}

// spill moves an AVX2 loop constant to the stack frame: with 16 vector
// registers, the divisions cannot keep every constant in one, and a load
// folded into the instruction that uses it costs next to nothing.
// AVX-512 has 32 registers and keeps them all.
func (k *kernel) spill(v reg.VecVirtual) Op {
	if k.avx512() || !k.heavy {
		return v
	}
	m := AllocLocal(32)
	VMOVDQU(v, m)
	return m
}

// mulLow returns the low 64 bits of x*c. AVX-512DQ has VPMULLQ; AVX2 builds
// it from three 32x32->64 products: xl*cl + ((xh*cl + xl*ch) << 32).
func (k *kernel) mulLow(x reg.VecVirtual, c constant) reg.VecVirtual {
	out := k.isa.Vec()
	if k.avx512() {
		VPMULLQ(c.full, x, out)
		return out
	}
	xh := k.isa.Vec()
	VPSRLQ(Imm(32), x, xh)
	VPMULUDQ(c.full, xh, xh) // xh*cl
	cross := k.isa.Vec()
	VPMULUDQ(c.high, x, cross) // xl*ch
	VPADDQ(cross, xh, xh)
	VPSLLQ(Imm(32), xh, xh)
	VPMULUDQ(c.full, x, out) // xl*cl
	VPADDQ(xh, out, out)
	return out
}

// mulHighShift returns (x*m >> 64) >> shift for the magic number m, from
// four 32x32->64 products (neither ISA has a 64-bit high multiply):
//
//	t  = xh*ml + (xl*ml >> 32)          no carry out: < 2^64
//	hi = xh*mh + (t >> 32) + ((xl*mh + (t & low32)) >> 32)
func (k *kernel) mulHighShift(x reg.VecVirtual, m constant) reg.VecVirtual {
	xh := k.isa.Vec()
	VPSRLQ(Imm(32), x, xh)
	ll := k.isa.Vec()
	VPMULUDQ(m.full, x, ll)
	VPSRLQ(Imm(32), ll, ll)
	t := k.isa.Vec()
	VPMULUDQ(m.full, xh, t)
	VPADDQ(ll, t, t)
	lh := k.isa.Vec()
	VPMULUDQ(m.high, x, lh)
	w := k.isa.Vec()
	k.and(k.mask32, t, w)
	VPADDQ(w, lh, lh)
	VPSRLQ(Imm(32), lh, lh)
	VPSRLQ(Imm(32), t, t)
	hh := k.isa.Vec()
	VPMULUDQ(m.high, xh, hh)
	VPADDQ(t, hh, hh)
	VPADDQ(lh, hh, hh)
	VPSRLQ(k.shift, hh, hh)
	return hh
}

func (k *kernel) and(a Op, b, out reg.VecVirtual) {
	if k.avx512() {
		VPANDQ(a, b, out)
	} else {
		VPAND(a, b, out)
	}
}

func (k *kernel) xor(a, b, out reg.VecVirtual) {
	if k.avx512() {
		VPXORQ(a, b, out)
	} else {
		VPXOR(a, b, out)
	}
}

func (k *kernel) or(a, b, out reg.VecVirtual) {
	if k.avx512() {
		VPORQ(a, b, out)
	} else {
		VPOR(a, b, out)
	}
}

// magic loads the divisor's magic number (full and high half, which the
// high multiply needs on both ISAs) and its shift count.
func (k *kernel) magic() constant {
	m := constant{full: k.broadcast("magic"), high: k.spill(k.broadcastHigh("magic"))}
	k.mask32 = k.spill(gen.BroadcastConst(k.isa, low32))
	k.shift = XMM()
	VMOVQ(Load(Param("shift"), GP64()), k.shift)
	return m
}

// signMask returns -1 in the lanes of v that are negative, 0 elsewhere.
func (k *kernel) signMask(v reg.VecVirtual) reg.VecVirtual {
	s := k.isa.Vec()
	if k.avx512() {
		VPSRAQ(Imm(63), v, s)
		return s
	}
	zero := k.isa.Vec()
	VPXOR(zero, zero, zero)
	VPCMPGTQ(v, zero, s) // 0 > v
	return s
}

// lane is one vector's results: out (host order) to store, valid (AVX-512:
// k-mask of the lanes that are not NaT) or nat (AVX2: -1 in NaT lanes),
// bad (the lanes that force a stop), exact (lanes whose remainder is 0, or
// for AVX2 NaT lanes too).
type lane struct {
	out        reg.VecVirtual
	valid      reg.OpmaskVirtual
	nat        reg.VecVirtual
	badK       reg.OpmaskVirtual
	badV       reg.VecVirtual
	exactK     reg.OpmaskVirtual
	exactOrNaT reg.VecVirtual
}

// counters accumulates per-lane counts: AVX-512 counts valid and exact
// lanes with masked adds of one; AVX2 subtracts the -1 compare results.
type counters struct {
	a, b reg.VecVirtual // AVX-512: valid, exact; AVX2: nat, exact-or-NaT
}

func (k *kernel) counters(exact bool) counters {
	c := counters{a: gen.Zero(k.isa)}
	if exact {
		c.b = gen.Zero(k.isa)
	}
	if k.avx512() {
		k.one = gen.BroadcastConst(k.isa, 1)
	}
	return c
}

func (k *kernel) count(c counters, l lane, exact bool) {
	if k.avx512() {
		VPADDQ(k.one, c.a, l.valid, c.a)
		if exact {
			VPADDQ(k.one, c.b, l.exactK, c.b)
		}
		return
	}
	VPSUBQ(l.nat, c.a, c.a)
	if exact {
		VPSUBQ(l.exactOrNaT, c.b, c.b)
	}
}

// finish stores n, nat and (with lossy) lossy, and returns. AVX-512:
// nat = n - valid, lossy = valid - exact. AVX2: lossy = n - exactOrNaT.
func (k *kernel) finish(c counters, lossy bool) {
	Store(k.idx, Return("n"))
	a := gen.HorizontalSum(k.isa, c.a)
	var b reg.GPVirtual
	if lossy {
		b = gen.HorizontalSum(k.isa, c.b)
	}
	if k.avx512() {
		nat := GP64()
		MOVQ(k.idx, nat)
		SUBQ(a, nat)
		Store(nat, Return("nat"))
		if lossy {
			SUBQ(b, a)
			Store(a, Return("lossy"))
		}
	} else {
		Store(a, Return("nat"))
		if lossy {
			l := GP64()
			MOVQ(k.idx, l)
			SUBQ(b, l)
			Store(l, Return("lossy"))
		}
	}
	gen.ReturnAfterVector()
}

// natLanes fills l.valid (AVX-512) or l.nat (AVX2) from the source vector.
func (k *kernel) natLanes(v reg.VecVirtual, l *lane) {
	if k.avx512() {
		l.valid = K()
		VPCMPQ(Imm(cmpNE), k.natVec, v, l.valid)
		return
	}
	l.nat = k.isa.Vec()
	VPCMPEQQ(k.natVec, v, l.nat)
}

// keepNaT returns x with the NaT lanes of the source set to NaT.
func (k *kernel) keepNaT(x reg.VecVirtual, l *lane) reg.VecVirtual {
	out := k.isa.Vec()
	if k.avx512() {
		// Go operand order: the last source is taken where the mask is set.
		VPBLENDMQ(x, k.natVec, l.valid, out)
		return out
	}
	VPBLENDVB(l.nat, k.natVec, x, out)
	return out
}

// outside sets l.badK/l.badV: lanes whose x (biased for AVX2) is outside
// the range [lo, lo+span] and whose source is not NaT. AVX-512 compares
// x-lo > span unsigned; AVX2 has only signed compares, so lo and span
// arrive with bit 63 flipped (loBias, spanBias), which turns the same
// unsigned compare into a signed one.
func (k *kernel) outside(x reg.VecVirtual, lo, span Op, l *lane) {
	t := k.isa.Vec()
	VPSUBQ(lo, x, t)
	if k.avx512() {
		l.badK = K()
		VPCMPUQ(Imm(cmpNLE), span, t, l.valid, l.badK)
		return
	}
	l.badV = k.isa.Vec()
	VPCMPGTQ(span, t, l.badV) // t > span
	VPANDN(l.badV, l.nat, l.badV)
}

// rangeArgs loads lo and span for outside (bit 63 flipped for AVX2).
func (k *kernel) rangeArgs(loName, spanName string) (lo, span Op) {
	l := Load(Param(loName), GP64())
	s := Load(Param(spanName), GP64())
	if !k.avx512() {
		BTCQ(Imm(63), l)
		BTCQ(Imm(63), s)
	}
	return k.spill(gen.Broadcast(k.isa, l)), k.spill(gen.Broadcast(k.isa, s))
}

// loops emits the unrolled block loop and the single-vector loop. compute
// returns one vector's lane; with check, a block with a bad lane is left
// to the single-vector loop, which stops before the vector that has it.
func (k *kernel) loops(unroll int, check, exact bool, c counters, compute func(v reg.VecVirtual) lane) {
	body := func(vectors int, bail string) func() {
		return func() {
			// The bad lanes of the block are joined as each vector is
			// computed: AVX-512 has only seven usable mask registers.
			ls := make([]lane, vectors)
			var anyK reg.OpmaskVirtual
			var anyV reg.VecVirtual
			for i := range ls {
				l := compute(k.load(i))
				ls[i] = l
				switch {
				case !check:
				case i == 0 && k.avx512():
					anyK = l.badK
				case i == 0:
					anyV = l.badV
				case i == 1 && k.avx512():
					anyK2 := K()
					KORB(anyK, l.badK, anyK2)
					anyK = anyK2
				case i == 1:
					anyV2 := k.isa.Vec()
					VPOR(anyV, l.badV, anyV2)
					anyV = anyV2
				case k.avx512():
					KORB(anyK, l.badK, anyK)
				default:
					VPOR(anyV, l.badV, anyV)
				}
			}
			if check {
				if k.avx512() {
					KORTESTB(anyK, anyK)
				} else {
					VPTEST(anyV, anyV)
				}
				JNZ(LabelRef(bail))
			}
			for i, l := range ls {
				k.store(l.out, i)
				k.count(c, l, exact)
			}
		}
	}
	if unroll > 1 {
		gen.Loop("blocks", k.idx, k.length, unroll*k.isa.Lanes, body(unroll, "vectors"))
	}
	gen.Loop("vectors", k.idx, k.length, k.isa.Lanes, body(1, "vectors_done"))
}

// unroll is the vectors per block: AVX2 has 16 vector registers, which the
// constants of the divisions mostly fill.
func unroll(isa gen.ISA, heavy bool) int {
	switch {
	case isa.Lanes == 8 && heavy:
		return 2
	case isa.Lanes == 8:
		return 4
	case heavy:
		return 1
	}
	return 2
}

// mulCheck: dst = src*k for src in [lo, lo+span], NaT kept; stops before
// the first vector with another value.
func mulCheck(isa gen.ISA, o order) {
	k := begin(isa, o, false, "mulCheck",
		"func(dst, src []uint64, k uint64, lo int64, span uint64) (n, nat int)",
		"stores src[i]*k into dst[i] for the leading n elements,",
		"n a multiple of the vector width; every non-NaT source value v",
		"among them has lo <= v <= lo+span (unsigned span), NaT is kept and counted.",
		"It stops before the first vector holding another value; dst may be src.")
	mul := k.constant("k")
	lo, span := k.rangeArgs("lo", "span")
	c := k.counters(false)
	k.loops(unroll(isa, k.heavy), true, false, c, func(v reg.VecVirtual) lane {
		var l lane
		k.natLanes(v, &l)
		k.outside(v, lo, span, &l)
		l.out = k.keepNaT(k.mulLow(v, mul), &l)
		return l
	})
	k.finish(c, false)
}

// floorDivide computes, for one vector v (host order), the sign mask s,
// the folded u = v^s (0 <= u < 2^63), qu = floor(u/d) and the truncated
// remainder u - qu*d. floor(v/d) = qu^s: for v < 0, floor(v/d) =
// ^(^v/d).
func (k *kernel) floorDivide(v reg.VecVirtual, m, d constant) (s, qu, rem reg.VecVirtual) {
	s = k.signMask(v)
	u := k.isa.Vec()
	k.xor(s, v, u)
	qu = k.mulHighShift(u, m)
	rem = k.isa.Vec()
	VPSUBQ(k.mulLow(qu, d), u, rem)
	return s, qu, rem
}

// exactLanes sets l.exactK (AVX-512, valid lanes only) or l.exactOrNaT
// (AVX2) from a == b.
func (k *kernel) exactLanes(a, b reg.VecVirtual, l *lane) {
	if k.avx512() {
		l.exactK = K()
		VPCMPQ(Imm(cmpEQ), a, b, l.valid, l.exactK)
		return
	}
	l.exactOrNaT = k.isa.Vec()
	VPCMPEQQ(a, b, l.exactOrNaT)
	VPOR(l.nat, l.exactOrNaT, l.exactOrNaT)
}

func floorDiv(isa gen.ISA, o order) {
	k := begin(isa, o, true, "floorDiv",
		"func(dst, src []uint64, d, magic, shift uint64) (n, nat, lossy int)",
		"stores floor(src[i]/d) into dst[i] for the leading n elements,",
		"n a multiple of the vector width, NaT kept and counted; lossy counts",
		"the non-NaT elements with a non-zero remainder. magic and shift are",
		"the divisor's (kernels/divisor.go); dst may be src.")
	m := k.magic()
	d := k.constant("d")
	dm1 := k.isa.Vec()
	VPSUBQ(gen.BroadcastConst(isa, 1), d.full, dm1)
	c := k.counters(true)
	k.loops(unroll(isa, k.heavy), false, true, c, func(v reg.VecVirtual) lane {
		var l lane
		k.natLanes(v, &l)
		s, qu, rem := k.floorDivide(v, m, d)
		// Exact iff the truncated remainder of u is 0 (v >= 0) or d-1 (v < 0).
		want := k.isa.Vec()
		k.and(dm1, s, want)
		k.exactLanes(rem, want, &l)
		k.xor(s, qu, qu)
		l.out = k.keepNaT(qu, &l)
		return l
	})
	k.finish(c, true)
}

// mulDiv: q, r = floordiv(v, d); result = q*num + floor(r*num/d), with
// r*num < d*num < 2^63 divided by the same magic number.
func mulDiv(isa gen.ISA, o order) {
	k := begin(isa, o, true, "mulDiv",
		"func(dst, src []uint64, num, d, magic, shift uint64, qlo int64, qspan uint64) (n, nat, lossy int)",
		"stores floor(src[i]*num/d) into dst[i] for the leading n elements,",
		"n a multiple of the vector width, computed as q*num + floor(r*num/d)",
		"with q, r = floordiv(src[i], d) (num*d < 2^63); every non-NaT q among",
		"them has qlo <= q <= qlo+qspan (unsigned qspan). NaT is kept and counted;",
		"lossy counts the non-NaT elements with a non-zero remainder. It stops",
		"before the first vector holding another value; dst may be src.")
	m := k.magic()
	d := k.constant("d")
	num := k.constant("num")
	qlo, qspan := k.rangeArgs("qlo", "qspan")
	c := k.counters(true)
	k.loops(unroll(isa, k.heavy), true, true, c, func(v reg.VecVirtual) lane {
		var l lane
		k.natLanes(v, &l)
		s, qu, rem := k.floorDivide(v, m, d)
		// q = qu^s; floor remainder r = (rem^s) + (d&s).
		q := k.isa.Vec()
		k.xor(s, qu, q)
		k.outside(q, qlo, qspan, &l)
		k.xor(s, rem, rem)
		ds := k.isa.Vec()
		k.and(d.full, s, ds)
		VPADDQ(ds, rem, rem)
		rn := k.mulLow(rem, num)
		t := k.mulHighShift(rn, m)
		k.exactLanes(rn, k.mulLow(t, d), &l)
		res := k.mulLow(q, num)
		VPADDQ(t, res, res)
		l.out = k.keepNaT(res, &l)
		return l
	})
	k.finish(c, true)
}
