package main

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/zarr-dt64/dt64/dtype"
)

// parseSpec reads a data type given on the command line: a NumPy dtype
// string (`<M8[10us]`, `timedelta64[25h]`) or a Zarr v3 data_type JSON
// object. A JSON spec, or a NumPy string without '<' or '>' (none, '=' or
// '|', which NumPy takes as the machine's order), means little endian: raw buffers on disk are little endian far more often than not, and
// the answer must not depend on the machine the command runs on.
func parseSpec(s string) (dtype.DataType, binary.ByteOrder, error) {
	// JSON may be surrounded by white space; a NumPy string may not, as
	// NumPy's np.dtype(" M8[s]") refuses it.
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") {
		d, err := dtype.ParseJSON([]byte(t))
		if err != nil {
			return dtype.DataType{}, nil, fmt.Errorf("invalid Zarr data_type %s: %w", s, err)
		}
		return d, binary.LittleEndian, nil
	}
	d, order, err := dtype.ParseNumPy(s)
	if err != nil {
		return dtype.DataType{}, nil, fmt.Errorf("invalid dtype %q: %w", s, err)
	}
	if !dtype.HasByteOrder(s) {
		order = binary.LittleEndian
	}
	return d, order, nil
}
