package transcode

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// buffers are one unit's working memory, reused from unit to unit.
type buffers struct {
	region, srcStage, dstStage []byte
	one                        []byte // one element, for a CF source's padding
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

func (t *Job) getBuffers() *buffers {
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

func (t *Job) putBuffers(b *buffers) { t.bufs <- b }

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
func (t *Job) forEachUnit(ctx context.Context, lo, hi int64, fn func(ctx context.Context, b *buffers, u int64) error) error {
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
	unfilled                         int64 // of which NaT for want of a fill value (sourceRead)
	noDate                           int64 // dates without a Gregorian one, stored as NaT
	min, max                         int64 // of a CF destination's values, when ranged
	ranged                           bool
}

// sourceRead says what readRegion found: whether any source chunk of
// the region is stored, and how many elements (inside the array) of the
// missing ones have no value (a null-fill CF source's) and became NaT.
type sourceRead struct {
	present  bool
	unfilled int64
}

// readRegion decodes the source chunks of the region at origin into
// b.region and reports whether any of them is stored. A CF source's
// chunks are decoded with dec as they are read (widened in place to 8
// bytes an element), and the statistics of their elements inside the
// array returned; an element dec refuses is convErr, returned apart from
// read errors so that a changed source is reported first.
func (t *Job) readRegion(ctx context.Context, b *buffers, origin []int64, dec cfKernel) (r sourceRead, st kernels.Stats, convErr error, err error) {
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
		raw := buf[:g.srcLen*t.src.ElementSize()]
		_, ok, err := t.src.ReadChunkRaw(ctx, c, raw)
		if err != nil {
			return fmt.Errorf("reading the source: %w", err)
		}
		switch {
		case !ok && t.nullFill:
			n := t.unfilledChunk(buf, c)
			st.Elements += int(n)
			st.NaT += int(n)
			r.unfilled += n
		case dec != nil && convErr == nil:
			var cst kernels.Stats
			if cst, convErr = t.decodeChunk(dec, b, buf, raw, c); convErr == nil {
				st.Add(cst)
			}
		}
		if !g.srcContig {
			g.blockOffset(origin, g.srcChunk, c, off)
			zarr.ForEachRow(g.region, g.srcChunk, off, func(o, i, n int) {
				copy(b.region[8*o:8*(o+n)], buf[8*i:8*(i+n)])
			})
		}
		r.present = r.present || ok
		return nil
	})
	if dec != nil && err == nil && convErr == nil {
		// Slots of chunks beyond the grid, and padding: NaT, as the
		// destination stores padding.
		g.pad(b.region, origin, t.decodedNaT())
	}
	return r, st, convErr, err
}

// dstChunkBytes returns the destination chunk at coords within the region
// at origin: a slice of b.region when contiguous, else a copy in staging.
func (t *Job) dstChunkBytes(b *buffers, origin, c, off []int64) []byte {
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
	zarr.ForEachRow(g.region, g.dstChunk, off, func(o, i, n int) {
		copy(buf[8*i:8*(i+n)], b.region[8*o:8*(o+n)])
	})
	return buf
}

// convertRegion converts b.region in place with k (after setting its
// padding to the fill value) and returns the statistics of the elements
// inside the array. For a CF source (already decoded by readRegion) k is
// the CF encoder or nil; st are the decoded elements' statistics, to which
// the encoder's overflows and losses are added.
func (t *Job) convertRegion(k cfKernel, b *buffers, origin []int64, st kernels.Stats) (kernels.Stats, error) {
	g := t.geo
	if t.cf.src != nil {
		if k == nil {
			return st, nil
		}
		est, err := k.Run(b.region, b.region, nil)
		if err != nil {
			return st, t.elementError(origin, err)
		}
		st.Overflowed += est.Overflowed
		st.Lossy += est.Lossy
		st.Min, st.Max = est.Min, est.Max
		if t.opts.Overflow == dtype.OverflowNaT {
			st.NaT += est.Overflowed
			st.Valid -= est.Overflowed
		}
		return st, nil
	}
	_, inside, _ := g.extent(origin)
	g.pad(b.region, origin, t.srcFill)
	st, err := k.Run(b.region, b.region, nil)
	if err != nil {
		return st, t.elementError(origin, err)
	}
	// Padding is the fill value: take its statistics back out.
	subtractStats(&st, t.fillSt, g.regionLen-int(inside))
	return st, nil
}

// subtractStats takes n elements with the statistics of one (one) out
// of st.
func subtractStats(st *kernels.Stats, one kernels.Stats, n int) {
	st.Elements -= n * one.Elements
	st.NaT -= n * one.NaT
	st.Valid -= n * one.Valid
	st.Lossy -= n * one.Lossy
	st.Overflowed -= n * one.Overflowed
	st.NoDate -= n * one.NoDate
}

func (t *Job) elementError(origin []int64, err error) error {
	var ke *dtype.ElementError
	if !errors.As(err, &ke) {
		return err
	}
	e := *ke
	var ee zarr.ElementError
	ee.ArrayIndex, ee.Key, e.Index = t.locate(origin, e.Index)
	ee.Index, ee.Value, ee.Err = e.Index, e.Value, &e
	ee.Array = storage.Name(t.srcStore)
	return &ee
}

// locate maps element i of the region at origin to its array index, the
// key of the source chunk holding it and its index in that chunk.
func (t *Job) locate(origin []int64, i int) (arrayIndex []int64, key string, inChunk int) {
	arrayIndex, chunk, inChunk := t.geo.locate(origin, i, t.geo.srcChunk)
	key, _ = t.src.ChunkKey(chunk)
	return arrayIndex, key, inChunk
}

// doUnit converts unit u: read, convert, write. With resume it first
// checks whether the destination already holds the unit.
func (t *Job) doUnit(ctx context.Context, b *buffers, u int64, resume bool) (unitStats, error) {
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
	r, st, convErr, err := t.readRegion(ctx, b, origin, t.dec)
	if err != nil {
		return us, err
	}
	if err := t.checkUnitSources(ctx, u); err != nil {
		return us, err
	}
	if convErr != nil {
		return us, convErr
	}
	_, inside, _ := g.extent(origin)
	us.unfilled = r.unfilled
	if !r.present && t.fillSame {
		// Every source chunk is missing: the region is all fill, and so is
		// every destination chunk, which zarr does not store.
		us.elements = inside
		us.nat = inside * int64(t.fillSt.NaT)
		us.lossy = inside * int64(t.fillSt.Lossy)
		us.overflowed = inside * int64(t.fillSt.Overflowed)
		_ = g.chunksIn(origin, g.dstChunk, g.dstGrid, func([]int64) error { us.chunks++; return nil })
		return us, nil
	}
	st, err = t.convertRegion(t.kernel(), b, origin, st)
	if err != nil {
		return us, err
	}
	us.elements, us.nat, us.overflowed, us.lossy, us.noDate = int64(st.Elements), int64(st.NaT), int64(st.Overflowed), int64(st.Lossy), int64(st.NoDate)
	if t.cf.dstUnits != nil && st.Valid > 0 {
		us.min, us.max, us.ranged = st.Min, st.Max, true
	}
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
func (t *Job) recountOnResume() bool {
	if t.cf.src != nil || t.cf.dstUnits != nil {
		noDate := t.cf.src != nil && t.opts.Calendar.Missing == cf.MissingNaT && t.opts.Calendar.Convert.Effective(t.cf.src.Calendar) != cf.ConvertNone
		return t.opts.Overflow != dtype.OverflowError || !t.opts.Exact || noDate
	}
	c := t.plan.Conversion
	lossy, overflow := false, false
	switch c.Path {
	case dtype.PathCalendar:
		lossy, overflow = true, true
	case dtype.PathLinear:
		num, den, ok := c.Factor64()
		lossy, overflow = !ok || den != 1, !ok || num != 1
	}
	return (overflow && t.opts.Overflow != dtype.OverflowError) || (lossy && !t.opts.Exact)
}

// recount converts the source region at origin again, into scratch, and
// sets the overflowed and lossy counts of us, so that a resumed run's
// summary counts the units an earlier run did.
func (t *Job) recount(ctx context.Context, b *buffers, origin []int64, us *unitStats) error {
	r, st, convErr, err := t.readRegion(ctx, b, origin, t.dec)
	if err != nil {
		return err
	}
	if convErr != nil {
		return convErr
	}
	us.unfilled = r.unfilled
	if !r.present && t.fillSame {
		_, inside, _ := t.geo.extent(origin)
		us.lossy = inside * int64(t.fillSt.Lossy)
		us.overflowed = inside * int64(t.fillSt.Overflowed)
		return nil
	}
	st, err = t.convertRegion(t.kernel(), b, origin, st)
	if err != nil {
		return err
	}
	us.overflowed, us.lossy, us.noDate = int64(st.Overflowed), int64(st.Lossy), int64(st.NoDate)
	return nil
}

// unitDone reports whether every destination chunk of the region at
// origin is stored and decodes: writes are atomic, so such a chunk is
// complete. Its statistics (elements, NaT) go to us.
func (t *Job) unitDone(ctx context.Context, b *buffers, origin []int64, us *unitStats) (bool, error) {
	g := t.geo
	done := true
	dstNaT := t.dstFillNaT
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
		_, inside := t.dst.Grid().Extent(c)
		if dstNaT {
			nat -= g.dstLen - int(inside)
		}
		us.chunks++
		us.stored++
		us.elements += inside
		us.nat += int64(nat)
		if t.cf.dstUnits != nil {
			lo, hi, valid, err := kernels.MinMax(buf, t.plan.DestinationOrder)
			if err != nil {
				return err
			}
			if valid > 0 {
				if !us.ranged {
					us.min, us.max = lo, hi
				}
				us.min, us.max, us.ranged = min(us.min, lo), max(us.max, hi), true
			}
		}
		return nil
	})
	if errors.Is(err, errStop) {
		err = nil
	}
	us.resumed = done
	return done && err == nil, err
}

var errStop = errors.New("stop")
