package zarrow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// LongOptions configure OpenLongTable.
type LongOptions struct {
	Options
	// Dim is the time dimension. Empty picks the dimension of the
	// group's time coordinate: the 1-D time array named like its
	// dimension, as xarray writes a coordinate.
	Dim string
	// Vars are the data variables (paths in the group), which must share
	// their dimensions. Nil picks every array on the time dimension's
	// grid: every array whose dimensions all have coordinate arrays and
	// include Dim; of those, the variables whose dimensions most of them
	// share.
	Vars []string
	// BatchRows is the most rows in one record batch; 0 means as many as
	// make about LongBatchBytes.
	BatchRows int64
	// Prefetch is TableOptions.Prefetch: batches read ahead, concurrently.
	Prefetch int
}

// A VariableError says why an array named in LongOptions.Vars cannot be
// a column of the long table.
type VariableError struct {
	Path   string
	Reason string
}

func (e *VariableError) Error() string { return fmt.Sprintf("variable %q: %s", e.Path, e.Reason) }

// longTable is the plan of a long table: the variables' grid and how it
// is cut into batches.
type longTable struct {
	dims   []string
	shape  []int64 // the variables' shape
	coords []tableColumn
	vars   []tableColumn
	// Batches are boxes: one index of each dimension before batchDim, a
	// range of at most batchLen along it, every index after it, so each
	// is a contiguous run of rows in C order of size at most BatchRows.
	batchDim int
	batchLen int64
	// spanShape is the extent of the boxes the variables are read in
	// along the dimensions up to batchDim, when a chunk holds several
	// batches (long_span.go); nil when each batch reads its own box.
	spanShape []int64
	inner     int64    // rows per index of batchDim
	notes     []string // arrays that are not columns, and why
	variables []string // the variables' paths
	chunk     int64    // bytes of the largest variable chunk
	coordSize int64    // bytes of the coordinate columns
}

// longNode is an array of the hierarchy with its dimension names.
type longNode struct {
	zarr.Node
	dims []string
}

// arrayDimensions are the names of an array's dimensions: v3
// dimension_names, or xarray's v2 _ARRAY_DIMENSIONS attribute; nil when
// the array has none (or not one per dimension).
func arrayDimensions(n zarr.Node) []string {
	if len(n.DimensionNames) == len(n.Shape) && !slices.Contains(n.DimensionNames, "") {
		return n.DimensionNames
	}
	var attrs struct {
		Dims []string `json:"_ARRAY_DIMENSIONS"`
	}
	if json.Unmarshal(n.Attributes, &attrs) == nil && len(attrs.Dims) == len(n.Shape) {
		return attrs.Dims
	}
	return nil
}

// coordinatePath is where the coordinate of dimension dim of the array at
// p lives: beside it, named like the dimension.
func coordinatePath(p, dim string) string {
	if d := path.Dir(p); d != "." && d != "/" {
		return d + "/" + dim
	}
	return dim
}

// OpenLongTable plans reading the data variables of the group in store as
// a long (tidy) table: one row per element of the variables, in C order
// of their shape, with a column per dimension coordinate (named like the
// dimension, broadcast from the 1-D coordinate arrays) and one per
// variable (named by its path), as xarray's
// ds[vars].to_dataframe().reset_index() lays it out (the whole dataset's
// to_dataframe orders rows by the dataset's dimensions, which may differ). Time coordinates and
// variables read as Read does (in Options.Unit, floored, NaT as null).
//
// The table streams: each record batch reads one box of every variable
// (at most BatchRows elements), and the coordinates are read once, by the
// first batch, so memory is bounded by a batch plus the coordinates.
// Only metadata is read here.
func OpenLongTable(ctx context.Context, store storage.Store, o LongOptions) (*Table, error) {
	nodes, err := zarr.Walk(ctx, store)
	if err != nil {
		return nil, err
	}
	byPath := map[string]longNode{}
	var arrays []longNode
	for _, n := range nodes {
		if n.Kind != zarr.ArrayNode {
			continue
		}
		ln := longNode{n, arrayDimensions(n)}
		byPath[n.Path] = ln
		arrays = append(arrays, ln)
	}
	dim, err := longTimeDimension(ctx, store, arrays, o.Dim)
	if err != nil {
		return nil, err
	}
	// onGrid says why the array at p cannot be a variable, "" when it can.
	onGrid := func(n longNode) string {
		if noArrowType(n.Node) {
			return fmt.Sprintf("a %s array, which dt64 does not read", n.DataType)
		}
		if n.dims == nil {
			return "no dimension names"
		}
		if !slices.Contains(n.dims, dim) {
			return fmt.Sprintf("dimensions (%s) do not include %q", strings.Join(n.dims, ", "), dim)
		}
		for k, d := range n.dims {
			c, ok := byPath[coordinatePath(n.Path, d)]
			if !ok || len(c.Shape) != 1 {
				return fmt.Sprintf("dimension %q has no 1-D coordinate array", d)
			}
			if c.Shape[0] != n.Shape[k] {
				return fmt.Sprintf("%d elements along %q, its coordinate has %d", n.Shape[k], d, c.Shape[0])
			}
			if noArrowType(c.Node) {
				return fmt.Sprintf("dimension %q's coordinate is a %s array, which dt64 does not read", d, c.DataType)
			}
		}
		return ""
	}
	isCoord := func(n longNode) bool { return len(n.dims) == 1 && path.Base(n.Path) == n.dims[0] }
	var vars []longNode
	var notes []string
	if o.Vars != nil {
		if len(o.Vars) == 0 {
			return nil, errors.New("LongOptions.Vars names no variable (nil picks them)")
		}
		for i, p := range o.Vars {
			n, ok := byPath[p]
			switch {
			case slices.Contains(o.Vars[:i], p):
				return nil, &VariableError{p, "listed twice"}
			case !ok:
				return nil, &VariableError{p, "no such array in the group"}
			case isCoord(n):
				return nil, &VariableError{p, "is a coordinate; it is a column already"}
			}
			if why := onGrid(n); why != "" {
				return nil, &VariableError{p, why}
			}
			if len(vars) > 0 && (!slices.Equal(n.dims, vars[0].dims) || path.Dir(n.Path) != path.Dir(vars[0].Path)) {
				return nil, &VariableError{p, fmt.Sprintf("dimensions (%s) differ from %q's (%s)", strings.Join(n.dims, ", "), vars[0].Path, strings.Join(vars[0].dims, ", "))}
			}
			vars = append(vars, n)
		}
	} else {
		vars, notes = defaultVariables(arrays, isCoord, onGrid)
		if len(vars) == 0 {
			return nil, fmt.Errorf("no array runs along %q with a coordinate array for each of its dimensions", dim)
		}
	}
	return newLongTable(ctx, store, byPath, vars, notes, o)
}

// defaultVariables picks the variables on the time grid that share the
// most common dimensions (ties: more dimensions, then the first in path
// order), and notes every other array that is not a coordinate.
func defaultVariables(arrays []longNode, isCoord func(longNode) bool, onGrid func(longNode) string) ([]longNode, []string) {
	groups := map[string][]longNode{}
	var order []string
	why := map[string]string{}
	for _, n := range arrays {
		if isCoord(n) {
			continue
		}
		if w := onGrid(n); w != "" {
			why[n.Path] = w
			continue
		}
		key := path.Dir(n.Path) + "\x00" + strings.Join(n.dims, "\x00")
		if groups[key] == nil {
			order = append(order, key)
		}
		groups[key] = append(groups[key], n)
	}
	best := ""
	for _, k := range order {
		g, b := groups[k], groups[best]
		if best == "" || len(g) > len(b) || len(g) == len(b) && len(g[0].dims) > len(b[0].dims) {
			best = k
		}
	}
	var notes []string
	for _, n := range arrays {
		switch {
		case isCoord(n):
		case why[n.Path] != "":
			notes = append(notes, fmt.Sprintf("%s: left out: %s", n.Path, why[n.Path]))
		case best != "" && !slices.ContainsFunc(groups[best], func(v longNode) bool { return v.Path == n.Path }):
			notes = append(notes, fmt.Sprintf("%s: left out: dimensions (%s) differ from the variables' (%s)", n.Path, strings.Join(n.dims, ", "), strings.Join(groups[best][0].dims, ", ")))
		}
	}
	return groups[best], notes
}

// longTimeDimension is dim, or the dimension of the group's one time
// coordinate.
func longTimeDimension(ctx context.Context, store storage.Store, arrays []longNode, dim string) (string, error) {
	if dim != "" {
		return dim, nil
	}
	var found []string
	// Instants first: a duration coordinate (an ERA5 step) only where
	// there is no datetime one.
	for _, timeLike := range []func(*zarr.Array) bool{isInstant, isTime} {
		for _, n := range arrays {
			if len(n.dims) != 1 || path.Base(n.Path) != n.dims[0] || slices.Contains(found, n.dims[0]) || noArrowType(n.Node) {
				continue
			}
			a, err := openAt(ctx, store, n.Path)
			if err != nil {
				return "", err
			}
			if timeLike(a) {
				found = append(found, n.dims[0])
			}
		}
		if len(found) > 0 {
			break
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("no time coordinate (a 1-D time array named like its dimension) to take the time dimension from: choose one")
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("several time coordinates %q: choose the time dimension", found)
}

func openAt(ctx context.Context, store storage.Store, p string) (*zarr.Array, error) {
	sub, err := storage.Sub(store, p)
	if err != nil {
		return nil, err
	}
	a, err := zarr.Open(ctx, sub)
	if err != nil {
		return nil, fmt.Errorf("array %q: %w", p, err)
	}
	return a, nil
}

// columnOf opens the array at p as a column and returns its Arrow type.
func columnOf(ctx context.Context, store storage.Store, p, name string, o Options) (tableColumn, arrow.DataType, error) {
	a, err := openAt(ctx, store, p)
	if err != nil {
		return tableColumn{}, nil, err
	}
	col := tableColumn{name: name, array: a, time: isTime(a)}
	if col.time {
		_, _, at, err := timeColumn(a, o)
		if err != nil {
			return col, nil, fmt.Errorf("array %q: %w", p, err)
		}
		return col, at, nil
	}
	at, enc, ok, err := numericColumn(a, o)
	if err != nil {
		return col, nil, fmt.Errorf("array %q: %w", p, err)
	}
	if ok {
		col.enc, col.typ = enc, at
		return col, at, nil
	}
	return col, nil, &VariableError{p, fmt.Sprintf("%s has no Arrow type", a.Numeric())}
}

func newLongTable(ctx context.Context, store storage.Store, byPath map[string]longNode, vars []longNode, notes []string, o LongOptions) (*Table, error) {
	l := &longTable{dims: vars[0].dims, shape: vars[0].Shape, notes: notes}
	var fields []arrow.Field
	for _, d := range l.dims {
		cp := coordinatePath(vars[0].Path, d)
		col, at, err := columnOf(ctx, store, cp, d, o.Options)
		if err != nil {
			return nil, err
		}
		l.coords = append(l.coords, col)
		fields = append(fields, field(d, at, col, o.Options))
		l.coordSize += byPath[cp].Shape[0] * int64(byteWidth(at))
	}
	for _, v := range vars {
		col, at, err := columnOf(ctx, store, v.Path, v.Path, o.Options)
		if err != nil {
			return nil, err
		}
		l.vars = append(l.vars, col)
		l.variables = append(l.variables, v.Path)
		fields = append(fields, field(v.Path, at, col, o.Options))
		l.chunk = max(l.chunk, int64(col.array.ChunkBytes()))
	}
	rows := int64(1)
	for _, s := range l.shape {
		rows *= s
	}
	t := &Table{opts: TableOptions{Options: o.Options, BatchRows: o.BatchRows, Prefetch: o.Prefetch}, rows: rows, long: l}
	t.schema = arrow.NewSchema(fields, nil)
	if t.opts.BatchRows <= 0 {
		t.opts.BatchRows = defaultLongBatchRows(t.schema)
	}
	l.planBatches(t.opts.BatchRows, vars[0].ChunkShape, arrow.NewSchema(fields[len(l.coords):], nil))
	return t, nil
}

// LongBatchBytes is about the bytes of a long table's record batch when
// LongOptions.BatchRows is 0: 8 MiB, as a batch of 1 Mi timestamps of a
// wide table. A long table is read by spans, each chunk decoded once
// whatever the batches, so smaller batches cost no decoding; they hold
// less memory at once, which is faster where fresh memory is dear: the
// bench grid's export (4 columns, 29 bytes a row) took 0.98-1.10 s with
// batches of 259 920 rows against 1.09-1.14 s with 1 039 680, with a
// sixth fewer page faults (four alternated runs each, docs/engines.md).
const LongBatchBytes = 8 << 20

// defaultLongBatchRows is the rows of LongBatchBytes for the schema's
// columns (at least 1 024).
func defaultLongBatchRows(schema *arrow.Schema) int64 {
	return max(LongBatchBytes/max(BatchBytes(schema, 1), 1), 1024)
}

// byteWidth is the bytes an element of a fixed-width Arrow type takes (a
// boolean's bit counts as a byte).
func byteWidth(t arrow.DataType) int {
	if fw, ok := t.(arrow.FixedWidthDataType); ok {
		return max(1, fw.BitWidth()/8)
	}
	return 8
}

// planBatches picks the batches' boxes: the first dimension whose
// trailing elements fit in a batch is cut into ranges, as long as fit,
// rounded down to whole chunks when a batch holds one or more of them.
// Where a chunk holds several batches, it picks the spans the variables
// are read in (long_span.go), of the variables' columns vars, and says in a note
// when a band would hold more than LongBandBytes.
func (l *longTable) planBatches(batchRows int64, chunk []int64, vars *arrow.Schema) {
	l.batchDim, l.inner = len(l.shape)-1, 1
	for k := range l.shape {
		inner := int64(1)
		for _, s := range l.shape[k+1:] {
			inner *= s
		}
		if inner <= batchRows {
			l.batchDim, l.inner = k, inner
			break
		}
	}
	if len(l.shape) == 0 {
		l.batchLen = 1
		return
	}
	d := l.batchDim
	ext := func(k int) int64 { // the chunk's extent along k, within the shape
		if k < len(chunk) && chunk[k] > 0 {
			return min(chunk[k], l.shape[k])
		}
		return 1
	}
	m := max(1, batchRows/max(l.inner, 1))
	if d < len(chunk) && chunk[d] > 0 && m >= chunk[d] {
		m = m / chunk[d] * chunk[d]
	}
	span := make([]int64, d+1)
	if d < len(chunk) && chunk[d] > m && l.shape[d] > m {
		// Batches cut from a chunk's extent: the largest length that
		// divides the chunk's, if not below half, or any when the chunk
		// holds the whole dimension.
		q := m
		for chunk[d]%q != 0 {
			q--
		}
		switch {
		case 2*q > m:
			m, span[d] = q, chunk[d]
		case chunk[d] >= l.shape[d]:
			span[d] = l.shape[d]
		}
	}
	l.batchLen = min(m, max(l.shape[d], 1))
	span[d] = max(span[d], l.batchLen)
	// A band: the chunks hold several indices of the dimensions before
	// batchDim, of which a batch takes one.
	band := int64(1)
	for k := range d {
		band *= ext(k)
	}
	if band > 1 {
		held := BatchBytes(vars, band*l.shape[d]*l.inner)
		if held > bandBytes {
			l.notes = append(l.notes, fmt.Sprintf("the variables' chunks hold %d indices of %s, of which a batch takes one: each chunk is decoded %d times (decoding each once would hold %s of decoded chunks, more than the %s dt64 holds)",
				band, strings.Join(l.dims[:d], " × "), band, mib(held), mib(bandBytes)))
			band = 1
		}
	}
	for k := range d {
		span[k] = 1
		if band > 1 {
			span[k] = ext(k)
		}
	}
	if band > 1 || span[d] > l.batchLen {
		l.spanShape = span
	}
}

func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// LongBandBytes is the most decoded variable chunks a long table's
// reader holds to decode each chunk once when the chunks hold several
// indices of the dimensions before the one batches are cut along
// (long_span.go); beyond it, each chunk is decoded once for each of
// those indices.
const LongBandBytes = 512 << 20

// bandBytes is LongBandBytes, a variable for the tests.
var bandBytes int64 = LongBandBytes

// box is the batch starting at row lo: its start and shape.
func (l *longTable) box(lo int64) ([]int64, []int64) {
	start := make([]int64, len(l.shape))
	shape := make([]int64, len(l.shape))
	rest := lo
	for k := len(l.shape) - 1; k >= 0; k-- {
		start[k] = rest % l.shape[k]
		rest /= l.shape[k]
	}
	d := l.batchDim
	for k := range l.shape {
		switch {
		case k < d:
			shape[k] = 1
		case k == d:
			shape[k] = min(l.batchLen, l.shape[k]-start[k])
		default:
			shape[k] = l.shape[k]
		}
	}
	return start, shape
}

// batchRows is the number of rows of the batch starting at row lo.
func (l *longTable) batchRows(lo int64) int64 {
	if len(l.shape) == 0 {
		return 1
	}
	_, shape := l.box(lo)
	return shape[l.batchDim] * l.inner
}

// Variables are a long table's data variables (paths), nil for a wide
// table.
func (t *Table) Variables() []string {
	if t.long == nil {
		return nil
	}
	return t.long.variables
}

// Dimensions are a long table's dimensions, in the order of the
// variables' shape; nil for a wide table.
func (t *Table) Dimensions() []string {
	if t.long == nil {
		return nil
	}
	return t.long.dims
}

// Shape is a long table's grid: the variables' shape.
func (t *Table) Shape() []int64 {
	if t.long == nil {
		return nil
	}
	return slices.Clone(t.long.shape)
}

// Notes say which arrays of the group a long table leaves out, and why,
// and which numeric columns hold numbers xarray would decode (encodedNote).
func (t *Table) Notes() []string {
	cols := t.cols
	var notes []string
	if t.long != nil {
		notes = append(notes, t.long.notes...)
		cols = append(slices.Clone(t.long.coords), t.long.vars...)
	}
	for _, c := range cols {
		if n := encodedNote(c, t.opts.MaskAndScale); n != "" {
			notes = append(notes, n)
		}
	}
	if n := t.cutNote(); n != "" {
		notes = append(notes, n)
	}
	return notes
}

// cutNote says when batches (an asked BatchRows) cut the arrays' chunks
// along the first dimension, so that each chunk is decoded once for
// every batch it spans; "" when they do not.
func (t *Table) cutNote() string {
	if t.long != nil {
		return ""
	}
	c, idx := t.chunkRows(), t.opts.BatchRows // idx: indices of the first dimension
	if c <= 1 || idx%c == 0 || t.rows <= idx {
		return ""
	}
	inner := t.Rows() / max(t.rows, 1)
	return fmt.Sprintf("batches of %d rows cut the chunks of %d rows along the first dimension: each chunk is decoded once for every batch it spans (batches of %d rows, or a multiple, decode each once)", idx*inner, c*inner, c*inner)
}

// MemoryBound is about the most memory a RecordReader of the table
// holds: the batches it holds at once (the one Next returned and
// Prefetch read ahead, HeldBytes each), a decoded chunk per parallel
// chunk read of each batch being read (of each span being read, for a
// long table read by spans), and a long table's coordinates and the
// spans it holds (long_span.go).
func (t *Table) MemoryBound() int64 {
	chunk, coords, spans := int64(0), int64(0), int64(0)
	reads := int64(max(t.opts.Prefetch, 0) + 1) // batches read at once
	if l := t.long; l != nil {
		chunk, coords = l.chunk, l.coordSize
		if l.spanned() { // chunks are read by spans, not by batches
			spans = min(t.spansHeld(), l.spans())
			reads = min(reads, l.spans())
		}
	} else {
		for _, c := range t.cols {
			chunk = max(chunk, int64(c.array.ChunkBytes()))
		}
	}
	held := int64(max(t.opts.Prefetch, 0)+1) * t.HeldBytes()
	return held + reads*int64(max(1, t.opts.Parallel))*chunk + coords + spans*t.spanBytes()
}

// HeldBytes is the most memory one batch of the table keeps allocated
// while it is held: its columns (a long table's batches are copied out
// of the spans they are read from, so they do not keep them).
func (t *Table) HeldBytes() int64 {
	return BatchBytes(t.schema, t.BatchRows())
}

// BatchBytes is the memory a record batch of the schema's fixed-width
// columns takes with rows rows: values and validity bitmaps.
func BatchBytes(schema *arrow.Schema, rows int64) int64 {
	n := int64(0)
	for _, f := range schema.Fields() {
		n += rows * int64(byteWidth(f.Type))
		if f.Nullable {
			n += (rows + 7) / 8
		}
	}
	return n
}

// readCoords reads a long table's coordinate arrays whole, once, for
// every batch to broadcast.
func (t *Table) readCoords(ctx context.Context) ([]arrow.Array, kernels.Stats, error) {
	var st kernels.Stats
	var coords []arrow.Array
	for _, c := range t.long.coords {
		col, s, err := readColumn(ctx, c, []int64{0}, c.array.Shape(), t.opts.Options)
		s.NaT = 0 // counted per row, as broadcast
		st.Add(s)
		if err != nil {
			releaseAll(coords)
			return nil, st, fmt.Errorf("coordinate %q: %w", c.name, err)
		}
		coords = append(coords, col)
	}
	return coords, st, nil
}

// readLong reads the batch of rows [lo, lo+n) of a long table: a box of
// every variable, and the coordinates (readCoords) broadcast over it.
func (t *Table) readLong(ctx context.Context, lo, n int64, coords []arrow.Array, spans *spanCache, bc *broadcasts) (arrow.RecordBatch, kernels.Stats, error) {
	l := t.long
	var st kernels.Stats
	start, shape := l.box(lo)
	cols := make([]arrow.Array, 0, len(l.coords)+len(l.vars))
	for k, c := range coords {
		outer, inner := int64(1), int64(1)
		for _, s := range shape[:k] {
			outer *= s
		}
		for _, s := range shape[k+1:] {
			inner *= s
		}
		col := bc.get(t.opts.allocator(), k, c, start[k], shape[k], outer, inner)
		st.NaT += col.NullN()
		cols = append(cols, col)
	}
	if l.spanned() {
		vars, s, err := t.variablesBySpan(ctx, spans, n, start)
		st.Add(s)
		if err != nil {
			releaseAll(cols)
			return nil, st, err
		}
		cols = append(cols, vars...)
	} else {
		for _, c := range l.vars {
			col, s, err := readColumn(ctx, c, start, shape, t.opts.Options)
			st.Add(s)
			if err != nil {
				releaseAll(cols)
				return nil, st, fmt.Errorf("variable %q, box %v+%v: %w", c.name, start, shape, err)
			}
			cols = append(cols, col)
		}
	}
	rec := array.NewRecordBatch(t.schema, cols, n)
	releaseAll(cols)
	return rec, st, nil
}

// readColumn reads a box of a column's array: converted, for a time
// array.
func readColumn(ctx context.Context, c tableColumn, start, shape []int64, o Options) (arrow.Array, kernels.Stats, error) {
	if c.time {
		return Read(ctx, c.array, start, shape, o)
	}
	col, err := c.readNumeric(ctx, start, shape, o)
	return col, kernels.Stats{}, err
}

func releaseAll(cols []arrow.Array) {
	for _, c := range cols {
		c.Release()
	}
}

// BatchRows is the most rows in one record batch: a long table's are
// cut along its grid, so they may be fewer than TableOptions.BatchRows;
// an N-D ArrayTable's take whole indices of its first dimension, as many
// as fit in TableOptions.BatchRows rows (at least one).
func (t *Table) BatchRows() int64 {
	if t.long == nil {
		n := t.opts.BatchRows
		for _, d := range t.inner {
			n *= d
		}
		return max(n, 1) // an empty inner dimension: no rows at all
	}
	return t.long.batchLen * t.long.inner
}
