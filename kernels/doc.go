// Package kernels is dt64's compute layer: numbers in, numbers out. It byte
// swaps, counts NaT, builds validity bitmaps, finds min/max, and rescales
// datetime64/timedelta64 values with NumPy's semantics minus its
// wrap-around, in one fused pass over memory.
//
// # Values
//
// Elements are int64 counts of a dtype.DataType; NaT is math.MinInt64 and
// always maps to NaT. A conversion's result is the exact value, floored
// (linear: floor(v*num/den) with the exact factor; calendar: the containing
// year, month or unit in the proleptic Gregorian calendar). An exact result
// outside [MinInt64+1, MaxInt64] is an overflow, handled by the dtype.OverflowPolicy:
// dtype.OverflowError stops with an *dtype.ElementError (reason, index and source value),
// dtype.OverflowNaT stores NaT, dtype.OverflowClamp saturates; both count in
// Stats.Overflowed. A result that drops a non-zero remainder is lossy:
// counted in Stats.Lossy, or an *dtype.ElementError with dtype.ReasonLoss in exact mode.
//
// # Entry points
//
// A Transcoder is compiled once from a dtype.Conversion and Options (byte
// orders, policy, exact mode, statistics) and then converts any number of
// buffers: Run for byte buffers as a Zarr chunk holds them (any alignment,
// any byte order on either side, in place when dst is src), RunInt64 for
// native slices. Both optionally write the Arrow validity bitmap of the
// output (bit i of byte i/8, least significant first, 1 = not NaT) and
// return Stats. ByteSwap, CountNaT, Validity, ApplyValidity and MinMax are
// the standalone primitives, with Int64 variants for native slices. Bad
// lengths and partially overlapping buffers are errors (ErrLength,
// ErrOverlap), never panics. Nothing allocates per call or per element.
//
// # How a Transcoder works
//
// NewTranscoder picks one op from the exact factor: copy/byte swap;
// multiply by k (overflow exactly when v > MaxInt64/k or v <
// -(MaxInt64/k): two compares); floor divide by d (multiply-high by a
// magic number, sign folded by xor: no branch, no divide instruction);
// multiply-divide when num*den < 2^63 (q, r = floordiv(v, den);
// q*num + floor(r*num/den)); an exact 128-bit path for any other factor; and
// two calendar loops (to Y/M, from Y/M) built on Neri and Schneider's
// closed-form civil-from-days/days-from-civil in 32-bit arithmetic (every
// datetime64[ns] value is in their range; wider values take a 64-bit
// loop). Y/M to Y/M is linear in months. Each
// fast loop handles NaT and returns at the first element it cannot convert
// exactly in int64 (an overflow, or a value outside its fast range); Go
// finishes that element with the exact int128 path and the policy, then
// resumes the loop. Validity and min/max are by-products computed from
// each output block while it is in L1.
//
// # Platform hooks
//
// Kernels work on []uint64 words as they sit in memory; swap means the
// element's byte order is not the host's. Entry points cut work into
// blocks of at most 64 KiB (8192 elements) so the goroutine stays
// preemptible, call the platform hook, which returns how many leading
// elements it did (0 without SIMD), and finish with the generic Go twin,
// which is also the test oracle:
//
//	byteSwapSIMD(dst, src []uint64) (n int)
//	byteSwapStreamSIMD(dst, src []uint64) (n int)   // non-temporal stores: out of place, >= 4 MiB
//	countNaTSIMD(src []uint64, swap bool) (n, nat int)
//	validitySIMD(bitmap []byte, src []uint64, swap bool) (n, nat int)   // n%8 == 0
//	minMaxSIMD(src []uint64, swap bool) (n int, min, max int64)
//
// A misaligned []byte source is read in place where the host loads
// words from any address (srcWordsOf, memory.go: a stored value's bytes
// lie wherever its header ends); elsewhere, and for a misaligned
// destination, it goes through a 4 KiB aligned staging buffer (stage,
// primitives.go).
//
// The rescale and calendar hooks slot into Transcoder.runBlock, one per
// op, ahead of the generic loop of the same name and with its contract:
// convert a prefix, stop before the first element that needs the exact
// path, report NaT and lossy counts (lossy counts non-NaT elements only):
//
//	mulCheckSIMD(dst, src []uint64, k uint64, lo, hi int64, swapIn, swapOut bool) (n, nat int)
//	floorDivSIMD(dst, src []uint64, d, magic uint64, shift uint, swapIn, swapOut bool) (n, nat, lossy int)
//	mulDivSIMD(dst, src []uint64, num, d, magic uint64, shift uint, qlo, qhi int64, swapIn, swapOut bool) (n, nat, lossy int)
//	toCalendarSIMD(dst, src []uint64, c *calParams, swapIn, swapOut bool) (n, nat, lossy int)
//	fromCalendarSIMD(dst, src []uint64, c *calParams, swapIn, swapOut bool) (n, nat, lossy int)
//
// A floor divide with a validity bitmap goes first through
// floorDivValiditySIMD (floorDivSIMD that also writes the bits of the
// elements it converts, bitmap[:n/8]; AVX-512, and AVX2 with FMA3), and
// runWords then writes the bitmap only from where it stopped. On AVX-512
// both run a floorDivEst kernel. floorDivSIMD's, for d <= 2^52, is
// floorDivEst: floor((v-base)/d) estimated in float64 (VCVTQQ2PD, one
// FMA, VCVTPD2QQ rounding down) and made exact by one VPMULLQ remainder,
// for v within 2^50*d of a base near the data (0 from d = 2^13, where
// that is all of int64); runs far from the base take the magic-number
// kernel. The validity hook's, for d <= 2^32 (every Arrow unit), is
// floorDivEstPow2, and on AVX2 with FMA3 floorDivEstAVX2, the same
// algorithm on four lanes: in float64 for v within 2^50 of the base (the
// int64 to float64 step exact by adding 2^52+2^51; one FMA with an offset
// of 1/(2d) - 1/2, rounded to an integer by adding 2^52+2^51, gives the
// floor with no correction), and one 32-bit product says whether the
// remainder is 0 (its low 32 bits are enough, since it is below d): 12
// vector instructions a vector against floorDivEst's 16, at the cost of
// a narrower range (13 days of ns: longer time lines take a new base
// where they leave it).
//
// The CF time kernels (CFDecoder, CFEncoder: cf.go, cf_loops.go) run the
// affine map floor((v×A + B)/C) of package cf over stored CF numbers, with
// the same contract, ahead of the generic loops cfMulAddLoop (integers,
// C = 1: one range test on v and at most one missing value in the SIMD
// kernels) and cfFloatLoop (float64: floor(f×A) exactly from the product
// and its FMA residual), and, for floats under the default shortest rule,
// cfShortestCheckLoop (cf_shortest.go: cf.FastCheck, which decides a float
// on one grid of whole seconds, minutes, hours or days in a few float64
// operations and leaves the others to the exact rule):
//
//	cfMulAddSIMD(dst, src []uint64, a, b uint64, lo, hi int64, miss uint64, hasMiss, swapIn, swapOut bool) (n, nat int)
//	cfFloatSIMD(dst, src []uint64, p *cfFloatParams, swapIn, swapOut bool) (n, nat, lossy int)
//	cfShortestSIMD(dst, src []uint64, c *cfCheckArgs, swapIn, swapOut bool) (n, nat int)
//	widenFloat32SIMD(dst []uint64, src []byte, swap bool) (n int)
//
// Narrow stored elements (1, 2, 4 bytes) are widened into a stage first,
// back to front in place (float32 by widenFloat32SIMD, then Go). Integer maps with C >= 2 run cfMulAddSIMD and
// then floorDivSIMD in place over each block; A, B or C beyond int64, and
// every element a fast loop stops at, take the exact path (cf.Decoder's
// for decoding). A calendar conversion (cf.CalendarOptions, cf_calendar.go)
// then runs over each decoded block: a run of counts that share one shift
// (a month by date, a day by year) is added in
//
//	calendarShiftSIMD(dst []uint64, lo int64, width uint64, shift int64) (n int)   // host order; AVX2, AVX-512, NEON
//
// and Go finds each new run with the civil-date arithmetic.
//
// and the byte shuffle of Blosc (Shuffle8, Unshuffle8) has
//
//	shuffle8SIMD(dst, src []byte, stride int) (n int)
//	unshuffle8SIMD(dst, src []byte, stride int) (n int)
//
// dst may equal src in every rescale hook. What each platform has:
//
//	amd64 (avo, asm/): every hook in AVX2 and AVX-512, except multiply-divide
//	    and the calendar hooks (AVX-512 only: AVX2 has no 64-bit multiply or
//	    float64<->int64 conversion; its multiply-divide measured slower than
//	    generic Go) and shuffle, which also has an AVX-512 VBMI version;
//	    cfFloatSIMD and cfShortestSIMD (AVX-512DQ: VCVTTPD2QQ/UQQ,
//	    VCVTPD2QQ; AVX2 needs FMA3 and converts integer-valued doubles
//	    from their bits)
//	arm64 (asm/neon): the primitives, the shuffle, cfShortestSIMD (its
//	    k*Step + Base in scalar MADD), widenFloat32SIMD and
//	    calendarShiftSIMD in NEON; the rescale hooks and
//	    cfMulAddSIMD in scalar MUL/UMULH/MADD assembly (AdvSIMD has no
//	    64-bit lane multiply); the calendar and the exact CF float loop
//	    (cfFloatSIMD) in generic Go
//	others, and -tags purego: generic Go only
//
// # Files
//
// Each op (byteswap, validity: NaT count and bitmap, minmax, rescale,
// calendar, shuffle) has the same files:
//
//	<op>.go          entry points and the generic twin (rescale: rescale.go,
//	                 with the factor compiler in linear.go; calendar:
//	                 calendar.go and the 32-bit loops in calendar32.go)
//	<op>_amd64.go    declarations, generated by asm/<op> (avo)
//	<op>_amd64.s     AVX2/AVX-512 assembly, generated by asm/<op>
//	<op>_arm64.go    declarations, generated by asm/neon
//	<op>_arm64.s     NEON (or scalar) assembly, generated by asm/neon
//	<op>_other.go    the hooks without assembly: //go:build purego || !(amd64 || arm64)
//
// (calendar has no arm64 kernel. cf is the CF time op: cf.go, cf_loops.go
// and cf_shortest.go; its amd64 kernels are generated with the rescale
// ones into rescale_amd64.s, its NEON kernel into cf_arm64.s.) The hooks that choose among the kernels
// are in dispatch_amd64.go and dispatch_arm64.go, one section per op, next
// to the feature booleans they test: a generated file cannot hold them.
// primitives.go has the block and staging helpers the primitives share,
// generic.go the NaT word and the byte-order type parameters.
package kernels
