package zarr

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"runtime"
	"sync"

	"github.com/zarr-dt64/dt64/internal/inflate"
	"github.com/zarr-dt64/dt64/internal/zstddec"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
)

// bytesStage is a bytes→bytes codec at run time.
type bytesStage interface {
	// bound is the largest encoding of n input bytes any conforming encoder
	// produces; decoders refuse inputs and outputs beyond these bounds.
	bound(n int) int
	// encode appends the encoding of src to dst[:0].
	encode(dst, src []byte) ([]byte, error)
	// decode decodes src into dst[:0], never growing it past cap(dst): a
	// larger result is an ErrTooLarge error. It may instead return a
	// sub-slice of src when decoding is only a check (crc32c).
	decode(dst, src []byte) ([]byte, error)
}

func newBytesStage(c Codec, elem int) (bytesStage, error) {
	switch c := c.(type) {
	case ZstdCodec:
		if err := c.validate(); err != nil {
			return nil, err
		}
		return zstdStage{small: zstdEncoder(c, true), large: zstdEncoder(c, false)}, nil
	case GzipCodec:
		if err := c.validate(); err != nil {
			return nil, err
		}
		return &deflateStage{name: "gzip", level: c.Level}, nil
	case ZlibCodec:
		if err := c.validate(); err != nil {
			return nil, err
		}
		return &deflateStage{name: "zlib", level: c.Level}, nil
	case CRC32CCodec:
		return crc32cStage{}, nil
	case BloscCodec:
		return newBloscStage(c, elem)
	}
	return nil, fmt.Errorf("codec %q is not a bytes->bytes codec", c.Name())
}

// ---- zstd ----

// zstd frames decode with the module's shared decoder (internal/zstddec).
type zstdKey struct {
	level    zstd.EncoderLevel
	checksum bool
	single   bool
}

// Encoders are expensive (window buffers); one per (level, checksum) is
// shared, as EncodeAll is safe for concurrent use.
var zstdEncoders sync.Map // zstdKey -> *zstd.Encoder

func zstdEncoder(c ZstdCodec, single bool) *zstd.Encoder {
	level := zstd.SpeedDefault // zstd level 0 means "the default", 3
	if c.Level != 0 {
		level = zstd.EncoderLevelFromZstd(c.Level)
	}
	key := zstdKey{level, c.Checksum, single}
	if e, ok := zstdEncoders.Load(key); ok {
		return e.(*zstd.Encoder)
	}
	e, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(level),
		zstd.WithEncoderCRC(c.Checksum),
		zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)),
		// An empty chunk still gets a frame (with its content size, 0).
		zstd.WithZeroFrames(true),
		zstd.WithSingleSegment(single))
	if err != nil {
		panic("zarr: zstd encoder options rejected: " + err.Error())
	}
	actual, _ := zstdEncoders.LoadOrStore(key, e)
	return actual.(*zstd.Encoder)
}

// zstdStage keeps two encoders because of how the frame content size is
// written: frames under 256 bytes record it only in single-segment mode,
// while forcing single segment on inputs beyond the encoder's window would
// make decoders allocate a window as large as the chunk. So small inputs use
// a single-segment encoder and larger ones the default, which records the
// size in either mode.
type zstdStage struct{ small, large *zstd.Encoder }

func (zstdStage) bound(n int) int {
	// ZSTD_COMPRESSBOUND, libzstd's bound on a whole frame, header and
	// checksum included. klauspost's encoder stays under it too: a frame
	// header is at most 18 bytes, a block 3 more than its data (blocks that
	// do not compress are stored), a checksum 4, and the bound leaves at
	// least 64 bytes above the data.
	b := n + n>>8
	if n < 128<<10 {
		b += (128<<10 - n) >> 11
	}
	return b
}

// encode writes one frame. EncodeAll always records the content size in
// the frame header, which older numcodecs releases need to decompress.
func (s zstdStage) encode(dst, src []byte) ([]byte, error) {
	if len(src) <= zstd.MinWindowSize {
		return s.small.EncodeAll(src, dst[:0]), nil
	}
	return s.large.EncodeAll(src, dst[:0]), nil
}

func (z zstdStage) decode(dst, src []byte) ([]byte, error) {
	out, _, err := z.decodeEach(dst, src, 0, nil)
	return out, err
}

// decodeEach is decode, and with fn it hands a frame of stored blocks
// (storedBlocks) that fills cap(dst) exactly to fn in pieces instead
// (passStored), with passed true. The frame header is read once, for
// both paths.
func (zstdStage) decodeEach(dst, src []byte, align int, fn func(off int, p []byte) error) (out []byte, passed bool, err error) {
	limit := cap(dst)
	var h zstd.Header
	blocks, err := h.DecodeAndStrip(src)
	if err != nil {
		return nil, false, fmt.Errorf("zstd: %w: %v", ErrCorrupt, err)
	}
	if h.HasFCS && h.FrameContentSize > uint64(limit) {
		return nil, false, fmt.Errorf("zstd frame declares %d bytes: %w (at most %d)", h.FrameContentSize, ErrTooLarge, limit)
	}
	if n, ok := storedBlocks(&h, blocks, limit); ok {
		if fn != nil && n == limit {
			return nil, true, passStored(blocks, align, fn)
		}
		out := dst[:n]
		copyStored(out, blocks)
		return out, false, nil
	}
	out, err = zstddec.Decoder().DecodeAll(src, dst[:0:limit])
	if err != nil {
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) {
			return nil, false, fmt.Errorf("zstd frame decodes to %w (at most %d bytes)", ErrTooLarge, limit)
		}
		if errors.Is(err, zstd.ErrCRCMismatch) {
			return nil, false, fmt.Errorf("zstd: %w: %v", ErrChecksum, err)
		}
		return nil, false, fmt.Errorf("zstd: %w: %v", ErrCorrupt, err)
	}
	return out, false, nil
}

// ---- gzip and zlib ----

type deflateStage struct {
	name  string // "gzip" or "zlib"
	level int
}

func (deflateStage) bound(n int) int {
	// Data that does not compress is stored in blocks of 5 bytes of header
	// each; zlib's smallest setting (memLevel 1) makes them about 500
	// bytes long, hence n/64. Then the gzip header and trailer (18 bytes),
	// and room for a file name or comment in the header: 512 bytes in all.
	return n + n>>6 + 512
}

type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// Writers are pooled per format and level: a deflate writer holds ~1 MiB of
// tables, too much to make per chunk.
var deflateWriters sync.Map // "gzip/5" -> *sync.Pool

type deflateWriter interface {
	io.WriteCloser
	Reset(io.Writer)
}

func (s *deflateStage) writerPool() *sync.Pool {
	key := fmt.Sprintf("%s/%d", s.name, s.level)
	if p, ok := deflateWriters.Load(key); ok {
		return p.(*sync.Pool)
	}
	p, _ := deflateWriters.LoadOrStore(key, &sync.Pool{New: func() any {
		var w deflateWriter
		var err error
		if s.name == "gzip" {
			w, err = gzip.NewWriterLevel(nil, s.level)
		} else {
			w, err = zlib.NewWriterLevel(nil, s.level)
		}
		if err != nil {
			panic("zarr: deflate level rejected after validation: " + err.Error())
		}
		return w
	}})
	return p.(*sync.Pool)
}

func (s *deflateStage) encode(dst, src []byte) ([]byte, error) {
	pool := s.writerPool()
	w := pool.Get().(deflateWriter)
	defer pool.Put(w)
	out := &appendWriter{b: dst[:0]}
	w.Reset(out)
	if _, err := w.Write(src); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.b, nil
}

var (
	gzipReaders sync.Pool // *gzip.Reader
	zlibReaders sync.Pool // zlib reader (io.ReadCloser + zlib.Resetter)
)

// decode decodes with internal/inflate, into dst's capacity (the chunk
// size) in one call, unless DT64_INFLATE=klauspost (read once at start,
// inflate.UseKlauspost) selects klauspost's streaming readers. The two
// differ on gzip data only where Python's gzip module (numcodecs) and Go's
// differ: internal/inflate, like Python, skips zero padding after a
// member and decodes empty input to no bytes.
func (s *deflateStage) decode(dst, src []byte) ([]byte, error) {
	if !inflate.UseKlauspost {
		return s.inflate(dst, src)
	}
	var r io.Reader
	in := bytes.NewReader(src)
	if s.name == "gzip" {
		gr, _ := gzipReaders.Get().(*gzip.Reader)
		var err error
		if gr == nil {
			gr, err = gzip.NewReader(in)
		} else {
			err = gr.Reset(in)
		}
		if err != nil {
			return nil, fmt.Errorf("gzip: %w: %v", ErrCorrupt, err)
		}
		defer gzipReaders.Put(gr)
		r = gr
	} else {
		zr, _ := zlibReaders.Get().(io.ReadCloser)
		var err error
		if zr == nil {
			zr, err = zlib.NewReader(in)
		} else {
			err = zr.(zlib.Resetter).Reset(in, nil)
		}
		if err != nil {
			return nil, fmt.Errorf("zlib: %w: %v", ErrCorrupt, err)
		}
		defer zlibReaders.Put(zr)
		r = zr
	}
	return readBounded(s.name, r, dst)
}

func (s *deflateStage) inflate(dst, src []byte) ([]byte, error) {
	buf := dst[:cap(dst)]
	var n int
	var err error
	if s.name == "gzip" {
		n, err = inflate.Gzip(buf, src)
	} else {
		n, err = inflate.Zlib(buf, src)
	}
	switch {
	case err == nil:
		return buf[:n], nil
	case errors.Is(err, inflate.ErrTooLarge):
		return nil, fmt.Errorf("%s stream decodes to %w (at most %d bytes)", s.name, ErrTooLarge, len(buf))
	case errors.Is(err, inflate.ErrChecksum):
		return nil, fmt.Errorf("%s: %w: %v", s.name, ErrChecksum, err)
	}
	return nil, fmt.Errorf("%s: %w: %v", s.name, ErrCorrupt, err)
}

// readBounded reads r to EOF into dst[:cap(dst)]; more data than that is an
// ErrTooLarge error (a decompression bomb stops here, having filled only
// the chunk's buffer). Reading to EOF is what makes gzip and zlib verify
// their trailing checksums.
func readBounded(name string, r io.Reader, dst []byte) ([]byte, error) {
	buf := dst[:cap(dst)]
	n, err := io.ReadFull(r, buf)
	switch err {
	case io.EOF, io.ErrUnexpectedEOF:
		return buf[:n], nil
	case nil:
		var one [1]byte
		m, err := io.ReadFull(r, one[:])
		if m > 0 {
			return nil, fmt.Errorf("%s stream decodes to %w (at most %d bytes)", name, ErrTooLarge, len(buf))
		}
		if err == io.EOF {
			return buf, nil
		}
		err = deflateErr(err)
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return nil, fmt.Errorf("%s: %w", name, deflateErr(err))
}

func deflateErr(err error) error {
	if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, zlib.ErrChecksum) {
		return fmt.Errorf("%w: %v", ErrChecksum, err)
	}
	return fmt.Errorf("%w: %v", ErrCorrupt, err)
}

// ---- crc32c ----

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type crc32cStage struct{}

func (crc32cStage) bound(n int) int { return n + 4 }

func (crc32cStage) encode(dst, src []byte) ([]byte, error) {
	dst = append(dst[:0], src...)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(src, castagnoli)), nil
}

func (s crc32cStage) decode(dst, src []byte) ([]byte, error) { return s.check(src, cap(dst)) }

// A checker is a bytes->bytes stage whose decoding only checks its input
// and returns a sub-slice of it: the chain gives it no output buffer.
type checker interface {
	check(src []byte, limit int) ([]byte, error)
}

func (crc32cStage) check(src []byte, limit int) ([]byte, error) {
	if len(src) < 4 {
		return nil, fmt.Errorf("crc32c: %w: %d bytes, shorter than the 4-byte checksum", ErrCorrupt, len(src))
	}
	body := src[:len(src)-4]
	want := binary.LittleEndian.Uint32(src[len(src)-4:])
	if got := crc32.Checksum(body, castagnoli); got != want {
		return nil, fmt.Errorf("crc32c: %w: stored %08x, computed %08x", ErrChecksum, want, got)
	}
	if len(body) > limit {
		return nil, fmt.Errorf("crc32c: payload of %d bytes is %w (at most %d)", len(body), ErrTooLarge, limit)
	}
	return body, nil
}
