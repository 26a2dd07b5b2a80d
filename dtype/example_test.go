package dtype_test

import (
	"encoding/binary"
	"fmt"

	"github.com/zarr-dt64/dt64/dtype"
)

// From a Zarr v2 dtype string to a conversion plan into nanoseconds.
func Example() {
	src, order, err := dtype.ParseNumPy(">M8[10us]")
	if err != nil {
		panic(err)
	}
	dst := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}
	conv, err := dtype.NewConversion(src, dst)
	if err != nil {
		panic(err)
	}
	num, den := conv.Factor()
	fmt.Println(src, order == binary.BigEndian)
	fmt.Println(conv.Path, num, den, conv.Safety())

	b, _ := dst.MarshalJSON()
	fmt.Println(string(b))
	// Output:
	// datetime64[10us] true
	// linear 10000 1 safe
	// {"name":"numpy.datetime64","configuration":{"unit":"ns","scale_factor":1}}
}

func ExampleParseJSON() {
	d, err := dtype.ParseJSON([]byte(`{"name":"numpy.timedelta64","configuration":{"unit":"μs","scale_factor":10}}`))
	fmt.Println(d, err)
	_, err = dtype.ParseJSON([]byte(`{"name":"numpy.timedelta64","configuration":{"unit":"us","scale_factor":1.0}}`))
	fmt.Println(err)
	// Output:
	// timedelta64[10us] <nil>
	// invalid data_type: configuration.scale_factor 1.0: must be an integer written without fraction or exponent, in [1, 2147483647]
}

func ExampleParseFillValue() {
	a, _ := dtype.ParseFillValue([]byte(`"NaT"`))
	b, _ := dtype.ParseFillValue([]byte(`-9223372036854775808`))
	fmt.Println(a == dtype.NaT, b == dtype.NaT, string(dtype.FormatFillValue(a)))
	// Output: true true -9223372036854775808
}

func ExampleSafety() {
	from, _, _ := dtype.ParseNumPy("<M8[2001ns]")
	to, _, _ := dtype.ParseNumPy("<M8[2us]")
	// NumPy's metric-prefix rule uses C integer division: 2001/2 == 1000.
	fmt.Println(dtype.Safety(from, to, binary.LittleEndian, binary.LittleEndian))
	fmt.Println(dtype.Safety(from, to, binary.LittleEndian, binary.BigEndian))
	// Output:
	// no
	// equiv
}

func ExampleNumPyFactor() {
	from := dtype.DataType{Kind: dtype.Timedelta, Unit: dtype.Month, Scale: 2}
	to := dtype.DataType{Kind: dtype.Timedelta, Unit: dtype.Nanosecond, Scale: 1}
	num, den, _ := dtype.NumPyFactor(from, to) // wraps around 2^64 in NumPy
	conv, _ := dtype.NewConversion(from, to)
	exact, _ := conv.Factor()
	fmt.Println(num, den, exact)
	// Output: 106231523848288256 75 5259492000000000
}
