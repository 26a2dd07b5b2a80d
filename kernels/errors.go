package kernels

import (
	"fmt"
	"strings"

	"github.com/zarr-dt64/dt64/dtype"
)

// Policy says what a conversion does with an element whose exact result
// does not fit in [MinInt64+1, MaxInt64] (MinInt64 is NaT).
type Policy uint8

const (
	// OverflowFail stops at the first overflowing element and returns an
	// *OverflowError (the default, zero value).
	OverflowFail Policy = iota
	// OverflowNaT stores NaT and counts the element in Stats.Overflowed.
	OverflowNaT
	// OverflowClamp stores MinInt64+1 or MaxInt64 and counts the element.
	OverflowClamp
)

// String returns "error", "nat" or "clamp", the names ParsePolicy accepts.
func (p Policy) String() string {
	switch p {
	case OverflowFail:
		return "error"
	case OverflowNaT:
		return "nat"
	case OverflowClamp:
		return "clamp"
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// ParsePolicy parses "error", "nat" or "clamp" (case-insensitive).
func ParsePolicy(s string) (Policy, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "error":
		return OverflowFail, nil
	case "nat":
		return OverflowNaT, nil
	case "clamp":
		return OverflowClamp, nil
	}
	return 0, fmt.Errorf("unknown overflow policy %q (want error, nat or clamp)", s)
}

// OverflowError reports the first element whose exact converted value does
// not fit in [MinInt64+1, MaxInt64].
type OverflowError struct {
	Index    int   // element index within the slice given to Run
	Value    int64 // the source value
	From, To dtype.DataType
}

func (e *OverflowError) Error() string {
	return fmt.Sprintf("kernels: element %d: %s value %d overflows int64 when converted to %s", e.Index, e.From, e.Value, e.To)
}

// LossError reports, in exact mode, the first element whose conversion
// would drop a non-zero remainder (the result is floored).
type LossError struct {
	Index    int
	Value    int64 // the source value
	From, To dtype.DataType
}

func (e *LossError) Error() string {
	return fmt.Sprintf("kernels: element %d: %s value %d cannot be represented exactly in %s (a non-zero remainder would be dropped)", e.Index, e.From, e.Value, e.To)
}

// Stats describes one Run.
type Stats struct {
	Elements   int // elements converted
	NaT        int // NaT elements in the output: source NaT plus overflows under OverflowNaT
	Valid      int // non-NaT elements in the output (Elements - NaT)
	Overflowed int // elements whose exact result overflowed (OverflowNaT, OverflowClamp)
	Lossy      int // elements whose result was floored (a non-zero remainder dropped)
	// Min and Max are the extremes of the non-NaT output values; only
	// computed with Options.Stats and only meaningful when Valid > 0.
	Min, Max int64
}

// Add accumulates o into s, e.g. the statistics of several chunks.
func (s *Stats) Add(o Stats) {
	if o.Valid > 0 {
		if s.Valid == 0 {
			s.Min, s.Max = o.Min, o.Max
		} else {
			s.Min, s.Max = min(s.Min, o.Min), max(s.Max, o.Max)
		}
	}
	s.Elements += o.Elements
	s.NaT += o.NaT
	s.Valid += o.Valid
	s.Overflowed += o.Overflowed
	s.Lossy += o.Lossy
}
