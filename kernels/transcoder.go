package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
)

// opKind is the loop a Transcoder runs, chosen once at compile time.
type opKind uint8

const (
	opCopy         opKind = iota // values unchanged: copy or byte swap
	opMul                        // v*k with a two-compare overflow check
	opDiv                        // floor(v/d) by a magic multiply
	opMulDiv                     // floor(v*num/den), num*den < 2^63
	opLinearExact                // any other linear factor: 128-bit per element
	opAllOverflow                // num/den >= 2^63: every non-zero value overflows
	opToCalendar                 // W, D, h .. as to Y or M
	opFromCalendar               // Y or M to W, D, h .. as
)

var opNames = [...]string{"copy", "multiply", "floor-divide", "multiply-divide", "exact-128", "all-overflow", "to-calendar", "from-calendar"}

func (k opKind) String() string { return opNames[k] }

// Options configure a Transcoder.
type Options struct {
	// From and To are the byte orders of the source and destination
	// elements; nil means the host's order. Ignored by RunInt64, which
	// works on native integers.
	From, To binary.ByteOrder
	// Overflow is what happens to an element whose exact result does not
	// fit: stop with an *dtype.ElementError (dtype.ReasonOverflow; the default), store
	// NaT, or clamp.
	Overflow dtype.OverflowPolicy
	// Exact turns any lossy element (a non-zero remainder floored away)
	// into an *dtype.ElementError with dtype.ReasonLoss.
	Exact bool
	// Stats computes Stats.Min and Stats.Max (an extra pass over each
	// block while it is still in L1 cache).
	Stats bool
	// Reference converts every element on the exact 128-bit path that
	// defines the results, with no fast loop and no SIMD: an independent
	// second opinion, several times slower, for verifying what the fast
	// paths wrote.
	Reference bool
	// CFFloat is how a CFDecoder decodes stored floats: the coarsest
	// instant each stands for (cf.FloatShortest, the default) or its
	// exact binary value floored (cf.FloatExact). Other kernels ignore it.
	CFFloat cf.FloatRule
	// Calendar converts the dates of a CF source's calendar
	// (cf.DecoderOptions.Calendar): a model calendar is refused without
	// it. Other kernels ignore it.
	Calendar cf.CalendarOptions
}

// Transcoder is a compiled conversion: the fused one-pass kernel for one
// dtype.Conversion and one set of Options. It is immutable after
// NewTranscoder and safe for concurrent use.
type Transcoder struct {
	conv            dtype.Conversion
	opts            Options
	swapIn, swapOut bool
	op              opKind
	lin             linearParams
	cal             calParams
}

// NewTranscoder compiles c and o into a Transcoder.
func NewTranscoder(c dtype.Conversion, o Options) (*Transcoder, error) {
	if o.Overflow > dtype.OverflowClamp {
		return nil, fmt.Errorf("kernels: invalid overflow policy %d", uint8(o.Overflow))
	}
	if c.From.Validate() != nil || c.To.Validate() != nil {
		return nil, fmt.Errorf("kernels: conversion %s has an invalid data type (build it with dtype.NewConversion)", c)
	}
	t := &Transcoder{conv: c, opts: o, swapIn: swapFor(o.From), swapOut: swapFor(o.To)}
	switch c.Path {
	case dtype.PathCopy:
		t.op = opCopy
	case dtype.PathLinear:
		num, den := c.Factor()
		op, p, ok := compileLinear(num, den)
		if !ok {
			return nil, fmt.Errorf("kernels: conversion %s: factor too large for the 128-bit path", c)
		}
		t.op, t.lin = op, p
	case dtype.PathCalendar:
		f, tu := c.From.Unit, c.To.Unit
		switch {
		case f.IsCalendar() && tu.IsCalendar():
			// Y/M to Y/M is linear in months: floor(v*s1*mpu1 / (s2*mpu2)).
			num := big.NewInt(c.From.Scale * monthsPer(f))
			den := big.NewInt(c.To.Scale * monthsPer(tu))
			g := new(big.Int).GCD(nil, nil, num, den)
			op, p, _ := compileLinear(num.Quo(num, g), den.Quo(den, g))
			t.op, t.lin = op, p
		case f.IsCalendar():
			t.op, t.cal = opFromCalendar, compileCalendar(c.From, c.To)
		default:
			t.op, t.cal = opToCalendar, compileCalendar(c.From, c.To)
		}
	default:
		return nil, fmt.Errorf("kernels: conversion %s: unknown path %s", c, c.Path)
	}
	return t, nil
}

func monthsPer(u dtype.Unit) int64 {
	if u == dtype.Year {
		return 12
	}
	return 1
}

// Conversion returns the conversion t was compiled from.
func (t *Transcoder) Conversion() dtype.Conversion { return t.conv }

// Options returns the options t was compiled with.
func (t *Transcoder) Options() Options { return t.opts }

// String names the compiled loop, e.g. "datetime64[s] -> datetime64[ns]: multiply".
func (t *Transcoder) String() string {
	return fmt.Sprintf("%s -> %s: %s", t.conv.From, t.conv.To, t.op)
}

// exact returns the exact result of converting v (not NaT) and whether it
// drops a non-zero remainder.
func (t *Transcoder) exact(v int64) (int128, bool) {
	switch t.op {
	case opCopy:
		return i128(v), false
	case opAllOverflow:
		if v == 0 {
			return int128{}, false
		}
		return huge(v < 0), false
	case opToCalendar, opFromCalendar:
		return t.cal.exact(v)
	}
	return t.lin.exactLinear(v)
}

// Convert returns the converted value of one native element under t's
// policy and exact mode: what Run would store, or the error Run would
// return for that element at index 0.
func (t *Transcoder) Convert(v int64) (int64, error) {
	var dst [1]int64
	_, err := t.RunInt64(dst[:], []int64{v}, nil)
	return dst[0], err
}

// Run converts the 8-byte elements of src (byte order Options.From) into
// dst (byte order Options.To) in one pass: rescale, NaT kept, and, when
// validity is not nil, the Arrow validity bitmap of the output (bit i =
// output element i is not NaT; len(validity) >= ceil(n/8); the unused bits of
// a last partial byte are cleared).
//
// dst and src must have the same length, a multiple of 8; any alignment
// works (8-byte aligned buffers are fastest); dst may be src itself (in
// place) but must not overlap it otherwise.
//
// Under dtype.OverflowError the run stops at the first overflowing element and
// returns an *dtype.ElementError (dtype.ReasonOverflow) naming it; in exact mode it stops
// at the first lossy element with an *dtype.ElementError (dtype.ReasonLoss). Elements before the failing one have been
// converted; dst (and validity) from there on are unspecified. The returned
// Stats cover the elements converted.
func (t *Transcoder) Run(dst, src []byte, validity []byte) (Stats, error) {
	n, err := elements("source", src)
	if err != nil {
		return Stats{}, err
	}
	if len(dst) != len(src) {
		return Stats{}, fmt.Errorf("kernels: %s: source has %d bytes, destination %d: %w", t, len(src), len(dst), ErrLength)
	}
	if validity != nil {
		if err := bitmapCheck(validity, n); err != nil {
			return Stats{}, err
		}
	}
	if overlap(dst, src) == 2 {
		return Stats{}, ErrOverlap
	}
	var acc accumulator
	acc.init(t)
	dw, dok := wordsOf(dst)
	sw, sok := srcWordsOf(src)
	if dok && sok {
		err = t.runWords(dw, sw, validity, 0, t.swapIn, t.swapOut, &acc)
		return acc.stats(), err
	}
	// A misaligned side goes through a stage (an aligned dst is written
	// directly: stage.into).
	var s stage
	for w, first, ok := s.next(src); ok; w, first, ok = s.next(src) {
		var vb []byte
		if validity != nil {
			vb = validity[first/8:]
		}
		err = t.runWords(s.into(dw, dok, w), w, vb, first, t.swapIn, t.swapOut, &acc)
		if err != nil {
			s.put(dst, dok, acc.elements-first) // keep the converted prefix
			return acc.stats(), err
		}
		s.put(dst, dok, len(w))
	}
	return acc.stats(), nil
}

// RunInt64 is Run for native int64 slices (no byte order involved).
func (t *Transcoder) RunInt64(dst, src []int64, validity []byte) (Stats, error) {
	if len(dst) != len(src) {
		return Stats{}, fmt.Errorf("kernels: %s: source has %d elements, destination %d: %w", t, len(src), len(dst), ErrLength)
	}
	if validity != nil {
		if err := bitmapCheck(validity, len(src)); err != nil {
			return Stats{}, err
		}
	}
	if len(src) > 0 && len(dst) > 0 {
		pd, ps := &dst[0], &src[0]
		if pd != ps && overlap(int64Bytes(dst), int64Bytes(src)) != 0 {
			return Stats{}, ErrOverlap
		}
	}
	var acc accumulator
	acc.init(t)
	err := t.runWords(int64Words(dst), int64Words(src), validity, 0, false, false, &acc)
	return acc.stats(), err
}

// accumulator gathers Stats across blocks.
type accumulator struct {
	elements, nat, overflowNaT, overflowed, lossy int
	noDate                                        int // dates without a Gregorian one, stored as NaT (counted in nat too)
	lo, hi                                        int64
	minmax                                        bool
}

func (a *accumulator) init(t *Transcoder) {
	a.lo, a.hi = math.MaxInt64, math.MinInt64
	a.minmax = t.opts.Stats
}

func (a *accumulator) stats() Stats {
	nat := a.nat + a.overflowNaT
	s := Stats{Elements: a.elements, NaT: nat, Valid: a.elements - nat, Overflowed: a.overflowed, Lossy: a.lossy, NoDate: a.noDate}
	if a.minmax {
		s.Min, s.Max = a.lo, a.hi
	}
	return s
}

// runWords converts src into dst block by block; base is the index of
// src[0] in the caller's slice (for error indexes).
func (t *Transcoder) runWords(dst, src []uint64, validity []byte, base int, swapIn, swapOut bool, acc *accumulator) error {
	// fused is where the validity bits are still to be written: a floor
	// divide's hook writes those of the elements it converts (it never
	// stops before an element, so only a tail shorter than a vector is
	// left to the generic loop and byProducts), a copy those of its block.
	fused := 0
	// byProducts computes validity (from fused on) and min/max of the
	// output dst[lo:hi] while it is in L1.
	byProducts := func(lo, hi int) {
		if hi <= lo {
			return
		}
		if validity != nil && hi > fused {
			from := max(lo, fused)
			validityWords(validity[from/8:], dst[from:hi], swapOut)
		}
		if acc.minmax {
			l, h, _ := minMaxWords(dst[lo:hi], swapOut)
			acc.lo, acc.hi = min(acc.lo, l), max(acc.hi, h)
		}
	}
	// failed finishes the by-products of the elements converted before
	// the one that stopped the run, as Run documents.
	failed := func(off int, err error) error {
		byProducts(off, failedIndex(err)-base)
		return err
	}
	fuse := validity != nil && t.op == opDiv && !t.opts.Exact && !t.opts.Reference
	copyFuse := validity != nil && t.op == opCopy && !t.opts.Reference
	step := blockWords
	if !fuse && (validity != nil || acc.minmax) {
		// The by-products are taken from L1: smaller blocks.
		step = byProductWords
	}
	for off := 0; off < len(src); off += step {
		end := min(off+step, len(src))
		if copyFuse {
			// A copy with validity reads memory once: the block is
			// copied, then its bits are taken from the copy (which also
			// counts the NaT), where copyLoop would count them in a pass
			// of its own.
			copyWords(dst[off:end], src[off:end], swapIn, swapOut)
			acc.nat += validityWords(validity[off/8:], dst[off:end], swapOut)
			acc.elements += end - off
			fused = end
			byProducts(off, end)
			continue
		}
		if fuse {
			p := &t.lin
			n, nat, lossy := floorDivValiditySIMD(dst[off:end], src[off:end], validity[off/8:], p.div.d, p.div.magic, p.div.shift, swapIn, swapOut)
			acc.elements += n
			acc.nat += nat
			acc.lossy += lossy
			fused = off + n
			if err := t.runBlock(dst[off+n:end], src[off+n:end], base+off+n, swapIn, swapOut, acc); err != nil {
				return failed(off, err)
			}
			byProducts(off, end)
			continue
		}
		if t.opts.Exact && t.op != opCopy && &dst[0] == &src[0] {
			// In place, a lossy element's source would be gone by the time
			// the loop reports it: convert from a saved copy instead.
			var saved [stageWords]uint64
			for s := off; s < end; s += stageWords {
				e := min(s+stageWords, end)
				copy(saved[:], src[s:e])
				if err := t.runBlock(dst[s:e], saved[:e-s], base+s, swapIn, swapOut, acc); err != nil {
					return failed(off, err)
				}
			}
		} else if err := t.runBlock(dst[off:end], src[off:end], base+off, swapIn, swapOut, acc); err != nil {
			return failed(off, err)
		}
		byProducts(off, end)
	}
	return nil
}

// byProductWords is the block runWords converts before it takes the
// validity bits or min/max from the output: 16 KiB, a third of the L1
// data cache of the Xeons measured, so that they are read from L1, not L2
// as after a 64 KiB block (BenchmarkColumn: 4 KiB blocks cost 3-6 % more
// in the ns column, the call overhead).
const byProductWords = 2048

// failedIndex is the index of the element an error from runBlock names.
func failedIndex(err error) int {
	if e, ok := err.(*dtype.ElementError); ok {
		return e.Index
	}
	return 0
}

// runBlock runs the op's fast loop, finishing each element the loop stops
// at with the exact path and the overflow policy.
func (t *Transcoder) runBlock(dst, src []uint64, base int, swapIn, swapOut bool, acc *accumulator) error {
	if t.opts.Reference {
		for i := range src {
			if err := t.slowElement(dst, src, base, i, swapIn, swapOut, acc); err != nil {
				return err
			}
		}
		return nil
	}
	i := 0
	for i < len(src) {
		var n, nat, lossy int
		d, s := dst[i:], src[i:]
		switch t.op {
		case opCopy:
			nat = copyLoop(d, s, swapIn, swapOut)
			n = len(s)
		case opMul:
			n, nat = t.mulWords(d, s, swapIn, swapOut)
		case opDiv:
			n, nat, lossy = t.divWords(d, s, swapIn, swapOut)
		case opMulDiv:
			n, nat, lossy = t.mulDivWords(d, s, swapIn, swapOut)
		case opToCalendar:
			n, nat, lossy = toCalendarLoop(d, s, &t.cal, swapIn, swapOut)
		case opFromCalendar:
			n, nat, lossy = fromCalendarLoop(d, s, &t.cal, swapIn, swapOut)
		}
		if lossy > 0 && t.opts.Exact {
			return t.lossAt(src, base, i, i+n, swapIn, acc)
		}
		acc.elements += n
		acc.nat += nat
		acc.lossy += lossy
		i += n
		if i == len(src) {
			break
		}
		if err := t.slowElement(dst, src, base, i, swapIn, swapOut, acc); err != nil {
			return err
		}
		i++
	}
	return nil
}

// slowElement converts src[i] with the exact path and applies the policies.
func (t *Transcoder) slowElement(dst, src []uint64, base, i int, swapIn, swapOut bool, acc *accumulator) error {
	w := src[i]
	if swapIn {
		w = bits.ReverseBytes64(w)
	}
	v := int64(w)
	var out int64
	if v == math.MinInt64 {
		out = math.MinInt64
		acc.nat++
	} else {
		r, lossy := t.exact(v)
		switch {
		case r.fitsValue():
			if lossy {
				if t.opts.Exact {
					return &dtype.ElementError{Reason: dtype.ReasonLoss, Index: base + i, Value: v, From: t.conv.From, To: t.conv.To}
				}
				acc.lossy++
			}
			out = int64(r.lo)
		case t.opts.Overflow == dtype.OverflowNaT:
			out = math.MinInt64
			acc.overflowed++
			acc.overflowNaT++
		case t.opts.Overflow == dtype.OverflowClamp:
			out = r.int64Sat()
			acc.overflowed++
		default:
			return &dtype.ElementError{Reason: dtype.ReasonOverflow, Index: base + i, Value: v, From: t.conv.From, To: t.conv.To}
		}
	}
	o := uint64(out)
	if swapOut {
		o = bits.ReverseBytes64(o)
	}
	dst[i] = o
	acc.elements++
	return nil
}

// lossAt finds the first lossy element of src[from:to], which a fast loop
// reported lossy. src is intact: in exact mode an in-place run converts from
// a saved copy of each sub-block (see runWords).
func (t *Transcoder) lossAt(src []uint64, base, from, to int, swapIn bool, acc *accumulator) error {
	nat := 0
	for j := from; j < to; j++ {
		w := src[j]
		if swapIn {
			w = bits.ReverseBytes64(w)
		}
		v := int64(w)
		if v == math.MinInt64 {
			nat++
			continue
		}
		if _, lossy := t.exact(v); lossy {
			acc.elements += j - from
			acc.nat += nat // the NaT before it were converted too
			return &dtype.ElementError{Reason: dtype.ReasonLoss, Index: base + j, Value: v, From: t.conv.From, To: t.conv.To}
		}
	}
	return fmt.Errorf("kernels: %s: internal error: lossy element not found in [%d, %d)", t, base+from, base+to)
}
