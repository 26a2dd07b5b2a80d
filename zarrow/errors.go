package zarrow

import (
	"errors"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/zarr"
)

// regionElementError turns a kernel error whose index counts elements of
// the box [start, start+shape) in C order into an ElementError naming the
// element's chunk; other errors are returned as they are.
func regionElementError(a *zarr.Array, start, shape []int64, err error) error {
	var ke *dtype.ElementError
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
	return &zarr.ElementError{Array: a.String(), Key: key, Index: int(index), ArrayIndex: at, Value: ke.Value, Err: ke}
}
