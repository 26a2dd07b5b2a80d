package cf

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"

	"github.com/zarr-dt64/dt64/dtype"
)

// Stats counts what decoding did. NaT counts every NaT stored (missing
// values, NaN, and overflows under dtype.OverflowNaT); Overflowed the elements
// that overflowed (stored as NaT or clamped); Lossy those whose exact value
// had a fraction of the destination unit, floored away.
type Stats struct {
	NaT, Lossy, Overflowed int
	// NoDate counts the dates the proleptic Gregorian calendar lacks,
	// stored as NaT under MissingNaT (and counted in NaT too).
	NoDate int
}

// Decoder decodes stored CF numbers to datetime64 values, exactly, element
// by element: the reference the SIMD kernels are tested against. It is
// safe for concurrent use.
type Decoder struct {
	t        Time
	to       dtype.DataType
	aff      Affine
	overflow dtype.OverflowPolicy
	// The fast path: A and B fit in an int64 and C in a uint64.
	fast         bool
	a, b         int64
	c            uint64
	aBits, bBits int      // bit lengths of |A| and |B|
	missing      []uint64 // sorted
	// Floats (shortest.go): the rule; reference skips the fast check.
	rule      FloatRule
	reference bool
	grids     []*big.Rat // the grids of FloatShortest, in destination units
	perSecond int64      // destination units in a second, 0 if not whole
	steps     []int64    // the grids at least the destination unit, in it; nil if one is not whole
	// For a destination unit coarser than 1 ns, decoders to ns, µs and
	// ms (those finer than it), whose ladders try the grids finer than
	// the unit too (planFine).
	fines []fineDecoder
	// A/C and B/C in float64: the value's estimate, to tell overflows
	// far out of range without the exact search.
	scaleF, offsetF float64
	// The float fast check (fastcheck.go), when the decoding has one.
	fastCheck    FastCheck
	hasFastCheck bool
	// Calendar conversion (calendar_model.go): conv as Effective gives
	// it, perDay destination units in a day, toSeconds one unit's length.
	conv        CalendarConversion
	missingDate MissingDate
	modelTime   bool
	perDay      int64
	toSeconds   *big.Rat
}

// DecoderOptions are NewDecoderWith's choices.
type DecoderOptions struct {
	Overflow dtype.OverflowPolicy
	Float    FloatRule
	// Reference decodes every float on the exact rational path, without
	// the fast check: a second opinion for verifying.
	Reference bool
	// Calendar converts dates of a calendar other than NumPy's: a model
	// calendar is refused without it (an *AttributeError wrapping
	// ErrModelCalendar). Missing is what happens to a date the proleptic
	// Gregorian calendar lacks.
	Calendar CalendarOptions
}

// NewDecoder plans decoding t's numbers to datetime64 values of type to
// (any unit but Y, M and generic), with the given overflow policy, floats
// by FloatShortest.
func NewDecoder(t *Time, to dtype.DataType, overflow dtype.OverflowPolicy) (*Decoder, error) {
	return NewDecoderWith(t, to, DecoderOptions{Overflow: overflow})
}

// NewDecoderWith is NewDecoder with every choice.
func NewDecoderWith(t *Time, to dtype.DataType, o DecoderOptions) (*Decoder, error) {
	if err := t.Stored.Validate(); err != nil {
		return nil, err
	}
	aff, err := NewDecoding(t.Units, t.Packing, to)
	if err != nil {
		return nil, err
	}
	d := &Decoder{t: *t, to: to, aff: aff, overflow: o.Overflow, missing: t.MissingValues(), rule: o.Float, reference: o.Reference,
		conv: o.Calendar.Convert.Effective(t.Calendar), missingDate: o.Calendar.Missing, modelTime: o.Calendar.ModelTime}
	if d.modelTime {
		d.conv = ConvertNone
	}
	if err := d.planCalendar(); err != nil {
		return nil, err
	}
	if t.Stored.Kind == StoredFloat && o.Float == FloatShortest {
		if err := d.planShortest(to); err != nil {
			return nil, err
		}
	}
	d.planFastCheck(to)
	slices.Sort(d.missing)
	if aff.A.IsInt64() && aff.B.IsInt64() && aff.C.IsUint64() {
		d.fast, d.a, d.b, d.c = true, aff.A.Int64(), aff.B.Int64(), aff.C.Uint64()
		d.aBits, d.bBits = bits.Len64(absU(d.a)), bits.Len64(absU(d.b))
	}
	if t.Stored.Kind == StoredFloat && o.Float == FloatShortest && !o.Reference {
		d.planFine(t, to, o)
	}
	return d, nil
}

// Affine is the exact map the decoder applies.
func (d *Decoder) Affine() Affine { return d.aff }

// Decode decodes the stored numbers in raw (len(dst) elements of the
// stored type in order) into dst. Missing values and NaN become NaT. On
// an overflow under dtype.OverflowError it returns a *dtype.ElementError and dst is
// partly written. It allocates nothing per element on the fast path.
func (d *Decoder) Decode(dst []int64, raw []byte, order binary.ByteOrder) (Stats, error) {
	var st Stats
	z := d.t.Stored.Size
	if len(raw) != len(dst)*z {
		return st, fmt.Errorf("cf: %d bytes for %d elements of %s", len(raw), len(dst), d.t.Stored)
	}
	for i := range dst {
		v := d.element(raw[i*z:], order)
		if d.isMissing(v) {
			dst[i] = dtype.NaT
			st.NaT++
			continue
		}
		q, res, negative := d.decodeBits(v)
		if d.conv != ConvertNone && res != Overflow && !d.clampBound(q) {
			// A lossy decode stays counted, whatever its date becomes (as
			// the kernels count it, decoding first).
			if res == Lossy {
				st.Lossy++
			}
			model := q
			q, res, negative = d.ConvertCalendar(model)
			if res == NoDate {
				if d.missingDate == MissingError {
					return st, &dtype.ElementError{Reason: dtype.ReasonNoDate, Index: i, Text: d.format(v), To: d.to,
						Source: d.t.Describe(), Date: d.DateText(model)}
				}
				dst[i] = dtype.NaT
				st.NaT++
				st.NoDate++
				continue
			}
		}
		switch res {
		case Lossy:
			st.Lossy++
		case Overflow:
			st.Overflowed++
			switch d.overflow {
			case dtype.OverflowNaT:
				q = dtype.NaT
				st.NaT++
			case dtype.OverflowClamp:
				q = math.MaxInt64
				if negative {
					q = math.MinInt64 + 1
				}
			default:
				return st, &dtype.ElementError{Reason: dtype.ReasonOverflow, Index: i, Text: d.format(v), To: d.to, Source: d.t.Describe()}
			}
		}
		dst[i] = q
	}
	return st, nil
}

// element reads one stored element as Time.Missing's bits.
func (d *Decoder) element(b []byte, order binary.ByteOrder) uint64 {
	var u uint64
	switch d.t.Stored.Size {
	case 1:
		u = uint64(b[0])
	case 2:
		u = uint64(order.Uint16(b))
	case 4:
		u = uint64(order.Uint32(b))
	default:
		u = order.Uint64(b)
	}
	switch d.t.Stored.Kind {
	case StoredInt:
		shift := 64 - 8*d.t.Stored.Size
		return uint64(int64(u<<shift) >> shift)
	case StoredFloat:
		if d.t.Stored.Size == 4 {
			return math.Float64bits(float64(math.Float32frombits(uint32(u))))
		}
	}
	return u
}

func (d *Decoder) isMissing(v uint64) bool {
	if d.t.Stored.Kind == StoredFloat {
		f := math.Float64frombits(v)
		if f != f {
			return true
		}
		for _, m := range d.missing {
			if math.Float64frombits(m) == f { // -0 and 0 are one value
				return true
			}
		}
		return false
	}
	_, found := slices.BinarySearch(d.missing, v)
	return found
}

func (d *Decoder) format(v uint64) string {
	switch d.t.Stored.Kind {
	case StoredInt:
		return strconv.FormatInt(int64(v), 10)
	case StoredUint:
		return strconv.FormatUint(v, 10)
	}
	return strconv.FormatFloat(math.Float64frombits(v), 'g', -1, 64)
}

// DecodeInt, DecodeUint and DecodeFloat decode one value that is not
// missing: the exact floor (a float by the decoder's FloatRule), its
// classification, and for an overflow whether the exact value is
// negative.
func (d *Decoder) DecodeInt(v int64) (int64, Result, bool) {
	return d.fastOrBig(v < 0, absU(v), 0, nil)
}

func (d *Decoder) DecodeUint(v uint64) (int64, Result, bool) {
	return d.fastOrBig(false, v, 0, nil)
}

func (d *Decoder) DecodeFloat(f float64) (int64, Result, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, Overflow, f < 0
	}
	if d.rule == FloatShortest {
		return d.decodeShortest(f)
	}
	return d.floorFloat(f)
}

// floorFloat is FloatExact: the floor of the float's exact value.
func (d *Decoder) floorFloat(f float64) (int64, Result, bool) {
	if f == 0 {
		return d.fastOrBig(false, 0, 0, nil)
	}
	neg, mant, e := splitOdd(f)
	switch {
	case e >= 0 && e <= 11: // an integer below 2^64
		return d.fastOrBig(neg, mant<<uint(e), 0, nil)
	case e < 0:
		return d.fastOrBig(neg, mant, uint(-e), nil)
	}
	return d.fastOrBig(neg, 0, 0, new(big.Rat).SetFloat64(f))
}

// splitOdd returns f = ±mant × 2^e with mant odd, for f != 0.
func splitOdd(f float64) (neg bool, mant uint64, e int) {
	b := math.Float64bits(f)
	neg = b>>63 != 0
	e = int(b>>52&0x7ff) - 1075
	mant = b & (1<<52 - 1)
	if e == -1075 {
		e = -1074 // subnormal
	} else {
		mant |= 1 << 52
	}
	tz := bits.TrailingZeros64(mant)
	return neg, mant >> uint(tz), e + tz
}

func absU(v int64) uint64 {
	if v < 0 {
		return -uint64(v)
	}
	return uint64(v)
}

func (d *Decoder) decodeBits(v uint64) (int64, Result, bool) {
	switch d.t.Stored.Kind {
	case StoredInt:
		return d.DecodeInt(int64(v))
	case StoredUint:
		return d.DecodeUint(v)
	}
	return d.DecodeFloat(math.Float64frombits(v))
}

// fits reports whether x = ±mag / 2^k takes the 128-bit path: the value
// is then (±mag × A + B × 2^k) / (C × 2^k), with |x × A| and |B × 2^k|
// below 2^125, so that their sum stays inside an int128, and C × 2^k
// inside the divisor's uint64.
func (d *Decoder) fits(mag uint64, k uint) bool {
	return d.fast && bits.Len64(mag)+d.aBits <= 125 && d.bBits+int(k) <= 125 && (k == 0 || d.c < 1<<(64-k))
}

// fastOrBig floors (x × A + B) / C for x = ±mag / 2^k (or exactly the
// rational r when r is not nil): in 128-bit integers when the operands
// allow, else with math/big.
func (d *Decoder) fastOrBig(neg bool, mag uint64, k uint, r *big.Rat) (int64, Result, bool) {
	if r != nil {
		return d.bigFloor(r)
	}
	if d.fits(mag, k) {
		num := mulMag(neg, mag, d.a).add(int128Of(d.b).shl(k))
		if k == 0 && d.c == 1 { // integers to a unit the reference is whole in: no division
			lo := int64(num.lo)
			if num.hi != uint64(lo>>63) || lo == math.MinInt64 {
				return 0, Overflow, num.negative()
			}
			return lo, Exact, lo < 0
		}
		q, lossy, ok, negative := floorDiv128(num, d.c<<k)
		switch {
		case !ok:
			return 0, Overflow, negative
		case lossy:
			return q, Lossy, negative
		}
		return q, Exact, negative
	}
	if d.fast && k > 0 && bits.Len64(mag)+d.aBits <= 125 {
		// B × 2^k does not fit (a float far below 1): the value is
		// (N + r) / C with N = floor(±mag × A / 2^k) + B and r in
		// [0, 1) the part shifted out, and its floor is N's, as N is
		// whole; it is exact when both r and N's remainder are 0, and
		// negative when N is.
		n, g := mulMag(neg, mag, d.a).sarRound(k)
		q, lossy, ok, negative := floorDiv128(n.add(int128Of(d.b)), d.c)
		switch {
		case !ok:
			return 0, Overflow, negative
		case lossy || g != 0:
			return q, Lossy, negative
		}
		return q, Exact, negative
	}
	x := new(big.Int).SetUint64(mag)
	if neg {
		x.Neg(x)
	}
	return d.bigFloor(new(big.Rat).SetFrac(x, new(big.Int).Lsh(big.NewInt(1), k)))
}

// bigFloor is fastOrBig on math/big, for the exact rational r.
func (d *Decoder) bigFloor(r *big.Rat) (int64, Result, bool) {
	n := new(big.Int).Mul(r.Num(), d.aff.A)
	n.Add(n, new(big.Int).Mul(r.Denom(), d.aff.B))
	q, res := d.aff.apply(r)
	return q, res, n.Sign() < 0
}
