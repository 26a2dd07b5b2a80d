package zarrow

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/zarr"
)

// Options configure reading time values into Arrow.
type Options struct {
	// Unit is the column's unit: dtype.Second, Millisecond, Microsecond
	// or Nanosecond. NoUnit (the zero value) picks the coarsest of them
	// in which every source value is exact (a datetime64[h] array reads
	// in seconds, [10us] in microseconds); a source finer than
	// nanoseconds needs a Unit.
	Unit dtype.Unit
	// Overflow is what happens to a value the unit cannot hold (a year
	// 3000 date in nanoseconds): an error naming it (the default), null,
	// or clamped. Exact makes any value floored to the unit an error.
	Overflow dtype.OverflowPolicy
	Exact    bool
	// Parquet reads datetime columns in a unit a Parquet file stores:
	// seconds become milliseconds (Parquet has no seconds timestamp), so
	// dt64's kernels convert every value under Overflow and Exact, and
	// the Parquet writer never casts (its cast fails on an overflow,
	// naming no element, whatever the policy).
	Parquet bool
	// Calendar converts the dates of a CF time array's calendar
	// (cf.CalendarOptions): model calendars (noleap, all_leap, 360_day)
	// are refused without it. A converted column's field metadata records
	// source_calendar and calendar_conversion.
	Calendar cf.CalendarOptions
	// MaskAndScale reads numeric columns as xarray decodes them (its
	// decode_cf mask_and_scale, and its bool encoding): _Unsigned,
	// _FillValue, missing_value and the Zarr fill value, scale_factor and
	// add_offset, and a "dtype" attribute of "bool" (decode.go says how,
	// and where the columns differ from xarray's arrays: nulls for
	// missing values). Without it they hold the stored numbers, and
	// Table.Notes names each column xarray would decode.
	MaskAndScale bool
	// Parallel is how many chunks are read at once (0 or 1: one).
	Parallel int
	// Allocator allocates the columns' buffers; nil is
	// memory.DefaultAllocator.
	Allocator memory.Allocator
}

func (o Options) allocator() memory.Allocator {
	if o.Allocator == nil {
		return memory.DefaultAllocator
	}
	return o.Allocator
}

// arrowUnits are the units Arrow has, coarsest first.
var arrowUnits = []struct {
	dt64 dtype.Unit
	unit arrow.TimeUnit
}{
	{dtype.Second, arrow.Second}, {dtype.Millisecond, arrow.Millisecond},
	{dtype.Microsecond, arrow.Microsecond}, {dtype.Nanosecond, arrow.Nanosecond},
}

// TimeUnit returns the Arrow unit of a dt64 unit, and false for a unit
// Arrow does not have.
func TimeUnit(u dtype.Unit) (arrow.TimeUnit, bool) {
	for _, a := range arrowUnits {
		if a.dt64 == u {
			return a.unit, true
		}
	}
	return 0, false
}

// ColumnType returns the data type of the Arrow column a time array of
// type from reads as with unit u (NoUnit: the default, see Options.Unit):
// the dt64 destination type and the Arrow type.
func ColumnType(from dtype.DataType, u dtype.Unit) (dtype.DataType, arrow.DataType, error) {
	if u == dtype.NoUnit {
		for _, a := range arrowUnits {
			to := dtype.DataType{Kind: from.Kind, Unit: a.dt64, Scale: 1}
			if exactIn(from, to) {
				u = a.dt64
				break
			}
		}
		if u == dtype.NoUnit {
			return dtype.DataType{}, nil, fmt.Errorf("%s has no exact Arrow unit (s, ms, us, ns): choose one", from)
		}
	}
	au, ok := TimeUnit(u)
	if !ok {
		return dtype.DataType{}, nil, fmt.Errorf("unit %s: Arrow has s, ms, us and ns", u)
	}
	to := dtype.DataType{Kind: from.Kind, Unit: u, Scale: 1}
	if from.Kind == dtype.Timedelta {
		return to, &arrow.DurationType{Unit: au}, nil
	}
	return to, &arrow.TimestampType{Unit: au}, nil
}

// columnType is ColumnType, with the Arrow type of a seconds timestamp in
// milliseconds for Parquet (Options.Parquet); toMS then converts the
// values, floored to seconds, on to milliseconds.
func (o Options) columnType(from dtype.DataType, u dtype.Unit) (to dtype.DataType, at arrow.DataType, toMS converter, err error) {
	to, at, err = ColumnType(from, u)
	if err != nil || !o.Parquet || to.Kind != dtype.Datetime || to.Unit != dtype.Second {
		return to, at, nil, err
	}
	ms := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Millisecond, Scale: 1}
	conv, err := dtype.NewConversion(to, ms)
	if err != nil {
		return to, nil, nil, err
	}
	k, err := kernels.NewTranscoder(conv, kernels.Options{Overflow: o.Overflow})
	if err != nil {
		return to, nil, nil, err
	}
	return to, &arrow.TimestampType{Unit: arrow.Millisecond}, k, nil
}

// thenMS is a converter to seconds followed by the conversion of its
// output, in place, to milliseconds: the values floor to seconds as asked,
// and the writer, which stores no seconds, has nothing to cast.
type thenMS struct{ seconds, toMS converter }

func (c thenMS) Run(dst, src, validity []byte) (kernels.Stats, error) {
	st, err := c.seconds.Run(dst, src, validity)
	if err != nil {
		return st, err
	}
	st2, err := c.toMS.Run(dst, dst, validity)
	st.NaT, st.Valid, st.Overflowed = st2.NaT, st2.Valid, st.Overflowed+st2.Overflowed
	if ee := (*dtype.ElementError)(nil); errors.As(err, &ee) && ee.Source == "" {
		// The element is the column's seconds value, not one of the
		// source's: say why it meets milliseconds, and which instant.
		ee.Source = fmt.Sprintf("%s (Parquet stores a seconds column in milliseconds; Arrow IPC keeps seconds)", ee.From)
		ee.Text = fmt.Sprintf("%d (%s)", ee.Value, dtype.FormatISO(ee.Value, ee.From))
	}
	return st, err
}

// field is the Arrow field of column col: a time column converted from
// another calendar records it in the field's metadata, as a converted
// Zarr array does in its attributes.
func field(name string, at arrow.DataType, col tableColumn, o Options) arrow.Field {
	f := arrow.Field{Name: name, Type: at, Nullable: col.time || col.enc != nil}
	if !col.time || col.array.IsTime() {
		return f
	}
	if t, err := col.array.CFTime(); err == nil && t != nil {
		if conv := o.Calendar.Convert.Effective(t.Calendar); conv != cf.ConvertNone {
			f.Metadata = arrow.NewMetadata([]string{"calendar_conversion", "source_calendar"}, []string{conv.String(), t.Calendar.String()})
		}
	}
	return f
}

// chain adds toMS after k, when there is one.
func chain(k, toMS converter) converter {
	if toMS == nil {
		return k
	}
	return thenMS{k, toMS}
}

// exactIn reports whether every value of type from is a whole number of
// to's unit: the conversion multiplies, or reads months and years as days.
func exactIn(from, to dtype.DataType) bool {
	c, err := dtype.NewConversion(from, to)
	if err != nil {
		return false
	}
	switch c.Path {
	case dtype.PathCopy:
		return true
	case dtype.PathCalendar:
		return from.Unit.IsCalendar() && !to.Unit.IsCalendar()
	}
	_, den, ok := c.Factor64()
	return ok && den == 1
}

// converter converts stored elements to the column's int64 values in
// place, writing the validity bitmap: a kernels.Transcoder for datetime64
// and timedelta64 arrays, a kernels.CFDecoder for CF time arrays.
type converter interface {
	Run(dst, src, validity []byte) (kernels.Stats, error)
}

// timeColumn plans reading the time array a (native, or CF-encoded as
// xarray writes it) as an Arrow column: the converter, the size of a
// stored element, and the column's type. It returns a nil converter for
// an array that holds no time.
func timeColumn(a *zarr.Array, o Options) (converter, int, arrow.DataType, error) {
	ko := kernels.Options{From: a.ByteOrder(), To: nil, Overflow: o.Overflow, Exact: o.Exact, Calendar: o.Calendar}
	if a.IsTime() {
		to, at, toMS, err := o.columnType(a.DataType(), o.Unit)
		if err != nil {
			return nil, 0, nil, fmt.Errorf("%s: %w", a, err)
		}
		conv, err := dtype.NewConversion(a.DataType(), to)
		if err != nil {
			return nil, 0, nil, fmt.Errorf("%s: %w", a, err)
		}
		k, err := kernels.NewTranscoder(conv, ko)
		if err != nil {
			return nil, 0, nil, fmt.Errorf("%s: %w", a, err)
		}
		return chain(k, toMS), 8, at, nil
	}
	t, err := a.CFTime()
	if err != nil || t == nil {
		return nil, 0, nil, err
	}
	// The CF unit itself when every value is exact in it, as transcode
	// decodes; then the coarsest Arrow unit exact for that.
	to, at, toMS, err := o.columnType(t.DefaultType(), o.Unit)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("%s: %w", a, err)
	}
	k, err := kernels.NewCFDecoder(t, to, ko)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("%s: %w", a, err)
	}
	return chain(k, toMS), t.Stored.Size, at, nil
}

// Read reads the box [start, start+shape) of the time array a (C order,
// so an N-D box is flattened row by row) into an Arrow Timestamp
// (datetime64, or a CF time array as xarray encodes it) or Duration
// (timedelta64) column. The returned Stats count the nulls (NaT, and a
// CF array's missing values), and the values clamped, made null or
// floored. The caller releases the column.
//
// One pass converts the values and writes the validity bitmap (a CF
// array's narrower stored numbers are widened). Where a chunk's codecs
// only store its bytes (zstd that kept its blocks raw, or no compressor)
// the pass reads them from the stored value into the column
// (zarr.Array.ReadChunkFunc); other chunks are decoded into the column's
// value buffer and converted there in place. Where the stored values are
// little-endian int64 of the column's unit the pass only finds the NaT
// (copying the values, when it reads them from a stored value).
func Read(ctx context.Context, a *zarr.Array, start, shape []int64, o Options) (arrow.Array, kernels.Stats, error) {
	k, size, at, err := timeColumn(a, o)
	if err != nil {
		return nil, kernels.Stats{}, err
	}
	if k == nil {
		return nil, kernels.Stats{}, fmt.Errorf("%s: %s holds no time (neither datetime64, timedelta64 nor CF time)", a, a.Numeric())
	}
	n := int64(1)
	for _, s := range shape {
		n *= s
	}
	mem := o.allocator()
	values := memory.NewResizableBuffer(mem)
	values.Resize(int(8 * n))
	defer values.Release()
	raw := values.Bytes()
	valid := memory.NewResizableBuffer(mem)
	valid.Resize(int((n + 7) / 8))
	defer valid.Release()
	st, err := readConverted(ctx, a, k, size, start, shape, raw, valid.Bytes(), o.Parallel)
	if err != nil {
		return nil, st, err
	}
	bufs := []*memory.Buffer{valid, values}
	if st.NaT == 0 {
		bufs[0] = nil // no nulls: Arrow needs no bitmap
	}
	data := array.NewData(at, int(n), bufs, nil, st.NaT, 0)
	defer data.Release()
	return array.MakeFromData(data), st, nil
}

// chunkScratch pools readConverted's chunk-sized buffers.
var chunkScratch = sync.Pool{New: func() any { return new([]byte) }}

// readConverted reads the box into raw and converts it with k, writing
// the validity bitmap. A 1-D range is done chunk by chunk, up to parallel
// chunks at once, each converted as its bytes are read (convertChunk);
// other boxes are read whole, then converted.
func readConverted(ctx context.Context, a *zarr.Array, k converter, size int, start, shape []int64, raw, bitmap []byte, parallel int) (kernels.Stats, error) {
	fail := func(err error) error {
		if err = regionElementError(a, start, shape, err); errors.As(err, new(*zarr.ElementError)) {
			return err
		}
		return fmt.Errorf("%s: region %v+%v: %w", a, start, shape, err)
	}
	// A 0-d array (no dimensions, one element) is read as a box too.
	if len(shape) != 1 || a.ChunkShape()[0]%8 != 0 || start[0]%8 != 0 {
		if unfilled(a) {
			st, err := readUnfilledRegion(ctx, a, k, size, start, shape, raw, bitmap, parallel)
			if err != nil && !errors.As(err, new(*zarr.ChunkError)) {
				err = fail(err)
			}
			return st, err
		}
		stored := raw[:len(raw)/8*size]
		if _, err := a.ReadRegionRaw(ctx, start, shape, stored, zarr.RegionOptions{Parallel: parallel}); err != nil {
			return kernels.Stats{}, err
		}
		st, err := k.Run(raw, stored, bitmap)
		if err != nil {
			return st, fail(err)
		}
		return st, nil
	}
	// Pieces end on chunk boundaries, so each decodes one chunk; their
	// starts are multiples of 8 elements from the range's, so each has
	// whole bytes of the bitmap.
	chunk := a.ChunkShape()[0]
	type piece struct{ lo, hi int64 }
	var pieces []piece
	lo, end := start[0], start[0]+shape[0]
	for lo < end {
		hi := min((lo/chunk+1)*chunk, end)
		pieces = append(pieces, piece{lo, hi})
		lo = hi
	}
	var (
		mu    sync.Mutex
		total kernels.Stats
		first error
		next  = make(chan piece)
		wg    sync.WaitGroup
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for range max(1, min(parallel, len(pieces))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { // a bug: the read's error (panics.go)
				if r := recover(); r != nil {
					err := panicked(r)
					mu.Lock()
					if first == nil {
						first = err
						cancel()
					}
					mu.Unlock()
				}
			}()
			// A chunk, for those the range takes part of: pooled, as a read
			// per batch would otherwise leave a chunk of garbage a batch.
			var scratch []byte
			var sp *[]byte
			defer func() {
				if sp != nil {
					chunkScratch.Put(sp)
				}
			}()
			for p := range next {
				off := p.lo - start[0]
				b := raw[8*off : 8*(p.hi-start[0])]
				c0 := p.lo / chunk * chunk
				buf := b[:(p.hi-p.lo)*int64(size)]
				if p.lo != c0 || p.hi-c0 != chunk {
					if scratch == nil {
						sp = chunkScratch.Get().(*[]byte)
						if cap(*sp) < a.ChunkBytes() {
							*sp = make([]byte, a.ChunkBytes())
						}
						scratch = (*sp)[:a.ChunkBytes()]
					}
					buf = scratch
				}
				st, present, err := convertChunk(ctx, a, k, size, p.lo/chunk, int(p.lo-c0), int(p.hi-c0), b, buf, bitmap[off/8:])
				if !present && unfilled(a) && !errors.As(err, new(*zarr.ChunkError)) {
					// No values (unfilled.go): null, whatever the zero bits converted to.
					nullRange(b, bitmap[off/8:], 0, int(p.hi-p.lo))
					st, err = kernels.Stats{Elements: int(p.hi - p.lo), NaT: int(p.hi - p.lo)}, nil
				}
				if err != nil && !errors.As(err, new(*zarr.ChunkError)) {
					err = fail(shiftIndex(err, int(off)))
				}
				mu.Lock()
				total.Add(st)
				if err != nil && first == nil {
					first = err
					cancel()
				}
				mu.Unlock()
			}
		}()
	}
send:
	for _, p := range pieces {
		select {
		case next <- p:
		case <-ctx.Done():
			break send
		}
	}
	close(next)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return total, first
}

// convertChunk converts elements [lo, hi) of chunk i of the 1-D array a
// into b (8 bytes each) and bitmap, as ReadChunkFunc hands the chunk's
// bytes on: stored bytes that need no decoding straight from the stored
// value, in pieces of whole bitmap bytes (lo is a multiple of 8), others
// once decoded into buf (ChunkBytes; the start of b when the range takes
// the whole chunk, which is then converted in place). Element errors
// count from lo. It reports whether the chunk is stored.
func convertChunk(ctx context.Context, a *zarr.Array, k converter, size int, i int64, lo, hi int, b, buf, bitmap []byte) (kernels.Stats, bool, error) {
	var total kernels.Stats
	_, present, err := a.ReadChunkFunc(ctx, []int64{i}, buf, 8*size, func(off int, p []byte) error {
		// The piece's elements [e, f), clipped to [lo, hi).
		at := off / size
		e, f := max(at, lo), min(at+len(p)/size, hi)
		if e >= f {
			return nil
		}
		p = p[(e-at)*size : (f-at)*size]
		st, err := k.Run(b[8*(e-lo):8*(f-lo)], p, bitmap[(e-lo)/8:])
		total.Add(st)
		return shiftIndex(err, e-lo)
	})
	return total, present, err
}

// shiftIndex makes an element error's index count from the start of the
// range instead of the piece.
func shiftIndex(err error, off int) error {
	var ee *dtype.ElementError
	if errors.As(err, &ee) {
		e := *ee
		e.Index += off
		return &e
	}
	return err
}

// hostOrder is the byte order of Arrow's buffers: the host's.
var hostOrder binary.ByteOrder = dtype.NativeOrder()
