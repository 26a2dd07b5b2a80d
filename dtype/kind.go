package dtype

import "fmt"

// Kind says whether values are moments (datetime64) or durations
// (timedelta64). Kinds never mix in a conversion.
type Kind uint8

const (
	Datetime  Kind = iota + 1 // numpy.datetime64: moments since 1970-01-01T00:00:00
	Timedelta                 // numpy.timedelta64: durations
)

// String returns the NumPy name, "datetime64" or "timedelta64".
func (k Kind) String() string {
	switch k {
	case Datetime:
		return "datetime64"
	case Timedelta:
		return "timedelta64"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ZarrName returns the Zarr v3 data type name, "numpy.datetime64" or
// "numpy.timedelta64".
func (k Kind) ZarrName() string { return "numpy." + k.String() }

// code is the NumPy type character: 'M' for datetime64, 'm' for timedelta64.
func (k Kind) code() byte {
	if k == Datetime {
		return 'M'
	}
	return 'm'
}
