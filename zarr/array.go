package zarr

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"math/bits"
	"unsafe"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/internal/pyjson"
	"github.com/zarr-dt64/dt64/internal/sysmem"
	"github.com/zarr-dt64/dt64/storage"
)

// Array is an open Zarr array: of datetime64 or timedelta64 values (a time
// array), or of a numeric type, whose chunks it reads and writes as bytes
// (ReadChunkRaw, WriteChunkRaw) and only as bytes. Its
// methods are safe for concurrent use, except SetWriteEmptyChunks, which is
// set-up: call it before reading or writing.
type Array struct {
	store      storage.Store
	name       string // the store's String(), for messages
	meta       Metadata
	grid       *grid
	chunkLen   int // elements per chunk
	writeEmpty bool
}

// String names the array in messages: its store's String(), or "array"
// for a store without one.
func (a *Array) String() string {
	if a.name == "" {
		return "array"
	}
	return a.name
}

func (a *Array) docName(key string) string {
	if a.name == "" {
		return key
	}
	return storage.Join(a.name, key)
}

// Open opens the array in store: a v3 zarr.json, or else a v2 .zarray (with
// .zattrs when present). A store holding neither gives an error satisfying
// errors.Is(err, fs.ErrNotExist).
func Open(ctx context.Context, store storage.Store) (*Array, error) {
	if store == nil {
		return nil, errors.New("zarr.Open: nil store")
	}
	a := &Array{store: store, name: storage.Name(store)}
	b, err := getMetadata(ctx, store, v3MetadataKey)
	var m Metadata
	switch {
	case err == nil:
		if m, err = parseV3(b); err != nil {
			return nil, metadataError(a.docName(v3MetadataKey), err)
		}
		// A v2 array at the same path too: which one the writer meant is
		// not dt64's to guess (zarr-python 3 warns and reads the v3 one,
		// zarr-python 2 the v2 one: the same store reads as two arrays).
		if _, err := getMetadata(ctx, store, v2ArrayKey); err == nil {
			return nil, fmt.Errorf("%s: %w: both %s (Zarr v3) and %s (Zarr v2), which zarr-python 3 and 2 read as different arrays; remove the one that is not meant", a.name, ErrConflict, v3MetadataKey, v2ArrayKey)
		}
	case errors.Is(err, fs.ErrNotExist):
		b, err2 := getMetadata(ctx, store, v2ArrayKey)
		if errors.Is(err2, fs.ErrNotExist) {
			_, gerr := getMetadata(ctx, store, v2GroupKey)
			return nil, noArrayError{a.name, gerr == nil}
		}
		if err2 != nil {
			return nil, metadataError(a.docName(v2ArrayKey), err2)
		}
		if m, err = parseV2(b); err != nil {
			return nil, metadataError(a.docName(v2ArrayKey), err)
		}
		attrs, err := getMetadata(ctx, store, v2AttrsKey)
		switch {
		case err == nil:
			if err := checkAttrs(attrs); err != nil {
				return nil, metadataError(a.docName(v2AttrsKey), err)
			}
			m.Attributes = pyjson.FromPython(attrs) // bare NaN as placeholders (pynan.go)
		case !errors.Is(err, fs.ErrNotExist):
			return nil, metadataError(a.docName(v2AttrsKey), err)
		}
	default:
		return nil, metadataError(a.docName(v3MetadataKey), err)
	}
	if err := a.init(m); err != nil {
		file := v3MetadataKey
		if m.Format == 2 {
			file = v2ArrayKey
		}
		return nil, metadataError(a.docName(file), err)
	}
	return a, nil
}

// maxMetadataBytes bounds a metadata document (zarr.json, .zarray,
// .zattrs). Real ones are a few KiB; decoding JSON takes several times its
// size in memory, so a huge document could exhaust it before any check.
const maxMetadataBytes = pyjson.MaxBytes

// metadataTooLarge is an ErrTooLarge for a metadata document, with a
// message of its own (ErrTooLarge's speaks of chunks).
type metadataTooLarge struct{ size int }

func (e metadataTooLarge) Error() string {
	if e.size < 0 {
		return fmt.Sprintf("document exceeds dt64's %d MiB limit for metadata", maxMetadataBytes>>20)
	}
	return fmt.Sprintf("document of %d bytes exceeds dt64's %d MiB limit for metadata", e.size, maxMetadataBytes>>20)
}

func (metadataTooLarge) Is(target error) bool { return target == ErrTooLarge }

// getMetadata reads metadata document key, refusing one over
// maxMetadataBytes: before reading it when the store is a BufferGetter,
// after Get otherwise.
func getMetadata(ctx context.Context, store storage.Store, key string) ([]byte, error) {
	if bg, ok := storage.Find[storage.BufferGetter](store); ok {
		b, err := bg.GetInto(ctx, key, nil, maxMetadataBytes)
		if errors.Is(err, ErrTooLarge) {
			return nil, metadataTooLarge{-1}
		}
		return b, err
	}
	b, err := store.Get(ctx, key)
	if err == nil && len(b) > maxMetadataBytes {
		return nil, metadataTooLarge{len(b)}
	}
	return b, err
}

// Create returns a new array in store described by meta, ready for
// WriteChunk. It writes nothing: call WriteMetadata (typically last, so
// that readers never see a half-written array as complete).
//
// Zero values take defaults: Format 3; key encoding "default" with "/"
// (v2: "."); Codecs bytes little-endian + zstd level 0 (zarr-python 3's
// default; v2: zstd level 1); v3 Attributes {}.
func Create(ctx context.Context, store storage.Store, meta Metadata) (*Array, error) {
	if store == nil {
		return nil, errors.New("zarr.Create: nil store")
	}
	m := meta.Clone()
	m.withDefaults()
	a := &Array{store: store, name: storage.Name(store)}
	if err := a.init(m); err != nil {
		file := v3MetadataKey
		if m.Format == 2 {
			file = v2ArrayKey
		}
		return nil, metadataError(a.docName(file), err)
	}
	return a, nil
}

func (a *Array) init(m Metadata) error {
	g, err := m.check()
	if err != nil {
		return err
	}
	// dt64 decodes whole chunks (whole shards) into memory: one that can
	// never fit is refused here, naming its size, rather than by the
	// runtime's fatal "out of memory" at the first read.
	if lim := sysmem.Total(); lim > 0 && uint64(g.chain.nbytes) > lim {
		return fmt.Errorf("a chunk of %v (%d elements) is %.1f GiB decoded, more than the %.1f GiB of memory this machine gives dt64, which decodes whole chunks: it cannot be read or written here",
			g.ChunkShape(), g.ChunkLen(), float64(g.chain.nbytes)/(1<<30), float64(lim)/(1<<30))
	}
	a.meta, a.grid, a.chunkLen = m, g, g.chain.nbytes/g.chain.elem
	return nil
}

// WriteMetadata writes zarr.json (v3) or .zarray and, when there are
// attributes, .zattrs (v2).
func (a *Array) WriteMetadata(ctx context.Context) error {
	if a.meta.Format == 2 {
		b, err := marshalV2(&a.meta)
		if err != nil {
			return metadataError(a.docName(v2ArrayKey), err)
		}
		if a.meta.Attributes != nil {
			attrs := pyjson.ToPython(a.meta.Attributes)
			if len(attrs) > maxMetadataBytes {
				return &DocumentTooLargeError{Document: a.docName(v2AttrsKey)}
			}
			if err := a.store.Set(ctx, v2AttrsKey, attrs); err != nil {
				return err
			}
		}
		return a.store.Set(ctx, v2ArrayKey, b)
	}
	b, err := marshalV3(&a.meta)
	if err != nil {
		return metadataError(a.docName(v3MetadataKey), err)
	}
	if len(b) > maxMetadataBytes { // attributes near the limit, and the rest
		return &DocumentTooLargeError{Document: a.docName(v3MetadataKey)}
	}
	return a.store.Set(ctx, v3MetadataKey, b)
}

// SetWriteEmptyChunks makes WriteChunk store chunks (and inner chunks of
// shards) whose elements all equal the fill value. By default they are not
// stored, and an existing stored chunk is deleted, as zarr-python does.
func (a *Array) SetWriteEmptyChunks(on bool) { a.writeEmpty = on }

// Metadata returns a copy of the array's metadata.
func (a *Array) Metadata() Metadata { return a.meta.Clone() }

// DataType returns a time array's data type (zero for a numeric array).
func (a *Array) DataType() dtype.DataType { return a.meta.DataType }

// Numeric returns a numeric array's data type (zero for a time array).
func (a *Array) Numeric() NumericType { return a.meta.Numeric }

// IsTime reports whether the array holds datetime64 or timedelta64 values.
func (a *Array) IsTime() bool { return a.meta.IsTime() }

// ElementSize is the size of an element in bytes (8 for time arrays).
func (a *Array) ElementSize() int { return a.grid.chain.elem }

// ChunkBytes is the size of a decoded chunk, what the Raw forms take:
// ElementSize × ChunkLen.
func (a *Array) ChunkBytes() int { return a.grid.chain.nbytes }

// errNotTime refuses a time-only operation on a numeric array.
func (a *Array) errNotTime(coords []int64, op string) error {
	key, _ := a.ChunkKey(coords)
	return a.chunkErr(coords, key, fmt.Errorf("%s reads and writes datetime64/timedelta64 values, and this array holds %s: use %sRaw", op, a.meta.Numeric, op))
}

// Shape returns the array shape.
func (a *Array) Shape() []int64 { return append([]int64(nil), a.meta.Shape...) }

// ChunkShape returns the shape of every chunk (edge chunks are stored at
// this full shape, padded with the fill value).
func (a *Array) ChunkShape() []int64 { return append([]int64(nil), a.meta.ChunkShape...) }

// ChunkLen is the number of elements in a chunk: the length ReadChunk and
// WriteChunk want (ChunkBytes for the Raw forms).
func (a *Array) ChunkLen() int { return a.chunkLen }

// FillValue returns a time array's fill value.
func (a *Array) FillValue() int64 { return a.meta.FillValue }

// ByteOrder is the byte order of stored elements, which ReadChunkRaw
// returns them in: binary.LittleEndian or binary.BigEndian.
func (a *Array) ByteOrder() binary.ByteOrder { return a.grid.chain.order }

// Format is 2 or 3.
func (a *Array) Format() int { return a.meta.Format }

// Grid returns the array's chunk grid: edge extents, padding, chunk
// indexes.
func (a *Array) Grid() Grid { return a.grid.Grid }

// ChunkGrid returns the number of chunks along each dimension.
func (a *Array) ChunkGrid() []int64 { return a.grid.Counts() }

// NumChunks is the number of chunks in the grid (stored or not).
func (a *Array) NumChunks() int64 { return a.grid.NumChunks() }

// MaxEncodedSize is the largest stored chunk this array accepts: reading a
// bigger one fails before decoding.
func (a *Array) MaxEncodedSize() int { return a.grid.chain.maxEncoded() }

// ChunkCoordsAt returns the coordinates of the i-th chunk in C order
// (the last dimension varies fastest), 0 <= i < NumChunks() (Grid.CoordsAt
// panics for any other i).
func (a *Array) ChunkCoordsAt(i int64) []int64 { return a.grid.CoordsAt(i) }

// ChunkCoords iterates over every chunk in C order, yielding its index and
// coordinates (a fresh slice each time). The order is deterministic, so
// processes can split the work by index.
func (a *Array) ChunkCoords() iter.Seq2[int64, []int64] {
	return func(yield func(int64, []int64) bool) {
		n := a.grid.NumChunks()
		if n == 0 {
			return
		}
		counts := a.grid.counts
		c := make([]int64, len(counts))
		for i := int64(0); i < n; i++ {
			if !yield(i, append([]int64(nil), c...)) {
				return
			}
			for d := len(c) - 1; d >= 0; d-- {
				c[d]++
				if c[d] < counts[d] {
					break
				}
				c[d] = 0
			}
		}
	}
}

// ChunkKey returns the store key of the chunk at coords.
func (a *Array) ChunkKey(coords []int64) (string, error) {
	if err := a.grid.Check(coords); err != nil {
		return "", err
	}
	return a.meta.KeyEncoding.Key(coords), nil
}

func (a *Array) chunkErr(coords []int64, key string, err error) error {
	if key == "" {
		key = fmt.Sprint(coords)
	}
	return &ChunkError{Array: a.name, Key: key, Err: err}
}

// ReadChunkRaw decodes the chunk at coords into dst (ChunkBytes bytes),
// leaving elements in the stored byte order, which it returns. A chunk that
// is not stored reads as the fill value, with present false. Partial edge
// chunks are returned whole, padding included.
func (a *Array) ReadChunkRaw(ctx context.Context, coords []int64, dst []byte) (order binary.ByteOrder, present bool, err error) {
	return a.readChunk(ctx, coords, dst, 0, nil)
}

// ReadChunkFunc reads the chunk at coords as ReadChunkRaw does, but hands
// its bytes to fn, in order and in pieces: fn(off, p) gets bytes [off,
// off+len(p)) of the chunk, and every piece but the last starts and ends
// at a multiple of align bytes (align > 0; say 8 elements, for whole bytes
// of a validity bitmap). Where the stored chunk merely holds its bytes (no
// compressor, or zstd that kept every block raw, as it does with data it
// cannot compress) the pieces are read from the stored value itself, so
// fn's is the only pass over them; otherwise the chunk is decoded into buf
// (ChunkBytes long), or filled when it is not stored, and fn gets all of
// buf. fn must neither keep p nor change it unless p is buf. An error from
// fn is returned as it is; after one, buf may hold part of the chunk.
func (a *Array) ReadChunkFunc(ctx context.Context, coords []int64, buf []byte, align int, fn func(off int, p []byte) error) (order binary.ByteOrder, present bool, err error) {
	if align <= 0 || fn == nil {
		return nil, false, a.chunkErr(coords, "", fmt.Errorf("ReadChunkFunc needs align > 0 and a func (align %d, func set %v)", align, fn != nil))
	}
	return a.readChunk(ctx, coords, buf, align, fn)
}

// readChunk is ReadChunkRaw, or with fn ReadChunkFunc.
func (a *Array) readChunk(ctx context.Context, coords []int64, dst []byte, align int, fn func(off int, p []byte) error) (order binary.ByteOrder, present bool, err error) {
	key, err := a.ChunkKey(coords)
	if err != nil {
		return nil, false, a.chunkErr(coords, "", err)
	}
	c := a.grid.chain
	if len(dst) != c.nbytes {
		return nil, false, a.chunkErr(coords, key, fmt.Errorf("destination buffer is %d bytes, want %d", len(dst), c.nbytes))
	}
	sc := getScratch()
	defer sc.release()
	var enc []byte
	if bg, ok := storage.Find[storage.BufferGetter](a.store); ok {
		// Pass a pooled buffer as it comes, not grown to maxEncoded: that
		// bound can be far above real sizes (a shard of many small
		// compressed inner chunks has tens of MB of worst case), and
		// GetInto sizes the value from the stored object, within the limit.
		buf := sc.getSpare()
		enc, err = bg.GetInto(ctx, key, buf, c.maxEncoded())
		sc.keep(buf, enc)
	} else {
		enc, err = a.store.Get(ctx, key)
	}
	if errors.Is(err, fs.ErrNotExist) {
		setFill(dst, c.fill)
		if fn != nil {
			return c.order, false, fn(0, dst)
		}
		return c.order, false, nil
	}
	if err != nil {
		return nil, false, a.chunkErr(coords, key, err)
	}
	var fnErr error
	if fn != nil {
		// fn's own errors pass through unwrapped.
		f := fn
		fn = func(off int, p []byte) error {
			if err := f(off, p); err != nil {
				fnErr = err
				return err
			}
			return nil
		}
	}
	if err := c.decodeEach(sc, dst, enc, align, fn); err != nil {
		if fnErr != nil {
			return c.order, true, fnErr
		}
		return nil, false, a.chunkErr(coords, key, err)
	}
	return c.order, true, nil
}

// ReadChunk decodes the chunk at coords into dst (ChunkLen values) as
// native int64 values. Missing chunks read as the fill value.
func (a *Array) ReadChunk(ctx context.Context, coords []int64, dst []int64) error {
	if !a.IsTime() {
		return a.errNotTime(coords, "ReadChunk")
	}
	if len(dst) != a.chunkLen {
		key, _ := a.ChunkKey(coords)
		return a.chunkErr(coords, key, fmt.Errorf("destination has %d elements, want %d", len(dst), a.chunkLen))
	}
	order, _, err := a.ReadChunkRaw(ctx, coords, int64Bytes(dst))
	if err != nil {
		return err
	}
	if normalOrder(order) != dtype.NativeOrder() {
		swapInPlace(dst)
	}
	return nil
}

// int64Bytes views an []int64 as its bytes. (The reverse, []byte as
// []int64, is never done: a []byte may be misaligned.)
func int64Bytes(v []int64) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*8)
}

func swapInPlace(v []int64) {
	for i, x := range v {
		v[i] = int64(bits.ReverseBytes64(uint64(x)))
	}
}

// WriteChunk encodes src (ChunkLen native int64 values) and stores it as
// the chunk at coords. Elements of a partial edge chunk that lie outside
// the array are stored as the fill value, whatever src holds there.
func (a *Array) WriteChunk(ctx context.Context, coords []int64, src []int64) error {
	if !a.IsTime() {
		return a.errNotTime(coords, "WriteChunk")
	}
	key, err := a.ChunkKey(coords)
	if err != nil {
		return a.chunkErr(coords, "", err)
	}
	if len(src) != a.chunkLen {
		return a.chunkErr(coords, key, fmt.Errorf("source has %d elements, want %d", len(src), a.chunkLen))
	}
	sc := getScratch()
	defer sc.release()
	raw := sc.get(a.grid.chain.nbytes)
	o := a.grid.chain.order
	for i, v := range src {
		o.PutUint64(raw[i*8:], uint64(v))
	}
	_, err = a.writeRaw(ctx, sc, coords, key, raw)
	return err
}

// WriteChunkRaw stores raw (ChunkBytes bytes, elements in the array's
// ByteOrder) as the chunk at coords and reports whether it stored it: a
// chunk whose elements all equal the fill value is not stored, and a
// stored one is deleted, unless SetWriteEmptyChunks. raw is not copied:
// the codecs read it where it is. It is modified: the elements of a
// partial edge chunk outside the array are set to the fill value in
// place, as they are stored.
func (a *Array) WriteChunkRaw(ctx context.Context, coords []int64, raw []byte) (stored bool, err error) {
	key, err := a.ChunkKey(coords)
	if err != nil {
		return false, a.chunkErr(coords, "", err)
	}
	if len(raw) != a.grid.chain.nbytes {
		return false, a.chunkErr(coords, key, fmt.Errorf("source is %d bytes, want %d", len(raw), a.grid.chain.nbytes))
	}
	sc := getScratch()
	defer sc.release()
	return a.writeRaw(ctx, sc, coords, key, raw)
}

// writeRaw pads raw, the chunk at coords in the array's byte order, and
// stores it, or deletes the stored chunk when raw is all fill.
func (a *Array) writeRaw(ctx context.Context, sc *scratch, coords []int64, key string, raw []byte) (stored bool, err error) {
	c := a.grid.chain
	a.grid.Pad(raw, coords, c.fill)
	if !a.writeEmpty && allFill(raw, c.fill) {
		if err := a.store.Delete(ctx, key); err != nil {
			return false, a.chunkErr(coords, key, err)
		}
		return false, nil
	}
	enc, err := c.encode(sc, raw, a.writeEmpty)
	if err != nil {
		return false, a.chunkErr(coords, key, err)
	}
	if err := a.store.Set(ctx, key, enc); err != nil {
		return false, a.chunkErr(coords, key, err)
	}
	return true, nil
}
