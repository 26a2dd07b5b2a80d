// Package zstddec holds the one zstd decoder that the zarr codecs and the
// Blosc codec share. DecodeAll is safe for concurrent use and keeps
// GOMAXPROCS block decoders inside, so one instance serves every goroutine.
// WithDecodeAllCapLimit stops it at cap(dst): a frame that decodes to more
// than the caller's buffer, or claims a huge window, is refused without
// allocating for it.
package zstddec

import (
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Decoder returns the shared decoder.
var Decoder = sync.OnceValue(func() *zstd.Decoder {
	d, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)),
		zstd.WithDecodeAllCapLimit(true),
		zstd.WithDecoderMaxMemory(1<<40))
	if err != nil {
		panic("zstddec: decoder options rejected: " + err.Error())
	}
	return d
})
