package dtype

import "fmt"

// Unit is a NumPy datetime unit. The constants are ordered from the coarsest
// to the finest, as in NumPy's NPY_DATETIMEUNIT enum (without the removed
// business-day unit), with Generic last. The zero value, NoUnit, is no
// unit at all: an option left unset, never a valid data type's.
type Unit uint8

const (
	NoUnit Unit = iota
	Year
	Month
	Week
	Day
	Hour
	Minute
	Second
	Millisecond
	Microsecond
	Nanosecond
	Picosecond
	Femtosecond
	Attosecond
	Generic
)

// NumUnits bounds the units: every Unit is below it (NoUnit and Generic included).
const NumUnits = int(Generic) + 1

var unitNames = [NumUnits]string{"", "Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "generic"}

// String returns the unit's NumPy name. Microseconds are "us", never "μs":
// NumPy's own datetime_data reports "us", and ASCII survives every JSON and
// terminal path.
func (u Unit) String() string {
	if u != NoUnit && int(u) < NumUnits {
		return unitNames[u]
	}
	return fmt.Sprintf("Unit(%d)", uint8(u))
}

// Valid reports whether u is one of the defined units (NoUnit is not).
func (u Unit) Valid() bool { return u != NoUnit && int(u) < NumUnits }

// IsCalendar reports whether u is a variable-length calendar unit (Y or M).
func (u Unit) IsCalendar() bool { return u == Year || u == Month }

// microSign is U+03BC GREEK SMALL LETTER MU, the only "μ" NumPy and the Zarr
// specification accept. U+00B5 MICRO SIGN is rejected, as NumPy rejects it.
const microSign = "μs"

// ParseUnit parses a unit name. Names are case-sensitive ("m" is minutes,
// "M" months); "μs" (U+03BC) is accepted as a synonym for "us".
func ParseUnit(s string) (Unit, error) {
	if s == microSign {
		return Microsecond, nil
	}
	for i, n := range unitNames {
		if n == s && Unit(i) != NoUnit {
			return Unit(i), nil
		}
	}
	return 0, fmt.Errorf("unknown datetime unit %q (want one of Y M W D h m s ms us μs ns ps fs as generic; units are case-sensitive)", s)
}

// attosPerUnit is each unit's length in attoseconds, as a decimal string for
// math/big (a week is 6.048e23 as, beyond uint64). Y and M are NumPy's
// 400-year averages (146097/400 and 146097/4800 days), which are exact
// integers in attoseconds; they apply to timedelta conversions only.
var attosPerUnit = [Generic]string{
	Year:        "31556952000000000000000000",
	Month:       "2629746000000000000000000",
	Week:        "604800000000000000000000",
	Day:         "86400000000000000000000",
	Hour:        "3600000000000000000000",
	Minute:      "60000000000000000000",
	Second:      "1000000000000000000",
	Millisecond: "1000000000000000",
	Microsecond: "1000000000000",
	Nanosecond:  "1000000000",
	Picosecond:  "1000000",
	Femtosecond: "1000",
	Attosecond:  "1",
}
