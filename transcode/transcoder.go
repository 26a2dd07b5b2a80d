package transcode

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/zarr"
)

// Transcoder is a planned re-encode of one source array into one
// destination. New plans it without touching the destination; Run does
// this process's part of the work; Finalize and Verify complete it.
// Progress may be called from another goroutine while Run or Verify runs.
type Transcoder struct {
	opts     Options
	srcStore zarr.Store // as given: markers and metadata go straight here
	dstStore zarr.Store
	srcIO    *ioStore // chunk traffic: counted, CPU token released
	dstIO    *ioStore
	src, dst *zarr.Array
	plan     Plan
	doc      planDoc
	geo      *geometry
	kern     *kernels.Transcoder
	srcFill  [8]byte // source fill value in source byte order
	fillSt   kernels.Stats
	lo, hi   int64             // this part's work units
	sources  map[string]string // versions of this part's source chunks (sources.go)

	bufs chan *buffers // the pool: at most InFlight sets ever exist
	nbuf atomic.Int64

	progress struct {
		unitsDone, elements atomic.Int64
	}
}

// Plan describes a planned re-encode.
type Plan struct {
	Source, Destination           zarr.Metadata
	SourceOrder, DestinationOrder binary.ByteOrder
	Conversion                    dtype.Conversion
	// Units is the number of work units in the whole array; a unit
	// covers UnitShape elements (a destination shard made of source
	// chunks, a source shard split into destination chunks, or one chunk).
	Units     int64
	UnitShape []int64
	// FirstUnit and EndUnit delimit this part's units [FirstUnit, EndUnit).
	FirstUnit, EndUnit int64
	Workers, InFlight  int
	// MemoryBound is the most memory the engine's buffers take at once,
	// in bytes (see the package documentation).
	MemoryBound int64
	// Notes say what a format change could not carry over.
	Notes []string
}

// Summary describes what a run did.
type Summary struct {
	Units   int64 // work units of this part
	Resumed int64 // of which found complete in the destination and skipped
	Chunks  int64 // destination chunks covered
	Stored  int64 // of which written (the others are all fill and not stored)
	// Element statistics. Units skipped on resume contribute Elements and
	// NaT but not Overflowed and Lossy (those are known only when
	// converting).
	Elements, NaT, Overflowed, Lossy int64
	BytesRead, BytesWritten          int64 // encoded chunk bytes
	Elapsed                          time.Duration
	// Complete is true when the destination's metadata is written: the
	// array is whole. AlreadyComplete: it was before this run.
	Complete, AlreadyComplete bool
	// PartsDone of Parts have finished (for a partitioned run).
	PartsDone, Parts int
}

func (s *Summary) addUnit(u unitStats) {
	if u.resumed {
		s.Resumed++
	}
	s.add(Summary{Chunks: u.chunks, Stored: u.stored, Elements: u.elements, NaT: u.nat, Overflowed: u.overflowed, Lossy: u.lossy})
}

func (s *Summary) add(o Summary) {
	s.Units += o.Units
	s.Resumed += o.Resumed
	s.Chunks += o.Chunks
	s.Stored += o.Stored
	s.Elements += o.Elements
	s.NaT += o.NaT
	s.Overflowed += o.Overflowed
	s.Lossy += o.Lossy
	s.BytesRead += o.BytesRead
	s.BytesWritten += o.BytesWritten
}

// Progress is a snapshot of a running transcode.
type Progress struct {
	Units, UnitsDone        int64 // this part's work units, and how many are done
	Elements                int64
	BytesRead, BytesWritten int64
}

// New plans a re-encode of the array in src into dst. It reads the source
// metadata and checks that the options make a valid destination; it does
// not touch dst (Run does).
func New(ctx context.Context, src, dst zarr.Store, o Options) (*Transcoder, error) {
	if o.Resume && o.Overwrite {
		return nil, planErr("resume and overwrite exclude each other")
	}
	if o.Overwrite && o.Part.count() > 1 {
		return nil, planErr("overwrite cannot be combined with a part: one part would delete the others' work")
	}
	if o.Part.Index < 0 || (o.Part.Count > 0 && o.Part.Index >= o.Part.Count) || o.Part.Count < 0 {
		return nil, planErr("part %d/%d: want 0 <= I < N", o.Part.Index, o.Part.Count)
	}
	t := &Transcoder{opts: o, srcStore: src, dstStore: dst}
	t.srcIO, t.dstIO = &ioStore{Store: src}, &ioStore{Store: dst}
	var err error
	if t.src, err = zarr.Open(ctx, t.srcIO); err != nil {
		return nil, fmt.Errorf("opening the source: %w", err)
	}
	if !t.src.IsTime() {
		return nil, planErr("the source holds %s, not datetime64 or timedelta64 values", t.src.Numeric())
	}
	sm := t.src.Metadata()
	dm, notes, err := destMetadata(sm, &o)
	if err != nil {
		return nil, err
	}
	conv, err := dtype.NewConversion(sm.DataType, dm.DataType)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPlan, err)
	}
	fill, fillSt, err := convertFill(conv, sm.FillValue, o.Exact)
	if err != nil {
		return nil, err
	}
	t.fillSt = fillSt
	dm.FillValue = fill
	if t.dst, err = zarr.Create(ctx, t.dstIO, dm); err != nil {
		return nil, fmt.Errorf("%w: destination metadata: %w", ErrPlan, err)
	}
	srcOrder, dstOrder := t.src.ByteOrder(), t.dst.ByteOrder()
	t.src.ByteOrder().PutUint64(t.srcFill[:], uint64(sm.FillValue))
	if t.kern, err = kernels.NewTranscoder(conv, kernels.Options{
		From: srcOrder, To: dstOrder, Overflow: o.Overflow, Exact: o.Exact,
	}); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrPlan, err)
	}
	if t.geo, err = newGeometry(sm.Shape, sm.ChunkShape, t.src.ChunkGrid(), dm.ChunkShape, t.dst.ChunkGrid()); err != nil {
		return nil, err
	}
	t.lo, t.hi = o.Part.units(t.geo.units)

	fp, err := sourceFingerprint(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("reading the source metadata: %w", err)
	}
	docs, err := metadataDocs(ctx, t.dst.Metadata())
	if err != nil {
		return nil, fmt.Errorf("%w: destination metadata: %w", ErrPlan, err)
	}
	t.doc = planDoc{
		Tool: "dt64 transcode", Version: planVersion, Source: storeName(src),
		SourceMetadataSHA256: fp, Destination: docs, Conversion: conv.String(),
		Overflow: o.Overflow.String(), Exact: o.Exact, Units: t.geo.units,
	}
	t.plan = Plan{
		Source: sm, Destination: t.dst.Metadata(), SourceOrder: srcOrder, DestinationOrder: dstOrder,
		Conversion: conv, Units: t.geo.units, UnitShape: append([]int64(nil), t.geo.region...),
		FirstUnit: t.lo, EndUnit: t.hi, Workers: o.cpus(localStores(src, dst)), InFlight: o.inFlight(localStores(src, dst)), Notes: notes,
	}
	t.plan.MemoryBound = int64(t.plan.InFlight) * t.perUnitBytes()
	t.bufs = make(chan *buffers, t.plan.InFlight)
	return t, nil
}

// perUnitBytes is the most memory one unit in flight holds: the region
// buffer, staging for a source and a destination chunk when chunks are
// not contiguous in it (or for resume checks and verification), and the
// codec scratch the zarr package uses for one chunk operation (encoded
// input up to MaxEncodedSize, a decoded copy for encoding, encoded
// output of about the same bound).
func (t *Transcoder) perUnitBytes() int64 {
	g := t.geo
	n := int64(g.regionLen) * 8
	n += int64(g.srcLen)*8 + int64(g.dstLen)*8
	n += int64(t.src.MaxEncodedSize()) + int64(g.dstLen)*8 + int64(t.dst.MaxEncodedSize())
	return n
}

func storeName(s zarr.Store) string {
	if st, ok := s.(fmt.Stringer); ok {
		return st.String()
	}
	return ""
}

// Plan returns the plan.
func (t *Transcoder) Plan() Plan { return t.plan }

// Progress returns a snapshot of this part's progress.
func (t *Transcoder) Progress() Progress {
	return Progress{
		Units: t.hi - t.lo, UnitsDone: t.progress.unitsDone.Load(),
		Elements:  t.progress.elements.Load(),
		BytesRead: t.srcIO.read.Load(), BytesWritten: t.dstIO.written.Load(),
	}
}

// buffers are one unit's working memory, reused from unit to unit.
type buffers struct {
	region, srcStage, dstStage []byte
}

// alignedBytes returns n zeroed bytes, 8-byte aligned so the kernels can
// work on them as 64-bit words.
func alignedBytes(n int) []byte {
	if n == 0 {
		return nil
	}
	w := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), n)
}

func (t *Transcoder) getBuffers() *buffers {
	select {
	case b := <-t.bufs:
		return b
	default:
	}
	if t.nbuf.Add(1) > int64(cap(t.bufs)) {
		return <-t.bufs // every set exists: wait for one
	}
	return &buffers{region: alignedBytes(8 * t.geo.regionLen)}
}

func (t *Transcoder) putBuffers(b *buffers) { t.bufs <- b }

func (b *buffers) src(g *geometry) []byte {
	if b.srcStage == nil {
		b.srcStage = alignedBytes(8 * g.srcLen)
	}
	return b.srcStage
}

func (b *buffers) dst(g *geometry) []byte {
	if b.dstStage == nil {
		b.dstStage = alignedBytes(8 * g.dstLen)
	}
	return b.dstStage
}

// forEachUnit runs fn on units [lo, hi) with InFlight goroutines sharing
// Workers CPU tokens. Units are handed out in order; after a failure no
// later unit starts, but the earlier ones still in progress finish, and the
// error of the first failing unit in array order is returned, so the
// element an error names does not depend on scheduling.
func (t *Transcoder) forEachUnit(ctx context.Context, lo, hi int64, fn func(ctx context.Context, b *buffers, u int64) error) error {
	if hi <= lo {
		return nil
	}
	// With no more goroutines than workers a token is never waited for:
	// a nil channel makes taking and giving it up free.
	var sem chan struct{}
	if t.plan.InFlight > t.plan.Workers {
		sem = make(chan struct{}, t.plan.Workers)
	}
	var next atomic.Int64
	next.Store(lo)
	var (
		mu      sync.Mutex
		failU   = hi // the first failing unit so far; hi when none
		failErr error
	)
	failed := func(u int64) bool {
		mu.Lock()
		defer mu.Unlock()
		return u >= failU
	}
	var wg sync.WaitGroup
	n := int64(t.plan.InFlight)
	if n > hi-lo {
		n = hi - lo
	}
	for range n {
		wg.Go(func() {
			tok := &cpuToken{sem: sem}
			wctx := context.WithValue(ctx, tokenKey{}, tok)
			b := t.getBuffers()
			defer t.putBuffers(b)
			for {
				u := next.Add(1) - 1
				if u >= hi || failed(u) || ctx.Err() != nil {
					return
				}
				if err := tok.acquire(ctx); err != nil {
					return
				}
				err := fn(wctx, b, u)
				tok.release()
				if err != nil {
					mu.Lock()
					if u < failU {
						failU, failErr = u, err
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if failErr != nil {
		return failErr
	}
	return ctx.Err()
}

// unitStats is what one unit contributes to a Summary.
type unitStats struct {
	resumed                          bool
	chunks, stored                   int64
	elements, nat, overflowed, lossy int64
}

// readRegion decodes the source chunks of the region at origin into
// b.region and reports whether any of them is stored.
func (t *Transcoder) readRegion(ctx context.Context, b *buffers, origin []int64) (present bool, err error) {
	g := t.geo
	off := make([]int64, len(origin))
	err = g.chunksIn(origin, g.srcChunk, g.srcGrid, func(c []int64) error {
		var buf []byte
		switch {
		case g.srcSame:
			buf = b.region
		case g.srcContig:
			o := g.blockOffset(origin, g.srcChunk, c, off)
			buf = b.region[8*o : 8*(o+g.srcLen)]
		default:
			buf = b.src(g)
		}
		_, ok, err := t.src.ReadChunkRaw(ctx, c, buf)
		if err != nil {
			return fmt.Errorf("reading the source: %w", err)
		}
		if !g.srcContig {
			g.blockOffset(origin, g.srcChunk, c, off)
			forRows(g.region, g.srcChunk, off, func(o, i, n int) {
				copy(b.region[8*o:8*(o+n)], buf[8*i:8*(i+n)])
			})
		}
		present = present || ok
		return nil
	})
	return present, err
}

// dstChunkBytes returns the destination chunk at coords within the region
// at origin: a slice of b.region when contiguous, else a copy in staging.
func (t *Transcoder) dstChunkBytes(b *buffers, origin, c, off []int64) []byte {
	g := t.geo
	switch {
	case g.dstSame:
		return b.region
	case g.dstContig:
		o := g.blockOffset(origin, g.dstChunk, c, off)
		return b.region[8*o : 8*(o+g.dstLen)]
	}
	buf := b.dst(g)
	g.blockOffset(origin, g.dstChunk, c, off)
	forRows(g.region, g.dstChunk, off, func(o, i, n int) {
		copy(buf[8*i:8*(i+n)], b.region[8*o:8*(o+n)])
	})
	return buf
}

// convertRegion converts b.region in place with k (after setting its
// padding to the fill value) and returns the statistics of the elements
// inside the array.
func (t *Transcoder) convertRegion(k *kernels.Transcoder, b *buffers, origin []int64) (kernels.Stats, error) {
	g := t.geo
	_, inside, _ := g.extent(origin)
	g.pad(b.region, origin, t.srcFill)
	st, err := k.Run(b.region, b.region, nil)
	if err != nil {
		return st, t.elementError(origin, err)
	}
	// Padding is the fill value: take its statistics back out.
	out := g.regionLen - int(inside)
	st.Elements -= out * t.fillSt.Elements
	st.NaT -= out * t.fillSt.NaT
	st.Valid -= out * t.fillSt.Valid
	st.Lossy -= out * t.fillSt.Lossy
	return st, nil
}

func (t *Transcoder) elementError(origin []int64, err error) error {
	var oe *kernels.OverflowError
	var le *kernels.LossError
	var ee ElementError
	switch {
	case errors.As(err, &oe):
		e := *oe
		ee.ArrayIndex, ee.Key, e.Index = t.locate(origin, e.Index)
		ee.Index, ee.Value, ee.Err = e.Index, e.Value, &e
	case errors.As(err, &le):
		e := *le
		ee.ArrayIndex, ee.Key, e.Index = t.locate(origin, e.Index)
		ee.Index, ee.Value, ee.Err = e.Index, e.Value, &e
	default:
		return err
	}
	ee.Array = storeName(t.srcStore)
	return &ee
}

// locate maps element i of the region at origin to its array index, the
// key of the source chunk holding it and its index in that chunk.
func (t *Transcoder) locate(origin []int64, i int) (arrayIndex []int64, key string, inChunk int) {
	arrayIndex, chunk, inChunk := t.geo.locate(origin, i, t.geo.srcChunk)
	key, _ = t.src.ChunkKey(chunk)
	return arrayIndex, key, inChunk
}

// doUnit converts unit u: read, convert, write. With resume it first
// checks whether the destination already holds the unit.
func (t *Transcoder) doUnit(ctx context.Context, b *buffers, u int64, resume bool) (unitStats, error) {
	g := t.geo
	origin := g.origin(u)
	var us unitStats
	if resume {
		done, err := t.unitDone(ctx, b, origin, &us)
		if err == nil && done && t.recountOnResume() {
			err = t.recount(ctx, b, origin, &us)
		}
		if err != nil || done {
			return us, err
		}
		us = unitStats{}
	}
	present, err := t.readRegion(ctx, b, origin)
	if err != nil {
		return us, err
	}
	if err := t.checkUnitSources(ctx, u); err != nil {
		return us, err
	}
	_, inside, _ := g.extent(origin)
	if !present {
		// Every source chunk is missing: the region is all fill, and so is
		// every destination chunk, which zarr does not store.
		us.elements = inside
		us.nat = inside * int64(t.fillSt.NaT)
		us.lossy = inside * int64(t.fillSt.Lossy)
		_ = g.chunksIn(origin, g.dstChunk, g.dstGrid, func([]int64) error { us.chunks++; return nil })
		return us, nil
	}
	st, err := t.convertRegion(t.kern, b, origin)
	if err != nil {
		return us, err
	}
	us.elements, us.nat, us.overflowed, us.lossy = int64(st.Elements), int64(st.NaT), int64(st.Overflowed), int64(st.Lossy)
	off := make([]int64, len(origin))
	err = g.chunksIn(origin, g.dstChunk, g.dstGrid, func(c []int64) error {
		us.chunks++
		stored, err := t.dst.WriteChunkRaw(ctx, c, t.dstChunkBytes(b, origin, c, off))
		if err != nil {
			return fmt.Errorf("writing the destination: %w", err)
		}
		if stored {
			us.stored++ // not stored when all fill
		}
		return nil
	})
	return us, err
}

// recountOnResume reports whether a unit found done on resume must be
// converted again to count its overflowed and lossy elements: the
// destination holds only the results. Under the error policy no finished
// unit overflowed, and a conversion by a whole factor loses nothing.
func (t *Transcoder) recountOnResume() bool {
	c := t.plan.Conversion
	lossy, overflow := false, false
	switch c.Path {
	case dtype.PathCalendar:
		lossy, overflow = true, true
	case dtype.PathLinear:
		num, den, ok := c.Factor64()
		lossy, overflow = !ok || den != 1, !ok || num != 1
	}
	return (overflow && t.opts.Overflow != kernels.OverflowFail) || (lossy && !t.opts.Exact)
}

// recount converts the source region at origin again, into scratch, and
// sets the overflowed and lossy counts of us, so that a resumed run's
// summary counts the units an earlier run did.
func (t *Transcoder) recount(ctx context.Context, b *buffers, origin []int64, us *unitStats) error {
	present, err := t.readRegion(ctx, b, origin)
	if err != nil {
		return err
	}
	if !present {
		_, inside, _ := t.geo.extent(origin)
		us.lossy = inside * int64(t.fillSt.Lossy)
		return nil
	}
	st, err := t.convertRegion(t.kern, b, origin)
	if err != nil {
		return err
	}
	us.overflowed, us.lossy = int64(st.Overflowed), int64(st.Lossy)
	return nil
}

// unitDone reports whether every destination chunk of the region at
// origin is stored and decodes: writes are atomic, so such a chunk is
// complete. Its statistics (elements, NaT) go to us.
func (t *Transcoder) unitDone(ctx context.Context, b *buffers, origin []int64, us *unitStats) (bool, error) {
	g := t.geo
	done := true
	dstNaT := t.dst.FillValue() == dtype.NaT
	err := g.chunksIn(origin, g.dstChunk, g.dstGrid, func(c []int64) error {
		buf := b.dst(g)
		_, ok, err := t.dst.ReadChunkRaw(ctx, c, buf)
		if err != nil || !ok {
			done = false
			return errStop
		}
		nat, err := kernels.CountNaT(buf, t.plan.DestinationOrder)
		if err != nil {
			return err
		}
		inside := int64(1)
		for d := range c {
			inside *= max(0, min(g.dstChunk[d], g.shape[d]-c[d]*g.dstChunk[d]))
		}
		if dstNaT {
			nat -= g.dstLen - int(inside)
		}
		us.chunks++
		us.stored++
		us.elements += inside
		us.nat += int64(nat)
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	us.resumed = done
	return done && err == nil, err
}

var errStop = errors.New("stop")
