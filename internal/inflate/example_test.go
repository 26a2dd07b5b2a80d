package inflate_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"

	"github.com/zarr-dt64/dt64/internal/inflate"
)

func Example() {
	chunk := bytes.Repeat([]byte("2024-01-01T00:00:00 "), 5)
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(chunk)
	w.Close()

	// The decoded size is known: decode into a buffer of exactly that.
	dst := make([]byte, len(chunk))
	n, err := inflate.Gzip(dst, b.Bytes())
	fmt.Println(n, err, string(dst[:19]))

	// A buffer one byte short is an error, not a partial result.
	_, err = inflate.Gzip(dst[:len(chunk)-1], b.Bytes())
	fmt.Println(errors.Is(err, inflate.ErrTooLarge))

	// Corrupt input: a typed error with the input offset.
	bad := bytes.Clone(b.Bytes())
	bad[len(bad)-5] ^= 0xff // the CRC-32 trailer
	_, err = inflate.Gzip(dst, bad)
	fmt.Println(errors.Is(err, inflate.ErrCorrupt), errors.Is(err, inflate.ErrChecksum))
	// Output:
	// 100 <nil> 2024-01-01T00:00:00
	// true
	// true true
}
