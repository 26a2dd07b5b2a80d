package transcode_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// xarrayCase is one fixture of testdata/xarray (tools/xarray/cf_sources.py):
// a time coordinate xarray wrote, and the values xarray decodes it to.
type xarrayCase struct {
	Name     string
	Units    string   `json:"units"`
	Calendar string   `json:"calendar"`
	Dtype    string   `json:"dtype"`
	Values   []*int64 `json:"values"` // ns since the epoch; nil for NaT
	Error    string   `json:"error"`
}

func xarrayCases(t *testing.T) []xarrayCase {
	return readFixtures(t, "xarray", func(c *xarrayCase, name string) { c.Name = name })
}

// readFixtures reads every NAME.values.json of testdata/dir into a T,
// named by setName.
func readFixtures[T any](t *testing.T, dir string, setName func(*T, string)) []T {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "testdata", dir, "*.values.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures in testdata/%s (make xarray-fixtures): %v", dir, err)
	}
	var cases []T
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var c T
		setName(&c, strings.TrimSuffix(filepath.Base(p), ".values.json"))
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		cases = append(cases, c)
	}
	return cases
}

func (c xarrayCase) source() storage.Store {
	return storage.NewDir(filepath.Join("../testdata/xarray", c.Name+".zarr", "time"))
}

func (c xarrayCase) xarray() []int64 {
	w := make([]int64, len(c.Values))
	for i, v := range c.Values {
		w[i] = dtype.NaT
		if v != nil {
			w[i] = *v
		}
	}
	return w
}

// want returns the exact instants (ns since the epoch, floored) the
// fixture's stored numbers mean, computed from them with math/big, and
// how many had a fraction of a ns. It checks that xarray's values are
// exactly its float64 rounding of them: xarray applies scale_factor in
// float64 (the nearest float64 of the JSON number) and decodes floats as
// int64(float64(v) × ns per unit) + reference, so for unpacked integers
// its values are the exact ones.
func (c xarrayCase) want(t *testing.T) (exact []int64, lossy int) {
	t.Helper()
	xr := c.xarray()
	a, err := zarr.Open(ctx, c.source())
	if err != nil {
		t.Fatal(err)
	}
	tm, err := a.CFTime()
	if err != nil {
		t.Fatal(err)
	}
	var attrs struct {
		Scale    *json.Number `json:"scale_factor"`
		Unsigned string       `json:"_Unsigned"`
	}
	if err := json.Unmarshal(a.Metadata().Attributes, &attrs); err != nil {
		t.Fatal(err)
	}
	scale, scaleF := big.NewRat(1, 1), 1.0
	if attrs.Scale != nil {
		scale.SetString(attrs.Scale.String())
		scaleF, _ = attrs.Scale.Float64()
	}
	u := tm.Units
	unitNs := map[dtype.Unit]int64{dtype.Day: 86400e9, dtype.Hour: 3600e9, dtype.Minute: 60e9, dtype.Second: 1e9, dtype.Nanosecond: 1}[u.Unit]
	refNs := new(big.Rat).Mul(u.Reference, big.NewRat(1e9, 1))
	if !refNs.IsInt() {
		t.Fatalf("%s: reference not a whole ns", c.Units)
	}
	// A reference outside pandas' ns range sends xarray to cftime, which
	// works in whole microseconds: round(float64(v) × µs per unit).
	viaCftime := !refNs.Num().IsInt64()
	nt := a.Numeric()
	out := make([]int64, len(xr))
	raw := make([]byte, a.ChunkBytes())
	for _, coords := range a.ChunkCoords() {
		order, _, err := a.ReadChunkRaw(ctx, coords, raw)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < a.ChunkLen(); i++ {
			k := int(coords[0])*a.ChunkLen() + i
			if k >= len(out) {
				break
			}
			bits := nt.Bits(raw[nt.Size*i:], order)[0]
			var v *big.Rat
			var f float64
			// The integer kind the numbers are read as: _Unsigned "true"
			// reads a signed type's bytes unsigned, "false" an unsigned
			// type's signed (xarray's UnsignedIntegerCoder).
			kind := nt.Kind
			switch {
			case kind == zarr.Int && attrs.Unsigned == "true":
				kind = zarr.Uint
			case kind == zarr.Uint && attrs.Unsigned == "false":
				kind = zarr.Int
			}
			if shift := 64 - 8*nt.Size; kind == zarr.Int {
				bits = uint64(int64(bits<<shift) >> shift)
			} else if kind == zarr.Uint {
				bits = bits << shift >> shift
			}
			switch kind {
			case zarr.Float:
				f = nt.Float64(bits)
				if !math.IsNaN(f) {
					v = new(big.Rat).SetFloat64(f)
				}
			case zarr.Int:
				f = float64(int64(bits))
				v = new(big.Rat).SetInt64(int64(bits))
			case zarr.Uint:
				f = float64(bits)
				v = new(big.Rat).SetUint64(bits)
			default:
				t.Fatalf("stored %s", nt)
			}
			// Missing: NaN, a declared value, or in int64 -2^63, the NaT
			// bits xarray writes for NaT undeclared (ns_int_nat).
			natMarker := nt == zarr.NumericType{Kind: zarr.Int, Size: 8} && kind == zarr.Int && bits == 1<<63
			if v == nil || (slices.Contains(tm.Missing, bits) || natMarker) && kind != zarr.Float {
				out[k] = dtype.NaT
				if xr[k] != dtype.NaT {
					t.Fatalf("element %d: missing, xarray decodes %d", k, xr[k])
				}
				continue
			}
			f *= scaleF
			var emulated int64
			if viaCftime {
				refUs := new(big.Int).Quo(refNs.Num(), big.NewInt(1000))
				us := new(big.Int).Add(refUs, big.NewInt(int64(math.Round(f*float64(unitNs/1000)))))
				emulated = us.Int64() * 1000
			} else {
				emulated = int64(f*float64(unitNs)) + refNs.Num().Int64()
			}
			if xr[k] != emulated {
				t.Fatalf("element %d (%v %s): xarray decodes %d, not its float64 rounding %d", k, f, c.Units, xr[k], emulated)
			}
			exact := v.Mul(v, scale)
			exact.Mul(exact, big.NewRat(unitNs, 1)).Add(exact, refNs)
			q := new(big.Int).Div(exact.Num(), exact.Denom()) // floor: Denom > 0
			out[k] = q.Int64()
			if !exact.IsInt() {
				lossy++
			}
		}
	}
	return out, lossy
}

// toNanoseconds converts datetime64 values of d to ns (exactly; the
// fixtures are well inside the range).
func toNanoseconds(t *testing.T, d dtype.DataType, v []int64) []int64 {
	t.Helper()
	conv, err := dtype.NewConversion(d, dtype.DataType{Kind: d.Kind, Unit: dtype.Nanosecond, Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	num, den, ok := conv.Factor64()
	if !ok || den != 1 {
		t.Fatalf("%s to ns: not a whole factor", d)
	}
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = x
		if x != dtype.NaT {
			out[i] = x * int64(num)
		}
	}
	return out
}

func sameValues(t *testing.T, what string, got, want []int64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s: element %d is %d, xarray decodes %d", what, i, got[i], want[i])
			return
		}
	}
}

// TestCFXarrayFixtures transcodes every xarray-written fixture to a
// datetime64 array, in nanoseconds and in the default unit, and compares
// the values with xarray's own decoding; the noleap fixture must be
// refused, naming the calendar.
func TestCFXarrayFixtures(t *testing.T) {
	defaults := map[string]dtype.Unit{
		"hourly_int": dtype.Hour, "hours_int_fill": dtype.Hour, "seconds_int_zone": dtype.Second,
		"minutes_int32_standard": dtype.Minute, "hours_int8_unsigned": dtype.Hour, "hours_uint16_signed": dtype.Hour,
	}
	for _, c := range xarrayCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			if c.Error != "" {
				_, err := transcode.New(ctx, c.source(), storage.NewMemory(), transcode.Options{Unit: dtype.Nanosecond})
				if err == nil || !errors.Is(err, transcode.ErrPlan) || !strings.Contains(err.Error(), c.Calendar) {
					t.Fatalf("xarray refuses it (%s); dt64 says %v, want a plan error naming calendar %q", c.Error, err, c.Calendar)
				}
				return
			}
			// The exact rule: the fixtures' math/big values are exact floors.
			for _, o := range []transcode.Options{{Unit: dtype.Nanosecond, Workers: 1, CFFloat: cf.FloatExact}, {Workers: 2, CFFloat: cf.FloatExact}, {Format: 3, Workers: 2, CFFloat: cf.FloatExact}} {
				dst := storage.NewMemory()
				job, err := transcode.New(ctx, c.source(), dst, o)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(job.Plan().CF, "CF time: "+c.Units) {
					t.Errorf("plan CF %q does not name the units %q", job.Plan().CF, c.Units)
				}
				sum, err := job.Run(ctx)
				if err != nil {
					t.Fatal(err)
				}
				a, got := readArray(t, dst)
				wantUnit := dtype.Nanosecond
				if o.Unit == dtype.NoUnit {
					if u, ok := defaults[c.Name]; ok {
						wantUnit = u
					}
				}
				if a.DataType().Unit != wantUnit || a.DataType().Kind != dtype.Datetime {
					t.Errorf("options %+v: destination %s, want unit %s", o, a.DataType(), wantUnit)
				}
				want, lossy := c.want(t)
				sameValues(t, a.DataType().String(), toNanoseconds(t, a.DataType(), got), want)
				nat := 0
				for _, v := range want {
					if v == dtype.NaT {
						nat++
					}
				}
				if sum.Elements != int64(len(want)) || sum.NaT != int64(nat) || sum.Lossy != int64(lossy) || sum.Overflowed != 0 {
					t.Errorf("summary %+v: want %d elements, %d NaT, %d lossy", sum, len(want), nat, lossy)
				}
				if cs := a.Metadata().Codecs; len(cs) < 2 {
					t.Errorf("codecs %v: the source's blosc compressor is not carried over", cs)
				} else if b, ok := cs[1].(zarr.BloscCodec); !ok || b.CName != "lz4" {
					t.Errorf("codecs %v: want the source's blosc lz4", cs)
				}
				attrs := string(a.Metadata().Attributes)
				// xarray's _ARRAY_DIMENSIONS stays an attribute, or (in v3)
				// becomes the dimension_names.
				dims := strings.Contains(attrs, "_ARRAY_DIMENSIONS") || len(a.Metadata().DimensionNames) > 0
				if strings.Contains(attrs, "units") || strings.Contains(attrs, "calendar") || strings.Contains(attrs, "_Unsigned") || !dims {
					t.Errorf("attributes %s: want the CF ones dropped and the others kept", attrs)
				}
				if err := job.Verify(ctx); err != nil {
					t.Errorf("verify: %v", err)
				}
			}
		})
	}
}

// TestCFDestination writes every fixture CF-encoded (the default units
// and chosen ones) and decodes the result with dt64 again: the instants
// must be xarray's, floored to the unit.
func TestCFDestination(t *testing.T) {
	for _, c := range xarrayCases(t) {
		if c.Error != "" {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			for _, o := range []transcode.Options{
				{CF: true, Unit: dtype.Nanosecond, CFFloat: cf.FloatExact},
				{CFUnits: "nanoseconds since 2000-01-01T00:00:00.5", CFFloat: cf.FloatExact},
				{CFUnits: "seconds since 2000-01-01 00:00:00.5", Overflow: 0, CFFloat: cf.FloatExact},
			} {
				mid := storage.NewMemory()
				job, err := transcode.New(ctx, c.source(), mid, o)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := job.Run(ctx); err != nil {
					t.Fatal(err)
				}
				if err := job.Verify(ctx); err != nil {
					t.Errorf("verify: %v", err)
				}
				a, err := zarr.Open(ctx, mid)
				if err != nil {
					t.Fatal(err)
				}
				if a.Numeric() != (zarr.NumericType{Kind: zarr.Int, Size: 8}) {
					t.Fatalf("CF destination holds %s, want int64", a.Numeric())
				}
				var attrs map[string]any
				if err := json.Unmarshal(a.Metadata().Attributes, &attrs); err != nil {
					t.Fatal(err)
				}
				if attrs["calendar"] != "proleptic_gregorian" || attrs["_FillValue"] == nil || attrs["_ARRAY_DIMENSIONS"] == nil {
					t.Errorf("attributes %v", attrs)
				}
				back := storage.NewMemory()
				job, err = transcode.New(ctx, mid, back, transcode.Options{Unit: dtype.Nanosecond})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := job.Run(ctx); err != nil {
					t.Fatal(err)
				}
				_, got := readArray(t, back)
				want, _ := c.want(t)
				if strings.HasPrefix(o.CFUnits, "seconds") {
					for i, v := range want {
						if v != dtype.NaT {
							want[i] = floorTo(v-500_000_000, 1_000_000_000) + 500_000_000
						}
					}
				}
				sameValues(t, o.CFUnits, got, want)
			}
		})
	}
}

func floorTo(v, k int64) int64 {
	q := v / k
	if v%k < 0 {
		q--
	}
	return q * k
}

// cfSource writes a 1-D v2 CF array of int64 (or float64) elements to a
// memory store, chunks stored as given (raw little-endian bytes, padding
// included, as a writer may leave it), and returns the store.
func cfSource(t *testing.T, attrs string, float bool, n int64, chunk int64, chunks map[string][]uint64) storage.Store {
	t.Helper()
	s := storage.NewMemory()
	m := zarr.Metadata{
		Format: 2, Shape: []int64{n}, ChunkShape: []int64{chunk}, FillNull: true,
		Numeric:    zarr.NumericType{Kind: zarr.Int, Size: 8},
		Codecs:     []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}},
		Attributes: json.RawMessage(attrs),
	}
	if float {
		m.Numeric = zarr.NumericType{Kind: zarr.Float, Size: 8}
	}
	a, err := zarr.Create(ctx, s, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	for key, vals := range chunks {
		raw := make([]byte, 8*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint64(raw[8*i:], v)
		}
		if err := s.Set(ctx, key, raw); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestCFFloatRuleInPlan: the rule for CF floats is part of the plan: a
// part or a resume with the other rule is refused, naming it, since the
// destination would hold chunks decoded both ways.
func TestCFFloatRuleInPlan(t *testing.T) {
	days := `{"units": "days since 2000-01-01", "_ARRAY_DIMENSIONS": ["time"]}`
	third := math.Float64bits(1.0 / 3)
	src := cfSource(t, days, true, 8, 4, map[string][]uint64{"0": {third, third, third, third}, "1": {third, third, third, third}})
	dst := storage.NewMemory()
	o := transcode.Options{Unit: dtype.Nanosecond, Part: transcode.Part{Index: 0, Count: 2}}
	if _, err := run(t, src, dst, o); err != nil {
		t.Fatal(err)
	}
	o.Part.Index, o.CFFloat = 1, cf.FloatExact
	_, err := run(t, src, dst, o)
	if !errors.Is(err, transcode.ErrPlanMismatch) || !strings.Contains(err.Error(), "floats: exact") {
		t.Fatalf("part 1 with --cf-float exact after part 0 with shortest: %v, want ErrPlanMismatch naming the rule", err)
	}
	o.Part, o.Resume = transcode.Part{}, true
	if _, err := run(t, src, dst, o); !errors.Is(err, transcode.ErrPlanMismatch) {
		t.Fatalf("resume with --cf-float exact: %v, want ErrPlanMismatch", err)
	}
	o.CFFloat = cf.FloatShortest
	if s, err := run(t, src, dst, o); err != nil || !s.Complete {
		t.Fatalf("resume with the same rule: %+v, %v", s, err)
	}
}

// TestCFPaddingAndErrors: the padding of an edge chunk, left as garbage
// that would overflow, neither fails nor counts; a value that overflows
// is an error naming the chunk, the element and its value, or NaT and
// counted under the nat policy; a resume with other CF units is refused.
func TestCFPaddingAndErrors(t *testing.T) {
	days := `{"units": "days since 1970-01-01", "calendar": "proleptic_gregorian", "_ARRAY_DIMENSIONS": ["time"]}`
	garbage := uint64(math.MaxInt64)
	src := cfSource(t, days, false, 6, 4, map[string][]uint64{"0": {0, 1, 2, 3}, "1": {4, 5, garbage, garbage}})
	dst := storage.NewMemory()
	job, err := transcode.New(ctx, src, dst, transcode.Options{Unit: dtype.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := job.Run(ctx)
	if err != nil {
		t.Fatalf("garbage padding: %v", err)
	}
	if sum.Elements != 6 || sum.NaT != 0 || sum.Overflowed != 0 {
		t.Errorf("summary %+v: want 6 elements, none NaT or overflowed", sum)
	}
	_, got := readArray(t, dst)
	for i, v := range got {
		if v != int64(i)*86400e9 {
			t.Errorf("element %d: %d", i, v)
		}
	}

	// An overflowing value (the first element of chunk 1), and +Inf.
	src = cfSource(t, days, false, 6, 4, map[string][]uint64{"0": {0, 1, 2, 3}, "1": {garbage, 5, 0, 0}})
	if job, err = transcode.New(ctx, src, storage.NewMemory(), transcode.Options{Unit: dtype.Nanosecond}); err != nil {
		t.Fatal(err)
	}
	_, err = job.Run(ctx)
	var ee *zarr.ElementError
	if !errors.As(err, &ee) || ee.Key != "1" || ee.Index != 0 || ee.ArrayIndex[0] != 4 || !strings.Contains(err.Error(), "9223372036854775807") {
		t.Errorf("overflow: %v, want an ElementError at chunk 1 element 0 (array index 4) naming the value", err)
	}
	src = cfSource(t, days, true, 6, 4, map[string][]uint64{"0": {0, math.Float64bits(math.Inf(1)), 0, 0}})
	job, err = transcode.New(ctx, src, storage.NewMemory(), transcode.Options{Unit: dtype.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := job.Run(ctx); !errors.As(err, &ee) || !strings.Contains(err.Error(), "+Inf") || ee.Index != 1 {
		t.Errorf("+Inf: %v", err)
	}
	job, err = transcode.New(ctx, src, storage.NewMemory(), transcode.Options{Unit: dtype.Nanosecond, Overflow: dtype.OverflowNaT})
	if err != nil {
		t.Fatal(err)
	}
	// Chunk 1 is missing and the fill null (none defined): its 2
	// elements become NaT, not zeros (1970-01-01), and are not stored.
	if sum, err := job.Run(ctx); err != nil || sum.NaT != 3 || sum.Unfilled != 2 || sum.Overflowed != 1 || sum.Elements != 6 || sum.Stored != 1 {
		t.Errorf("+Inf under nat: %+v, %v", sum, err)
	}

	// A resume of a run with other CF units is another plan.
	src = cfSource(t, days, false, 6, 4, map[string][]uint64{"0": {0, 1, 2, 3}})
	dst = storage.NewMemory()
	job, err = transcode.New(ctx, src, dst, transcode.Options{CFUnits: "hours since 2000-01-01"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := job.Run(ctx); err != nil {
		t.Fatal(err)
	}
	job, err = transcode.New(ctx, src, dst, transcode.Options{CFUnits: "minutes since 2000-01-01", Resume: true})
	if err == nil {
		_, err = job.Run(ctx)
	}
	if err == nil {
		t.Error("a resume with other CF units went on")
	}

	// A reference finer than a nanosecond is refused at the plan, not
	// met by an overflow of an intermediate datetime64[ps] (a tester's
	// case), since xarray drops what is below 1 ns.
	_, err = transcode.New(ctx, src, storage.NewMemory(), transcode.Options{CFUnits: "hours since 2000-01-01 00:00:00.0000000001"})
	if !errors.Is(err, transcode.ErrPlan) || !strings.Contains(err.Error(), "not a whole nanosecond") {
		t.Errorf("a sub-nanosecond reference: %v, want a plan error", err)
	}
	// Nor "SINCE", which dt64 reads (as cftime does) and xarray does not.
	_, err = transcode.New(ctx, src, storage.NewMemory(), transcode.Options{CFUnits: "hours SINCE 2000-01-01"})
	if !errors.Is(err, transcode.ErrPlan) || !strings.Contains(err.Error(), `write "since" in lower case`) {
		t.Errorf("SINCE: %v, want a plan error", err)
	}
}

// TestCFResumeCounts: a run from a CF source interrupted by a failing
// store and resumed ends as the uninterrupted run, byte for byte, and its
// summary counts the whole array (NaT, overflowed and lossy elements of
// the units the first run did), to datetime64 and to CF.
func TestCFResumeCounts(t *testing.T) {
	srcDir := t.TempDir()
	chunks := map[string][]uint64{}
	for c := range 40 {
		if c%9 == 4 {
			continue // missing: NaN, the fill value
		}
		vals := make([]uint64, 25)
		for i := range vals {
			k := c*25 + i
			f := 18000 + float64(k)/10 // tenths of a day: lossy in ns
			switch {
			case k%31 == 7:
				f = 1e300 // overflows
			case k%29 == 3:
				f = math.NaN()
			}
			vals[i] = math.Float64bits(f)
		}
		chunks[fmt.Sprint(c)] = vals
	}
	src := cfSource(t, `{"units": "days since 1970-01-01", "_ARRAY_DIMENSIONS": ["time"]}`, true, 1000, 25, chunks)
	// The same array in a directory (failStore and sameTrees work there).
	mem := src.(*storage.Memory)
	keys, err := mem.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		b, err := mem.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		if err := storage.NewDir(srcDir).Set(ctx, k, b); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range []transcode.Options{
		{Unit: dtype.Nanosecond, Overflow: dtype.OverflowNaT, Workers: 2, CFFloat: cf.FloatExact},
		{CFUnits: "seconds since 2019-01-01", Overflow: dtype.OverflowClamp, Workers: 2, CFFloat: cf.FloatExact},
		{Unit: dtype.Second, Overflow: dtype.OverflowNaT, Workers: 2}, // FloatShortest, rounding
	} {
		ref := filepath.Join(t.TempDir(), "ref")
		job, err := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(ref), o)
		if err != nil {
			t.Fatal(err)
		}
		want, err := job.Run(ctx)
		if err != nil || want.Overflowed == 0 || want.Lossy == 0 && o.CFFloat == cf.FloatExact || want.NaT == 0 {
			t.Fatalf("%+v: uninterrupted run %+v, %v (want NaT, overflowed and lossy elements)", o, want, err)
		}
		for _, after := range []int64{4, 13, 27} {
			dst := filepath.Join(t.TempDir(), "d")
			job, _ := transcode.New(ctx, storage.NewDir(srcDir), &failStore{Store: storage.NewDir(dst), after: after}, o)
			if _, err := job.Run(ctx); err == nil {
				t.Fatalf("after %d: no failure", after)
			}
			r := o
			r.Resume = true
			job, err := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(dst), r)
			if err != nil {
				t.Fatal(err)
			}
			got, err := job.Run(ctx)
			if err != nil || got.Resumed == 0 {
				t.Fatalf("after %d: resume %+v, %v", after, got, err)
			}
			if got.Elements != want.Elements || got.NaT != want.NaT || got.Overflowed != want.Overflowed || got.Lossy != want.Lossy ||
				got.Chunks != want.Chunks || got.Stored != want.Stored || got.Min != want.Min || got.Max != want.Max {
				t.Errorf("%+v after %d: resumed summary %+v, uninterrupted %+v", o, after, got, want)
			}
			sameTrees(t, ref, dst)
			if err := job.Verify(ctx); err != nil {
				t.Errorf("verify: %v", err)
			}
		}
	}
}

// TestCFValueAttributes: attributes that state values in the source's
// encoding (valid_min, valid_max, valid_range, actual_range) are not
// copied when the encoding changes, decoded or re-encoded with --cf, and
// a note names them: kept, they would state other instants (a reader
// honouring valid_* would hide every value). Other attributes stay.
func TestCFValueAttributes(t *testing.T) {
	attrs := `{"units": "hours since 2000-01-01", "actual_range": [0, 20], "valid_min": 0, "valid_max": 20, "valid_range": [0, 20], "long_name": "time"}`
	src := cfSource(t, attrs, false, 3, 3, map[string][]uint64{"0": {0, 10, 20}})
	for _, o := range []transcode.Options{{}, {CF: true}, {CF: true, CFUnits: "seconds since 2000-01-01"}} {
		dst := storage.NewMemory()
		job, err := transcode.New(ctx, src, dst, o)
		if err != nil {
			t.Fatal(err)
		}
		noted := false
		for _, n := range job.Plan().Notes {
			noted = noted || strings.Contains(n, "attributes actual_range, valid_max, valid_min, valid_range are not copied")
		}
		if !noted {
			t.Errorf("%+v: notes %q name no dropped attributes", o, job.Plan().Notes)
		}
		if _, err := job.Run(ctx); err != nil {
			t.Fatal(err)
		}
		a, err := zarr.Open(ctx, dst)
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]json.RawMessage
		if err := json.Unmarshal(a.Metadata().Attributes, &got); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"actual_range", "valid_min", "valid_max", "valid_range"} {
			if _, ok := got[k]; ok {
				t.Errorf("%+v: %s kept: %s", o, k, a.Metadata().Attributes)
			}
		}
		if _, ok := got["long_name"]; !ok {
			t.Errorf("%+v: long_name lost: %s", o, a.Metadata().Attributes)
		}
	}
}
