package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"unsafe"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
)

// CF time kernels: the affine map out = floor((v×A + B)/C) of package cf,
// exact, in one pass like the Transcoder. A CFDecoder turns stored CF
// numbers (int8…uint64, float32, float64) into datetime64 values; a
// CFEncoder turns datetime64 values into int64 counts of CF units.
//
// Narrow stored elements are widened into a stage of 64-bit words (an
// integer sign- or zero-extended, a float32 as the float64 of its value),
// so every loop sees one of three word kinds: int64, uint64 or float64.

// cfWord is the kind of a widened stored element.
type cfWord uint8

const (
	cfInt   cfWord = iota // int8…int64 and uint8…uint32, as int64
	cfUint                // uint64
	cfFloat               // float32 and float64, as float64
)

// cfKernel is what CFDecoder and CFEncoder share: a compiled affine map
// over one word kind with its missing values.
type cfKernel struct {
	opts            Options
	kind            cfWord
	size            int  // stored bytes per element: 1, 2, 4 or 8
	srcLittle       bool // the stored elements' byte order
	swapIn, swapOut bool
	source          string // the source's description, for errors and String
	stored          cf.Stored
	from            dtype.DataType // the encoder's source type
	to              dtype.DataType
	aff             cf.Affine
	missing         []uint64 // sorted word bits that decode to NaT (NaN aside)
	dec             *cf.Decoder

	// small: A and B fit an int64 and C a uint64 (every realistic CF unit).
	small bool
	a, b  int64
	c     uint64
	div   divisor      // C >= 2
	lin   linearParams // C >= 2: lin.div for the floor-divide loops
	loop  cfLoopKind
	// The integer loops: v×A + B fits exactly when lo <= v <= hi.
	lo, hi int64
	miss   cfMissing
	fl     cfFloatParams
	// cfLoopShortest: the decoder's fast check, when it has one, and its
	// constants for the kernels (cf_shortest.go).
	fc       cf.FastCheck
	hasCheck bool
	check    cfCheckArgs
	cal      cfCalendar // the calendar conversion after decoding (cf_calendar.go)
}

// CFDecoder is a compiled decoding of CF time numbers into datetime64
// values. It is immutable and safe for concurrent use.
type CFDecoder struct{ k cfKernel }

// CFEncoder is a compiled encoding of datetime64 values as int64 counts of
// CF units since a reference date. It is immutable and safe for concurrent
// use.
type CFEncoder struct{ k cfKernel }

// NewCFDecoder compiles decoding of t's stored numbers into datetime64
// values of type to (any unit but Y, M and generic); a CF duration's
// (t.Units.Duration) into timedelta64 values.
func NewCFDecoder(t *cf.Time, to dtype.DataType, o Options) (*CFDecoder, error) {
	if t == nil {
		return nil, fmt.Errorf("kernels: no CF time description")
	}
	if o.Overflow > dtype.OverflowClamp {
		return nil, fmt.Errorf("kernels: invalid overflow policy %d", uint8(o.Overflow))
	}
	dec, err := cf.NewDecoderWith(t, to, cf.DecoderOptions{Overflow: o.Overflow, Float: o.CFFloat, Reference: o.Reference,
		Calendar: o.Calendar})
	if err != nil {
		return nil, fmt.Errorf("CF decoding to %s: %w", to, err)
	}
	k := cfKernel{opts: o, size: t.Stored.Size, srcLittle: isLittle(o.From),
		swapIn: swapFor(o.From), swapOut: swapFor(o.To), stored: t.Stored, to: to,
		aff: dec.Affine(), dec: dec, cal: newCFCalendar(dec, o.Calendar.Missing, t.Calendar),
		source: t.Describe()}
	switch {
	case t.Stored.Kind == cf.StoredFloat:
		k.kind = cfFloat
	case t.Stored.Kind == cf.StoredUint && t.Stored.Size == 8:
		k.kind = cfUint
	default:
		k.kind = cfInt
	}
	for _, m := range t.MissingValues() {
		if k.kind == cfFloat && math.IsNaN(math.Float64frombits(m)) {
			continue // NaN is always missing
		}
		k.missing = append(k.missing, m)
	}
	slices.Sort(k.missing)
	k.missing = slices.Compact(k.missing)
	k.compile()
	return &CFDecoder{k}, nil
}

// NewCFEncoder compiles encoding datetime64 values of type from as int64
// counts of u.Unit since u.Reference: floor((v×A + B)/C) with the exact
// A, B, C of cf.NewEncoding. NaT stays MinInt64 (which the writer declares
// as the _FillValue).
func NewCFEncoder(from dtype.DataType, u cf.Units, o Options) (*CFEncoder, error) {
	if o.Overflow > dtype.OverflowClamp {
		return nil, fmt.Errorf("kernels: invalid overflow policy %d", uint8(o.Overflow))
	}
	aff, err := cf.NewEncoding(from, u)
	if err != nil {
		return nil, fmt.Errorf("kernels: CF encoding of %s: %w", from, err)
	}
	k := cfKernel{opts: o, kind: cfInt, size: 8, srcLittle: isLittle(o.From),
		swapIn: swapFor(o.From), swapOut: swapFor(o.To),
		stored: cf.Stored{Kind: cf.StoredInt, Size: 8}, aff: aff,
		to:      dtype.DataType{Kind: from.Kind, Unit: u.Unit, Scale: 1},
		missing: []uint64{natBits},
		source:  from.String(),
		from:    from,
	}
	k.compile()
	return &CFEncoder{k}, nil
}

// The fast loop a cfKernel runs (cf_loops.go).
type cfLoopKind uint8

const (
	cfLoopExact     cfLoopKind = iota // the exact path only
	cfLoopMulAdd                      // integers, C == 1: v×A + B
	cfLoopMulAddDiv                   // integers, C >= 2: floor((v×A + B)/C)
	cfLoopFloat                       // floats: floor(f×A) exactly, then as above
	cfLoopShortest                    // floats under cf.FloatShortest
)

var cfLoopNames = [...]string{"exact", "multiply-add", "multiply-add-divide", "float", "shortest"}

// compile derives the fast loop and its parameters from the affine map.
func (k *cfKernel) compile() {
	a, b, c := k.aff.A, k.aff.B, k.aff.C
	if !k.opts.Reference && k.kind == cfFloat && k.dec != nil && k.opts.CFFloat == cf.FloatShortest {
		k.loop = cfLoopShortest
		k.fl.setMissing(k.missing)
		k.fc, k.hasCheck = k.dec.FastCheck()
		k.check = checkArgs(&k.fc, &k.fl)
		return
	}
	if k.opts.Reference || !a.IsInt64() || !b.IsInt64() || !c.IsUint64() || c.Sign() <= 0 || a.Sign() == 0 {
		return
	}
	k.small, k.a, k.b, k.c = true, a.Int64(), b.Int64(), c.Uint64()
	if k.c != 1 {
		k.div = newDivisor(k.c)
		k.lin.div = k.div
	}
	// The integer loops' range: v×A + B in the value range, never NaT (C
	// >= 2: the multiply-add kernels' output is the division's input,
	// where NaT stays NaT).
	tlo, thi := int64(minValue), int64(maxValue)
	if k.kind == cfFloat {
		af := float64(k.a)
		if k.a > 1<<53 || k.a < -(1<<53) || int64(af) != k.a {
			return
		}
		k.fl = cfFloatParams{af: af, bf: float64(k.b), b: uint64(k.b)}
		k.fl.setMissing(k.missing)
		k.loop = cfLoopFloat
		return
	}
	lo, hi, ok := rangeOf(a, new(big.Int).Sub(big.NewInt(tlo), b), new(big.Int).Sub(big.NewInt(thi), b))
	if k.kind == cfUint {
		lo = max(lo, 0) // uint64 words above MaxInt64 read as negative: exact path
	}
	// An int64 variable's NaT marker, MinInt64 (cf.NaTMarker), is always
	// missing: it is kept out of the fast range, so that it never widens
	// the interval of the declared missing values (which would send the
	// values between them to the exact path, and the SIMD kernels, which
	// compare one missing value, off the block). With no other missing
	// value it is the one the loops compare; beside one, the loops stop
	// at it and the exact path stores NaT.
	missing := k.missing
	if k.kind == cfInt && slices.Contains(missing, natBits) {
		lo = max(lo, math.MinInt64+1)
		if len(missing) > 1 {
			missing = slices.DeleteFunc(slices.Clone(missing), func(m uint64) bool { return m == natBits })
		}
	}
	if !ok || lo > hi {
		return
	}
	k.lo, k.hi = lo, hi
	switch {
	case len(missing) == 0:
		// One word outside [lo, hi] (there is one: A != 0 maps [lo, hi]
		// one to one into fewer than 2^64 values).
		k.miss.mlo = uint64(lo - 1)
		if lo == math.MinInt64 {
			k.miss.mlo = uint64(hi + 1)
		}
	case len(missing) == 1:
		k.miss = cfMissing{mlo: missing[0], single: true}
	default:
		// The signed interval that holds them (words are int64s here).
		first, last := int64(missing[0]), int64(missing[0])
		for _, m := range missing {
			first, last = min(first, int64(m)), max(last, int64(m))
		}
		k.miss = cfMissing{mlo: uint64(first), mspan: uint64(last) - uint64(first)}
	}
	k.miss.inRange = k.miss.mspan != 0 || k.miss.single && int64(k.miss.mlo) >= lo && int64(k.miss.mlo) <= hi
	k.loop = cfLoopMulAdd
	if k.c != 1 {
		k.loop = cfLoopMulAddDiv
	}
}

// setMissing sets the float loops' missing values from their bits.
func (p *cfFloatParams) setMissing(missing []uint64) {
	for _, m := range missing {
		p.missing = append(p.missing, math.Float64frombits(m))
	}
	if len(p.missing) == 1 {
		p.missF, p.hasMiss = p.missing[0], true
	}
}

// rangeOf returns the int64 values v with lo <= v×a <= hi (a != 0),
// clipped to int64; ok is false when there are none.
func rangeOf(a, lo, hi *big.Int) (vlo, vhi int64, ok bool) {
	if a.Sign() < 0 {
		lo, hi = new(big.Int).Neg(hi), new(big.Int).Neg(lo)
		a = new(big.Int).Neg(a)
	}
	l := clipBig(ceilDivBig(lo, a), math.MinInt64, math.MaxInt64)
	h := clipBig(floorDivBig(hi, a), math.MinInt64, math.MaxInt64)
	if l.Cmp(h) > 0 {
		return 0, 0, false
	}
	return l.Int64(), h.Int64(), true
}

func floorDivBig(x, d *big.Int) *big.Int {
	q, m := new(big.Int).DivMod(x, d, new(big.Int)) // Euclidean
	if d.Sign() < 0 && m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

func ceilDivBig(x, d *big.Int) *big.Int {
	q := floorDivBig(x, d)
	if new(big.Int).Mul(q, d).Cmp(x) != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

func clipBig(x *big.Int, lo, hi int64) *big.Int {
	if x.Cmp(big.NewInt(lo)) < 0 {
		return big.NewInt(lo)
	}
	if x.Cmp(big.NewInt(hi)) > 0 {
		return big.NewInt(hi)
	}
	return x
}

// Affine returns the exact map d applies.
func (d *CFDecoder) Affine() cf.Affine { return d.k.aff }

// Affine returns the exact map e applies.
func (e *CFEncoder) Affine() cf.Affine { return e.k.aff }

// String names the decoding and its loop, e.g.
// "int64 hours since 1900-01-01 00:00:00 -> datetime64[ns]: v×3600000000000-2208988800000000000 (multiply-add)".
func (d *CFDecoder) String() string {
	return fmt.Sprintf("%s -> %s: %s (%s)", d.k.source, d.k.to, d.k.aff, d.k.loopName())
}

// String names the encoding and its loop.
func (e *CFEncoder) String() string {
	return fmt.Sprintf("%s -> int64 %ss: %s (%s)", e.k.source, e.k.to.Unit, e.k.aff, e.k.loopName())
}

func (k *cfKernel) loopName() string {
	if k.opts.Reference {
		return "reference"
	}
	return cfLoopNames[k.loop]
}

// Run decodes the n stored elements of src (t.Stored's size each, byte
// order Options.From) into dst (8n bytes, byte order Options.To), with the
// Arrow validity bitmap of the output when validity is not nil
// (len(validity) >= ceil(n/8)). Missing values and NaN become NaT.
//
// dst may start at src's address (in place: narrow stored elements are
// widened back to front); any other overlap is ErrOverlap. Errors and
// Stats are as for Transcoder.Run: under dtype.OverflowError the first
// overflowing element, in exact mode the first lossy one, is an
// *dtype.ElementError (Source and, for floats and large uint64s, Text set).
func (d *CFDecoder) Run(dst, src, validity []byte) (Stats, error) { return d.k.run(dst, src, validity) }

// Run encodes the datetime64 values of src (8 bytes each, byte order
// Options.From) into int64 counts in dst (byte order Options.To), as
// CFDecoder.Run does.
func (e *CFEncoder) Run(dst, src, validity []byte) (Stats, error) { return e.k.run(dst, src, validity) }

func (k *cfKernel) run(dst, src, validity []byte) (Stats, error) {
	z := k.size
	if len(src)%z != 0 {
		return Stats{}, fmt.Errorf("kernels: CF source has %d bytes, not a multiple of %d: %w", len(src), z, ErrLength)
	}
	n := len(src) / z
	if len(dst) != 8*n {
		return Stats{}, fmt.Errorf("kernels: CF source has %d elements, destination %d bytes (want %d): %w", n, len(dst), 8*n, ErrLength)
	}
	if validity != nil {
		if err := bitmapCheck(validity, n); err != nil {
			return Stats{}, err
		}
	}
	inPlace := false
	if n > 0 {
		inPlace = unsafe.SliceData(dst) == unsafe.SliceData(src)
		if !inPlace && overlap(dst, src) != 0 {
			return Stats{}, ErrOverlap
		}
	}
	acc := accumulator{lo: math.MaxInt64, hi: math.MinInt64, minmax: k.opts.Stats}
	var err error
	if z == 8 {
		dw, dok := wordsOf(dst)
		sw, sok := srcWordsOf(src)
		if dok && sok {
			err = k.runWords(dw, sw, validity, 0, k.swapIn, k.swapOut, &acc)
			return acc.stats(), err
		}
		var s stage
		for w, first, ok := s.next(src); ok; w, first, ok = s.next(src) {
			var vb []byte
			if validity != nil {
				vb = validity[first/8:]
			}
			err = k.runWords(s.into(dw, dok, w), w, vb, first, k.swapIn, k.swapOut, &acc)
			if err != nil {
				s.put(dst, dok, acc.elements-first)
				return acc.stats(), err
			}
			s.put(dst, dok, len(w))
		}
		return acc.stats(), nil
	}
	return k.runNarrow(dst, src, validity, n, inPlace, &acc)
}

// runNarrow widens stored elements of 1, 2 or 4 bytes into a stage and
// converts it there. In place, the output of a piece covers the source of
// later pieces, so the pieces go back to front; an error then names the
// first failing element of the lowest failing piece, and Stats cover the
// elements before it.
func (k *cfKernel) runNarrow(dst, src, validity []byte, n int, inPlace bool, acc *accumulator) (Stats, error) {
	var buf [stageWords]uint64
	pieces := (n + stageWords - 1) / stageWords
	var firstErr error
	for p := range pieces {
		if inPlace {
			p = pieces - 1 - p
		}
		first := p * stageWords
		end := min(first+stageWords, n)
		w := buf[:end-first]
		k.widen(w, src[first*k.size:end*k.size])
		var vb []byte
		if validity != nil {
			vb = validity[first/8:]
		}
		var part accumulator
		part.lo, part.hi, part.minmax = math.MaxInt64, math.MinInt64, acc.minmax
		err := k.runWords(w, w, vb, first, false, k.swapOut, &part)
		copy(dst[8*first:8*first+8*part.elements], unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), 8*part.elements))
		if err != nil {
			if !inPlace {
				acc.add(&part)
				return acc.stats(), err
			}
			// Back to front: what came after this piece no longer counts.
			*acc, firstErr = part, err
			continue
		}
		acc.add(&part)
	}
	return acc.stats(), firstErr
}

func (a *accumulator) add(b *accumulator) {
	a.elements += b.elements
	a.nat += b.nat
	a.overflowNaT += b.overflowNaT
	a.overflowed += b.overflowed
	a.lossy += b.lossy
	a.noDate += b.noDate
	a.lo, a.hi = min(a.lo, b.lo), max(a.hi, b.hi)
}

// widen reads the stored elements of src into w as host-order words.
// (binary.ByteOrder as an interface value would make src escape: the
// concrete orders are picked per element, a branch always taken the same
// way.)
func (k *cfKernel) widen(w []uint64, src []byte) {
	little := k.srcLittle
	u16 := func(b []byte) uint16 {
		if little {
			return binary.LittleEndian.Uint16(b)
		}
		return binary.BigEndian.Uint16(b)
	}
	u32 := func(b []byte) uint32 {
		if little {
			return binary.LittleEndian.Uint32(b)
		}
		return binary.BigEndian.Uint32(b)
	}
	signed := k.stored.Kind == cf.StoredInt
	switch {
	case k.size == 1 && signed:
		for i := range w {
			w[i] = uint64(int64(int8(src[i])))
		}
	case k.size == 1:
		for i := range w {
			w[i] = uint64(src[i])
		}
	case k.size == 2 && signed:
		for i := range w {
			w[i] = uint64(int64(int16(u16(src[2*i:]))))
		}
	case k.size == 2:
		for i := range w {
			w[i] = uint64(u16(src[2*i:]))
		}
	case k.kind == cfFloat:
		// float32, the common narrow type (model output): the SIMD hook,
		// then one loop per byte order for the tail.
		src = src[:4*len(w)]
		n := widenFloat32SIMD(w, src, k.swapIn)
		if little {
			for i := n; i < len(w); i++ {
				w[i] = math.Float64bits(float64(math.Float32frombits(binary.LittleEndian.Uint32(src[4*i:]))))
			}
			return
		}
		for i := n; i < len(w); i++ {
			w[i] = math.Float64bits(float64(math.Float32frombits(binary.BigEndian.Uint32(src[4*i:]))))
		}
	case signed:
		for i := range w {
			w[i] = uint64(int64(int32(u32(src[4*i:]))))
		}
	default:
		for i := range w {
			w[i] = uint64(u32(src[4*i:]))
		}
	}
}

// runWords converts src into dst block by block, as Transcoder.runWords;
// base is the index of src[0] in the caller's buffer (for errors).
func (k *cfKernel) runWords(dst, src []uint64, validity []byte, base int, swapIn, swapOut bool, acc *accumulator) error {
	byProducts := func(lo, hi int) {
		if hi <= lo {
			return
		}
		if validity != nil {
			validityWords(validity[lo/8:], dst[lo:hi], swapOut)
		}
		if acc.minmax {
			l, h, _ := minMaxWords(dst[lo:hi], swapOut)
			acc.lo, acc.hi = min(acc.lo, l), max(acc.hi, h)
		}
	}
	for off := 0; off < len(src); off += blockWords {
		end := min(off+blockWords, len(src))
		err := k.decodeBlock(dst[off:end], src[off:end], base+off, swapIn, swapOut, acc)
		if k.cal.on {
			// The elements decoded (before a failing one) are converted:
			// an earlier element that has no date, or overflows once
			// converted, is the one to report.
			done := end
			if err != nil {
				done = failedIndex(err) - base
			}
			if cerr := k.runCalendar(dst[off:done], base+off, swapOut, acc); cerr != nil {
				err = cerr
			}
		}
		if err != nil {
			byProducts(off, failedIndex(err)-base)
			return err
		}
		byProducts(off, end)
	}
	return nil
}

// decodeBlock decodes one block with runBlock.
func (k *cfKernel) decodeBlock(dst, src []uint64, base int, swapIn, swapOut bool, acc *accumulator) error {
	if !k.opts.Exact || &dst[0] != &src[0] {
		return k.runBlock(dst, src, base, swapIn, swapOut, acc)
	}
	// In place, a lossy element's source would be gone by the time the
	// loop reports it: convert from a saved copy instead.
	var saved [stageWords]uint64
	for s := 0; s < len(src); s += stageWords {
		e := min(s+stageWords, len(src))
		copy(saved[:], src[s:e])
		if err := k.runBlock(dst[s:e], saved[:e-s], base+s, swapIn, swapOut, acc); err != nil {
			return err
		}
	}
	return nil
}

// runBlock runs the fast loop of the map, finishing each element it stops
// at with the exact path and the policies.
func (k *cfKernel) runBlock(dst, src []uint64, base int, swapIn, swapOut bool, acc *accumulator) error {
	if k.opts.Reference {
		for i := range src {
			if err := k.slowElement(dst, src, base, i, swapIn, swapOut, acc); err != nil {
				return err
			}
		}
		return nil
	}
	i, run := 0, 0
	for i < len(src) {
		n, nat, lossy := k.fastWords(dst[i:], src[i:], swapIn, swapOut)
		if lossy > 0 && k.opts.Exact {
			return k.lossAt(src, base, i, i+n, swapIn, acc)
		}
		acc.elements += n
		acc.nat += nat
		acc.lossy += lossy
		i += n
		if i == len(src) {
			break
		}
		run = k.slowRun(run, n)
		for e := min(i+1+run/2, len(src)); i < e; i++ {
			if err := k.slowElement(dst, src, base, i, swapIn, swapOut, acc); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxSlowRun bounds slowRun's back-off: after a run of elements the fast
// check leaves, at most this many elements it would have decided take the
// exact path (about 100 ns each) before the check is tried again.
const maxSlowRun = 64

// slowRun is the back-off state of runBlock after the fast loop converted
// n elements and stopped; run/2 elements after the one it stopped at go
// straight to the exact path. Floats between grid points (observation
// times) leave the check one after another, and trying the vector check
// before each cost a fifth of their time. The state doubles (1, 3, 7, …:
// no skip after the first stop at once, then 1, 3, …) while the fast loop
// stops at once, and is 0 again as soon as it converts anything, so values
// mostly on a grid with some off it are not sent to the exact path. Only
// cf.FloatShortest's loop backs off: the exact path decides every element
// as the check does (TestCFShortestHook), and it has no lossy elements for
// lossAt to report.
func (k *cfKernel) slowRun(last, n int) int {
	if k.loop != cfLoopShortest || n > 0 {
		return 0
	}
	return min(2*last+1, 2*maxSlowRun+1)
}

// isMissing reports whether the host-order word w decodes to NaT.
func (k *cfKernel) isMissing(w uint64) bool {
	if k.kind == cfFloat {
		f := math.Float64frombits(w)
		if f != f {
			return true
		}
		for _, m := range k.missing {
			if math.Float64frombits(m) == f { // -0 and 0 are one value
				return true
			}
		}
		return false
	}
	for _, m := range k.missing {
		if m == w {
			return true
		}
	}
	return false
}

// exact converts one host-order word that is not missing: the exact floor,
// its classification and, for an overflow, whether the exact value is
// negative.
func (k *cfKernel) exact(w uint64) (int64, cf.Result, bool) {
	switch {
	case k.dec == nil:
		return k.exactInt(int64(w))
	case k.kind == cfInt:
		return k.dec.DecodeInt(int64(w))
	case k.kind == cfUint:
		return k.dec.DecodeUint(w)
	}
	return k.dec.DecodeFloat(math.Float64frombits(w))
}

// exactInt is floor((v×A + B)/C) for the encoder: in 128 bits when A, B
// and C are small, else with math/big.
func (k *cfKernel) exactInt(v int64) (int64, cf.Result, bool) {
	if k.small {
		num, _ := i128(v).mulI64(k.a) // |v×A| < 2^126
		num = num.add(i128(k.b))
		var rem uint64
		if k.c != 1 {
			num, rem = num.divModU64(k.c)
		}
		switch {
		case !num.fitsValue():
			return 0, cf.Overflow, num.neg()
		case rem != 0:
			return int64(num.lo), cf.Lossy, num.neg()
		}
		return int64(num.lo), cf.Exact, num.neg()
	}
	n := new(big.Int).Mul(big.NewInt(v), k.aff.A)
	n.Add(n, k.aff.B)
	q, res := k.aff.Int(v)
	return q, res, n.Sign() < 0
}

// slowElement converts src[i] with the exact path and applies the policies.
func (k *cfKernel) slowElement(dst, src []uint64, base, i int, swapIn, swapOut bool, acc *accumulator) error {
	w := src[i]
	if swapIn {
		w = bits.ReverseBytes64(w)
	}
	var out int64
	if k.isMissing(w) {
		out = math.MinInt64
		acc.nat++
	} else {
		q, res, negative := k.exact(w)
		switch res {
		case cf.Lossy:
			if k.opts.Exact {
				return k.elementError(dtype.ReasonLoss, base+i, w)
			}
			acc.lossy++
		case cf.Overflow:
			var ok bool
			if q, ok = k.overflowed(negative, acc); !ok {
				return k.elementError(dtype.ReasonOverflow, base+i, w)
			}
		}
		out = q
	}
	o := uint64(out)
	if swapOut {
		o = bits.ReverseBytes64(o)
	}
	dst[i] = o
	acc.elements++
	return nil
}

// overflowed applies the overflow policy to an element whose exact result
// overflowed (negative: below the range) and counts it: the value to
// store, or false under dtype.OverflowError.
func (k *cfKernel) overflowed(negative bool, acc *accumulator) (int64, bool) {
	switch k.opts.Overflow {
	case dtype.OverflowNaT:
		acc.overflowNaT++
		acc.overflowed++
		return math.MinInt64, true
	case dtype.OverflowClamp:
		acc.overflowed++
		if negative {
			return minValue, true
		}
		return maxValue, true
	}
	return 0, false
}

// lossAt finds the first lossy element of src[from:to], which a fast loop
// reported lossy (src is intact, see runWords), and counts the elements
// before it.
func (k *cfKernel) lossAt(src []uint64, base, from, to int, swapIn bool, acc *accumulator) error {
	nat := 0
	for j := from; j < to; j++ {
		w := src[j]
		if swapIn {
			w = bits.ReverseBytes64(w)
		}
		if k.isMissing(w) {
			nat++
			continue
		}
		if _, res, _ := k.exact(w); res == cf.Lossy {
			acc.elements += j - from
			acc.nat += nat
			return k.elementError(dtype.ReasonLoss, base+j, w)
		}
	}
	return fmt.Errorf("kernels: %s: internal error: lossy element not found in [%d, %d)", k.source, base+from, base+to)
}

func (k *cfKernel) elementError(r dtype.Reason, index int, w uint64) *dtype.ElementError {
	e := &dtype.ElementError{Reason: r, Index: index, To: k.to, Source: k.source}
	switch k.kind {
	case cfInt:
		e.Value = int64(w)
	case cfUint:
		e.Text = strconv.FormatUint(w, 10)
	default:
		bitSize := 64
		if k.size == 4 {
			bitSize = 32
		}
		e.Text = strconv.FormatFloat(math.Float64frombits(w), 'g', -1, bitSize)
	}
	if k.dec == nil { // the encoder's source is a datetime64 type
		e.From, e.Source = k.from, ""
	}
	return e
}
