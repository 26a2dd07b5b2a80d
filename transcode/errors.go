package transcode

import (
	"errors"
	"fmt"
)

// Sentinel errors; errors returned by this package wrap them where they
// apply, so callers can tell the cases apart with errors.Is.
var (
	// ErrPlan marks a re-encode that cannot be planned: an option the
	// destination format cannot express, a fill value that does not
	// convert, a conversion between kinds.
	ErrPlan = errors.New("cannot plan the transcode")
	// ErrDestinationExists marks a destination that already holds an
	// array, an interrupted run, or other files, when neither Resume nor
	// Overwrite allows touching it.
	ErrDestinationExists = errors.New("destination exists")
	// ErrPlanMismatch marks a destination holding an interrupted run of a
	// different plan (another source, data type, codec or policy).
	ErrPlanMismatch = errors.New("destination holds a different transcode")
	// ErrIncomplete marks a finalize attempted before every part is done.
	ErrIncomplete = errors.New("transcode incomplete")
	// ErrVerify marks a destination chunk that does not hold the
	// conversion of the source.
	ErrVerify = errors.New("verification failed")
	// ErrSourceChanged marks a source chunk rewritten while a run (or
	// the runs of one job: kills and resumes, parts) was reading the
	// source.
	ErrSourceChanged = errors.New("the source changed")
	// ErrRunning marks an overwrite refused because a run is writing the
	// destination (its lease is renewed: live.go).
	ErrRunning = errors.New("a transcode is running on this destination")
	// ErrTakenOver marks a run that stopped because its destination was
	// no longer its own (another run started over there): it wrote
	// nothing more, and what it wrote is the other run's to delete.
	ErrTakenOver = errors.New("the destination was taken over by another run (an overwrite, a resume while this run was stopped, or a run started on it at the same moment)")
)

func planErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrPlan, fmt.Sprintf(format, args...))
}

// VerifyError names a destination element that differs from a fresh
// conversion of the source.
type VerifyError struct {
	Array      string  // the destination's location
	Key        string  // the destination chunk's store key
	Index      int     // index within the destination chunk, C order
	ArrayIndex []int64 // index in the whole array
	Got, Want  int64
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("destination %s chunk %q element %d (array index %v) holds %d, the conversion of the source gives %d", e.Array, e.Key, e.Index, e.ArrayIndex, e.Got, e.Want)
}

func (e *VerifyError) Unwrap() error { return ErrVerify }

// DestinationError says what an existing destination holds that stopped a
// run. Resume and Overwrite say whether Options.Resume or
// Options.Overwrite would let a run go on there, for a caller to offer.
type DestinationError struct {
	Destination string // its location
	Holds       string // what it holds, e.g. "an interrupted transcode of this plan"
	Err         error  // ErrDestinationExists, ErrPlanMismatch or ErrRunning
	Resume      bool
	Overwrite   bool
}

func (e *DestinationError) Error() string {
	return fmt.Sprintf("%v: %s holds %s", e.Err, e.Destination, e.Holds)
}

func (e *DestinationError) Unwrap() error { return e.Err }
