package transcode_test

import (
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// durationCase is one fixture of testdata/xarray-durations
// (tools/xarray/cf_durations.py): a timedelta64 variable "step" xarray
// wrote as a CF duration, the numbers stored, the durations written and
// those xarray decodes (int64 ns, nil for NaT); or, with Decoded, numbers
// xarray does not read as a duration.
type durationCase struct {
	Name    string
	Units   string         `json:"units"`
	Dtype   string         `json:"dtype"`
	Attrs   map[string]any `json:"attrs"`
	Stored  []*json.Number `json:"stored"`
	Written []*int64       `json:"written"`
	Values  []*int64       `json:"values"`
	Decoded string         `json:"decoded"`
}

func durationCases(t *testing.T) []durationCase {
	return readFixtures(t, "xarray-durations", func(c *durationCase, name string) { c.Name = name })
}

func (c durationCase) source() storage.Store {
	return storage.NewDir(filepath.Join("../testdata/xarray-durations", c.Name+".zarr", "step"))
}

func nsOrNaT(v []*int64) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = dtype.NaT
		if x != nil {
			out[i] = *x
		}
	}
	return out
}

var durationUnitNs = map[string]int64{"days": 86400e9, "hours": 3600e9, "minutes": 60e9, "seconds": 1e9,
	"milliseconds": 1e6, "microseconds": 1e3, "nanoseconds": 1}

// xarrayDuration models xarray 2023.01's decode_cf_timedelta of one
// stored number x (after xarray's masking and scaling) as pandas 1.5's
// to_timedelta computes it: integers times the unit's ns; floats as
// trunc(x) × ns + int64(round(frac, p) × ns), with p decimals of the unit
// (9 for days to seconds, 6 for ms, 3 for µs), frac in float64 (a float32
// minus an int64 is a float64 in NumPy). It explains, element by
// element, why xarray's values differ from the written ones where they
// do.
func xarrayDuration(x float64, intPath bool, unitNs int64, p int) int64 {
	if intPath {
		return int64(x) * unitNs
	}
	base := int64(x)
	pow := math.Pow10(p)
	frac := x - float64(base)
	frac = math.RoundToEven(frac*pow) / pow
	return base*unitNs + int64(frac*float64(unitNs))
}

// TestCFDurationXarrayFixtures transcodes every duration xarray wrote to
// timedelta64 (default unit, ns, v3): dt64's values are the written
// durations on every element (integers exactly; floats by the shortest
// rule, where xarray keeps pandas' rounding noise: 1/24 day is 01:00 in
// dt64 and 01:00:00.0000288 in xarray), and xarray's values are exactly
// the pandas model of the stored numbers. Units xarray does not read as
// a duration ("hour", "weeks") are no time array to dt64 either.
func TestCFDurationXarrayFixtures(t *testing.T) {
	defaults := map[string]dtype.Unit{"hours_int": dtype.Hour, "hours_int_nat": dtype.Hour, "minutes_int16_fill": dtype.Minute, "ns_int_fill": dtype.Nanosecond}
	differ := 0
	for _, c := range durationCases(t) {
		t.Run(c.Name, func(t *testing.T) {
			if c.Decoded != "" {
				if tm, err := mustOpen(t, c.source()).CFTime(); tm != nil || err != nil {
					t.Fatalf("units %q: dt64 reads %v %v; xarray reads %s numbers", c.Units, tm, err, c.Decoded)
				}
				_, err := transcode.New(ctx, c.source(), storage.NewMemory(), transcode.Options{})
				if !errors.Is(err, transcode.ErrPlan) || !strings.Contains(err.Error(), "float64 numbers") {
					t.Fatalf("units %q: %v, want a plan error (numbers, not time)", c.Units, err)
				}
				return
			}
			written, xr := nsOrNaT(c.Written), nsOrNaT(c.Values)
			// xarray's values are its pandas arithmetic on the stored numbers.
			unitNs := durationUnitNs[c.Units]
			p := map[int64]int{1e6: 6, 1e3: 3, 1: 0}[unitNs]
			if unitNs >= 1e9 {
				p = 9
			}
			scale, _ := c.Attrs["scale_factor"].(float64)
			small := c.Dtype == "<i2" || c.Dtype == "<i1" || c.Dtype == "<u1" || c.Dtype == "<u2"
			intPath := strings.Contains(c.Dtype, "i") && !small && scale == 0
			for i, s := range c.Stored {
				if s == nil {
					if xr[i] != dtype.NaT {
						t.Fatalf("element %d: NaN stored, xarray %d", i, xr[i])
					}
					continue
				}
				x, _ := s.Float64()
				if xr[i] == dtype.NaT {
					continue // a _FillValue
				}
				if scale != 0 { // in float32 for 2-byte integers
					x = float64(float32(x) * float32(scale))
				}
				if m := xarrayDuration(x, intPath || unitNs == 1, unitNs, p); m != xr[i] {
					t.Errorf("element %d (stored %s): xarray decodes %d, the pandas model %d", i, s, xr[i], m)
				}
				if xr[i] != written[i] {
					differ++
				}
			}
			for _, o := range []transcode.Options{{Workers: 1}, {Unit: dtype.Nanosecond, Workers: 2}, {Format: 3, Workers: 2}} {
				dst := storage.NewMemory()
				job, err := transcode.New(ctx, c.source(), dst, o)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(job.Plan().CF, "CF duration: "+c.Units+", ") {
					t.Errorf("plan CF %q does not name the duration %q", job.Plan().CF, c.Units)
				}
				sum, err := job.Run(ctx)
				if err != nil {
					t.Fatal(err)
				}
				a, got := readArray(t, dst)
				want := dtype.DataType{Kind: dtype.Timedelta, Unit: dtype.Nanosecond, Scale: 1}
				if u, ok := defaults[c.Name]; ok && o.Unit == dtype.NoUnit {
					want.Unit = u
				}
				if a.DataType() != want {
					t.Errorf("options %+v: destination %s, want %s", o, a.DataType(), want)
				}
				sameValues(t, a.DataType().String(), toNanoseconds(t, a.DataType(), got), written)
				nat := int64(0)
				for _, v := range written {
					if v == dtype.NaT {
						nat++
					}
				}
				if sum.Elements != int64(len(written)) || sum.NaT != nat || sum.Lossy != 0 || sum.Overflowed != 0 {
					t.Errorf("summary %+v: want %d elements, %d NaT, none lossy", sum, len(written), nat)
				}
				attrs := string(a.Metadata().Attributes)
				if strings.Contains(attrs, "units") || strings.Contains(attrs, "scale_factor") || strings.Contains(attrs, "_FillValue") {
					t.Errorf("attributes %s: want the CF ones dropped", attrs)
				}
				if err := job.Verify(ctx); err != nil {
					t.Errorf("verify: %v", err)
				}
			}
		})
	}
	if differ < 30 {
		t.Errorf("xarray differs from the written durations on %d elements; the fixtures should show its float noise", differ)
	}
}

func mustOpen(t *testing.T, s storage.Store) *zarr.Array {
	t.Helper()
	a, err := zarr.Open(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestCFDurationDestination writes every duration fixture back as a CF
// duration (--cf: the default units, the timedelta64 unit itself; and
// chosen ones) and decodes it again: the durations come back, floored to
// the units; the attributes are xarray's (units, _FillValue, no
// calendar).
func TestCFDurationDestination(t *testing.T) {
	for _, c := range durationCases(t) {
		if c.Decoded != "" {
			continue
		}
		t.Run(c.Name, func(t *testing.T) {
			for _, o := range []transcode.Options{{CF: true}, {CF: true, Unit: dtype.Second}, {CFUnits: "milliseconds"}, {CFUnits: "hours"}} {
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
				a := mustOpen(t, mid)
				var attrs map[string]any
				if err := json.Unmarshal(a.Metadata().Attributes, &attrs); err != nil {
					t.Fatal(err)
				}
				u, _ := attrs["units"].(string)
				if _, ok := durationUnitNs[u]; !ok || attrs["calendar"] != nil || attrs["_FillValue"] != float64(math.MinInt64) || a.Numeric() != (zarr.NumericType{Kind: zarr.Int, Size: 8}) {
					t.Errorf("options %+v: %s attributes %v", o, a.Numeric(), attrs)
				}
				if o.CFUnits != "" && u != o.CFUnits {
					t.Errorf("units %q, want %q", u, o.CFUnits)
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
				// Integers floor to the units, floats round (half to even).
				want := nsOrNaT(c.Written)
				for i, v := range want {
					k := durationUnitNs[u]
					if v != dtype.NaT {
						want[i] = floorTo(v, k)
						if r := v - want[i]; strings.Contains(c.Dtype, "f") && (2*r > k || 2*r == k && floorTo(v, k)/k%2 != 0) {
							want[i] += k
						}
					}
				}
				sameValues(t, u, got, want)
			}
		})
	}
}

// TestCFDurationKinds: instants and durations never mix in CF units
// either.
func TestCFDurationKinds(t *testing.T) {
	step := durationCases(t)[0]
	for _, c := range []struct {
		src   storage.Store
		units string
		want  string
	}{
		{step.source(), "hours since 2000-01-01", "no reference date"},
		{xarrayCases(t)[0].source(), "hours", "are a CF duration"},
	} {
		_, err := transcode.New(ctx, c.src, storage.NewMemory(), transcode.Options{CFUnits: c.units})
		if !errors.Is(err, transcode.ErrPlan) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--cf-units %q: %v, want %q", c.units, err, c.want)
		}
	}
	if _, err := transcode.New(ctx, step.source(), storage.NewMemory(), transcode.Options{Unit: dtype.Month}); !errors.Is(err, transcode.ErrPlan) {
		t.Errorf("a duration to timedelta64[M]: %v, want a plan error", err)
	}
}

// TestCFDurationXarrayRounding: after a --cf run of durations xarray
// would not decode exactly (int64 masked through float64 beyond 2^53;
// beyond timedelta64[ns], which pandas wraps silently), the plan says so,
// with no CF units to suggest; within those bounds it says nothing.
func TestCFDurationXarrayRounding(t *testing.T) {
	for _, c := range []struct {
		unit dtype.Unit
		vals []int64
		want string // "" for no warning
	}{
		{dtype.Nanosecond, []int64{1 << 53, -(1 << 53), dtype.NaT}, ""},
		{dtype.Nanosecond, []int64{1<<53 + 1, dtype.NaT}, "may round"},
		{dtype.Hour, []int64{2_562_047, dtype.NaT}, ""}, // 292 years
		{dtype.Hour, []int64{2_562_048, 1}, "wrapping silently"},
	} {
		src := storage.NewMemory()
		m := zarr.Metadata{Format: 3, DataType: dtype.DataType{Kind: dtype.Timedelta, Unit: c.unit, Scale: 1},
			Shape: []int64{int64(len(c.vals))}, ChunkShape: []int64{4}, FillValue: dtype.NaT}
		writeArray(t, src, m, c.vals, nil)
		job, err := transcode.New(ctx, src, storage.NewMemory(), transcode.Options{CF: true})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := job.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		reason, exact := job.Plan().XarrayRounding(sum)
		if exact != "" || (c.want == "") != (reason == "") || !strings.Contains(reason, c.want) || c.want != "" && !strings.Contains(reason, "durations") {
			t.Errorf("%s %v: %q %q, want %q", c.unit, c.vals, reason, exact, c.want)
		}
	}
}
