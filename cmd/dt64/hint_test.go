package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/zarr"
)

// The library's overflow error names no flag; the CLI adds the one that
// gets past it.
func TestHintNamesOverflowFlag(t *testing.T) {
	overflow := fmt.Errorf("in.bin: %w", &dtype.ElementError{Reason: dtype.ReasonOverflow, Index: 3})
	if h := hint(overflow); !strings.Contains(h, "--overflow nat") {
		t.Errorf("hint for an overflow = %q, want it to name --overflow", h)
	}
	if strings.Contains(overflow.Error(), "--overflow") {
		t.Errorf("the library's message %q names a CLI flag", overflow.Error())
	}
	for _, err := range []error{&dtype.ElementError{Reason: dtype.ReasonLoss}, errors.New("other")} {
		if h := hint(err); h != "" {
			t.Errorf("hint(%v) = %q, want none", err, h)
		}
	}
}

// A store whose arrays have no translation to the other format: the
// library's error names no flag; the CLI names --recode-all.
func TestHintNamesRecodeAll(t *testing.T) {
	err := fmt.Errorf("plan: %w", zarr.ErrUntranslatable)
	if h := hint(err); !strings.Contains(h, "--recode-all") {
		t.Errorf("hint for an untranslatable array = %q, want it to name --recode-all", h)
	}
}
