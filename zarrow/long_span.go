package zarrow

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/zarr-dt64/dt64/kernels"
)

// A long table whose variables' chunks are longer, along the batch
// dimension, than a batch reads them a chunk's extent at a time (a span)
// and cuts its batches from the span's columns, so that each chunk is
// decoded once, not once for every batch that takes rows of it. Batches
// tile spans exactly: planBatches picks a batch length that divides the
// chunk's.

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
func (l *longTable) spanned() bool { return l.span > l.batchLen }

// variablesBySpan returns the variables' columns of the batch of rows
// [lo, lo+n) with box (start, shape), cut from its span, and the
// statistics of reading the span when this call read it.
func (t *Table) variablesBySpan(ctx context.Context, c *spanCache, lo, n int64, start, shape []int64) ([]arrow.Array, kernels.Stats, error) {
	l := t.long
	d := l.batchDim
	first := start[d] / l.span * l.span
	key := lo - (start[d]-first)*l.inner
	c.mu.Lock()
	sp := c.spans[key]
	read := sp == nil
	if read {
		length := min(l.span, l.shape[d]-first)
		sp = &span{ready: make(chan struct{}), users: (length + l.batchLen - 1) / l.batchLen}
		c.spans[key] = sp
	}
	c.mu.Unlock()
	var st kernels.Stats
	if read {
		sst, ss := append([]int64(nil), start...), append([]int64(nil), shape...)
		sst[d], ss[d] = first, min(l.span, l.shape[d]-first)
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
	off := (start[d] - first) * l.inner
	cols := make([]arrow.Array, len(sp.cols))
	for k, col := range sp.cols {
		cols[k] = array.NewSlice(col, off, off+n)
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
