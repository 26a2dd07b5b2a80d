package kernels_test

import (
	"encoding/binary"
	"fmt"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
)

// A big-endian datetime64[s] chunk becomes little-endian datetime64[ns] with
// its validity bitmap, in place.
func Example() {
	from := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1}
	to := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}
	conv, err := dtype.NewConversion(from, to)
	if err != nil {
		panic(err)
	}
	tr, err := kernels.NewTranscoder(conv, kernels.Options{
		From: binary.BigEndian, To: binary.LittleEndian, Stats: true})
	if err != nil {
		panic(err)
	}
	chunk := make([]byte, 3*8)
	binary.BigEndian.PutUint64(chunk[0:], 1700000000)
	binary.BigEndian.PutUint64(chunk[8:], 1<<63) // NaT
	binary.BigEndian.PutUint64(chunk[16:], 1)
	validity := make([]byte, 1)
	stats, err := tr.Run(chunk, chunk, validity)
	if err != nil {
		panic(err)
	}
	fmt.Println(int64(binary.LittleEndian.Uint64(chunk[0:])), int64(binary.LittleEndian.Uint64(chunk[16:])))
	fmt.Printf("validity %03b, %d valid, %d NaT, min %d\n", validity[0], stats.Valid, stats.NaT, stats.Min)

	// Overflow is never silent.
	_, err = tr.Run(chunk[:8], []byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, nil)
	fmt.Println(err)
	// Output:
	// 1700000000000000000 1000000000
	// validity 101, 2 valid, 1 NaT, min 1000000000
	// element 0: datetime64[s] value 9223372036854775807 overflows int64 when converted to datetime64[ns]
}
