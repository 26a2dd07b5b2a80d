package dtype

import (
	"fmt"
	"math/bits"
)

// FactorOverflowError is NumPy's OverflowError when setting up a cast: the
// factor between the two units reaches 2^56 (for example D and ps, s and
// as), so NumPy refuses the cast at every scale. dt64's own conversions are
// exact and do not have this limit; the error only describes NumPy.
type FactorOverflowError struct {
	Coarse, Fine Unit // the two units, coarser first, as NumPy names them
}

func (e *FactorOverflowError) Error() string {
	return fmt.Sprintf("Integer overflow while computing the conversion factor between NumPy datetime units %s and %s",
		e.Coarse, e.Fine)
}

// NumPyFactor returns the conversion factor num/den NumPy computes for a
// cast from one data type to another (get_datetime_conversion_factor,
// NumPy 1.24-2.4), including its defects, for diagnostics ("NumPy would
// compute ...") and for comparison with NumPy's output:
//
//   - the unreduced num × from.Scale and den × to.Scale wrap around modulo
//     2^64 unchecked, so the factor is garbage for large scales (m8[2M] to
//     m8[ns]); the reduced parts are then reinterpreted as int64;
//   - a units factor of 2^56 or more is a *FactorOverflowError;
//   - a generic source gives 1/1, a generic destination ErrToGeneric.
//
// Y and M use NumPy's 400-year averages (146097/400 days per year). For a
// datetime cast with Y or M on either side NumPy computes this factor only
// for its overflow check and then converts through the calendar. Kinds are
// not compared, as in NumPy's function; invalid data types are an error.
func NumPyFactor(from, to DataType) (num, den int64, err error) {
	num, den, _, err = numpyFactor(from, to)
	return num, den, err
}

// numpyFactor also reports whether NumPy's unreduced factor wrapped around
// 2^64, i.e. whether NumPy's factor differs from the exact one.
func numpyFactor(from, to DataType) (num, den int64, wrapped bool, err error) {
	if err := from.Validate(); err != nil {
		return 0, 0, false, fmt.Errorf("source data type: %w", err)
	}
	if err := to.Validate(); err != nil {
		return 0, 0, false, fmt.Errorf("destination data type: %w", err)
	}
	if from.Unit == Generic {
		return 1, 1, false, nil
	}
	if to.Unit == Generic {
		return 0, 0, false, fmt.Errorf("cannot convert %s to %s: %w", from, to, ErrToGeneric)
	}
	lo, hi, swapped := from.Unit, to.Unit, false
	if npEnum[lo] > npEnum[hi] {
		lo, hi, swapped = hi, lo, true
	}
	const daysPer400Years = 97 + 400*365 // 146097
	n, d := uint64(1), uint64(1)
	if lo != hi {
		switch lo {
		case Year:
			switch hi {
			case Month:
				n = 12
			case Week:
				n, d = daysPer400Years, 400*7
			default:
				n, d = daysPer400Years*npUnitsFactor(Day, hi), 400
			}
		case Month:
			switch hi {
			case Week:
				n, d = daysPer400Years, 400*12*7
			default:
				n, d = daysPer400Years*npUnitsFactor(Day, hi), 400*12
			}
		default:
			n = npUnitsFactor(lo, hi)
		}
	}
	if n == 0 {
		return 0, 0, false, &FactorOverflowError{Coarse: lo, Fine: hi}
	}
	if swapped {
		n, d = d, n
	}
	hiN, n := bits.Mul64(n, uint64(from.Scale))
	hiD, d := bits.Mul64(d, uint64(to.Scale))
	wrapped = hiN != 0 || hiD != 0
	g := npGCD(n, d)
	if g == 0 { // only if both wrapped to exactly 0; NumPy would divide by zero
		return 0, 0, true, fmt.Errorf("NumPy's conversion factor from %s to %s wraps to 0/0 (NumPy crashes)", from, to)
	}
	return int64(n / g), int64(d / g), wrapped, nil
}

// npGCD ports _uint64_euclidean_gcd, which returns the non-zero argument
// when the other is zero.
func npGCD(x, y uint64) uint64 {
	if x > y {
		x, y = y, x
	}
	for x != y && y != 0 {
		x, y = y, x%y
	}
	return x
}
