package zarrow

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// oraclePair is one line of the NumPy oracle vectors (testdata/oracle,
// NumPy 1.24.2's casts with their exact results).
type oraclePair struct {
	Kind     string   `json:"kind"`
	SrcUnit  string   `json:"src_unit"`
	SrcScale int64    `json:"src_scale"`
	DstUnit  string   `json:"dst_unit"`
	DstScale int64    `json:"dst_scale"`
	Error    any      `json:"error"`
	In       []int64  `json:"in"`
	Flags    []int    `json:"flags"`
	Exact    []string `json:"exact"`
}

func loadOracle(t *testing.T, name string) []oraclePair {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "oracle", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pairs []oraclePair
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var p oraclePair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		pairs = append(pairs, p)
	}
	if len(pairs) < 1000 {
		t.Fatalf("%s: %d pairs", name, len(pairs))
	}
	return pairs
}

// timeArray writes values as a 1-D array of type dt in a memory store, in
// chunks of 7, in the given byte order.
func timeArray(t *testing.T, dt dtype.DataType, values []int64, order binary.ByteOrder) *zarr.Array {
	t.Helper()
	return chunkedTimeArray(t, dt, values, order, 7)
}

// chunkedTimeArray is timeArray in chunks of chunk elements.
func chunkedTimeArray(t *testing.T, dt dtype.DataType, values []int64, order binary.ByteOrder, chunk int) *zarr.Array {
	t.Helper()
	ctx := context.Background()
	a, err := zarr.Create(ctx, storage.NewMemory(), zarr.Metadata{Format: 3, DataType: dt, Shape: []int64{int64(len(values))},
		ChunkShape: []int64{int64(chunk)}, FillValue: dtype.NaT, Codecs: []zarr.Codec{zarr.BytesCodec{Endian: order}}})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]int64, chunk)
	for lo := 0; lo < len(values); lo += chunk {
		for i := range buf {
			buf[i] = dtype.NaT
			if lo+i < len(values) {
				buf[i] = values[lo+i]
			}
		}
		if err := a.WriteChunk(ctx, []int64{int64(lo / chunk)}, buf); err != nil {
			t.Fatal(err)
		}
	}
	return a
}

func int64Values(t *testing.T, col arrow.Array) []int64 {
	switch c := col.(type) {
	case *array.Timestamp:
		out := make([]int64, c.Len())
		for i := range out {
			out[i] = int64(c.Value(i))
		}
		return out
	case *array.Duration:
		out := make([]int64, c.Len())
		for i := range out {
			out[i] = int64(c.Value(i))
		}
		return out
	}
	t.Fatalf("column of type %s", col.DataType())
	return nil
}

// Every NumPy cast to s, ms, us or ns reads as an Arrow column with
// NumPy's exact, floored values; NaT and the values the unit cannot hold
// are null. Arrow's own cast of the same values truncates instead: it
// equals NumPy on every value but the negative ones with a remainder, and
// the test proves both halves of that sentence.
func TestReadOracle(t *testing.T) {
	ctx := context.Background()
	pairs, floorDiffers := 0, 0
	for _, file := range []string{"casts_datetime64.jsonl", "casts_timedelta64.jsonl"} {
		for _, p := range loadOracle(t, file) {
			du, err := dtype.ParseUnit(p.DstUnit)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := TimeUnit(du); !ok || p.DstScale != 1 || p.Error != nil || p.SrcUnit == "generic" {
				continue
			}
			su, _ := dtype.ParseUnit(p.SrcUnit)
			kind := dtype.Datetime
			if p.Kind == "timedelta64" {
				kind = dtype.Timedelta
			}
			from := dtype.DataType{Kind: kind, Unit: su, Scale: p.SrcScale}
			order := binary.ByteOrder(binary.LittleEndian)
			if pairs%2 == 1 {
				order = binary.BigEndian
			}
			a := timeArray(t, from, p.In, order)
			col, st, err := Read(ctx, a, []int64{0}, []int64{int64(len(p.In))}, Options{Unit: du, Overflow: dtype.OverflowNaT, Parallel: 2})
			if err != nil {
				t.Fatalf("%s -> %s: %v", from, du, err)
			}
			pairs++
			got := int64Values(t, col)
			nulls := 0
			for i := range p.In {
				ex, _ := new(big.Int).SetString(p.Exact[i], 10)
				wantNull := p.Flags[i]&1 != 0 || !ex.IsInt64() || ex.Int64() == math.MinInt64
				if col.IsNull(i) != wantNull {
					t.Fatalf("%s -> %s: element %d (%d): null %v, want %v (exact %s)", from, du, i, p.In[i], col.IsNull(i), wantNull, p.Exact[i])
				}
				if wantNull {
					nulls++
					continue
				}
				if got[i] != ex.Int64() {
					t.Fatalf("%s -> %s: element %d (%d) = %d, NumPy's exact floor %s", from, du, i, p.In[i], got[i], p.Exact[i])
				}
			}
			if col.NullN() != nulls || st.NaT != nulls {
				t.Fatalf("%s -> %s: %d nulls (stats %d), want %d", from, du, col.NullN(), st.NaT, nulls)
			}
			// Arrow's cast from ns (where the source is exact in ns)
			// to the coarser unit truncates toward zero.
			if du != dtype.Nanosecond && su >= dtype.Day && su <= dtype.Nanosecond && p.SrcScale == 1 {
				ns, _, err := Read(ctx, a, []int64{0}, []int64{int64(len(p.In))}, Options{Unit: dtype.Nanosecond, Overflow: dtype.OverflowNaT})
				if err != nil {
					t.Fatal(err)
				}
				_, target, _ := ColumnType(dtype.DataType{Kind: kind, Unit: du, Scale: 1}, du)
				cast, err := compute.CastArray(ctx, ns, compute.UnsafeCastOptions(target))
				if err != nil {
					t.Fatalf("arrow cast: %v", err)
				}
				cv := int64Values(t, cast)
				nv := int64Values(t, ns)
				div := map[dtype.Unit]int64{dtype.Second: 1e9, dtype.Millisecond: 1e6, dtype.Microsecond: 1e3}[du]
				for i := range nv {
					if ns.IsNull(i) || col.IsNull(i) {
						continue
					}
					if cv[i] != nv[i]/div { // Go's / truncates, as Arrow does
						t.Fatalf("arrow cast of %d ns to %s = %d, want truncation %d", nv[i], du, cv[i], nv[i]/div)
					}
					floorDiff := nv[i] < 0 && nv[i]%div != 0
					if (cv[i] != got[i]) != floorDiff {
						t.Fatalf("%d ns: arrow %d, dt64 %d: they must differ exactly on negative values with a remainder", nv[i], cv[i], got[i])
					}
					if floorDiff {
						floorDiffers++
					}
				}
				cast.Release()
				ns.Release()
			}
			col.Release()
		}
	}
	if pairs < 100 || floorDiffers < 20 {
		t.Fatalf("only %d pairs, %d floor/truncation differences checked", pairs, floorDiffers)
	}
	t.Logf("%d pairs; %d pre-1970 values where Arrow's truncation and NumPy's floor differ", pairs, floorDiffers)
}

// Overflow and exactness follow the options: an error by default naming
// the element, null under nat; Exact refuses a floored value.
func TestReadPolicies(t *testing.T) {
	ctx := context.Background()
	a := timeArray(t, dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Day, Scale: 1}, []int64{0, 1 << 40, dtype.NaT}, binary.LittleEndian)
	if _, _, err := Read(ctx, a, []int64{0}, []int64{3}, Options{Unit: dtype.Nanosecond}); err == nil || !strings.Contains(err.Error(), "element 1") {
		t.Errorf("overflow: %v, want an error naming element 1", err)
	}
	col, st, err := Read(ctx, a, []int64{0}, []int64{3}, Options{Unit: dtype.Nanosecond, Overflow: dtype.OverflowNaT})
	if err != nil || col.NullN() != 2 || st.Overflowed != 1 {
		t.Errorf("nat: %v, %d nulls, %+v", err, col.NullN(), st)
	}
	b := timeArray(t, dtype.DataType{Kind: dtype.Timedelta, Unit: dtype.Millisecond, Scale: 1}, []int64{-1500, 2000}, binary.LittleEndian)
	if _, _, err := Read(ctx, b, []int64{0}, []int64{2}, Options{Unit: dtype.Second, Exact: true}); err == nil {
		t.Error("Exact accepted -1500 ms as seconds")
	}
	col, _, err = Read(ctx, b, []int64{0}, []int64{2}, Options{Unit: dtype.Second})
	if err != nil || col.DataType().ID() != arrow.DURATION || int64Values(t, col)[0] != -2 {
		t.Errorf("-1500 ms in s: %v, %v (want -2: floored)", err, col)
	}
	// The default unit is the coarsest exact one.
	for _, c := range []struct {
		from dtype.DataType
		want arrow.TimeUnit
	}{
		{dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Hour, Scale: 1}, arrow.Second},
		{dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Microsecond, Scale: 10}, arrow.Microsecond},
		{dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Month, Scale: 1}, arrow.Second},
		{dtype.DataType{Kind: dtype.Timedelta, Unit: dtype.Millisecond, Scale: 1}, arrow.Millisecond},
	} {
		_, at, err := ColumnType(c.from, dtype.NoUnit)
		if err != nil || at.(arrow.TemporalWithUnit).TimeUnit() != c.want {
			t.Errorf("%s: default %v, %v; want %s", c.from, at, err, c.want)
		}
	}
	if _, _, err := ColumnType(dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Picosecond, Scale: 1}, dtype.NoUnit); err == nil {
		t.Error("picoseconds got a default Arrow unit")
	}
}

// An Arrow column written to Zarr reads back value for value, nulls as
// NaT and back to nulls; a valid -2^63 is refused, naming the row.
func TestWriteRoundTrip(t *testing.T) {
	ctx := context.Background()
	for _, typ := range []arrow.DataType{&arrow.TimestampType{Unit: arrow.Microsecond}, &arrow.DurationType{Unit: arrow.Second}} {
		for _, format := range []int{2, 3} {
			b := array.NewBuilder(memory.DefaultAllocator, typ)
			vals := []int64{-62135596800000000, -1, 0, 1, 1700000000123456, math.MaxInt64}
			for i := range 40 {
				if i%5 == 3 {
					b.AppendNull()
					continue
				}
				v := vals[i%len(vals)]
				switch bb := b.(type) {
				case *array.TimestampBuilder:
					bb.Append(arrow.Timestamp(v))
				case *array.DurationBuilder:
					bb.Append(arrow.Duration(v))
				}
			}
			col := b.NewArray()
			sliced := array.NewSlice(col, 3, 37) // an offset the writer must honour
			store := storage.NewMemory()
			a, err := Write(ctx, store, sliced, WriteOptions{Format: format, ChunkLen: 8})
			if err != nil {
				t.Fatal(err)
			}
			if a.Format() != format {
				t.Fatalf("format %d", a.Format())
			}
			reopened, err := zarr.Open(ctx, store)
			if err != nil {
				t.Fatal(err)
			}
			back, _, err := Read(ctx, reopened, []int64{0}, []int64{int64(sliced.Len())}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !arrow.TypeEqual(back.DataType(), typ) || !array.Equal(back, sliced) {
				t.Fatalf("%s v%d: read back %v, wrote %v", typ, format, back, sliced)
			}
			b.Release()
		}
	}
	b := array.NewTimestampBuilder(memory.DefaultAllocator, &arrow.TimestampType{Unit: arrow.Nanosecond})
	b.AppendValues([]arrow.Timestamp{1, math.MinInt64}, nil)
	if _, err := Write(ctx, storage.NewMemory(), b.NewArray(), WriteOptions{}); err == nil || !strings.Contains(err.Error(), "row 1") {
		t.Errorf("a valid -2^63: %v, want a refusal naming row 1", err)
	}
	// An empty column (a builder's has no value buffer) is an array of
	// shape [0]; it used to panic.
	for _, format := range []int{2, 3} {
		empty := array.NewTimestampBuilder(memory.DefaultAllocator, &arrow.TimestampType{Unit: arrow.Second}).NewArray()
		store := storage.NewMemory()
		if _, err := Write(ctx, store, empty, WriteOptions{Format: format}); err != nil {
			t.Fatalf("v%d, an empty column: %v", format, err)
		}
		a, err := zarr.Open(ctx, store)
		if err != nil || len(a.Shape()) != 1 || a.Shape()[0] != 0 {
			t.Errorf("v%d, an empty column: %v, %v; want shape [0]", format, a, err)
		}
	}
}

// A group's 1-D arrays along the time coordinate's dimension stream as
// record batches: the time column converted with nulls, numeric columns
// value for value, an array along another dimension left out, a complex
// one skipped and named.
func TestTable(t *testing.T) {
	ctx := context.Background()
	store := storage.NewMemory()
	if err := store.Set(ctx, "zarr.json", []byte(`{"zarr_format":3,"node_type":"group","attributes":{}}`)); err != nil {
		t.Fatal(err)
	}
	mk := func(p string, dt dtype.DataType, nt zarr.NumericType, n int64, dim string) *zarr.Array {
		sub, _ := storage.Sub(store, p)
		m := zarr.Metadata{Format: 3, DataType: dt, Numeric: nt, Shape: []int64{n}, ChunkShape: []int64{4},
			Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.BigEndian}}, DimensionNames: json.RawMessage(`["` + dim + `"]`)}
		if dt.Kind != 0 {
			m.FillValue = dtype.NaT
		}
		if nt.Kind != 0 {
			m.NumericFill = [2]uint64{}
		}
		a, err := zarr.Create(ctx, sub, m)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.WriteMetadata(ctx); err != nil {
			t.Fatal(err)
		}
		return a
	}
	tm := mk("time", dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Hour, Scale: 1}, zarr.NumericType{}, 10, "time")
	for c := range int64(3) {
		buf := []int64{c * 4, c*4 + 1, dtype.NaT, c*4 + 3}
		if err := tm.WriteChunk(ctx, []int64{c}, buf); err != nil {
			t.Fatal(err)
		}
	}
	temp := mk("temp", dtype.DataType{}, zarr.NumericType{Kind: zarr.Float, Size: 4}, 10, "time")
	raw := make([]byte, 16)
	for c := range int64(3) {
		for i := range 4 {
			binary.BigEndian.PutUint32(raw[4*i:], math.Float32bits(float32(c*4+int64(i))+0.5))
		}
		if _, err := temp.WriteChunkRaw(ctx, []int64{c}, raw); err != nil {
			t.Fatal(err)
		}
	}
	mk("flag", dtype.DataType{}, zarr.NumericType{Kind: zarr.Bool, Size: 1}, 10, "time")
	mk("lat", dtype.DataType{}, zarr.NumericType{Kind: zarr.Float, Size: 8}, 3, "lat")
	mk("z", dtype.DataType{}, zarr.NumericType{Kind: zarr.Complex, Size: 8}, 10, "time")

	tab, err := OpenTable(ctx, store, TableOptions{BatchRows: 3})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows() != 10 || len(tab.Schema().Fields()) != 3 || strings.Join(tab.Skipped(), ",") != "z" {
		t.Fatalf("table: %d rows, schema %v, skipped %v", tab.Rows(), tab.Schema(), tab.Skipped())
	}
	r := tab.RecordReader(ctx)
	defer r.Release()
	var rows int64
	for r.Next() {
		rec := r.RecordBatch()
		for j, f := range rec.Schema().Fields() {
			col := rec.Column(j)
			for i := range int(rec.NumRows()) {
				row := rows + int64(i)
				switch f.Name {
				case "time":
					ts := col.(*array.Timestamp)
					if (row%4 == 2) != ts.IsNull(i) || (!ts.IsNull(i) && int64(ts.Value(i)) != row*3600) {
						t.Fatalf("time row %d: %v", row, ts)
					}
				case "temp":
					if v := col.(*array.Float32).Value(i); v != float32(row)+0.5 {
						t.Fatalf("temp row %d = %v", row, v)
					}
				case "flag":
					if col.(*array.Boolean).Value(i) {
						t.Fatalf("flag row %d true", row)
					}
				default:
					t.Fatalf("column %q", f.Name)
				}
			}
		}
		rows += rec.NumRows()
	}
	if r.Err() != nil || rows != 10 || r.Stats().NaT != 2 {
		t.Fatalf("%d rows, %v, stats %+v", rows, r.Err(), r.Stats())
	}
}

// A 1-D range read chunk by chunk (each converted right after its
// decoding, several at once) equals the one read whole, bitmap included,
// and an element error counts from the start of the range.
func TestReadByChunk(t *testing.T) {
	ctx := context.Background()
	ctxA := func(chunk int64) *zarr.Array {
		a, err := zarr.Create(ctx, storage.NewMemory(), zarr.Metadata{Format: 3, DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Microsecond, Scale: 1},
			Shape: []int64{203}, ChunkShape: []int64{chunk}, FillValue: dtype.NaT, Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.BigEndian}}})
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]int64, chunk)
		for c := int64(0); c*chunk < 203; c++ {
			for i := range buf {
				j := c*chunk + int64(i)
				buf[i] = j*1_000_003 - 50_000_000
				if j%13 == 4 {
					buf[i] = dtype.NaT
				}
				if j == 150 {
					buf[i] = math.MaxInt64 / 2 // overflows in ns
				}
			}
			if err := a.WriteChunk(ctx, []int64{c}, buf); err != nil {
				t.Fatal(err)
			}
		}
		return a
	}
	whole, byChunk := ctxA(7), ctxA(16) // 7: read whole; 16: by chunk
	for _, r := range [][2]int64{{0, 203}, {8, 195}, {16, 100}, {24, 17}} {
		for _, par := range []int{1, 3} {
			o := Options{Unit: dtype.Nanosecond, Overflow: dtype.OverflowNaT, Parallel: par}
			want, wst, err := Read(ctx, whole, []int64{r[0]}, []int64{r[1]}, o)
			if err != nil {
				t.Fatal(err)
			}
			got, gst, err := Read(ctx, byChunk, []int64{r[0]}, []int64{r[1]}, o)
			if err != nil {
				t.Fatal(err)
			}
			if !array.Equal(got, want) || gst.NaT != wst.NaT || gst.Overflowed != wst.Overflowed {
				t.Fatalf("range %v, %d at once: by chunk %v (%+v), whole %v (%+v)", r, par, got, gst, want, wst)
			}
		}
	}
	_, _, err := Read(ctx, byChunk, []int64{8}, []int64{195}, Options{Unit: dtype.Nanosecond, Parallel: 2})
	var ee *dtype.ElementError
	if !errors.As(err, &ee) || ee.Index != 142 {
		t.Fatalf("overflow at element 150 of the array, 142 of the range: %v", err)
	}
}

// xarray's CF-encoded time coordinates (testdata/xarray, written by
// Debian's xarray 2023.01) read as timestamp columns equal to xarray's own
// decoding where that is exact (integer encodings), missing values null;
// a noleap calendar is refused naming it.
// TestTableCF: CF fixtures xarray wrote read as Arrow columns of the
// instants xarray decodes; the float64 "days since 1500-01-01" one by
// the float rule (its hours, which the binary value floored would put a
// few hundred ns early).
func TestTableCF(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"hourly_int", "hours_int_fill", "minutes_int32_standard", "seconds_int_zone", "days_float_standard_1500", "ns_int_nat", "hours_int8_unsigned", "hours_uint16_signed"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("..", "testdata", "xarray", name+".values.json"))
			if err != nil {
				t.Fatal(err)
			}
			var want struct{ Values []*int64 }
			if err := json.Unmarshal(b, &want); err != nil {
				t.Fatal(err)
			}
			tab, err := OpenTable(ctx, storage.NewDir(filepath.Join("..", "testdata", "xarray", name+".zarr")), TableOptions{Options: Options{Unit: dtype.Nanosecond}})
			if err != nil {
				t.Fatal(err)
			}
			r := tab.RecordReader(ctx)
			defer r.Release()
			if !r.Next() {
				t.Fatal(r.Err())
			}
			col := r.RecordBatch().Column(0).(*array.Timestamp)
			if col.Len() != len(want.Values) {
				t.Fatalf("%d rows, xarray %d", col.Len(), len(want.Values))
			}
			for i, w := range want.Values {
				if (w == nil) != col.IsNull(i) || (w != nil && int64(col.Value(i)) != *w) {
					t.Fatalf("row %d: %v (null %v), xarray %v", i, col.Value(i), col.IsNull(i), w)
				}
			}
		})
	}
	// scale_factor 0.001 on 1025 s/1000: dt64 takes the decimal as
	// written, exactly 1.025 s; xarray multiplies by the float64 nearest
	// 0.001 and lands one nanosecond short.
	tab, err := OpenTable(ctx, storage.NewDir(filepath.Join("..", "testdata", "xarray", "packed_int32_ms.zarr")), TableOptions{Options: Options{Unit: dtype.Nanosecond}})
	if err != nil {
		t.Fatal(err)
	}
	r := tab.RecordReader(ctx)
	defer r.Release()
	if !r.Next() || int64(r.RecordBatch().Column(0).(*array.Timestamp).Value(0)) != 1577836801025000000 {
		t.Fatalf("packed: %v %v", r.Err(), r.RecordBatch())
	}
	_, err = OpenTable(ctx, storage.NewDir(filepath.Join("..", "testdata", "xarray", "noleap.zarr")), TableOptions{})
	if err == nil || !strings.Contains(err.Error(), "noleap") {
		t.Fatalf("noleap: %v", err)
	}
}

// Chunks zstd keeps raw (values with random low bits) are converted
// straight from the stored frame, in pieces (zarr.ReadChunkFunc); the
// columns equal those of the same values read whole and converted after
// (chunks of 7, which no range takes chunk by chunk), in every unit, for
// datetime64 and for CF int64 and int32 numbers (widened from the stored
// frame), over ranges that start and end inside chunks and blocks, and in
// the edge chunk, one or two chunks at once; an element error counts from
// the start of the range.
func TestReadStoredChunks(t *testing.T) {
	ctx := context.Background()
	// Chunks of 20 000 elements: two zstd blocks of 128 KiB and 28 KiB;
	// the last chunk is an edge chunk of 5000.
	const n, chunk = 45000, 20000
	r := rand.New(rand.NewPCG(11, 12))
	values := make([]int64, n)
	for i := range values {
		values[i] = 1_600_000_000e9 + int64(i)*60e9 + r.Int64N(1e9) - 30_000e9*int64(i%3)
		if i%97 == 5 {
			values[i] = dtype.NaT
		}
	}
	hours := make([]int64, n)
	for i := range hours {
		hours[i] = r.Int64N(1<<50) - 1<<49 // seconds hold them, nanoseconds few: as random as they can be
	}
	hours[36389] = 1 << 62 // overflows seconds (the int32 copy wraps it); in the second block of chunk 1
	mk := func(m zarr.Metadata, chunk int64, codecs []zarr.Codec, vals []int64) *zarr.Array {
		m.Format, m.Shape, m.ChunkShape, m.Codecs = 3, []int64{n}, []int64{chunk}, codecs
		a, err := zarr.Create(ctx, storage.NewMemory(), m)
		if err != nil {
			t.Fatal(err)
		}
		size := a.ElementSize()
		raw := make([]byte, a.ChunkBytes())
		for c := int64(0); c*chunk < n; c++ {
			clear(raw)
			for i := range min(chunk, n-c*chunk) {
				v := uint64(vals[c*chunk+i])
				if size == 4 {
					binary.LittleEndian.PutUint32(raw[4*i:], uint32(v))
				} else {
					binary.LittleEndian.PutUint64(raw[8*i:], v)
				}
			}
			if _, err := a.WriteChunkRaw(ctx, []int64{c}, raw); err != nil {
				t.Fatal(err)
			}
		}
		return a
	}
	le := zarr.BytesCodec{Endian: binary.LittleEndian}
	zstd := []zarr.Codec{le, zarr.ZstdCodec{Level: 1}}
	ns := zarr.Metadata{DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}, FillValue: dtype.NaT}
	cf := func(size int) zarr.Metadata {
		return zarr.Metadata{Numeric: zarr.NumericType{Kind: zarr.Int, Size: size}, Attributes: []byte(`{"units": "hours since 1900-01-01"}`)}
	}
	int32Hours := make([]int64, n)
	for i, h := range hours {
		int32Hours[i] = int64(int32(h))
	}
	for _, c := range []struct {
		name        string
		stored, ref *zarr.Array
		units       []dtype.Unit
	}{
		{"datetime64[ns]", mk(ns, chunk, zstd, values), mk(ns, 7, []zarr.Codec{le}, values), []dtype.Unit{dtype.Second, dtype.Millisecond, dtype.Microsecond, dtype.Nanosecond}},
		{"CF int64 hours", mk(cf(8), chunk, zstd, hours), mk(cf(8), 7, []zarr.Codec{le}, hours), []dtype.Unit{dtype.Second, dtype.Millisecond, dtype.Microsecond, dtype.Nanosecond}},
		{"CF int32 hours", mk(cf(4), chunk, zstd, int32Hours), mk(cf(4), 7, []zarr.Codec{le}, int32Hours), []dtype.Unit{dtype.Second, dtype.Millisecond, dtype.Microsecond, dtype.Nanosecond}},
	} {
		// The stored chunks are frames zstd kept raw, so they are read
		// from the stored value: buf stays as it was.
		buf := make([]byte, c.stored.ChunkBytes())
		if _, _, err := c.stored.ReadChunkFunc(ctx, []int64{1}, buf, 8, func(int, []byte) error { return nil }); err != nil || slices.ContainsFunc(buf, func(b byte) bool { return b != 0 }) {
			t.Fatalf("%s: chunk 1 was decoded into buf (%v): not a stored frame", c.name, err)
		}
		for _, u := range c.units {
			for _, rg := range [][2]int64{{0, n}, {8, n - 8}, {chunk, chunk}, {1000, 30000}, {16384, n - 16384},
				{24, 64}, {chunk - 8, 16}, {16376, 24}, {2 * chunk, n - 2*chunk}, {n - 8, 8}} {
				for _, par := range []int{1, 2} {
					o := Options{Unit: u, Overflow: dtype.OverflowNaT, Parallel: par}
					want, wst, err := Read(ctx, c.ref, []int64{rg[0]}, []int64{rg[1]}, o)
					if err != nil {
						t.Fatal(err)
					}
					got, gst, err := Read(ctx, c.stored, []int64{rg[0]}, []int64{rg[1]}, o)
					if err != nil {
						t.Fatal(err)
					}
					if !array.Equal(got, want) || gst != wst {
						t.Fatalf("%s in %s, range %v, %d at once: stored chunks %+v, whole %+v", c.name, u, rg, par, gst, wst)
					}
					got.Release()
					want.Release()
				}
			}
		}
	}
	// 2^62 hours overflows seconds: element 36389 of the array.
	a := mk(cf(8), chunk, zstd, hours)
	_, _, err := Read(ctx, a, []int64{8}, []int64{n - 8}, Options{Unit: dtype.Second, Parallel: 2})
	var ee *dtype.ElementError
	if !errors.As(err, &ee) || ee.Index != 36389-8 {
		t.Fatalf("overflow at element 36389 of the array, %d of the range: %v", 36389-8, err)
	}
}

// A numeric column whose attributes ask xarray to decode it (CF packing,
// xarray's bool encoding) holds its stored numbers, and the table's notes
// say so, naming the attributes; a plain one and the time column do not.
func TestTableEncodedNotes(t *testing.T) {
	ctx := context.Background()
	store := storage.NewMemory()
	if err := store.Set(ctx, "zarr.json", []byte(`{"zarr_format":3,"node_type":"group","attributes":{}}`)); err != nil {
		t.Fatal(err)
	}
	mk := func(p string, m zarr.Metadata) {
		sub, _ := storage.Sub(store, p)
		m.Format, m.Shape, m.ChunkShape, m.DimensionNames = 3, []int64{4}, []int64{4}, json.RawMessage(`["time"]`)
		a, err := zarr.Create(ctx, sub, m)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.WriteMetadata(ctx); err != nil {
			t.Fatal(err)
		}
	}
	mk("time", zarr.Metadata{DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Hour, Scale: 1}, FillValue: dtype.NaT})
	mk("t2m", zarr.Metadata{Numeric: zarr.NumericType{Kind: zarr.Int, Size: 2}, Attributes: json.RawMessage(`{"scale_factor": 0.01, "add_offset": 273.15}`)})
	mk("land", zarr.Metadata{Numeric: zarr.NumericType{Kind: zarr.Int, Size: 1}, Attributes: json.RawMessage(`{"dtype": "bool"}`)})
	mk("plain", zarr.Metadata{Numeric: zarr.NumericType{Kind: zarr.Float, Size: 4}, Attributes: json.RawMessage(`{"long_name": "x"}`)})
	tab, err := OpenTable(ctx, store, TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(tab.Notes(), "\n")
	for _, want := range []string{"t2m: the column holds the stored int16 numbers; xarray decodes them by scale_factor, add_offset", `land: the column holds the stored int8 numbers; xarray decodes them by dtype "bool"`} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
	if strings.Contains(notes, "plain") || strings.Contains(notes, "time:") {
		t.Errorf("notes %q name a column with nothing to decode", notes)
	}
	// With MaskAndScale, the decoded columns say nothing, and a float16
	// one, which it leaves as it is, says so (not "MaskAndScale decodes
	// them so").
	mk("half", zarr.Metadata{Numeric: zarr.NumericType{Kind: zarr.Float, Size: 2}, Attributes: json.RawMessage(`{"scale_factor": 2.0}`)})
	if tab, err = OpenTable(ctx, store, TableOptions{Options: Options{MaskAndScale: true}}); err != nil {
		t.Fatal(err)
	}
	notes = strings.Join(tab.Notes(), "\n")
	if want := "half: the column holds the stored float16 numbers: mask and scale leaves float16 columns as they are; xarray decodes them by scale_factor"; notes != want {
		t.Errorf("notes with MaskAndScale: %q, want %q", notes, want)
	}
}
