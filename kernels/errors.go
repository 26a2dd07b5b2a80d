package kernels

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/zarr-dt64/dt64/dtype"
)

// ErrLength is wrapped by every error about slice lengths.
var ErrLength = errors.New("bad slice length")

// ErrOverlap is returned when dst and src overlap without being identical.
var ErrOverlap = errors.New("dst and src overlap partially (in place needs identical slices)")

// ElementError reports the first element a conversion could not store,
// and why: its exact result does not fit in [MinInt64+1, MaxInt64] under
// OverflowFail (ReasonOverflow), or, in exact mode, it would drop a
// non-zero remainder (ReasonLoss). One errors.As finds either.
type ElementError struct {
	Reason   Reason
	Index    int   // element index within the slice given to Run
	Value    int64 // the source value
	From, To dtype.DataType
	// Source and Text describe a source that is not a datetime64 or
	// timedelta64 element (CF time numbers, CFDecoder): Source names its
	// type (e.g. "float64 days since 1800-01-01"), Text its value when
	// Value cannot hold it (a float, or a uint64 above MaxInt64).
	Source, Text string
}

func (e *ElementError) source() (typ, val string) {
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

// Reason is why an element could not be converted.
type Reason uint8

const (
	// ReasonOverflow: the exact converted value does not fit in int64.
	ReasonOverflow Reason = iota + 1
	// ReasonLoss: in exact mode, the result would be floored (a non-zero
	// remainder dropped).
	ReasonLoss
)

// String returns "overflow" or "loss".
func (r Reason) String() string {
	switch r {
	case ReasonOverflow:
		return "overflow"
	case ReasonLoss:
		return "loss"
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

func (e *ElementError) Error() string {
	typ, val := e.source()
	if e.Reason == ReasonLoss {
		return fmt.Sprintf("kernels: element %d: %s value %s cannot be represented exactly in %s (a non-zero remainder would be dropped)", e.Index, typ, val, e.To)
	}
	return fmt.Sprintf("kernels: element %d: %s value %s overflows int64 when converted to %s", e.Index, typ, val, e.To)
}
