package zarrow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// TableOptions configure OpenTable.
type TableOptions struct {
	Options
	// Dim is the dimension the columns run along. Empty picks the
	// dimension of the group's time coordinate: the 1-D datetime64 (or
	// CF time) array named like its dimension (as xarray writes a
	// coordinate), else the only dimension of such 1-D arrays; durations
	// (an ERA5 step) only when there is none of those.
	Dim string
	// BatchRows is the most rows in one record batch; 0 means 1 Mi.
	BatchRows int64
	// Prefetch is how many batches a RecordReader reads ahead of the one
	// Next returned, concurrently (each with Parallel chunks at once);
	// 0 reads each batch when Next asks for it.
	Prefetch int
}

// A Table is a group's 1-D arrays along one dimension, read as Arrow
// columns: time arrays as Timestamp or Duration columns (converted,
// NaT as null), numeric arrays as their Arrow types. Columns are named
// by the arrays' paths in the group.
type Table struct {
	schema  *arrow.Schema
	cols    []tableColumn
	rows    int64   // along the first dimension
	inner   []int64 // an ArrayTable's other dimensions, read whole
	opts    TableOptions
	skipped []string
	// OpenTable's dimension, and the group's arrays it leaves out: those
	// not 1-D, and the 1-D ones along another dimension.
	dim             string
	notOneD, offDim []string
	long            *longTable // OpenLongTable's; nil for the wide layout
}

type tableColumn struct {
	name  string
	array *zarr.Array
	time  bool
	enc   *cf.Encoding // Options.MaskAndScale's decoding of a numeric column; nil: stored numbers
	typ   arrow.DataType
}

// readNumeric reads a box of a numeric column: its stored numbers, or
// under Options.MaskAndScale decoded as xarray decodes them.
func (c tableColumn) readNumeric(ctx context.Context, start, shape []int64, o Options) (arrow.Array, error) {
	col, err := ReadNumeric(ctx, c.array, start, shape, o)
	if err != nil || c.enc == nil {
		return col, err
	}
	defer col.Release()
	return decode(col, c.array.Numeric(), c.enc, c.typ, o.allocator()), nil
}

// OpenTable plans reading the group in store as a table: it walks the
// hierarchy and picks every 1-D array along the dimension. Arrays along
// it that Arrow cannot hold (complex) or dt64 does not read (strings,
// bytes, objects) are not columns; Skipped names them.
// Arrays along other dimensions are not part of the table.
func OpenTable(ctx context.Context, store storage.Store, o TableOptions) (*Table, error) {
	nodes, err := zarr.Walk(ctx, store)
	if err != nil {
		return nil, err
	}
	type cand struct {
		node zarr.Node
		dim  string
	}
	var oneD []cand
	for _, n := range nodes {
		if n.Kind != zarr.ArrayNode || len(n.Shape) != 1 {
			continue
		}
		oneD = append(oneD, cand{n, dimensionName(n)})
	}
	opened := map[string]*zarr.Array{}
	open := func(p string) (*zarr.Array, error) {
		if a := opened[p]; a != nil {
			return a, nil
		}
		sub, err := storage.Sub(store, p)
		if err != nil {
			return nil, err
		}
		a, err := zarr.Open(ctx, sub)
		if err != nil {
			return nil, fmt.Errorf("array %q: %w", p, err)
		}
		opened[p] = a
		return a, nil
	}
	dim := o.Dim
	if dim == "" {
		// Time coordinates (named like their dimension) decide, and
		// otherwise the dimensions of the 1-D time arrays; instants
		// first: durations (an ERA5 step) give the dimension only where
		// no datetime array does. Two candidates are refused, never one
		// picked by path order, which would leave the other's arrays out
		// without a word.
		var coords, dims []string
		for _, timeLike := range []func(*zarr.Array) bool{isInstant, isTime} {
			for _, c := range oneD {
				if noArrowType(c.node) {
					continue // strings: not time
				}
				a, err := open(c.node.Path)
				if err != nil {
					return nil, err
				}
				if !timeLike(a) {
					continue
				}
				if path.Base(c.node.Path) == c.dim && !slices.Contains(coords, c.dim) {
					coords = append(coords, c.dim)
				}
				if !slices.Contains(dims, c.dim) {
					dims = append(dims, c.dim)
				}
			}
			if len(dims) > 0 {
				break
			}
		}
		switch {
		case len(coords) > 1:
			return nil, fmt.Errorf("several time coordinates %q: choose the dimension the columns run along (--dim)", coords)
		case len(coords) == 1:
			dims = coords
		case len(dims) == 0:
			return nil, errors.New("no 1-D time array to take the dimension from: choose one")
		case len(dims) > 1:
			return nil, fmt.Errorf("1-D time arrays run along several dimensions %q: choose one", dims)
		}
		dim = dims[0]
	}
	t := &Table{opts: o, rows: -1, dim: dim}
	for _, n := range nodes {
		if n.Kind == zarr.ArrayNode && len(n.Shape) != 1 {
			t.notOneD = append(t.notOneD, n.Path)
		}
	}
	var fields []arrow.Field
	for _, c := range oneD {
		if c.dim != dim {
			t.offDim = append(t.offDim, c.node.Path)
			continue
		}
		if noArrowType(c.node) {
			t.skipped = append(t.skipped, c.node.Path)
			continue
		}
		a, err := open(c.node.Path)
		if err != nil {
			return nil, err
		}
		col := tableColumn{name: c.node.Path, array: a, time: isTime(a)}
		var at arrow.DataType
		if col.time {
			if _, _, at, err = timeColumn(a, o.Options); err != nil {
				return nil, fmt.Errorf("array %q: %w", c.node.Path, err)
			}
		} else if nt, enc, ok, err := numericColumn(a, o.Options); err != nil {
			return nil, fmt.Errorf("array %q: %w", c.node.Path, err)
		} else if ok {
			at, col.enc, col.typ = nt, enc, nt
		} else {
			t.skipped = append(t.skipped, c.node.Path)
			continue
		}
		if n := a.Shape()[0]; t.rows < 0 {
			t.rows = n
		} else if n != t.rows {
			return nil, fmt.Errorf("array %q has %d elements along %q, %q has %d", c.node.Path, n, dim, t.cols[0].name, t.rows)
		}
		t.cols = append(t.cols, col)
		fields = append(fields, field(c.node.Path, at, col, o.Options))
	}
	if len(t.cols) == 0 {
		return nil, fmt.Errorf("no 1-D array runs along %q", dim)
	}
	t.schema = arrow.NewSchema(fields, nil)
	t.opts.BatchRows = t.defaultBatch(o.BatchRows, 1<<20)
	return t, nil
}

// chunkRows is the most indices of the first dimension one chunk of a
// column's array spans (a shard's, for a sharded array): what a batch
// read decodes whole.
func (t *Table) chunkRows() int64 {
	var c int64 = 1
	for _, col := range t.cols {
		if cs := col.array.ChunkShape(); len(cs) > 0 {
			c = max(c, cs[0])
		}
	}
	return c
}

// defaultBatch is the batch length (indices of the first dimension):
// asked, when asked; else about def, cut at chunk boundaries, so that
// each chunk is decoded once: a whole number of chunks, or one chunk when
// a chunk is longer than def. A batch that cuts a chunk decodes it again
// for each batch it spans (ChunkRows says so).
func (t *Table) defaultBatch(asked, def int64) int64 {
	if asked > 0 {
		return asked
	}
	c := t.chunkRows()
	if c >= def {
		return c
	}
	return def / c * c
}

// ChunkRows is the most rows of the first dimension one chunk (or shard)
// of the table's arrays spans: a batch of fewer rows decodes such a chunk
// once for each batch it spans (TableOptions.BatchRows is then better a
// multiple of it). 0 for a long table, whose batches follow its grid.
func (t *Table) ChunkRows() int64 {
	if t.long != nil {
		return 0
	}
	return t.chunkRows()
}

// ArrayTable is the table of one array: a column named name holding
// every element in C order (an N-D array flattened row by row, batches
// cut along its first dimension).
func ArrayTable(a *zarr.Array, name string, o TableOptions) (*Table, error) {
	shape := a.Shape()
	if len(shape) == 0 {
		shape = []int64{1}
	}
	t := &Table{opts: o, rows: shape[0], inner: shape[1:]}
	col := tableColumn{name: name, array: a, time: isTime(a)}
	var at arrow.DataType
	var err error
	if col.time {
		if _, _, at, err = timeColumn(a, o.Options); err != nil {
			return nil, err
		}
	} else if nt, enc, ok, err := numericColumn(a, o.Options); err != nil {
		return nil, fmt.Errorf("%s: %w", a, err)
	} else if ok {
		at, col.enc, col.typ = nt, enc, nt
	} else {
		return nil, fmt.Errorf("%s: %s has no Arrow type", a, a.Numeric())
	}
	t.cols = []tableColumn{col}
	t.schema = arrow.NewSchema([]arrow.Field{field(name, at, col, o.Options)}, nil)
	// Batches are cut along the first dimension: BatchRows rows are
	// BatchRows / (the other dimensions' product) of its indices, at least
	// one (whose rows may then be more than BatchRows).
	inner := int64(1)
	for _, d := range t.inner {
		inner *= d
	}
	asked := o.BatchRows
	if asked > 0 && inner > 1 {
		asked = max(asked/inner, 1)
	}
	t.opts.BatchRows = t.defaultBatch(asked, max((1<<20)/max(inner, 1), 1))
	return t, nil
}

// isTime reports whether a reads as a time column: a datetime64 or
// timedelta64 array, or a CF time array (one whose CF attributes do not
// parse, a noleap calendar say, fails when its column is planned).
func isTime(a *zarr.Array) bool {
	if a.IsTime() {
		return true
	}
	t, err := a.CFTime()
	return t != nil || err != nil
}

// isInstant reports whether a holds instants, the kind of array a time
// coordinate is: datetime64, or CF time (not a CF duration, not
// timedelta64; one whose CF attributes do not parse counts, and fails
// when its column is planned).
func isInstant(a *zarr.Array) bool {
	if a.IsTime() {
		return a.DataType().Kind == dtype.Datetime
	}
	t, err := a.CFTime()
	return err != nil || t != nil && !t.Units.Duration
}

// dimensionName is the name of a 1-D array's dimension: v3
// dimension_names, or xarray's v2 _ARRAY_DIMENSIONS attribute; "" when
// unnamed.
func dimensionName(n zarr.Node) string {
	if len(n.DimensionNames) == 1 {
		return n.DimensionNames[0]
	}
	var attrs struct {
		Dims []string `json:"_ARRAY_DIMENSIONS"`
	}
	if json.Unmarshal(n.Attributes, &attrs) == nil && len(attrs.Dims) == 1 {
		return attrs.Dims[0]
	}
	return ""
}

// Schema is the table's schema: a field per column, in path order.
func (t *Table) Schema() *arrow.Schema { return t.schema }

// Rows is the number of rows: the length of the dimension (of an
// ArrayTable, its element count).
func (t *Table) Rows() int64 {
	n := t.rows
	for _, d := range t.inner {
		n *= d
	}
	return n
}

// Chunks is the number of chunks of the columns' declared chunk grids, the
// work of reading the table whole (missing chunks read as fill).
func (t *Table) Chunks() int64 {
	n := int64(0)
	for _, c := range t.cols {
		n = min(n+c.array.NumChunks(), math.MaxInt64/2) // saturate; only compared
	}
	return n
}

// RoundsCFFloats reports whether a column decodes CF time stored as
// floats: those values are rounded half to even to the column's unit (the
// coarsest instant each float stands for, cf.FloatShortest), not floored,
// so a lossy one had a remainder rounded off.
func (t *Table) RoundsCFFloats() bool {
	cols := t.cols
	if t.long != nil {
		cols = append(slices.Clone(t.long.coords), t.long.vars...)
	}
	for _, c := range cols {
		if ct, err := c.array.CFTime(); err == nil && ct != nil && ct.Stored.Kind == cf.StoredFloat {
			return true
		}
	}
	return false
}

// Columns is the number of columns.
func (t *Table) Columns() int { return len(t.schema.Fields()) }

// Skipped names the arrays along the dimension that are not columns.
func (t *Table) Skipped() []string { return t.skipped }

// Outside names the arrays of OpenTable's group that are not part of the
// table (besides Skipped): those that are not 1-D (gridded, or scalars),
// and the 1-D ones along another dimension than dim, the table's.
func (t *Table) Outside() (dim string, notOneD, offDim []string) { return t.dim, t.notOneD, t.offDim }

// read reads rows [lo, lo+n) of every column as one record batch, and
// the time columns' statistics.
func (t *Table) read(ctx context.Context, lo, n int64) (arrow.RecordBatch, kernels.Stats, error) {
	cols := make([]arrow.Array, 0, len(t.cols))
	release := func() {
		for _, c := range cols {
			c.Release()
		}
	}
	var st kernels.Stats
	start := append([]int64{lo}, make([]int64, len(t.inner))...)
	shape := append([]int64{n}, t.inner...)
	if len(t.cols[0].array.Shape()) == 0 { // a 0-d array: one element, no box dimensions
		start, shape = nil, nil
	}
	rows := n
	for _, d := range t.inner {
		rows *= d
	}
	for _, c := range t.cols {
		var col arrow.Array
		var err error
		if c.time {
			var s kernels.Stats
			col, s, err = Read(ctx, c.array, start, shape, t.opts.Options)
			st.Add(s)
		} else {
			col, err = c.readNumeric(ctx, start, shape, t.opts.Options)
		}
		if err != nil {
			release()
			return nil, st, fmt.Errorf("column %q, rows [%d, %d): %w", c.name, lo*(rows/max(n, 1)), lo*(rows/max(n, 1))+rows, err)
		}
		cols = append(cols, col)
	}
	rec := array.NewRecordBatch(t.schema, cols, rows)
	release() // the record holds its own references
	return rec, st, nil
}

// RecordReader streams the table as record batches of at most BatchRows
// rows, in order. Without Prefetch each batch is read when Next asks for
// it, so memory stays bounded by one batch; with Prefetch p, the next p
// batches are read concurrently while the caller works on the current
// one (memory: p+1 batches). Cancelling ctx stops the reads; Next then
// returns false and Err the context's error. The caller releases the
// reader, which waits for the reads still running: no goroutine outlives
// Release, nor a Next that returned false.
func (t *Table) RecordReader(ctx context.Context) *RecordReader {
	r := &RecordReader{t: t}
	r.ctx, r.cancel = context.WithCancel(ctx)
	r.refs.Store(1)
	return r
}

// RecordReader is an array.RecordReader over a Table.
type RecordReader struct {
	t      *Table
	ctx    context.Context
	cancel context.CancelFunc
	refs   atomic.Int64
	next   int64 // the first row not yet asked for
	cur    arrow.RecordBatch
	err    error
	stats  kernels.Stats
	// coords are a long table's coordinates, read by the first Next.
	coords []arrow.Array
	// ahead are the batches being read, in row order.
	ahead []chan batchResult
	// spans are a long table's variables read by chunk spans, bcast its
	// coordinates' last broadcast columns.
	spans *spanCache
	bcast *broadcasts
}

// batchResult is a batch read ahead.
type batchResult struct {
	rec arrow.RecordBatch
	st  kernels.Stats
	err error
}

var _ array.RecordReader = (*RecordReader)(nil)

func (r *RecordReader) Retain() { r.refs.Add(1) }

func (r *RecordReader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	r.stop()
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.spans != nil {
		r.spans.release()
		r.bcast.release()
	}
	releaseAll(r.coords)
	r.coords = nil
}

// stop cancels the reads still running, waits for them and drops their
// batches.
func (r *RecordReader) stop() {
	r.cancel()
	for _, c := range r.ahead {
		if b := <-c; b.rec != nil {
			b.rec.Release()
		}
	}
	r.ahead = nil
}

func (r *RecordReader) Schema() *arrow.Schema { return r.t.schema }

// Next reads the next batch; false at the end or on an error (Err).
func (r *RecordReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil {
		return false
	}
	if r.t.long != nil && r.coords == nil && r.t.rows > 0 {
		coords, st, err := r.t.readCoords(r.ctx)
		r.stats.Add(st)
		if err != nil {
			return r.fail(err)
		}
		r.coords = coords
		r.spans = &spanCache{spans: map[int64]*span{}}
		r.bcast = &broadcasts{}
	}
	for len(r.ahead) <= max(r.t.opts.Prefetch, 0) && r.next < r.t.rows {
		r.ahead = append(r.ahead, r.start())
	}
	if len(r.ahead) == 0 {
		return false
	}
	b := <-r.ahead[0]
	r.ahead = r.ahead[1:]
	r.stats.Add(b.st)
	if b.err == nil {
		b.err = r.ctx.Err() // cancelled: the batch may be complete, its successors not
	}
	if b.err != nil {
		if b.rec != nil {
			b.rec.Release()
		}
		return r.fail(b.err)
	}
	r.cur = b.rec
	return true
}

// fail ends the stream with err, once the reads still running stop.
func (r *RecordReader) fail(err error) bool {
	r.err = err
	r.stop()
	return false
}

// start starts reading the batch at row r.next, on a goroutine of its
// own when batches are read ahead.
func (r *RecordReader) start() chan batchResult {
	lo := r.next
	n := min(r.t.opts.BatchRows, r.t.rows-lo)
	if r.t.long != nil {
		n = r.t.long.batchRows(lo)
	}
	r.next += n
	c := make(chan batchResult, 1)
	read := func() {
		defer func() { // a bug: the batch's error (panics.go)
			if p := recover(); p != nil {
				c <- batchResult{err: panicked(p)}
			}
		}()
		var b batchResult
		if r.t.long != nil {
			b.rec, b.st, b.err = r.t.readLong(r.ctx, lo, n, r.coords, r.spans, r.bcast)
		} else {
			b.rec, b.st, b.err = r.t.read(r.ctx, lo, n)
		}
		c <- b
	}
	if r.t.opts.Prefetch > 0 {
		go read()
	} else {
		read()
	}
	return c
}

func (r *RecordReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Deprecated: use RecordBatch.
func (r *RecordReader) Record() arrow.RecordBatch { return r.cur }

func (r *RecordReader) Err() error { return r.err }

// Stats are the time columns' conversion statistics of the batches read
// so far, summed over columns.
func (r *RecordReader) Stats() kernels.Stats { return r.stats }
