// Package dtype describes the Zarr v3 extension data types numpy.datetime64
// and numpy.timedelta64: metadata only, no I/O and no element loops.
//
// A DataType is a Kind (Datetime: moments since 1970-01-01T00:00:00;
// Timedelta: durations), a Unit (Y M W D h m s ms us ns ps fs as, or
// generic) and a Scale in [1, 2147483647]: values are int64 counts of
// Scale × Unit. Byte order is not part of it; in Zarr v3 it belongs to the
// bytes codec, in NumPy and Zarr v2 to the dtype string, which ParseNumPy
// returns separately as binary.LittleEndian or binary.BigEndian.
//
// # Reading and writing metadata
//
// ParseJSON (and DataType.UnmarshalJSON) reads the Zarr v3 data_type object
// strictly: exactly name and configuration, the configuration exactly unit
// and scale_factor, no duplicates, the scale a plain JSON integer. Errors
// are *ParseError values naming the member and the text found. MarshalJSON
// writes name, configuration{unit, scale_factor} in that order.
//
// ParseNumPy reads NumPy dtype strings ("<M8[10us]", "timedelta64[25h]",
// "M8[s/4]") with NumPy's grammar; DataType.NumPy writes dtype.str.
//
// # Microseconds
//
// "μs" (U+03BC GREEK SMALL LETTER MU) is accepted everywhere as Microsecond
// and always written back as "us": NumPy's datetime_data reports "us", the
// specification makes the two equivalent, and ASCII survives every JSON,
// file-name and terminal path. So {"unit":"μs"} round-trips to {"unit":"us"},
// an equal DataType. U+00B5 MICRO SIGN is rejected, as NumPy rejects it.
//
// # NaT
//
// NaT ("Not a Time") is math.MinInt64 in every unit, scale and kind; every
// conversion maps it to itself. As a fill value it may be written as the
// string "NaT" or the integer -9223372036854775808 (ParseFillValue accepts
// both); FormatFillValue writes the integer, as zarr-python does.
//
// # Generic units
//
// Following NumPy, generic values are raw counts that adopt the unit they
// are converted to: a conversion from generic copies the values. A
// conversion from a specific unit to generic is ErrToGeneric.
//
// # Conversions and cast safety
//
// NewConversion plans a conversion: a copy, a linear floor(v × num / den)
// with NumPy's factor computed exactly (no wrap-around), or a proleptic
// Gregorian calendar conversion for datetime Y and M. Kinds never mix.
//
// Safety reports the strictest NumPy casting rule (CastNo < CastEquiv <
// CastSafe < CastSameKind < CastUnsafe) under which np.can_cast allows a
// cast, NumPy's quirks included (its metric-prefix "no" rule with C integer
// division, "equiv" across byte orders, timedelta Y/M against the rest
// "unsafe"). It describes NumPy; it does not limit what dt64 converts.
// NumPyFactor likewise reproduces the factor NumPy would use, wrap-around
// and factor-overflow errors included, for diagnostics.
//
// The semantics are checked against vectors generated with NumPy 1.24.2 in
// testdata/oracle (see oracle_test.go for the few deliberate differences).
package dtype
