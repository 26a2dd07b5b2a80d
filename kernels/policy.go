package kernels

import (
	"fmt"
	"strings"
)

// Policy says what a conversion does with an element whose exact result
// does not fit in [MinInt64+1, MaxInt64] (MinInt64 is NaT).
type Policy uint8

const (
	// OverflowFail stops at the first overflowing element and returns an
	// *ElementError with ReasonOverflow (the default, zero value).
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
