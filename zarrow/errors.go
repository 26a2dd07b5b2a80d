package zarrow

import (
	"errors"
	"fmt"

	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/zarr"
)

// ElementError names one stored element that could not be read into its
// column: an overflow under the error policy, or a value floored in exact
// mode (Err is the *kernels.ElementError saying which).
type ElementError struct {
	Array      string  // the array's location
	Key        string  // the chunk's store key
	Index      int     // the element's index within the chunk, C order
	ArrayIndex []int64 // the element's index in the whole array
	Value      int64   // the stored value (see Err's Text for CF numbers)
	Err        *kernels.ElementError
}

func (e *ElementError) Error() string {
	typ, val := e.Err.From.String(), fmt.Sprint(e.Value)
	if e.Err.Source != "" {
		typ = e.Err.Source
	}
	if e.Err.Text != "" {
		val = e.Err.Text
	}
	what := fmt.Sprintf("%s value %s overflows int64 when converted to %s", typ, val, e.Err.To)
	if e.Err.Reason == kernels.ReasonLoss {
		what = fmt.Sprintf("%s value %s is not a whole number of %s (exact mode: a non-zero remainder would be floored away)", typ, val, e.Err.To)
	}
	return fmt.Sprintf("array %s chunk %q element %d (array index %v): %s", e.Array, e.Key, e.Index, e.ArrayIndex, what)
}

func (e *ElementError) Unwrap() error { return e.Err }

// regionElementError turns a kernel error whose index counts elements of
// the box [start, start+shape) in C order into an ElementError naming the
// element's chunk; other errors are returned as they are.
func regionElementError(a *zarr.Array, start, shape []int64, err error) error {
	var ke *kernels.ElementError
	if !errors.As(err, &ke) {
		return err
	}
	at := make([]int64, len(shape))
	rest := int64(ke.Index)
	for d := len(shape) - 1; d >= 0; d-- {
		at[d] = start[d] + rest%shape[d]
		rest /= shape[d]
	}
	cs := a.ChunkShape()
	if len(cs) != len(at) { // a 0-D array, read as one row
		return err
	}
	coords := make([]int64, len(at))
	index := int64(0)
	for d := range at {
		coords[d] = at[d] / cs[d]
		index = index*cs[d] + at[d]%cs[d]
	}
	key, kerr := a.ChunkKey(coords)
	if kerr != nil {
		return err
	}
	return &ElementError{Array: a.String(), Key: key, Index: int(index), ArrayIndex: at, Value: ke.Value, Err: ke}
}
