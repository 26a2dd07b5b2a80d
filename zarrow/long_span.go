package zarrow

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/zarr-dt64/dt64/kernels"
)

// A long table whose variables' chunks hold more rows than a batch reads
// them a chunk's extent at a time (a span) and copies its batches out of
// the span's columns, so that each chunk is decoded once, not once for
// every batch that takes rows of it. A batch takes one index of each
// dimension before batchDim, a range along it and everything after it,
// so its rows are contiguous in any box that holds it whole and extends
// to the end of the dimensions after batchDim: a span is such a box, the
// chunks' extent along the dimensions up to batchDim (spanShape). Along
// batchDim batches tile spans exactly: planBatches picks a batch length
// that divides the chunk's, or the chunk holds the whole dimension. Along
// the dimensions before it, a span holds several indices (a band) when
// the chunks do: the batches of one index then sweep every span of the
// band, and the band's spans are all held until its last index is read,
// which planBatches allows up to LongBandBytes.

// spanCache holds the spans that batches still need, by the row each
// starts at; batches read concurrently wait for the one reading a span.
type spanCache struct {
	mu    sync.Mutex
	spans map[int64]*span
}

type span struct {
	ready chan struct{} // closed once read
	cols  []arrow.Array // the variables over the span
	err   error
	users int64 // batches not yet cut from it
}

// spanned reports whether the table reads its variables by spans.
func (l *longTable) spanned() bool { return l.spanShape != nil }

// spanBox is the span that holds the batch at start: its start and
// shape, its first row (the cache's key), the batches cut from it, and
// the batch's first row within it.
func (l *longTable) spanBox(start []int64) (sst, ss []int64, key, users, off int64) {
	d := len(l.spanShape) - 1
	sst, ss = make([]int64, len(l.shape)), slices.Clone(l.shape)
	users = 1
	for k := range l.shape {
		key *= l.shape[k]
		if k > d {
			continue
		}
		first := start[k] / l.spanShape[k] * l.spanShape[k]
		sst[k], ss[k] = first, min(l.spanShape[k], l.shape[k]-first)
		key += first
		off = off*ss[k] + start[k] - first
		if k < d {
			users *= ss[k]
		} else {
			users *= (ss[k] + l.batchLen - 1) / l.batchLen
		}
	}
	return sst, ss, key, users, off * l.inner
}

// spanBytes is the most memory one span's variable columns take.
func (t *Table) spanBytes() int64 {
	l := t.long
	if l == nil || !l.spanned() {
		return 0
	}
	n := l.inner
	for _, s := range l.spanShape {
		n *= s
	}
	return BatchBytes(arrow.NewSchema(t.schema.Fields()[len(l.coords):], nil), n)
}

// spansHeld is the most spans a reader holds at once: every span of a
// band along batchDim (one when spans hold one index of the dimensions
// before it) until the band's last batch is cut, and one for each batch
// being read, which may belong to the next band.
func (t *Table) spansHeld() int64 {
	l := t.long
	if !l.spanned() {
		return 0
	}
	d := len(l.spanShape) - 1
	n := int64(1)
	if l.band() > 1 {
		n = (l.shape[d] + l.spanShape[d] - 1) / l.spanShape[d]
	}
	return n + int64(max(t.opts.Prefetch, 0)) + 1
}

// spans is the number of spans of the table.
func (l *longTable) spans() int64 {
	n := int64(1)
	for k, s := range l.spanShape {
		n *= (l.shape[k] + s - 1) / s
	}
	return n
}

// band is how many indices of the dimensions before batchDim a span
// holds.
func (l *longTable) band() int64 {
	n := int64(1)
	for _, s := range l.spanShape[:max(len(l.spanShape)-1, 0)] {
		n *= s
	}
	return n
}

// variablesBySpan returns the variables' columns of the batch of n rows
// at start, copied from its span, and the statistics of reading the span
// when this call read it. Copies, not slices: a batch held downstream
// (a Parquet row group in the making) then keeps only its own rows, not
// the whole span.
func (t *Table) variablesBySpan(ctx context.Context, c *spanCache, n int64, start []int64) ([]arrow.Array, kernels.Stats, error) {
	l := t.long
	sst, ss, key, users, off := l.spanBox(start)
	c.mu.Lock()
	sp := c.spans[key]
	read := sp == nil
	if read {
		sp = &span{ready: make(chan struct{}), users: users}
		c.spans[key] = sp
	}
	c.mu.Unlock()
	var st kernels.Stats
	if read {
		for _, v := range l.vars {
			col, s, err := readColumn(ctx, v, sst, ss, t.opts.Options)
			st.Add(s)
			if err != nil {
				sp.err = fmt.Errorf("variable %q, box %v+%v: %w", v.name, sst, ss, err)
				break
			}
			sp.cols = append(sp.cols, col)
		}
		close(sp.ready)
	} else {
		select {
		case <-sp.ready:
		case <-ctx.Done():
			c.done(key, sp)
			return nil, st, ctx.Err()
		}
	}
	defer c.done(key, sp)
	if sp.err != nil {
		return nil, st, sp.err
	}
	cols := make([]arrow.Array, 0, len(sp.cols))
	for _, col := range sp.cols {
		s := array.NewSlice(col, off, off+n)
		cp, err := array.Concatenate([]arrow.Array{s}, t.opts.allocator())
		s.Release()
		if err != nil {
			releaseAll(cols)
			return nil, st, err
		}
		cols = append(cols, cp)
	}
	return cols, st, nil
}

// done says a batch is cut from the span at key; the last one frees it.
func (c *spanCache) done(key int64, sp *span) {
	c.mu.Lock()
	sp.users--
	last := sp.users == 0
	if last {
		delete(c.spans, key)
	}
	c.mu.Unlock()
	if last {
		releaseAll(sp.cols)
	}
}

// release frees the spans left when a reader stops early (its reads
// have stopped).
func (c *spanCache) release() {
	for k, sp := range c.spans {
		releaseAll(sp.cols)
		delete(c.spans, k)
	}
}
