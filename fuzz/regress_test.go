package fuzz

import (
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
)

// Regression tests for bugs the fuzz targets and the hostile suite found in
// other packages. Each names the bug; it fails until the bug is fixed.

// Transcoder.Run documents that elements before the failing one "have been
// converted" and only dst and validity "from there on" are unspecified, but
// the validity bitmap (and Stats.Min/Max) are by-products computed per
// block after the block converts, so when a block stops at an overflow the
// bits of its converted prefix are never written (found by FuzzTranscoder,
// seed#0: datetime64[2s] -> datetime64[2ns], element 1 = MinInt64+1).
func TestRegressionValidityBeforeError(t *testing.T) {
	from := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1}
	to := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}
	conv, err := dtype.NewConversion(from, to)
	if err != nil {
		t.Fatal(err)
	}
	tc, err := kernels.NewTranscoder(conv, kernels.Options{})
	if err != nil {
		t.Fatal(err)
	}
	vals := []int64{dtype.NaT, 1, dtype.NaT, 2, math.MaxInt64, 3}
	src := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.NativeEndian.PutUint64(src[i*8:], uint64(v))
	}
	dst := make([]byte, len(src))
	validity := []byte{0xff}
	_, err = tc.Run(dst, src, validity)
	var oe *dtype.ElementError
	if !errors.As(err, &oe) || oe.Reason != dtype.ReasonOverflow || oe.Index != 4 {
		t.Fatalf("got %v, want an overflow at element 4", err)
	}
	// Elements 0..3 were converted (NaT, 1e9, NaT, 2e9): bits 0b1010.
	if got := validity[0] & 0x0f; got != 0b1010 {
		t.Errorf("validity bits of the converted prefix = %04b, want 1010 (bitmap %08b)", got, validity[0])
	}
}
