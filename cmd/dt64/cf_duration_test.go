package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
)

const durationsDir = "../../testdata/xarray-durations"

// durationWritten reads the durations a fixture of testdata/xarray-durations
// was written with (int64 ns, NaT for null).
func durationWritten(t *testing.T, name string) []int64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(durationsDir, name+".values.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Written []*int64 `json:"written"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := make([]int64, len(doc.Written))
	for i, v := range doc.Written {
		out[i] = dtype.NaT
		if v != nil {
			out[i] = *v
		}
	}
	return out
}

// TestCFDurationInspectValidate: inspect shows a CF duration decoded to
// timedelta64 (text and JSON), validate decodes it, and a units xarray
// does not read as a duration is no time array.
func TestCFDurationInspectValidate(t *testing.T) {
	step := filepath.Join(durationsDir, "days_float_nat.zarr", "step")
	out, _, err := run(t, nil, "inspect", step)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"float64"  (NumPy <f8), CF duration: days; decoded as timedelta64[ns]`, "46 valid, 2 NaT", "min:         -18000000000000 "} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect: no %q in\n%s", want, out)
		}
	}
	out, _, err = run(t, nil, "inspect", "--json", filepath.Join(durationsDir, "hours_int.zarr", "step"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Max int64          `json:"max"`
		CF  map[string]any `json:"cf"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Max != 47 || rep.CF["duration"] != true || rep.CF["decoded_as"] != "timedelta64[h]" || rep.CF["units"] != "hours" || rep.CF["calendar"] != "" {
		t.Errorf("inspect --json: max %d, cf %v", rep.Max, rep.CF)
	}
	if out, _, err := run(t, nil, "validate", step); err != nil || !strings.Contains(out, "ok:") {
		t.Errorf("validate: %v\n%s", err, out)
	}
	if _, _, err := run(t, nil, "inspect", filepath.Join(durationsDir, "not_duration_hour.zarr", "step")); err == nil || !strings.Contains(err.Error(), "not of datetime64 or timedelta64 values") {
		t.Errorf("inspect of units \"hour\": %v, want not a time array", err)
	}
}

// TestCFDurationGroup: in a group run (an ERA5-like dataset) the CF
// duration "step" is a time array like "time": converted to timedelta64,
// named in the error when it cannot be, carried over with a note under
// --skip-unconvertible.
func TestCFDurationGroup(t *testing.T) {
	src := filepath.Join(durationsDir, "era5_group.zarr")
	dst := filepath.Join(t.TempDir(), "out.zarr")
	_, errOut, err := run(t, nil, "transcode", src, dst, "--format", "2")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`array: +step +<i8 \[6\]: transcode <i8 -> <m8\[h\]`).MatchString(errOut) {
		t.Errorf("plan:\n%s", errOut)
	}
	if got, want := readNanoseconds(t, filepath.Join(dst, "step")), durationWritten(t, "hours_int")[:6]; !slices.Equal(got, want) {
		t.Errorf("step: %v, want %v", got, want)
	}
	// inspect's tree calls it a duration (it printed an empty calendar).
	if out, _, err := run(t, nil, "inspect", src); err != nil || !regexp.MustCompile(`CF duration "hours", \d+ NaT`).MatchString(out) {
		t.Errorf("inspect: %v\n%s", err, out)
	}
	_, _, err = run(t, nil, "transcode", src, filepath.Join(t.TempDir(), "m.zarr"), "--unit", "M")
	if err == nil || !strings.Contains(err.Error(), "step: a time array that cannot be converted") || !strings.Contains(err.Error(), "timedelta64[M]") {
		t.Errorf("--unit M: %v, want an error naming step", err)
	}
	out, errOut, err := run(t, nil, "transcode", src, filepath.Join(t.TempDir(), "skip.zarr"), "--unit", "M", "--skip-unconvertible")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, "note:        step: not converted") || !regexp.MustCompile(`step +copy .*\(not converted, see the note\)`).MatchString(out) {
		t.Errorf("--skip-unconvertible:\n%s\n%s", errOut, out)
	}
	// One --cf-units for a group of instants and durations: it applies to
	// the arrays of its kind, and the others take their default units,
	// with a note (it failed the plan on step before).
	for units, want := range map[string][2]string{
		"minutes since 2000-01-01": {"minutes since 2000-01-01", "hours"},
		"seconds":                  {"hours since 1970-01-01 00:00:00", "seconds"},
	} {
		out := filepath.Join(t.TempDir(), "cf.zarr")
		_, errOut, err := run(t, nil, "transcode", src, out, "--format", "2", "--cf-units", units)
		if err != nil || !strings.Contains(errOut, fmt.Sprintf("--cf-units %q describe", units)) {
			t.Errorf("--cf-units %q: %v\n%s", units, err, errOut)
			continue
		}
		for i, arr := range []string{"time", "step"} {
			b, err := os.ReadFile(filepath.Join(out, arr, ".zattrs"))
			var attrs struct{ Units string }
			if err != nil || json.Unmarshal(b, &attrs) != nil || attrs.Units != want[i] {
				t.Errorf("--cf-units %q: %s units %q (%v), want %q", units, arr, attrs.Units, err, want[i])
			}
		}
	}
}

// TestCFDurationXarrayReadsOutput writes every duration fixture (and the
// ERA5-like group) back as CF durations with --cf (default units and
// chosen ones) and has xarray decode them: xarray's durations must be
// dt64's, which for the default units are the written ones.
func TestCFDurationXarrayReadsOutput(t *testing.T) {
	py := requireXarray(t)
	paths, _ := filepath.Glob(filepath.Join(durationsDir, "*.values.json"))
	tmp := t.TempDir()
	var groups []string
	wants := map[string][]int64{}
	for i, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".values.json")
		if strings.HasPrefix(name, "not_") {
			continue
		}
		src := filepath.Join(durationsDir, name+".zarr", "step")
		for k, flags := range [][]string{{"--cf"}, {"--cf-units", "seconds"}} {
			g := filepath.Join(tmp, strings.Repeat("g", i+1)+string(rune('a'+k))+".zarr")
			if _, _, err := run(t, nil, append([]string{"transcode", src, filepath.Join(g, "step"), "--format", "2", "-q"}, flags...)...); err != nil {
				t.Fatalf("%s %v: %v", name, flags, err)
			}
			if err := os.WriteFile(filepath.Join(g, ".zgroup"), []byte(`{"zarr_format": 2}`), 0o666); err != nil {
				t.Fatal(err)
			}
			back := filepath.Join(tmp, "back", filepath.Base(g))
			if _, _, err := run(t, nil, "transcode", filepath.Join(g, "step"), back, "--unit", "ns", "-q"); err != nil {
				t.Fatal(err)
			}
			want := readNanoseconds(t, back)
			if k == 0 && !slices.Equal(want, durationWritten(t, name)) {
				t.Errorf("%s --cf: dt64 reads back %v, written %v", name, want, durationWritten(t, name))
			}
			groups, wants[g] = append(groups, g), want
		}
	}
	era5 := filepath.Join(tmp, "era5.zarr")
	if _, _, err := run(t, nil, "transcode", filepath.Join(durationsDir, "era5_group.zarr"), era5, "--cf", "--format", "2", "--unit", "m"); err != nil {
		t.Fatal(err)
	}
	groups, wants[era5] = append(groups, era5), durationWritten(t, "hours_int")[:6]
	got := xarrayDecode(t, py, "decode_durations.py", append([]string{"step"}, groups...)...)
	for _, g := range groups {
		if r := got[g]; r.Error != "" || !slices.Equal(r.Values, wants[g]) {
			t.Errorf("%s: xarray decodes %v (%s), dt64 wrote %v", g, r.Values, r.Error, wants[g])
		}
	}
}

// TestCFDurationPartsResume: a CF duration source in three parts (each
// verified), then --finalize, gives the bytes of a single run; a second
// run with --resume finds every unit done and changes nothing; so does
// the same with --cf.
func TestCFDurationPartsResume(t *testing.T) {
	src := filepath.Join(durationsDir, "days_float_nat.zarr", "step")
	for _, extra := range [][]string{{"--unit", "us"}, {"--cf", "--unit", "s"}} {
		flags := append([]string{"--format", "3", "-q"}, extra...)
		ref := filepath.Join(t.TempDir(), "ref.zarr")
		if out, _, err := run(t, nil, append([]string{"transcode", src, ref, "--verify"}, flags...)...); err != nil || !strings.Contains(out, "verified") {
			t.Fatalf("%v: %v\n%s", extra, err, out)
		}
		dst := filepath.Join(t.TempDir(), "dst.zarr")
		for _, p := range []string{"2/3", "0/3", "1/3"} {
			if out, _, err := run(t, nil, append([]string{"transcode", src, dst, "--part", p, "--verify"}, flags...)...); err != nil || !strings.Contains(out, "verified") {
				t.Fatalf("%v part %s: %v\n%s", extra, p, err, out)
			}
		}
		if out, _, err := run(t, nil, append([]string{"transcode", src, dst, "--finalize", "--verify"}, flags...)...); err != nil || !strings.Contains(out, "verified") {
			t.Fatalf("%v finalize: %v\n%s", extra, err, out)
		}
		sameDirs(t, ref, dst)
		if out, _, err := run(t, nil, append([]string{"transcode", src, ref, "--resume"}, flags...)...); err != nil {
			t.Fatalf("%v resume: %v\n%s", extra, err, out)
		}
		sameDirs(t, ref, dst)
	}
}
