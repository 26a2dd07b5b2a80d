package dtype

import (
	"encoding/binary"
	"fmt"
)

// Casting is one of NumPy's casting rules, ordered from the strictest to the
// loosest: a cast allowed under one rule is allowed under every later one.
type Casting uint8

const (
	CastNo       Casting = iota // identical representation (NumPy "no")
	CastEquiv                   // same values, different byte order ("equiv")
	CastSafe                    // every value representable ("safe")
	CastSameKind                // same kind, possibly lossy ("same_kind")
	CastUnsafe                  // anything ("unsafe")
)

var castingNames = [...]string{"no", "equiv", "safe", "same_kind", "unsafe"}

// String returns NumPy's name: "no", "equiv", "safe", "same_kind", "unsafe".
func (c Casting) String() string {
	if int(c) < len(castingNames) {
		return castingNames[c]
	}
	return fmt.Sprintf("Casting(%d)", uint8(c))
}

// ParseCasting parses a NumPy casting rule name.
func ParseCasting(s string) (Casting, error) {
	for i, n := range castingNames {
		if n == s {
			return Casting(i), nil
		}
	}
	return 0, fmt.Errorf("unknown casting rule %q (want no, equiv, safe, same_kind or unsafe)", s)
}

// npEnum is each unit's value in NumPy's NPY_DATETIMEUNIT enum, which keeps
// a gap (3) for the removed business-day unit. The casting and factor rules
// compare and subtract these values, so they are ported on them.
var npEnum = [NumUnits]int{
	Year: 0, Month: 1, Week: 2, Day: 4, Hour: 5, Minute: 6, Second: 7, Millisecond: 8,
	Microsecond: 9, Nanosecond: 10, Picosecond: 11, Femtosecond: 12, Attosecond: 13, Generic: 14,
}

const npSecond = 7 // npEnum[Second]

// npFactors is NumPy's _datetime_factors: the factor from enum unit i to
// unit i+1 (Y->M and M->W are "not used" and 1; B->D is 1; generic 0).
var npFactors = [15]uint64{1, 1, 7, 1, 24, 60, 60, 1000, 1000, 1000, 1000, 1000, 1000, 1, 0}

// npUnitsFactor ports get_datetime_units_factor: the product of the step
// factors from big to little in uint64, or 0 ("overflow") as soon as a
// partial product reaches 2^56 (any of its top 8 bits set).
func npUnitsFactor(big, little Unit) uint64 {
	factor := uint64(1)
	for u := npEnum[big]; u < npEnum[little]; u++ {
		factor *= npFactors[u]
		if factor&0xff00000000000000 != 0 {
			return 0
		}
	}
	return factor
}

// npMetadataDivides ports datetime_metadata_divides, including its uint64
// wrap-around and its "crude, incomplete" overflow check.
func npMetadataDivides(dividend, divisor DataType, strict bool) bool {
	if dividend.Unit == Generic {
		return true
	}
	if divisor.Unit == Generic {
		return false
	}
	num1, num2 := uint64(dividend.Scale), uint64(divisor.Scale)
	if dividend.Unit != divisor.Unit {
		switch {
		case dividend.Unit == Year:
			if divisor.Unit != Month {
				return !strict
			}
			num1 *= 12
		case divisor.Unit == Year:
			if dividend.Unit != Month {
				return !strict
			}
			num2 *= 12
		case dividend.Unit == Month || divisor.Unit == Month:
			return !strict
		}
		// Y<->M reach here too; their units factor is 1.
		if npEnum[dividend.Unit] > npEnum[divisor.Unit] {
			num2 *= npUnitsFactor(divisor.Unit, dividend.Unit)
			if num2 == 0 {
				return false
			}
		} else {
			num1 *= npUnitsFactor(dividend.Unit, divisor.Unit)
			if num1 == 0 {
				return false
			}
		}
	}
	if num1&0xff00000000000000 != 0 || num2&0xff00000000000000 != 0 {
		return false
	}
	return num1%num2 == 0
}

// Safety returns the strictest NumPy casting rule under which
// np.can_cast(from, to, rule) is true, for the given byte orders (nil means
// the host's). It ports time_to_time_resolve_descriptors (NumPy 1.24-2.4):
//
//   - "no" for identical metadata, and also for NumPy's metric-prefix view
//     rule: to's unit is s or finer, from's unit 1, 2 or 3 steps finer and
//     from.Scale/to.Scale == 1000^steps in C integer division (so
//     [2001ns]->[2us] is "no" although the values differ); different byte
//     orders demote "no" to "equiv";
//   - "safe" from generic, "unsafe" to generic;
//   - "unsafe" for a timedelta crossing between {Y, M} and {W ... as};
//   - "safe" towards an equal or finer unit whose scale divides evenly,
//     otherwise "same_kind".
//
// Datetime to timedelta (or back) is "unsafe", as np.can_cast reports, even
// though dt64 itself never converts between kinds. Invalid data types
// (Validate fails) are "unsafe".
func Safety(from, to DataType, fromOrder, toOrder binary.ByteOrder) Casting {
	if from.Validate() != nil || to.Validate() != nil || from.Kind != to.Kind {
		return CastUnsafe
	}
	c := safety(from, to)
	if c == CastNo && normalizeOrder(fromOrder) != normalizeOrder(toOrder) {
		c = CastEquiv
	}
	return c
}

func safety(from, to DataType) Casting {
	e1, e2 := npEnum[from.Unit], npEnum[to.Unit]
	n1, n2 := from.Scale, to.Scale
	if from.Unit == to.Unit && n1 == n2 {
		return CastNo
	}
	// NumPy's "metric prefix" view rule; n2 >= 1 after Validate.
	if e2 >= npSecond {
		switch e1 - e2 {
		case 1:
			if n1/n2 == 1000 {
				return CastNo
			}
		case 2:
			if n1/n2 == 1000000 {
				return CastNo
			}
		case 3:
			if n1/n2 == 1000000000 {
				return CastNo
			}
		}
	}
	if from.Unit == Generic {
		return CastSafe
	}
	if to.Unit == Generic {
		return CastUnsafe
	}
	if from.Kind == Timedelta && ((e1 <= 1 && e2 > 1) || (e2 <= 1 && e1 > 1)) {
		return CastUnsafe
	}
	if e1 <= e2 && npMetadataDivides(from, to, from.Kind == Timedelta) {
		return CastSafe
	}
	return CastSameKind
}

// CanCast reports whether np.can_cast(from, to, rule) is true for
// native-order data types.
func CanCast(from, to DataType, rule Casting) bool {
	return Safety(from, to, nil, nil) <= rule
}

// Safety returns NumPy's casting rule for the conversion's data types in
// native byte order (see the package-level Safety).
func (c Conversion) Safety() Casting {
	return Safety(c.From, c.To, nil, nil)
}
