package kernels_test

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
)

// An xarray time coordinate stored as float64 days with NaN for NaT
// becomes datetime64[ns] with its validity bitmap, exactly: 0.5 days is
// 12 hours.
func ExampleCFDecoder() {
	t, err := cf.ParseAttributes([]byte(`{"units": "days since 2000-01-01", "_FillValue": "NaN"}`),
		cf.Stored{Kind: cf.StoredFloat, Size: 8})
	if err != nil {
		panic(err)
	}
	ns := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}
	d, err := kernels.NewCFDecoder(t, ns, kernels.Options{From: binary.LittleEndian, To: binary.LittleEndian})
	if err != nil {
		panic(err)
	}
	src := make([]byte, 3*8)
	for i, f := range []float64{0.5, math.NaN(), -1} {
		binary.LittleEndian.PutUint64(src[8*i:], math.Float64bits(f))
	}
	dst := make([]byte, len(src))
	validity := make([]byte, 1)
	st, err := d.Run(dst, src, validity)
	for i := range 3 {
		v := int64(binary.LittleEndian.Uint64(dst[8*i:]))
		if v == dtype.NaT {
			fmt.Println("NaT")
			continue
		}
		fmt.Println("2000-01-01 +", v-946684800e9, "ns")
	}
	fmt.Printf("validity %08b, %d NaT, %v\n", validity[0], st.NaT, err)
	// Output:
	// 2000-01-01 + 43200000000000 ns
	// NaT
	// 2000-01-01 + -86400000000000 ns
	// validity 00000101, 1 NaT, <nil>
}
