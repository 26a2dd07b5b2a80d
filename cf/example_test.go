package cf_test

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
)

func ExampleDecoder() {
	attrs := []byte(`{"units": "days since 2000-01-01", "missing_value": -1}`)
	t, err := cf.ParseAttributes(attrs, cf.Stored{Kind: cf.StoredFloat, Size: 8})
	if err != nil {
		panic(err)
	}
	ns := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}
	d, err := cf.NewDecoder(t, ns, dtype.OverflowError)
	if err != nil {
		panic(err)
	}
	raw := make([]byte, 24)
	for i, v := range []float64{0.5, -1, math.NaN()} {
		binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(v))
	}
	out := make([]int64, 3)
	st, err := d.Decode(out, raw, binary.LittleEndian)
	fmt.Println(out[0]-946684800e9, out[1] == dtype.NaT, out[2] == dtype.NaT, st.NaT, err)
	// Output: 43200000000000 true true 2 <nil>
}
