package transcode_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// calendarsDir holds the stores tools/xarray/calendars.py writes with
// xarray 2023.01 and its convert_calendar results (expected.json).
var calendarsDir = filepath.Join("..", "testdata", "xarray", "calendars")

// calendarFixture is one store of expected.json.
type calendarFixture struct {
	Calendar, Units, Dtype string
	// Arrays: "time_d/date" -> xarray's values (ns, nil where it drops
	// the element) and the source dates as cftime prints them.
	Arrays map[string]struct {
		NS    []*int64
		Dates []string
	}
}

func calendarFixtures(t *testing.T) map[string]calendarFixture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(calendarsDir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fx map[string]calendarFixture
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	if len(fx) != 12 {
		t.Fatalf("%d calendar fixtures, want 12", len(fx))
	}
	return fx
}

// wantNS is xarray's result with NaT where it drops the element, and
// how many it drops.
func wantNS(vals []*int64) ([]int64, int) {
	out := make([]int64, len(vals))
	dropped := 0
	for i, v := range vals {
		out[i] = dtype.NaT
		if v != nil {
			out[i] = *v
		} else {
			dropped++
		}
	}
	return out, dropped
}

func convOf(mode string) cf.CalendarConversion {
	if mode == "year" {
		return cf.ConvertYear
	}
	return cf.ConvertDate
}

// TestCalendarConvertXarray: every time coordinate xarray writes in
// noleap, all_leap, 360_day and julian (int64 hours, int64 days, float64
// days; 6-hourly, daily and month-end data across February and year ends;
// both byte orders; an edge chunk) converts as xarray's convert_calendar
// does, element for element, with NaT where xarray drops the element
// (--calendar-missing nat, counted); v2 and v3 destinations in each byte
// order, at ns and s; --verify agrees; the destination records the
// conversion in its attributes.
func TestCalendarConvertXarray(t *testing.T) {
	for name, fx := range calendarFixtures(t) {
		for key, arr := range fx.Arrays {
			path, mode, _ := strings.Cut(key, "/")
			src := storage.NewDir(filepath.Join(calendarsDir, name+".zarr", path))
			want, dropped := wantNS(arr.NS)
			for _, o := range []transcode.Options{
				{Unit: dtype.Nanosecond, Workers: 1},
				{Unit: dtype.Nanosecond, Format: 3, Endian: binary.BigEndian, Workers: 2},
				{Unit: dtype.Second, Endian: binary.LittleEndian, Workers: 2, Exact: true},
			} {
				o.Calendar = cf.CalendarOptions{Convert: convOf(mode), Missing: cf.MissingNaT}
				dst := storage.NewMemory()
				job, err := transcode.New(ctx, src, dst, o)
				if err != nil {
					t.Fatalf("%s %s: %v", name, key, err)
				}
				sum, err := job.Run(ctx)
				if err != nil {
					t.Fatalf("%s %s: %v", name, key, err)
				}
				if sum.NoDate != int64(dropped) || sum.NaT != int64(dropped) || sum.Elements != int64(len(want)) {
					t.Errorf("%s %s: summary %+v, want %d elements, %d without a date", name, key, sum, len(want), dropped)
				}
				if err := job.Verify(ctx); err != nil {
					t.Errorf("%s %s: verify: %v", name, key, err)
				}
				a, got := readArray(t, dst)
				sameValues(t, name+" "+key+" "+a.DataType().String(), toNanoseconds(t, a.DataType(), got), want)
				var attrs map[string]any
				if err := json.Unmarshal(a.Metadata().Attributes, &attrs); err != nil || attrs["source_calendar"] != fx.Calendar || attrs["calendar_conversion"] != mode || attrs["units"] != nil || attrs["calendar"] != nil {
					t.Errorf("%s %s: attributes %s", name, key, a.Metadata().Attributes)
				}
			}
		}
	}
}

// Without --calendar-missing nat, the first date Gregorian lacks stops
// the run before any metadata, naming the element and its model date;
// without --convert-calendar, a model calendar is refused naming it,
// and julian decodes to its true instants (12 days after its labels in 1899).
func TestCalendarConvertRefusals(t *testing.T) {
	fx := calendarFixtures(t)
	arr := fx["360_day_hours_i8"].Arrays["time_6h/date"]
	first := -1
	for i, v := range arr.NS {
		if v == nil {
			first = i
			break
		}
	}
	src := storage.NewDir(filepath.Join(calendarsDir, "360_day_hours_i8.zarr", "time_6h"))
	dst := storage.NewMemory()
	job, err := transcode.New(ctx, src, dst, transcode.Options{Calendar: cf.CalendarOptions{Convert: cf.ConvertDate}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = job.Run(ctx)
	var ee *zarr.ElementError
	date := strings.Replace(arr.Dates[first], " ", "T", 1) + " (360_day)"
	if !errors.As(err, &ee) || ee.ArrayIndex[0] != int64(first) || !strings.Contains(err.Error(), date) {
		t.Fatalf("a date Gregorian lacks: %v; want element %d, %s", err, first, date)
	}
	if keys, _ := dst.List(ctx, ""); containsKey(keys, "zarr.json") || containsKey(keys, ".zarray") {
		t.Errorf("metadata written after a refused date: %v", keys)
	}
	for _, name := range []string{"noleap_days_i8", "all_leap_days_f8", "360_day_days_i8"} {
		cal := fx[name].Calendar
		_, err := transcode.New(ctx, storage.NewDir(filepath.Join(calendarsDir, name+".zarr", "time_d")), storage.NewMemory(), transcode.Options{})
		if !errors.Is(err, cf.ErrModelCalendar) || !strings.Contains(err.Error(), `calendar "`+cal+`"`) {
			t.Errorf("%s without a conversion: %v", name, err)
		}
	}
	jul := storage.NewDir(filepath.Join(calendarsDir, "julian_days_i8.zarr", "time_d"))
	dst = storage.NewMemory()
	job, err = transcode.New(ctx, jul, dst, transcode.Options{Unit: dtype.Day})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := job.Run(ctx); err != nil {
		t.Fatal(err)
	}
	a, got := readArray(t, dst)
	labels, _ := wantNS(fx["julian_days_i8"].Arrays["time_d/date"].NS)
	if got[0]*86400e9 != labels[0]+12*86400e9 || strings.Contains(string(a.Metadata().Attributes), "source_calendar") {
		t.Errorf("julian without a conversion: day %d (%s), want the true instant, 12 days after the label %d", got[0], a.Metadata().Attributes, labels[0]/86400e9)
	}
}

func sub(t *testing.T, s storage.Store, p string) storage.Store {
	t.Helper()
	st, err := storage.Sub(s, p)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func containsKey(keys []string, k string) bool {
	for _, x := range keys {
		if x == k || strings.HasSuffix(x, "/"+k) {
			return true
		}
	}
	return false
}

// A group (an xarray dataset with three time coordinates and their index
// variables) converts in one run, in two parts (--part), and resumed
// after one part; the time arrays hold xarray's values, the index
// arrays are carried over, and a CF destination (--cf) records the
// conversion next to its calendar.
func TestCalendarConvertGroup(t *testing.T) {
	fx := calendarFixtures(t)["all_leap_hours_i8"]
	src := storage.NewDir(filepath.Join(calendarsDir, "all_leap_hours_i8.zarr"))
	co := cf.CalendarOptions{Convert: cf.ConvertDate, Missing: cf.MissingNaT}
	check := func(what string, dst storage.Store, cfDst bool) {
		t.Helper()
		for _, p := range []string{"time_6h", "time_d", "time_m"} {
			want, _ := wantNS(fx.Arrays[p+"/date"].NS)
			if cfDst {
				a, err := zarr.Open(ctx, sub(t, dst, p))
				if err != nil {
					t.Fatal(err)
				}
				var attrs map[string]any
				_ = json.Unmarshal(a.Metadata().Attributes, &attrs)
				if attrs["calendar"] != "proleptic_gregorian" || attrs["source_calendar"] != "all_leap" {
					t.Errorf("%s %s: CF attributes %s", what, p, a.Metadata().Attributes)
				}
				continue
			}
			a, got := readArray(t, sub(t, dst, p))
			sameValues(t, what+" "+p, toNanoseconds(t, a.DataType(), got), want)
		}
		for _, k := range []string{"idx_d/0", "idx_m/0"} {
			want, _ := src.Get(ctx, k)
			if got, err := dst.Get(ctx, k); err != nil || string(got) != string(want) || len(want) == 0 {
				t.Errorf("%s: %s not carried over as it is: %v", what, k, err)
			}
		}
	}
	whole := storage.NewMemory()
	runVerified(t, src, whole, transcode.StoreOptions{Options: transcode.Options{Unit: dtype.Nanosecond, Calendar: co, Workers: 2}})
	check("whole", whole, false)

	parts := storage.NewMemory()
	for i := range 2 {
		if _, err := runStore(t, src, parts, transcode.StoreOptions{Options: transcode.Options{Unit: dtype.Nanosecond, Calendar: co, Workers: 1, Part: transcode.Part{Index: i, Count: 2}}}); err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
	}
	check("parts", parts, false)

	resumed := storage.NewMemory()
	if _, err := runStore(t, src, resumed, transcode.StoreOptions{Options: transcode.Options{Unit: dtype.Nanosecond, Calendar: co, Workers: 1, Part: transcode.Part{Index: 1, Count: 2}}}); err != nil {
		t.Fatal(err)
	}
	sum, err := runStore(t, src, resumed, transcode.StoreOptions{Options: transcode.Options{Unit: dtype.Nanosecond, Calendar: co, Workers: 1, Resume: true}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Resumed == 0 || sum.NoDate != 7 {
		t.Errorf("resumed: %+v, want units already done and the 7 dates without a Gregorian one counted", sum)
	}
	check("resumed", resumed, false)

	cfDst := storage.NewMemory()
	runVerified(t, src, cfDst, transcode.StoreOptions{Options: transcode.Options{CF: true, Unit: dtype.Hour, Calendar: co, Workers: 2}})
	check("cf", cfDst, true)
}
