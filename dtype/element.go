package dtype

import (
	"fmt"
	"strconv"
	"strings"
)

// OverflowPolicy says what a conversion does with an element whose exact
// result does not fit in [MinInt64+1, MaxInt64] (MinInt64 is NaT), or is
// not a number at all (±Inf in a CF float). Every layer takes this one
// type: the kernels, CF decoding, the engine and the Arrow bridge.
type OverflowPolicy uint8

const (
	// OverflowError stops at the first overflowing element with an
	// *ElementError of ReasonOverflow (the default, zero value).
	OverflowError OverflowPolicy = iota
	// OverflowNaT stores NaT and counts the element.
	OverflowNaT
	// OverflowClamp stores MinInt64+1 or MaxInt64 and counts the element.
	OverflowClamp
)

// String returns "error", "nat" or "clamp", the names ParseOverflowPolicy
// accepts.
func (p OverflowPolicy) String() string {
	switch p {
	case OverflowError:
		return "error"
	case OverflowNaT:
		return "nat"
	case OverflowClamp:
		return "clamp"
	}
	return fmt.Sprintf("OverflowPolicy(%d)", uint8(p))
}

// ParseOverflowPolicy parses "error", "nat" or "clamp" (case-insensitive).
func ParseOverflowPolicy(s string) (OverflowPolicy, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "error":
		return OverflowError, nil
	case "nat":
		return OverflowNaT, nil
	case "clamp":
		return OverflowClamp, nil
	}
	return 0, fmt.Errorf("unknown overflow policy %q (want error, nat or clamp)", s)
}

// ElementError reports the first element a conversion could not store,
// and why: its exact result does not fit in [MinInt64+1, MaxInt64] under
// OverflowError (ReasonOverflow), or, in exact mode, it would drop a
// non-zero remainder (ReasonLoss). One errors.As finds either.
//
// It is the one element error of dt64, in two layers: a kernel or a CF
// decoder reports the element by its index in the slice it was given, and
// the engine (zarr.ElementError) wraps it with the array, the chunk
// key and the element's index in the whole array.
type ElementError struct {
	Reason   Reason
	Index    int   // element index within the slice converted
	Value    int64 // the source value
	From, To DataType
	// Source and Text describe a source that is not a datetime64 or
	// timedelta64 element (CF time numbers): Source names its type (e.g.
	// "float64 days since 1800-01-01"), Text its value when Value cannot
	// hold it (a float, or a uint64 above MaxInt64).
	Source, Text string
	// Date is, for ReasonNoDate, the element's date in its source
	// calendar, e.g. "2001-02-30T00:00:00 (360_day)".
	Date string
}

// Reason is why an element could not be converted.
type Reason uint8

const (
	// ReasonOverflow: the exact converted value does not fit in int64.
	ReasonOverflow Reason = iota + 1
	// ReasonLoss: in exact mode, the result would be floored (a non-zero
	// remainder dropped).
	ReasonLoss
	// ReasonNoDate: converting the element's date from a model (or
	// julian) calendar by its label, the proleptic Gregorian calendar has
	// no such date (Feb 29 of a common year, Feb 30).
	ReasonNoDate
)

// String returns "overflow", "loss" or "no date".
func (r Reason) String() string {
	switch r {
	case ReasonOverflow:
		return "overflow"
	case ReasonLoss:
		return "loss"
	case ReasonNoDate:
		return "no date"
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// Describe gives the source's type and value as text: Source and Text
// where set, else From and Value.
func (e *ElementError) Describe() (typ, val string) {
	typ = e.Source
	if typ == "" {
		typ = e.From.String()
	}
	val = e.Text
	if val == "" {
		val = strconv.FormatInt(e.Value, 10)
	}
	return typ, val
}

// NoDateText says what a ReasonNoDate error is, without the element.
func (e *ElementError) NoDateText() string {
	typ, _ := e.Describe()
	return fmt.Sprintf("%s decodes to %s, a date the proleptic Gregorian calendar (datetime64's) does not have", typ, e.Date)
}

func (e *ElementError) Error() string {
	typ, val := e.Describe()
	if e.Reason == ReasonNoDate {
		return fmt.Sprintf("element %d: %s", e.Index, e.NoDateText())
	}
	if e.Reason == ReasonLoss {
		return fmt.Sprintf("element %d: %s value %s cannot be represented exactly in %s (a non-zero remainder would be dropped)", e.Index, typ, val, e.To)
	}
	return fmt.Sprintf("element %d: %s value %s overflows int64 when converted to %s", e.Index, typ, val, e.To)
}
