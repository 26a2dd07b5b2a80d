package cf

import (
	"fmt"
	"math"
	"math/big"

	"github.com/zarr-dt64/dt64/dtype"
)

// Affine is an exact map between stored CF numbers and datetime64 counts:
// out = floor((v × A + B) / C), with integers A, B and C > 0. Decoding
// (CF numbers to datetime64) and encoding (datetime64 to CF integers) are
// both affine: a count of units is elapsed time, so only the reference
// date and the units' lengths enter.
type Affine struct {
	A, B, C *big.Int
}

// Packing is CF's scale_factor and add_offset: a stored number v means
// v × Scale + Offset units. nil means 1 and 0.
type Packing struct {
	Scale, Offset *big.Rat
}

var secondsPer = map[dtype.Unit]*big.Rat{
	dtype.Week: big.NewRat(604800, 1), dtype.Day: big.NewRat(86400, 1), dtype.Hour: big.NewRat(3600, 1),
	dtype.Minute: big.NewRat(60, 1), dtype.Second: big.NewRat(1, 1), dtype.Millisecond: big.NewRat(1, 1000),
	dtype.Microsecond: big.NewRat(1, 1_000_000), dtype.Nanosecond: big.NewRat(1, 1_000_000_000),
}

// unitSeconds is the length of one count of a datetime64 (or timedelta64)
// data type in seconds; Y and M have none (they are calendar units, and
// NumPy's timedelta Y and M are averages no calendar has).
func unitSeconds(d dtype.DataType) (*big.Rat, error) {
	if d.Kind != dtype.Datetime && d.Kind != dtype.Timedelta {
		return nil, fmt.Errorf("%s is not a datetime64 or timedelta64 type", d)
	}
	if d.Unit.IsCalendar() || d.Unit == dtype.Generic {
		return nil, fmt.Errorf("%s has no fixed length in seconds (CF times and durations become %s in W, D, h, m, s, ms, us, ns, ps, fs or as)", d, d.Kind)
	}
	sec := dtype.DataType{Kind: d.Kind, Unit: dtype.Second, Scale: 1}
	c, err := dtype.NewConversion(d, sec)
	if err != nil {
		return nil, err
	}
	num, den := c.Factor()
	return new(big.Rat).SetFrac(num, den), nil
}

// NewDecoding plans decoding stored numbers with units u and packing p
// into datetime64 values of type to: out = floor((ref + (v×Scale +
// Offset)×unit) / to's unit).
func NewDecoding(u Units, p Packing, to dtype.DataType) (Affine, error) {
	if err := u.checkKind(to); err != nil {
		return Affine{}, err
	}
	ds, err := unitSeconds(to)
	if err != nil {
		return Affine{}, err
	}
	scale, offset := p.Scale, p.Offset
	if scale == nil {
		scale = big.NewRat(1, 1)
	}
	if offset == nil {
		offset = new(big.Rat)
	}
	us := secondsPer[u.Unit]
	alpha := new(big.Rat).Mul(scale, us)
	alpha.Quo(alpha, ds)
	beta := new(big.Rat).Mul(offset, us)
	beta.Add(beta, u.Reference)
	beta.Quo(beta, ds)
	return affineOf(alpha, beta), nil
}

// NewEncoding plans encoding datetime64 values of type from as integer
// counts of units u: out = floor((v × from's unit − ref) / unit).
func NewEncoding(from dtype.DataType, u Units) (Affine, error) {
	if err := u.checkKind(from); err != nil {
		return Affine{}, err
	}
	fs, err := unitSeconds(from)
	if err != nil {
		return Affine{}, err
	}
	us := secondsPer[u.Unit]
	alpha := new(big.Rat).Quo(fs, us)
	beta := new(big.Rat).Neg(u.Reference)
	beta.Quo(beta, us)
	return affineOf(alpha, beta), nil
}

// affineOf writes v×alpha + beta over one denominator.
func affineOf(alpha, beta *big.Rat) Affine {
	a2, b2 := alpha.Denom(), beta.Denom()
	g := new(big.Int).GCD(nil, nil, a2, b2)
	c := new(big.Int).Mul(a2, new(big.Int).Quo(b2, g)) // lcm
	a := new(big.Int).Mul(alpha.Num(), new(big.Int).Quo(c, a2))
	b := new(big.Int).Mul(beta.Num(), new(big.Int).Quo(c, b2))
	return Affine{A: a, B: b, C: c}
}

// Result classifies one converted element.
type Result uint8

const (
	Exact    Result = iota // the result is the exact value
	Lossy                  // a non-zero remainder was floored away
	Overflow               // the exact value is outside [MinInt64+1, MaxInt64]
	NoDate                 // converted by its date, the proleptic Gregorian calendar has none
)

var (
	minValue = big.NewInt(math.MinInt64 + 1)
	maxValue = big.NewInt(math.MaxInt64)
)

// apply floors (x × A + B) / C for an exact rational x.
func (f Affine) apply(x *big.Rat) (int64, Result) {
	n := new(big.Int).Mul(x.Num(), f.A)
	n.Add(n, new(big.Int).Mul(x.Denom(), f.B))
	d := new(big.Int).Mul(x.Denom(), f.C)
	q, r := new(big.Int).DivMod(n, d, new(big.Int)) // Euclidean: d > 0, so q is the floor
	switch {
	case q.Cmp(minValue) < 0 || q.Cmp(maxValue) > 0:
		return 0, Overflow
	case r.Sign() != 0:
		return q.Int64(), Lossy
	}
	return q.Int64(), Exact
}

// Int converts one integer element exactly: the reference for every
// fast path.
func (f Affine) Int(v int64) (int64, Result) {
	return f.apply(new(big.Rat).SetInt64(v))
}

// Uint converts one unsigned integer element exactly.
func (f Affine) Uint(v uint64) (int64, Result) {
	return f.apply(new(big.Rat).SetInt(new(big.Int).SetUint64(v)))
}

// Float converts one finite float element exactly, as the binary value it
// is (0.5 days is 12 hours exactly). NaN and ±Inf overflow; a caller
// treating NaN as missing tests for it first.
func (f Affine) Float(v float64) (int64, Result) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, Overflow
	}
	return f.apply(new(big.Rat).SetFloat64(v))
}

// Int64 returns A, B and C when all three fit in an int64: the fast
// kernels' parameters.
func (f Affine) Int64() (a, b, c int64, ok bool) {
	if !f.A.IsInt64() || !f.B.IsInt64() || !f.C.IsInt64() {
		return 0, 0, 0, false
	}
	return f.A.Int64(), f.B.Int64(), f.C.Int64(), true
}

func (f Affine) String() string {
	if f.C.Cmp(big.NewInt(1)) == 0 {
		return fmt.Sprintf("v×%s%+d", f.A, f.B)
	}
	return fmt.Sprintf("floor((v×%s%+d)/%s)", f.A, f.B, f.C)
}
