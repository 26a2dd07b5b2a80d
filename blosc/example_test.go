package blosc_test

import (
	"encoding/binary"
	"fmt"

	"github.com/zarr-dt64/dt64/blosc"
)

func Example() {
	// 4096 nanosecond timestamps one second apart.
	raw := make([]byte, 8*4096)
	for i := range 4096 {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(1704067200e9+int64(i)*1e9))
	}
	frame, err := blosc.Encode(nil, raw, blosc.Options{Compressor: "zstd", Level: 5, Shuffle: blosc.ByteShuffle, TypeSize: 8})
	if err != nil {
		panic(err)
	}
	h, _ := blosc.ParseHeader(frame)
	fmt.Println(h.Compressor(), h.Shuffle(), h.TypeSize, h.NBytes, len(frame) < len(raw)/10)

	// The caller's buffer bounds the decoded size.
	out, err := blosc.Decode(make([]byte, 0, len(raw)), frame)
	fmt.Println(len(out), err)
	// Output:
	// zstd shuffle 8 32768 true
	// 32768 <nil>
}
