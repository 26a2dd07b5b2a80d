package zarr

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"sync"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/internal/panics"
	"github.com/zarr-dt64/dt64/storage"
)

// RegionOptions tune a region read.
type RegionOptions struct {
	// Parallel is how many chunks are read and decoded at once; 0 or 1
	// reads them one after another.
	Parallel int
	// Missing, when set, is called with the coordinates of every chunk
	// (of a sharded array: shard) the box touches that is not stored,
	// whose elements read as the fill value: a caller with no defined
	// fill (Metadata.FillNull) tells them from stored values so. It may
	// be called from several goroutines at once and must not keep coords.
	Missing func(coords []int64)
}

// ReadRegion reads the box of elements [start, start+shape) of a time
// array into dst as native int64 values, in C order (len(dst) is the
// box's element count). See ReadRegionRaw.
func (a *Array) ReadRegion(ctx context.Context, start, shape []int64, dst []int64, o RegionOptions) error {
	if !a.IsTime() {
		return fmt.Errorf("%s: ReadRegion reads datetime64 and timedelta64 arrays; this one holds %s (use ReadRegionRaw)", a.name, a.meta.Numeric)
	}
	order, err := a.ReadRegionRaw(ctx, start, shape, int64Bytes(dst), o)
	if err != nil {
		return err
	}
	if normalOrder(order) != dtype.NativeOrder() {
		swapInPlace(dst)
	}
	return nil
}

// ReadRegionRaw reads the box of elements [start, start+shape) into dst,
// in C order, ElementSize bytes per element in the stored byte order,
// which it returns. It decodes only the chunks the box touches, each
// straight into dst when its elements are contiguous there; elements of
// chunks that are not stored read as the fill value. From a sharded array
// in a RangeGetter store it reads only the shard index and the inner
// chunks the box touches (whole shards when the box covers them).
func (a *Array) ReadRegionRaw(ctx context.Context, start, shape []int64, dst []byte, o RegionOptions) (binary.ByteOrder, error) {
	c := a.grid.chain
	n, err := a.checkRegion(start, shape)
	if err != nil {
		return nil, err
	}
	if int64(len(dst)) != n*int64(c.elem) {
		return nil, fmt.Errorf("%s: region %v+%v has %d elements of %d bytes: destination is %d bytes", a.name, start, shape, n, c.elem, len(dst))
	}
	if n == 0 {
		return c.order, nil
	}
	r := regionRead{a: a, start: start, shape: shape, dst: dst, missing: o.Missing}
	if s, ok := c.ab.(*shardStage); ok && len(c.arrays) == 0 && len(c.bbs) == 0 {
		r.shard = s
		r.ranges, _ = storage.Find[storage.RangeGetter](a.store)
	}
	// The chunks the box touches: first and last index per dimension.
	cs := a.grid.chunk
	lo, hi := make([]int64, len(shape)), make([]int64, len(shape))
	total := int64(1)
	for d := range shape {
		lo[d], hi[d] = start[d]/cs[d], (start[d]+shape[d]-1)/cs[d]
		total *= hi[d] - lo[d] + 1
	}
	workers := int64(max(o.Parallel, 1))
	workers = min(workers, total)
	next := make(chan []int64)
	errc := make(chan error, workers)
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The chunk-sized scratch comes from the pool: a region read
			// per batch (zarrow's export) otherwise left a chunk of
			// garbage a batch, and the heap grew to twice what the export
			// plans (a 50 MB chunk read in 99 360-row batches: 856 MB).
			buf := bufferPool.Get().(*[]byte)
			*buf = (*buf)[:0]
			defer putBuffer(buf)
			for coords := range next {
				if err := r.guardedChunk(ctx, coords, buf); err != nil {
					errc <- err
					cancel()
					for range next { // drain, so the sender stops
					}
					return
				}
			}
		}()
	}
	coords := append([]int64(nil), lo...)
send:
	for {
		select {
		case next <- append([]int64(nil), coords...):
		case <-ctx.Done():
			break send
		}
		d := len(coords) - 1
		for ; d >= 0; d-- {
			if coords[d]++; coords[d] <= hi[d] {
				break
			}
			coords[d] = lo[d]
		}
		if d < 0 {
			break
		}
	}
	close(next)
	wg.Wait()
	close(errc)
	if err := <-errc; err != nil {
		return nil, err
	}
	if err := parent.Err(); err != nil {
		return nil, err
	}
	return c.order, nil
}

// checkRegion checks a box against the array and returns its element count.
func (a *Array) checkRegion(start, shape []int64) (int64, error) {
	as := a.meta.Shape
	if len(start) != len(as) || len(shape) != len(as) {
		return 0, fmt.Errorf("%s: region %v+%v: the array has %d dimensions", a.name, start, shape, len(as))
	}
	n := int64(1)
	for d := range as {
		if start[d] < 0 || shape[d] < 0 || start[d] > as[d] || shape[d] > as[d]-start[d] {
			return 0, fmt.Errorf("%s: region %v+%v: dimension %d [%d, %d) is outside [0, %d)", a.name, start, shape, d, start[d], start[d]+shape[d], as[d])
		}
		if shape[d] != 0 && n > math.MaxInt64/shape[d] {
			return 0, fmt.Errorf("%s: region %v+%v has 2^63 elements or more", a.name, start, shape)
		}
		n *= shape[d]
	}
	return n, nil
}

// regionRead is one ReadRegionRaw call.
type regionRead struct {
	a            *Array
	start, shape []int64
	dst          []byte
	shard        *shardStage         // the array's chunks are shards, and nothing else encodes them
	ranges       storage.RangeGetter // the store reads ranges
	missing      func(coords []int64)
}

// stored calls r.missing for the chunk at coords when present is false.
func (r *regionRead) stored(coords []int64, present bool) {
	if !present && r.missing != nil {
		r.missing(coords)
	}
}

// guardedChunk is chunk on a worker goroutine: a panic in it (a bug, in
// a codec say) becomes the read's error, keeping the stack, rather than
// ending the process before the caller can clean up after the failed
// read (dt64 export removes its temporary file).
func (r *regionRead) guardedChunk(ctx context.Context, coords []int64, buf *[]byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: chunk %v: %w", r.a.name, coords, panics.Recovered(p))
		}
	}()
	return r.chunk(ctx, coords, buf)
}

// chunk copies the part of the box in the chunk at coords into dst. buf
// is the worker's pooled scratch, grown to a chunk on first need.
func (r *regionRead) chunk(ctx context.Context, coords []int64, buf *[]byte) error {
	a, c := r.a, r.a.grid.chain
	cs := a.grid.chunk
	nd := len(coords)
	// The intersection, in chunk-local and box-local coordinates.
	inChunk, inBox, ext := make([]int64, nd), make([]int64, nd), make([]int64, nd)
	whole := true
	for d := range nd {
		org := coords[d] * cs[d]
		lo, hi := max(r.start[d], org), min(r.start[d]+r.shape[d], org+cs[d])
		inChunk[d], inBox[d], ext[d] = lo-org, lo-r.start[d], hi-lo
		whole = whole && ext[d] == cs[d]
	}
	if r.shard != nil && r.ranges != nil && !whole {
		err := r.shardPart(ctx, coords, inChunk, inBox, ext)
		if !errors.Is(err, storage.ErrNoRanges) {
			return err
		}
		// A view over a store without ranges: read the whole shard.
	}
	if whole {
		if off, ok := contiguous(r.shape, cs, inBox); ok {
			z := int64(c.elem)
			_, present, err := a.ReadChunkRaw(ctx, coords, r.dst[off*z:(off+int64(c.nbytes)/z)*z])
			r.stored(coords, present || err != nil)
			return err
		}
	}
	if cap(*buf) < c.nbytes {
		*buf = make([]byte, c.nbytes)
	}
	*buf = (*buf)[:c.nbytes]
	_, present, err := a.ReadChunkRaw(ctx, coords, *buf)
	if err != nil {
		return err
	}
	r.stored(coords, present)
	copyBox(r.dst, r.shape, inBox, *buf, cs, inChunk, ext, c.elem)
	return nil
}

// shardPart reads the part [inChunk, inChunk+ext) of the shard at coords
// through range reads: its index, then each inner chunk it touches.
func (r *regionRead) shardPart(ctx context.Context, coords, inChunk, inBox, ext []int64) error {
	a, s := r.a, r.shard
	key, err := a.ChunkKey(coords)
	if err != nil {
		return a.chunkErr(coords, "", err)
	}
	fill := a.grid.chain.fill
	off := int64(-1)
	if s.atStart {
		off = 0
	}
	idxEnc, err := r.ranges.GetRange(ctx, key, off, int64(s.indexSize))
	if errors.Is(err, fs.ErrNotExist) {
		fillBox(r.dst, r.shape, inBox, ext, fill)
		r.stored(coords, false)
		return nil
	}
	if err != nil {
		return a.chunkErr(coords, key, fmt.Errorf("reading the shard index: %w", err))
	}
	sc := getScratch()
	defer sc.release()
	idx := sc.get(s.nInner * 16)
	if err := s.index.decode(sc, idx, idxEnc); err != nil {
		return a.chunkErr(coords, key, fmt.Errorf("shard index: %w", err))
	}
	o := s.index.order
	z := s.inner.elem
	block := sc.get(s.inner.nbytes)
	nd := len(coords)
	ilo, ihi := make([]int64, nd), make([]int64, nd)
	for d := range nd {
		ilo[d], ihi[d] = inChunk[d]/s.innerShape[d], (inChunk[d]+ext[d]-1)/s.innerShape[d]
	}
	q := append([]int64(nil), ilo...)
	subChunk, subBox, subExt := make([]int64, nd), make([]int64, nd), make([]int64, nd)
	for {
		flat := int64(0)
		for d := range nd {
			flat = flat*s.grid[d] + q[d]
			org := q[d] * s.innerShape[d]
			lo, hi := max(inChunk[d], org), min(inChunk[d]+ext[d], org+s.innerShape[d])
			subChunk[d], subBox[d], subExt[d] = lo-org, inBox[d]+lo-inChunk[d], hi-lo
		}
		eoff, enb := o.Uint64(idx[flat*16:]), o.Uint64(idx[flat*16+8:])
		switch {
		case eoff == emptyMarker && enb == emptyMarker:
			fillBox(r.dst, r.shape, subBox, subExt, fill)
		case eoff > math.MaxInt64 || enb > math.MaxInt64-eoff || enb > uint64(s.inner.maxEncoded()):
			return a.chunkErr(coords, key, fmt.Errorf("shard: %w: index entry %d (offset %d, nbytes %d) is impossible", ErrCorrupt, flat, eoff, enb))
		default:
			enc, err := r.ranges.GetRange(ctx, key, int64(eoff), int64(enb))
			if err != nil {
				return a.chunkErr(coords, key, fmt.Errorf("inner chunk %d: %w", flat, err))
			}
			child := getScratch()
			err = s.inner.decode(child, block, enc)
			child.release()
			if err != nil {
				return a.chunkErr(coords, key, fmt.Errorf("inner chunk %d: %w", flat, err))
			}
			copyBox(r.dst, r.shape, subBox, block, s.innerShape, subChunk, subExt, z)
		}
		d := nd - 1
		for ; d >= 0; d-- {
			if q[d]++; q[d] <= ihi[d] {
				break
			}
			q[d] = ilo[d]
		}
		if d < 0 {
			return nil
		}
	}
}

// contiguous reports whether a block of shape block at element
// coordinates at inside a C-order buffer of shape outer occupies one run
// of it, and where the run starts: the block is whole in every dimension
// after some k and one element thick in every dimension before it.
func contiguous(outer, block, at []int64) (int64, bool) {
	k := len(outer) - 1
	for k > 0 && block[k] == outer[k] {
		k--
	}
	for d := range k {
		if block[d] != 1 {
			return 0, false
		}
	}
	off := int64(0)
	for d := range outer {
		off = off*outer[d] + at[d]
	}
	return off, true
}

// copyBox copies the box of extent ext at srcAt in the C-order buffer src
// of shape srcShape to dstAt in dst of shape dstShape, z bytes per element.
func copyBox(dst []byte, dstShape, dstAt []int64, src []byte, srcShape, srcAt, ext []int64, z int) {
	eachRow(dstShape, dstAt, ext, srcShape, srcAt, func(do, so, n int64) {
		copy(dst[do*int64(z):(do+n)*int64(z)], src[so*int64(z):(so+n)*int64(z)])
	})
}

// fillBox sets the box of extent ext at at in dst (shape shape) to fill,
// one element of it.
func fillBox(dst []byte, shape, at, ext []int64, fill []byte) {
	z := int64(len(fill))
	eachRow(shape, at, ext, shape, at, func(do, _, n int64) { setFill(dst[do*z:(do+n)*z], fill) })
}

// eachRow calls fn with the element offsets in two C-order buffers (shapes
// aShape and bShape) of each row of a box of extent ext placed at aAt and
// bAt, and the row's length.
func eachRow(aShape, aAt, ext, bShape, bAt []int64, fn func(aOff, bOff, n int64)) {
	nd := len(ext)
	if nd == 0 {
		fn(0, 0, 1)
		return
	}
	for _, e := range ext {
		if e == 0 {
			return
		}
	}
	idx := make([]int64, nd)
	for {
		var ao, bo int64
		for d := range nd {
			ao = ao*aShape[d] + aAt[d] + idx[d]
			bo = bo*bShape[d] + bAt[d] + idx[d]
		}
		fn(ao, bo, ext[nd-1])
		d := nd - 2
		for ; d >= 0; d-- {
			if idx[d]++; idx[d] < ext[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}
