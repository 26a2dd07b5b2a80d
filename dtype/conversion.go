package dtype

import (
	"errors"
	"fmt"
	"math/big"
)

// Path is the kind of arithmetic a conversion needs.
type Path uint8

const (
	// PathCopy: values are unchanged (identical data types, or a generic
	// source, whose raw values NumPy adopts into the target unit).
	PathCopy Path = iota
	// PathLinear: result = floor(v × Num / Den), exactly.
	PathLinear
	// PathCalendar: a datetime conversion with Y or M on either side, through
	// the proleptic Gregorian calendar; the result is the containing unit.
	PathCalendar
)

func (p Path) String() string {
	switch p {
	case PathCopy:
		return "copy"
	case PathLinear:
		return "linear"
	case PathCalendar:
		return "calendar"
	}
	return fmt.Sprintf("Path(%d)", uint8(p))
}

// ErrToGeneric is returned for a conversion from a specific unit to the
// generic unit, which NumPy refuses as well.
var ErrToGeneric = errors.New("cannot convert from specific units to generic units in NumPy datetimes or timedeltas")

// Conversion is a plan to convert values of one data type to another with
// NumPy's semantics, minus NumPy's wrap-around: the factor is exact.
type Conversion struct {
	From, To DataType
	Path     Path
	// num/den is the reduced exact factor of a linear conversion (1/1
	// otherwise). Never mutated after NewConversion, so copies may share them.
	num, den *big.Int
}

// NewConversion plans a conversion from one data type to another. Kinds must
// match, and a specific unit cannot become generic.
func NewConversion(from, to DataType) (Conversion, error) {
	if err := from.Validate(); err != nil {
		return Conversion{}, fmt.Errorf("source data type: %w", err)
	}
	if err := to.Validate(); err != nil {
		return Conversion{}, fmt.Errorf("destination data type: %w", err)
	}
	if from.Kind != to.Kind {
		return Conversion{}, fmt.Errorf("cannot convert %s to %s: datetime and timedelta never mix", from, to)
	}
	c := Conversion{From: from, To: to, num: big.NewInt(1), den: big.NewInt(1)}
	switch {
	case from.Unit == Generic:
		// NumPy's rule: generic values are raw counts that adopt the target unit.
		c.Path = PathCopy
	case to.Unit == Generic:
		return Conversion{}, fmt.Errorf("cannot convert %s to %s: %w", from, to, ErrToGeneric)
	case from == to:
		c.Path = PathCopy
	case from.Kind == Datetime && (from.Unit.IsCalendar() || to.Unit.IsCalendar()):
		c.Path = PathCalendar
	default:
		c.Path = PathLinear
		c.num.Mul(unitAttos(from.Unit), big.NewInt(from.Scale))
		c.den.Mul(unitAttos(to.Unit), big.NewInt(to.Scale))
		g := new(big.Int).GCD(nil, nil, c.num, c.den)
		c.num.Quo(c.num, g)
		c.den.Quo(c.den, g)
	}
	return c, nil
}

func unitAttos(u Unit) *big.Int {
	n, _ := new(big.Int).SetString(attosPerUnit[u], 10)
	return n
}

// Factor returns the exact reduced conversion factor num/den of a linear
// conversion (1/1 for the other paths), as new values the caller may keep.
func (c Conversion) Factor() (num, den *big.Int) {
	if c.num == nil { // the zero Conversion
		return big.NewInt(1), big.NewInt(1)
	}
	return new(big.Int).Set(c.num), new(big.Int).Set(c.den)
}

// Factor64 returns the exact factor when both parts fit in a uint64.
func (c Conversion) Factor64() (num, den uint64, ok bool) {
	if c.num == nil {
		return 1, 1, true
	}
	if !c.num.IsUint64() || !c.den.IsUint64() {
		return 0, 0, false
	}
	return c.num.Uint64(), c.den.Uint64(), true
}

// String describes the plan: "datetime64[s] -> datetime64[ns]: linear ×1000000000/1".
func (c Conversion) String() string {
	s := fmt.Sprintf("%s -> %s: %s", c.From, c.To, c.Path)
	if c.Path == PathLinear {
		s += fmt.Sprintf(" ×%s/%s", c.num, c.den)
	}
	return s
}
