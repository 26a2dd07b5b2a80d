package dtype

import (
	"fmt"
	"math"
)

// NaT is "Not a Time", the smallest int64, in every unit and scale.
const NaT int64 = math.MinInt64

// MaxScale is the largest scale factor the Zarr specification allows.
const MaxScale = math.MaxInt32

// DataType is a datetime64 or timedelta64 data type: values are int64 counts
// of Scale × Unit. Byte order is not part of it (in Zarr it belongs to the
// bytes codec).
type DataType struct {
	Kind  Kind
	Unit  Unit
	Scale int64 // in [1, MaxScale]
}

// Validate reports whether d is a data type dt64 accepts: a known kind and
// unit, and a scale in [1, 2147483647].
func (d DataType) Validate() error {
	if d.Kind != Datetime && d.Kind != Timedelta {
		return fmt.Errorf("invalid kind %d (want datetime64 or timedelta64)", uint8(d.Kind))
	}
	if !d.Unit.Valid() {
		return fmt.Errorf("invalid unit %d", uint8(d.Unit))
	}
	if d.Scale < 1 || d.Scale > MaxScale {
		return fmt.Errorf("scale factor %d out of range [1, %d]", d.Scale, MaxScale)
	}
	return nil
}

// unitString is the bracketed part of NumPy's name: "10us", "ns", "" for
// generic with scale 1.
func (d DataType) unitString() string {
	if d.Unit == Generic {
		if d.Scale == 1 {
			return ""
		}
		return fmt.Sprintf("%dgeneric", d.Scale)
	}
	if d.Scale == 1 {
		return d.Unit.String()
	}
	return fmt.Sprintf("%d%s", d.Scale, d.Unit)
}

// String returns NumPy's str() of the native-order dtype:
// "datetime64[10us]", "timedelta64[ns]", "datetime64" for generic.
func (d DataType) String() string {
	u := d.unitString()
	if u == "" {
		return d.Kind.String()
	}
	return d.Kind.String() + "[" + u + "]"
}
