package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// The CF time (xarray) tests of the command: the fixtures in testdata/xarray
// were written by xarray (tools/xarray/cf_sources.py); transcode's tests
// check dt64's values against xarray's decoding of each. Here: inspect and
// validate on them, xarray reading dt64's --cf output, and kills, parts and
// verification on a CF source.

const xarrayDir = "../../testdata/xarray"

type xarrayFixture struct {
	name     string
	Units    string   `json:"units"`
	Calendar string   `json:"calendar"`
	Dtype    string   `json:"dtype"`
	Values   []*int64 `json:"values"`
	Error    string   `json:"error"`
}

func xarrayFixtures(t *testing.T) []xarrayFixture {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(xarrayDir, "*.values.json"))
	if len(paths) == 0 {
		t.Fatal("no fixtures in testdata/xarray (make xarray-fixtures)")
	}
	var out []xarrayFixture
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f := xarrayFixture{name: strings.TrimSuffix(filepath.Base(p), ".values.json")}
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

func (f xarrayFixture) path() string { return filepath.Join(xarrayDir, f.name+".zarr", "time") }

// readNanoseconds reads a datetime64 (or timedelta64) array's values in ns.
func readNanoseconds(t *testing.T, dir string) []int64 {
	t.Helper()
	ctx := context.Background()
	a, err := zarr.Open(ctx, storage.NewDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	conv, err := dtype.NewConversion(a.DataType(), dtype.DataType{Kind: a.DataType().Kind, Unit: dtype.Nanosecond, Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	num, den, ok := conv.Factor64()
	if !ok || den != 1 {
		t.Fatalf("%s: not a whole number of ns", a.DataType())
	}
	out := make([]int64, a.Grid().NumElements())
	buf := make([]int64, a.ChunkLen())
	for _, c := range a.ChunkCoords() {
		if err := a.ReadChunk(ctx, c, buf); err != nil {
			t.Fatal(err)
		}
		// 1-D arrays only.
		for i := range buf {
			k := int(c[0])*a.ChunkLen() + i
			if k < len(out) {
				out[k] = buf[i]
				if buf[i] != dtype.NaT {
					out[k] = buf[i] * int64(num)
				}
			}
		}
	}
	return out
}

// TestCFInspectFixtures: inspect shows each fixture as CF time with its
// decoded range, equal to xarray's (to the ns for integers, within
// xarray's float64 rounding of a microsecond for floats), and shows the
// noleap one in its own calendar, not converted; validate passes them.
func TestCFInspectFixtures(t *testing.T) {
	for _, f := range xarrayFixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			out, _, err := run(t, nil, "inspect", "--json", f.path())
			if f.Error != "" {
				// A model calendar: its range in its own calendar, no
				// datetime64 range unless converted.
				if err != nil || !strings.Contains(out, `"calendar": "`+f.Calendar+`"`) || !strings.Contains(out, `"source_min_text"`) || !strings.Contains(out, `"min": null`) {
					t.Fatalf("inspect of a %s array: %v\n%s", f.Calendar, err, out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Min, Max, Valid, NaT int64
				CF                   *struct {
					Units, Calendar string
					DecodedAs       string `json:"decoded_as"`
				}
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.CF == nil || rep.CF.Calendar != f.Calendar {
				t.Fatalf("cf member %+v, want calendar %s\n%s", rep.CF, f.Calendar, out)
			}
			lo, hi, nat := int64(math.MaxInt64), int64(math.MinInt64), int64(0)
			for _, v := range f.Values {
				if v == nil {
					nat++
					continue
				}
				lo, hi = min(lo, *v), max(hi, *v)
			}
			unitNs := map[string]int64{"datetime64[ns]": 1, "datetime64[s]": 1e9, "datetime64[m]": 60e9, "datetime64[h]": 3600e9}[rep.CF.DecodedAs]
			if unitNs == 0 {
				t.Fatalf("decoded as %s", rep.CF.DecodedAs)
			}
			tol := int64(0)
			if strings.Contains(f.Dtype, "f") || strings.HasPrefix(f.name, "packed") {
				tol = 1000 // xarray rounds floats and packing through float64 (transcode's tests check each element)
			}
			if rep.NaT != nat || abs64(rep.Min*unitNs-lo) > tol || abs64(rep.Max*unitNs-hi) > tol {
				t.Errorf("inspect: NaT %d, min %d, max %d (× %d ns); xarray: NaT %d, min %d, max %d", rep.NaT, rep.Min, rep.Max, unitNs, nat, lo, hi)
			}
			if out, _, err := run(t, nil, "validate", f.path()); err != nil || !strings.HasPrefix(out, "ok:") {
				t.Errorf("validate: %v\n%s", err, out)
			}
		})
	}
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// writeCFSource writes a v2 CF time array as xarray would: int32 "minutes
// since 2000-01-01" with _FillValue -1 (floats: float64 "days since
// 1800-01-01 12:00" with NaN), n elements in chunks of chunk, every 7th
// chunk missing and a missing value now and then. Its directory is
// returned, inside a group (for xarray).
func writeCFSource(t *testing.T, n, chunk int64, floats bool) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "src.zarr", "time")
	ctx := context.Background()
	m := zarr.Metadata{
		Format: 2, Shape: []int64{n}, ChunkShape: []int64{chunk},
		Numeric:     zarr.NumericType{Kind: zarr.Int, Size: 4},
		NumericFill: [2]uint64{math.MaxUint64}, // -1
		Codecs:      []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}, zarr.ZstdCodec{Level: 1}},
		Attributes:  json.RawMessage(`{"_ARRAY_DIMENSIONS":["time"],"calendar":"standard","long_name":"time","units":"minutes since 2000-01-01"}`),
	}
	if floats {
		m.Numeric, m.NumericFill = zarr.NumericType{Kind: zarr.Float, Size: 8}, [2]uint64{math.Float64bits(math.NaN())}
		m.Attributes = json.RawMessage(`{"_ARRAY_DIMENSIONS":["time"],"calendar":"proleptic_gregorian","units":"days since 1800-01-01 12:00"}`)
	}
	a, err := zarr.Create(ctx, storage.NewDir(dir), m)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(8, 9))
	raw := make([]byte, a.ChunkBytes())
	for _, c := range a.ChunkCoords() {
		if c[0]%7 == 3 {
			continue
		}
		for i := range int(chunk) {
			k := c[0]*chunk + int64(i)
			if floats {
				v := 80000 + float64(k)/96 + float64(rng.IntN(1000))/1e6
				if rng.IntN(50) == 0 {
					v = math.NaN()
				}
				binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(v))
				continue
			}
			v := int32(10_000_000 + 15*k + int64(rng.IntN(3)))
			if rng.IntN(50) == 0 {
				v = -1
			}
			binary.LittleEndian.PutUint32(raw[4*i:], uint32(v))
		}
		if _, err := a.WriteChunkRaw(ctx, c, raw); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "..", ".zgroup"), []byte(`{"zarr_format": 2}`), 0o666); err != nil {
		t.Fatal(err)
	}
	return dir
}

// xarrayNamed gives the v2 array in dir the dimension name xarray needs
// (_ARRAY_DIMENSIONS) and returns dir.
func xarrayNamed(t *testing.T, dir string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, ".zattrs"), []byte(`{"_ARRAY_DIMENSIONS": ["time"]}`), 0o666); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeV3Named writes a v3 datetime64[s] array with dimension_names and
// no attributes, and returns its directory.
func writeV3Named(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "v3.zarr")
	ctx := context.Background()
	a, err := zarr.Create(ctx, storage.NewDir(dir), zarr.Metadata{
		Format: 3, DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1},
		Shape: []int64{100}, ChunkShape: []int64{30}, FillValue: dtype.NaT, DimensionNames: json.RawMessage(`["time"]`),
	})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]int64, 30)
	for _, c := range a.ChunkCoords() {
		for i := range buf {
			buf[i] = 1_600_000_000 + 3607*(c[0]*30+int64(i))
		}
		buf[c[0]] = dtype.NaT
		if err := a.WriteChunk(ctx, c, buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	return dir
}

var suggestedUnits = regexp.MustCompile(`--cf-units "([^"]+)" keeps them exact`)

// TestCFXarrayReadsOutput writes every fixture, and a CF and a datetime64
// source of our own, with --cf (default units and chosen ones), and has
// xarray decode the results: the instants must be the ones dt64 decodes
// from the source. Where dt64 warned that xarray's float64 masking would
// round, the units it suggests must give no warning and xarray's exact
// instants.
func TestCFXarrayReadsOutput(t *testing.T) {
	py := requireXarray(t)
	type job struct {
		src   string
		flags []string
	}
	var jobs []job
	for _, f := range xarrayFixtures(t) {
		if f.Error == "" {
			jobs = append(jobs, job{f.path(), []string{"--cf"}}, job{f.path(), []string{"--cf-units", "seconds since 2019-12-31 23:00:00.5"}})
		}
	}
	jobs = append(jobs,
		job{writeCFSource(t, 500, 64, false), []string{"--cf", "--format", "2"}},
		job{writeCFSource(t, 500, 64, true), []string{"--cf-units", "milliseconds since 2000-01-01"}},
		job{xarrayNamed(t, writeSample(t, 500, 64)), []string{"--cf", "--unit", "s"}},
		job{xarrayNamed(t, writeSample(t, 500, 64)), []string{"--cf"}},
		job{writeV3Named(t), []string{"--cf"}}, // dimension_names become _ARRAY_DIMENSIONS
	)
	tmp := t.TempDir()
	retried := 0
	var groups []string
	var warned []int // groups dt64 warned xarray would not decode exactly
	var wants [][]int64
	for i, j := range jobs {
		// What dt64 decodes the source to, and to the destination's unit.
		want := filepath.Join(tmp, "want", strings.Repeat("w", i+1)+".zarr")
		if _, _, err := run(t, nil, "transcode", j.src, want, "--unit", "ns", "-q"); err != nil {
			t.Fatal(err)
		}
		wantNs := readNanoseconds(t, want)
		flags := j.flags
		for attempt := 0; attempt < 2; attempt++ {
			g := filepath.Join(tmp, strings.Repeat("g", i+1)+"-"+string(rune('a'+attempt))+".zarr")
			dst := filepath.Join(g, "time")
			_, errOut, err := run(t, nil, append([]string{"transcode", j.src, dst, "--format", "2"}, flags...)...)
			if err != nil {
				t.Fatalf("%s %v: %v", j.src, flags, err)
			}
			if err := os.WriteFile(filepath.Join(g, ".zgroup"), []byte(`{"zarr_format": 2}`), 0o666); err != nil {
				t.Fatal(err)
			}
			// The values, back through dt64: the destination's units floor
			// them (a float source's instants are rounded to the unit).
			back := filepath.Join(tmp, "back", strings.Repeat("b", i+1)+string(rune('a'+attempt))+".zarr")
			if _, _, err := run(t, nil, "transcode", dst, back, "--unit", "ns", "-q"); err != nil {
				t.Fatal(err)
			}
			floored := readNanoseconds(t, back)
			for k := range floored {
				if (floored[k] == dtype.NaT) != (wantNs[k] == dtype.NaT) || (wantNs[k] != dtype.NaT && (wantNs[k]-floored[k] >= 1e9 || floored[k]-wantNs[k] >= 1e9)) {
					t.Fatalf("%s %v: element %d decodes to %d through the CF destination, %d directly", j.src, flags, k, floored[k], wantNs[k])
				}
			}
			m := suggestedUnits.FindStringSubmatch(errOut)
			if attempt == 1 && strings.Contains(errOut, "warning") {
				t.Errorf("%s %v: the suggested units still warn: %s", j.src, flags, errOut)
			}
			if m == nil || attempt == 1 {
				groups, wants = append(groups, g), append(wants, floored)
				break
			}
			warned = append(warned, len(groups))
			groups, wants = append(groups, g), append(wants, floored)
			t.Logf("%s %v: dt64 warns that xarray would round; again with --cf-units %q", filepath.Base(filepath.Dir(j.src)), flags, m[1])
			retried++
			flags = []string{"--cf-units", m[1]}
		}
	}
	if retried == 0 {
		t.Error("no job needed other units: the float64 rounding warning is not tested")
	}
	got := xarrayDecode(t, py, "decode_times.py", groups...)
	rounded := 0
	for i, g := range groups {
		r := got[g]
		if r.Error != "" || len(r.Values) != len(wants[i]) {
			t.Errorf("%s: xarray: %s (%d values, want %d)", g, r.Error, len(r.Values), len(wants[i]))
			continue
		}
		for k, x := range r.Values {
			if x != wants[i][k] {
				if slices.Contains(warned, i) {
					rounded++ // as dt64 warned
					break
				}
				t.Errorf("%s: xarray decodes element %d as %d, dt64 wrote %d", g, k, x, wants[i][k])
				break
			}
		}
	}
	if rounded == 0 {
		t.Error("xarray decoded every output dt64 warned about exactly: the warning is not shown to be needed")
	}
}

// xarrayDecoded is what a tools/xarray decoding script says of a group:
// the values (int64 ns, NaT for null) or why xarray did not decode them.
type xarrayDecoded struct {
	Values []int64
	Error  string
}

// xarrayDecode runs py on tools/xarray/script with args and reads its
// JSON answer, one xarrayDecoded per group.
func xarrayDecode(t *testing.T, py, script string, args ...string) map[string]xarrayDecoded {
	t.Helper()
	out, err := exec.Command(py, append([]string{filepath.Join("..", "..", "tools", "xarray", script)}, args...)...).Output()
	if err != nil {
		t.Fatalf("%s: %v", script, err)
	}
	var got map[string]struct {
		Values []*int64 `json:"values"`
		Error  string   `json:"error"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	res := map[string]xarrayDecoded{}
	for g, r := range got {
		d := xarrayDecoded{Error: r.Error, Values: make([]int64, len(r.Values))}
		for i, v := range r.Values {
			d.Values[i] = dtype.NaT
			if v != nil {
				d.Values[i] = *v
			}
		}
		res[g] = d
	}
	return res
}

// TestCFKillResume: dt64 processes transcoding a CF source, killed at
// random moments and resumed, end byte for byte as an uninterrupted run:
// to datetime64, to CF, and from floats.
func TestCFKillResume(t *testing.T) {
	rounds := 9
	if testing.Short() {
		rounds = 3
	}
	killResumeRounds(t, writeCFSource(t, 6000, 64, false), rounds, [][]string{
		{"--unit", "ns", "--format", "3", "--codec", "zstd:1", "--workers", "2", "-q"},
		{"--cf-units", "seconds since 2000-01-01 00:00:30", "--codec", "gzip:1", "--workers", "2", "-q"},
		{"--format", "3", "--shard-chunks", "2", "--workers", "1", "-q"},
	})
	killResumeRounds(t, writeCFSource(t, 6000, 64, true), 3, [][]string{
		{"--unit", "us", "--format", "3", "--workers", "2", "-q"},
	})
}

// TestCFPartsVerify: a CF source done in three parts, each verified,
// and finalized with a verification of the whole array, ends as one run.
func TestCFPartsVerify(t *testing.T) {
	src := writeCFSource(t, 3000, 100, true)
	flags := []string{"--unit", "ns", "--format", "3", "--overflow", "nat", "-q"}
	ref := filepath.Join(t.TempDir(), "ref.zarr")
	out, _, err := run(t, nil, append([]string{"transcode", src, ref, "--verify"}, flags...)...)
	if err != nil || !strings.Contains(out, "verified") {
		t.Fatalf("%v\n%s", err, out)
	}
	dst := filepath.Join(t.TempDir(), "dst.zarr")
	for _, p := range []string{"2/3", "0/3", "1/3"} {
		out, _, err := run(t, nil, append([]string{"transcode", src, dst, "--part", p, "--verify"}, flags...)...)
		if err != nil || !strings.Contains(out, "verified") {
			t.Fatalf("part %s: %v\n%s", p, err, out)
		}
	}
	sameDirs(t, ref, dst)
	out, _, err = run(t, nil, append([]string{"transcode", src, dst, "--finalize", "--verify"}, flags...)...)
	if err != nil || !strings.Contains(out, "verified") {
		t.Fatalf("finalize: %v\n%s", err, out)
	}
	// A damaged destination chunk is caught.
	ctx := context.Background()
	a, err := zarr.Open(ctx, storage.NewDir(dst))
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]int64, a.ChunkLen())
	if err := a.ReadChunk(ctx, []int64{5}, vals); err != nil {
		t.Fatal(err)
	}
	vals[7]++
	if err := a.WriteChunk(ctx, []int64{5}, vals); err != nil {
		t.Fatal(err)
	}
	_, _, err = run(t, nil, append([]string{"transcode", src, dst, "--finalize", "--verify"}, flags...)...)
	if err == nil || !strings.Contains(err.Error(), "c/5") {
		t.Errorf("verify of a damaged chunk: %v", err)
	}
}

// TestCFValidateLeftovers: validate warns about a datetime64 array that
// still has CF units (and passes it), and reports a CF value that is no
// instant.
func TestCFValidateLeftovers(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "native.zarr")
	a, err := zarr.Create(ctx, storage.NewDir(dir), zarr.Metadata{
		Format: 2, DataType: nsType, Shape: []int64{4}, ChunkShape: []int64{4}, FillValue: dtype.NaT,
		Attributes: json.RawMessage(`{"units":"hours since 1900-01-01","calendar":"standard"}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WriteChunk(ctx, []int64{0}, []int64{1, 2, 3, dtype.NaT}); err != nil {
		t.Fatal(err)
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := run(t, nil, "validate", dir)
	if err != nil || !strings.HasPrefix(out, "ok:") || !strings.Contains(errOut, "warning") || !strings.Contains(errOut, "hours since 1900-01-01") {
		t.Errorf("validate: %v\nstdout %s\nstderr %s", err, out, errOut)
	}

	src := writeCFSource(t, 200, 100, true)
	b := make([]byte, 800)
	cf, err := zarr.Open(ctx, storage.NewDir(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := cf.ReadChunkRaw(ctx, []int64{1}, b); err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint64(b[8*9:], math.Float64bits(math.Inf(1)))
	if _, err := cf.WriteChunkRaw(ctx, []int64{1}, b); err != nil {
		t.Fatal(err)
	}
	out, _, err = run(t, nil, "validate", src)
	if err == nil || !strings.Contains(out, "c/1") && !strings.Contains(out, "1:") || !strings.Contains(out, "+Inf") {
		t.Errorf("validate of +Inf in a CF array: %v\n%s", err, out)
	}
}

// TestCFGarbagePadding: inspect and validate read a CF array whose edge
// chunk's padding holds values that do not decode (a writer may leave it
// uninitialized): padding is not data.
func TestCFGarbagePadding(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t.zarr")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		".zarray": `{"chunks":[4],"compressor":null,"dtype":"<i8","fill_value":null,"filters":null,"order":"C","shape":[6],"zarr_format":2}`,
		".zattrs": `{"units":"days since 1970-01-01 12:00","calendar":"proleptic_gregorian"}`, // decoded to ns: the garbage overflows
	}
	for k, v := range files {
		if err := os.WriteFile(filepath.Join(dir, k), []byte(v), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	for c, vals := range [][]uint64{{0, 1, 2, 3}, {4, 5, math.MaxInt64, math.MaxInt64}} {
		b := make([]byte, 32)
		for i, v := range vals {
			binary.LittleEndian.PutUint64(b[8*i:], v)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(c)), b, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err := run(t, nil, "inspect", dir)
	if err != nil || !strings.Contains(out, "6: 6 valid, 0 NaT") || !strings.Contains(out, "1970-01-06T12:00:00") {
		t.Errorf("inspect: %v\n%s", err, out)
	}
	if out, _, err := run(t, nil, "validate", dir); err != nil || !strings.HasPrefix(out, "ok:") {
		t.Errorf("validate: %v\n%s", err, out)
	}
}

// TestCFFlags: --cf-units with --unit is a mistake on the command line;
// units that do not parse, weeks (xarray reads none) and a calendar unit
// are plan errors naming what is wrong.
func TestCFFlags(t *testing.T) {
	src := writeSample(t, 100, 10)
	dst := filepath.Join(t.TempDir(), "d.zarr")
	if _, _, err := run(t, nil, "transcode", src, dst, "--cf-units", "seconds since 2000-01-01", "--unit", "s"); !isUsage(err) {
		t.Errorf("--cf-units with --unit: %v, want a usage error", err)
	}
	for want, args := range map[string][]string{
		"fortnights":    {"--cf-units", "fortnights since 2000-01-01"},
		"2000-13-01":    {"--cf-units", "seconds since 2000-13-01"},
		"weeks":         {"--cf-units", "weeks since 2000-01-01"},
		"datetime64[M]": {"--cf", "--unit", "M"},
	} {
		_, _, err := run(t, nil, append([]string{"transcode", src, dst}, args...)...)
		if err == nil || isUsage(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("%v: %v, want a plan error naming %q", args, err, want)
		}
	}
}

// TestCFFloatFlag: --cf-float chooses the float rule: by default the
// float64 day counts xarray wrote for whole hours decode to those hours;
// --cf-float exact floors their binary values (a few hundred ns early);
// another word is a usage error naming the flag.
func TestCFFloatFlag(t *testing.T) {
	src := filepath.Join("..", "..", "testdata", "xarray", "days_float_standard_1500.zarr", "time")
	dir := t.TempDir()
	short, exact := filepath.Join(dir, "short.zarr"), filepath.Join(dir, "exact.zarr")
	if _, _, err := run(t, nil, "transcode", src, short, "--unit", "ns", "-q"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, nil, "transcode", src, exact, "--unit", "ns", "--cf-float", "exact", "-q"); err != nil {
		t.Fatal(err)
	}
	s, e := readNanoseconds(t, short), readNanoseconds(t, exact)
	hours, early := 0, 0
	for i := range s {
		if s[i]%3600e9 == 0 {
			hours++
		}
		if e[i] < s[i] && s[i]-e[i] < 1e6 {
			early++
		}
	}
	if hours != len(s) || early == 0 {
		t.Errorf("%d of %d whole hours by default, %d a little early under exact: %v / %v", hours, len(s), early, s[:3], e[:3])
	}
	_, _, err := run(t, nil, "transcode", src, filepath.Join(dir, "x.zarr"), "--cf-float", "nearest")
	if err == nil || !strings.Contains(err.Error(), "--cf-float") {
		t.Errorf("--cf-float nearest: %v", err)
	}
}

// TestCFRoundingWords: what the commands say about a remainder in the
// unit matches what they do: a native datetime64 source's is floored
// (export's summary says so), a CF float's rounded half to even by
// default (export's summary and --help, transcode's --help, which gives
// the binary value floored as --cf-float exact's).
func TestCFRoundingWords(t *testing.T) {
	dir := t.TempDir()
	out, _, err := run(t, nil, "export", writeSample(t, 100, 10), filepath.Join(dir, "native.parquet"), "--unit", "s", "-q", "--no-sync")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "lossy (a remainder floored away)\n") {
		t.Errorf("native export: %q, want its lossy values floored", out)
	}
	out, _, err = run(t, nil, "export", writeCFSource(t, 100, 10, true), filepath.Join(dir, "cf.parquet"), "--unit", "s", "-q", "--no-sync")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "0 overflowed, ") || strings.Contains(out, " 0 lossy") || !strings.Contains(out, "rounded off, half to even)") {
		t.Errorf("CF float export: %q, want lossy values said to be rounded", out)
	}
	words := func(args ...string) string {
		out, _, err := run(t, nil, args...)
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(out), " ")
	}
	help := words("transcode", "--help")
	for _, want := range []string{"a float, by default (--cf-float shortest), as the coarsest instant whose nearest float it is, rounded half to even",
		"or with --cf-float exact as the exact binary value it is, floored"} {
		if !strings.Contains(help, want) {
			t.Errorf("transcode --help does not say %q", want)
		}
	}
	if help = words("export", "--help"); !strings.Contains(help, "floats to the coarsest instant each stands for, rounded half to even to the unit") ||
		strings.Contains(help, "Values are floored") {
		t.Errorf("export --help does not say CF floats are rounded: %s", help)
	}
}

// TestCFValidateEveryElement: validate counts every element of a CF array
// that cannot be decoded, names the first ten of a chunk and counts the
// rest, and does not count an edge chunk's padding (which repeats the
// chunk's first element, here one of them).
func TestCFValidateEveryElement(t *testing.T) {
	ctx := context.Background()
	src := writeCFSource(t, 250, 100, true) // chunks 0, 1 and the edge chunk 2 (50 elements)
	a, err := zarr.Open(ctx, storage.NewDir(src))
	if err != nil {
		t.Fatal(err)
	}
	bad := map[int64][]int{0: {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 99}, 1: {9, 20, 30}, 2: {0, 49}}
	values := []float64{math.Inf(1), math.Inf(-1), 1e300, -1e300}
	b := make([]byte, 800)
	for c, idx := range bad {
		if _, _, err := a.ReadChunkRaw(ctx, []int64{c}, b); err != nil {
			t.Fatal(err)
		}
		for j, i := range idx {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(values[j%len(values)]))
		}
		if _, err := a.WriteChunkRaw(ctx, []int64{c}, b); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err := run(t, nil, "validate", src)
	if err == nil || !strings.Contains(err.Error(), "20 problems found") {
		t.Errorf("validate: %v, want 20 problems (15 + 3 + 2)", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{}
	for _, i := range bad[0][:10] {
		want = append(want, fmt.Sprintf("0: element %d: ", i))
	}
	want = append(want, "0: 5 more elements that cannot be decoded (15 in this chunk, the first 10 named)")
	for _, c := range []int64{1, 2} {
		for _, i := range bad[c] {
			want = append(want, fmt.Sprintf("%d: element %d: ", c, i))
		}
	}
	slices.Sort(lines) // chunks are checked in parallel
	sorted := slices.Sorted(slices.Values(want))
	if len(lines) != len(want) {
		t.Fatalf("validate printed %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i := range lines {
		if !strings.HasPrefix(lines[i], sorted[i]) {
			t.Errorf("line %q, want %q…", lines[i], sorted[i])
		}
	}
}

// TestCFInfHint: a CF float +Inf stops a transcode with the overflow
// hint, not the advice to choose a coarser unit, which no infinity fits.
func TestCFInfHint(t *testing.T) {
	ctx := context.Background()
	src := writeCFSource(t, 250, 100, true)
	a, err := zarr.Open(ctx, storage.NewDir(src))
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 800)
	if _, _, err := a.ReadChunkRaw(ctx, []int64{0}, b); err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint64(b[8*3:], math.Float64bits(math.Inf(1)))
	if _, err := a.WriteChunkRaw(ctx, []int64{0}, b); err != nil {
		t.Fatal(err)
	}
	args := []string{"transcode", src, filepath.Join(t.TempDir(), "out.zarr"), "-q"}
	_, _, err = run(t, nil, args...)
	cmd, _, _ := newRootCmd().Find(args[:1])
	_ = cmd.ParseFlags(args[1:])
	if h := hintFor(cmd, err); err == nil || !strings.Contains(err.Error(), "+Inf") || strings.Contains(h, "coarser") || !strings.Contains(h, "--overflow nat or clamp") {
		t.Errorf("transcode of +Inf: %v, hint %q; want the overflow hint", err, h)
	}
}
