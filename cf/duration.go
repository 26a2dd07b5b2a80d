package cf

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/zarr-dt64/dt64/dtype"
)

// CF durations: a numeric variable whose units attribute is a time unit
// without "since" ("hours") holds lengths of time, not instants. xarray
// decodes them to timedelta64 (ERA5's step, model time_bnds offsets).
// They are a Time whose Units.Duration is set and whose reference is
// zero, so every rule of CF time applies unchanged (integers exact,
// floats by the FloatRule, packing, missing values, overflow), with
// timedelta64 in place of datetime64.

// durationWords are the units attributes xarray (2023.01,
// CFTimedeltaCoder) decodes as durations: exactly these words, as
// written (no "hour", "Hours", "weeks" or surrounding spaces). Anything
// else without "since" is not a time, as for xarray, and is carried over
// as numbers.
var durationWords = map[string]dtype.Unit{
	"days": dtype.Day, "hours": dtype.Hour, "minutes": dtype.Minute, "seconds": dtype.Second,
	"milliseconds": dtype.Millisecond, "microseconds": dtype.Microsecond, "nanoseconds": dtype.Nanosecond,
}

// IsDuration reports whether a units attribute makes a CF duration, as
// xarray reads it.
func IsDuration(units string) bool {
	_, ok := durationWords[units]
	return ok
}

// ParseDuration parses a CF duration units attribute: one of "days",
// "hours", "minutes", "seconds", "milliseconds", "microseconds" or
// "nanoseconds", exactly (the words xarray decodes). Errors are
// *AttributeError values.
func ParseDuration(text string) (Units, error) {
	u, ok := durationWords[text]
	if !ok {
		reason := "not a CF duration xarray reads; want exactly days, hours, minutes, seconds, milliseconds, microseconds or nanoseconds"
		if isTimeLike(text) {
			reason = "a CF duration has no reference date (\"since\"); want exactly days, hours, minutes, seconds, milliseconds, microseconds or nanoseconds"
		}
		return Units{}, &AttributeError{Attribute: "units", Text: text, Reason: reason}
	}
	return Units{Unit: u, Reference: new(big.Rat), Calendar: ProlepticGregorian, Text: text, Duration: true}, nil
}

// Kind is the NumPy kind the units decode to: timedelta64 for a
// duration, datetime64 for a time.
func (u Units) Kind() dtype.Kind {
	if u.Duration {
		return dtype.Timedelta
	}
	return dtype.Datetime
}

// checkKind refuses a data type of the other kind than u's: instants and
// durations never mix.
func (u Units) checkKind(d dtype.DataType) error {
	if d.Kind == u.Kind() {
		return nil
	}
	what := "a CF time (\"" + strings.TrimSpace(u.Text) + "\") is instants, datetime64"
	if u.Duration {
		what = "a CF duration (\"" + u.Text + "\") is lengths of time, timedelta64"
	}
	return fmt.Errorf("%s, not %s", what, d)
}
