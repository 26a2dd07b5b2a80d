package blosc

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/zarr-dt64/dt64/internal/inflate"
	"github.com/zarr-dt64/dt64/internal/zstddec"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Each compressed stream in a frame decodes to a size the frame's header
// fixes. decompressStream fills dst exactly or fails with ErrCorrupt; it
// never writes past dst or allocates in proportion to what the stream
// claims.
func decompressStream(c Compressor, dst, src []byte) error {
	switch c {
	case BloscLZ:
		return blosclzDecode(dst, src)
	case LZ4:
		n, err := lz4.UncompressBlock(src, dst)
		if err != nil {
			return fmt.Errorf("%w: lz4: %v", ErrCorrupt, err)
		}
		if n != len(dst) {
			return fmt.Errorf("%w: lz4 stream decodes to %d bytes, want %d", ErrCorrupt, n, len(dst))
		}
		return nil
	case Snappy:
		n, err := snappy.DecodedLen(src)
		if err != nil {
			return fmt.Errorf("%w: snappy: %v", ErrCorrupt, err)
		}
		if n != len(dst) {
			return fmt.Errorf("%w: snappy stream declares %d bytes, want %d", ErrCorrupt, n, len(dst))
		}
		out, err := snappy.Decode(dst, src)
		if err != nil {
			return fmt.Errorf("%w: snappy: %v", ErrCorrupt, err)
		}
		if len(out) != len(dst) || &out[0] != &dst[0] {
			return fmt.Errorf("%w: snappy stream decodes to %d bytes, want %d", ErrCorrupt, len(out), len(dst))
		}
		return nil
	case Zlib:
		return zlibDecompress(dst, src)
	case Zstd:
		return zstdDecompress(dst, src)
	}
	return fmt.Errorf("compressor code %d: %w", uint8(c), ErrUnsupported)
}

// ---- zstd ----

// zstd frames decode with the module's shared decoder (internal/zstddec).
func zstdDecompress(dst, src []byte) error {
	var h zstd.Header
	if err := h.Decode(src); err != nil {
		return fmt.Errorf("%w: zstd: %v", ErrCorrupt, err)
	}
	if h.HasFCS && h.FrameContentSize != uint64(len(dst)) {
		return fmt.Errorf("%w: zstd frame declares %d bytes, want %d", ErrCorrupt, h.FrameContentSize, len(dst))
	}
	out, err := zstddec.Decoder().DecodeAll(src, dst[:0:len(dst)])
	if err != nil {
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
			return fmt.Errorf("%w: zstd stream decodes to more than %d bytes", ErrCorrupt, len(dst))
		}
		return fmt.Errorf("%w: zstd: %v", ErrCorrupt, err)
	}
	if len(out) != len(dst) {
		return fmt.Errorf("%w: zstd stream decodes to %d bytes, want %d", ErrCorrupt, len(out), len(dst))
	}
	return nil
}

var zstdEncoders sync.Map // zstd.EncoderLevel -> *zstd.Encoder

// zstdEncoder returns the shared encoder for a Blosc clevel. c-blosc maps
// clevel 1..8 to zstd level 2*clevel-1 and 9 to zstd's maximum; the Go
// encoder has four speeds, picked from that zstd level.
func zstdEncoder(clevel int) *zstd.Encoder {
	zl := 2*clevel - 1
	if clevel >= 9 {
		zl = 22
	}
	level := zstd.EncoderLevelFromZstd(zl)
	if e, ok := zstdEncoders.Load(level); ok {
		return e.(*zstd.Encoder)
	}
	e, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(level),
		zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)),
		// Streams are at most a block (a few MiB); one segment lets the
		// frame record its size, which c-blosc's reader does not need but
		// ours checks.
		zstd.WithSingleSegment(true))
	if err != nil {
		panic("blosc: zstd encoder options rejected: " + err.Error())
	}
	actual, _ := zstdEncoders.LoadOrStore(level, e)
	return actual.(*zstd.Encoder)
}

// ---- zlib ----

var zlibReaders sync.Pool // zlib reader (io.ReadCloser + zlib.Resetter)

// zlibDecompress decodes with internal/inflate unless DT64_INFLATE=klauspost
// (read once at start, inflate.UseKlauspost) selects klauspost's reader.
// Both ignore bytes after the Adler-32 trailer, as zlib's uncompress does.
func zlibDecompress(dst, src []byte) error {
	if !inflate.UseKlauspost {
		n, err := inflate.Zlib(dst, src)
		if err != nil {
			return fmt.Errorf("%w: zlib: %v", ErrCorrupt, err)
		}
		if n != len(dst) {
			return fmt.Errorf("%w: zlib stream decodes to %d bytes, want %d", ErrCorrupt, n, len(dst))
		}
		return nil
	}
	in := bytes.NewReader(src)
	zr, _ := zlibReaders.Get().(io.ReadCloser)
	var err error
	if zr == nil {
		zr, err = zlib.NewReader(in)
	} else {
		err = zr.(zlib.Resetter).Reset(in, nil)
	}
	if err != nil {
		return fmt.Errorf("%w: zlib: %v", ErrCorrupt, err)
	}
	defer zlibReaders.Put(zr)
	n, err := io.ReadFull(zr, dst)
	if err != nil {
		return fmt.Errorf("%w: zlib stream decodes to %d bytes, want %d: %v", ErrCorrupt, n, len(dst), err)
	}
	// Reading on to EOF checks the Adler-32 trailer and that nothing more
	// follows.
	var one [1]byte
	if m, err := io.ReadFull(zr, one[:]); m > 0 {
		return fmt.Errorf("%w: zlib stream decodes to more than %d bytes", ErrCorrupt, len(dst))
	} else if err != io.EOF {
		return fmt.Errorf("%w: zlib: %v", ErrCorrupt, err)
	}
	return nil
}

var zlibWriters sync.Map // level -> *sync.Pool of *zlib.Writer

func zlibCompress(dst, src []byte, level int) ([]byte, error) {
	p, _ := zlibWriters.LoadOrStore(level, &sync.Pool{})
	pool := p.(*sync.Pool)
	out := &appendWriter{b: dst[:0]}
	w, _ := pool.Get().(*zlib.Writer)
	if w == nil {
		var err error
		if w, err = zlib.NewWriterLevel(out, level); err != nil {
			return nil, err
		}
	} else {
		w.Reset(out)
	}
	defer pool.Put(w)
	if _, err := w.Write(src); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.b, nil
}

type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// ---- lz4 ----

var (
	lz4Compressors   = sync.Pool{New: func() any { return new(lz4.Compressor) }}
	lz4HCCompressors = sync.Pool{New: func() any { return new(lz4.CompressorHC) }}
)

// compressStream appends the compressed src to dst[:0] (which has room for
// the worst case, streamBound(len(src))). The caller stores the stream raw
// when the result is not smaller than src.
func compressStream(dst, src []byte, o *encoding) ([]byte, error) {
	switch o.cname {
	case "lz4":
		c := lz4Compressors.Get().(*lz4.Compressor)
		defer lz4Compressors.Put(c)
		n, err := c.CompressBlock(src, dst[:cap(dst)])
		if err != nil {
			return nil, fmt.Errorf("lz4: %v", err)
		}
		return dst[:n], nil
	case "lz4hc":
		c := lz4HCCompressors.Get().(*lz4.CompressorHC)
		defer lz4HCCompressors.Put(c)
		// c-blosc hands clevel to LZ4HC as its level; the Go encoder's
		// level is a search depth, 2^(clevel+3) spans its range.
		c.Level = lz4.CompressionLevel(1 << (o.clevel + 3))
		n, err := c.CompressBlock(src, dst[:cap(dst)])
		if err != nil {
			return nil, fmt.Errorf("lz4hc: %v", err)
		}
		return dst[:n], nil
	case "zstd":
		return zstdEncoder(o.clevel).EncodeAll(src, dst[:0]), nil
	case "zlib":
		return zlibCompress(dst, src, o.clevel)
	case "snappy":
		return snappy.Encode(dst[:cap(dst)], src), nil
	}
	return nil, fmt.Errorf("encoding with %q: %w", o.cname, ErrUnsupported)
}

// streamBound is the most compressStream appends for n input bytes.
func streamBound(n int) int {
	return max(lz4.CompressBlockBound(n), snappy.MaxEncodedLen(n), n+n>>6+4096)
}
