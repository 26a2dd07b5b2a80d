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
	"syscall"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// writeGroupSample writes a v2 hierarchy with consolidated metadata: the
// time array "stamp" (writeSample's, 94 chunks), a float64 array "temp"
// of 60 chunks and a subgroup "sub" holding another copy of stamp.
func writeGroupSample(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "group.zarr")
	stamp := writeSample(t, 6000, 64)
	for _, p := range []string{"stamp", "sub/stamp"} {
		if err := os.CopyFS(filepath.Join(dir, filepath.FromSlash(p)), os.DirFS(stamp)); err != nil {
			t.Fatal(err)
		}
	}
	root := storage.NewDir(dir)
	for k, v := range map[string]string{
		".zgroup": "{\n    \"zarr_format\": 2\n}", ".zattrs": "{\n    \"title\": \"sample\"\n}",
		"sub/.zgroup": "{\n    \"zarr_format\": 2\n}",
	} {
		if err := root.Set(ctx, k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	sub, err := storage.Sub(root, "temp")
	if err != nil {
		t.Fatal(err)
	}
	a, err := zarr.Create(ctx, sub, zarr.Metadata{
		Format: 2, Numeric: zarr.NumericType{Kind: zarr.Float, Size: 8}, Shape: []int64{6000}, ChunkShape: []int64{100},
		Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}, zarr.ZstdCodec{Level: 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 800)
	for _, c := range a.ChunkCoords() {
		for i := range 100 {
			binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(float64(c[0])*100+float64(i)/3))
		}
		if _, err := a.WriteChunkRaw(ctx, c, raw); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := zarr.WriteConsolidated(ctx, root); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestTranscodeGroupKillResume kills real dt64 processes transcoding a
// whole hierarchy at random moments (up to three times a round) and
// resumes: every result is byte for byte the uninterrupted run's, and a
// destination whose consolidated metadata exists is already complete.
func TestTranscodeGroupKillResume(t *testing.T) {
	src := writeGroupSample(t)
	flags := []string{"--unit", "us", "--format", "3", "--codec", "zstd:1", "--workers", "2", "-q"}
	ref := filepath.Join(t.TempDir(), "ref.zarr")
	if out, errOut, err := run(t, nil, append([]string{"transcode", src, ref}, flags...)...); err != nil {
		t.Fatalf("%v\n%s%s", err, out, errOut)
	}
	files := chunkFiles(ref)
	start := time.Now()
	cmd := dt64Subprocess([]string{"DT64_TRANSCODE_TEST_DELAY=2ms"}, append([]string{"transcode", src, filepath.Join(t.TempDir(), "timed.zarr")}, flags...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	duration := time.Since(start)
	rounds := 10
	if testing.Short() {
		rounds = 3
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	kills := 0
	for round := range rounds {
		dst := filepath.Join(t.TempDir(), "dst.zarr")
		args := append([]string{"transcode", src, dst}, flags...)
		for attempt := range 1 + rng.IntN(3) {
			if attempt > 0 {
				args = append(args, "--resume")
			}
			killed, when, err := runAndKill(t, rng, args, dst, files, duration, 3)
			if err != nil {
				t.Fatalf("round %d attempt %d: %v", round, attempt, err)
			}
			if killed {
				kills++
			}
			if consolidated(t, dst) {
				completeSoFar(t, ref, dst, fmt.Sprintf("round %d attempt %d, killed %s", round, attempt, when))
			}
		}
		out, errOut, err := run(t, nil, append(args[:len(args):len(args)], "--resume")...)
		if err != nil {
			t.Fatalf("round %d: resume: %v\n%s%s", round, err, out, errOut)
		}
		sameDirs(t, ref, dst)
		if t.Failed() {
			t.Fatalf("round %d: the resumed result differs", round)
		}
	}
	t.Logf("%d rounds, %d kills", rounds, kills)
	if kills < rounds/2 {
		t.Errorf("only %d kills in %d rounds", kills, rounds)
	}
}

// consolidated reports whether the v3 root in dir carries consolidated
// metadata (the last thing a run writes).
func consolidated(t *testing.T, dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "zarr.json"))
	if err != nil {
		return false
	}
	var doc struct {
		CM json.RawMessage `json:"consolidated_metadata"`
	}
	return json.Unmarshal(b, &doc) == nil && len(doc.CM) > 0 && string(doc.CM) != "null"
}

func TestGroupCommands(t *testing.T) {
	src := writeGroupSample(t)
	dst := filepath.Join(t.TempDir(), "out.zarr")
	out, errOut, err := run(t, nil, "transcode", src, dst, "--unit", "ms", "--format", "3", "--exclude", "sub/*", "--verify")
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, errOut)
	}
	for _, want := range []string{"summary: 2 arrays", "stamp", "transcode", "temp", "migrate", "verified: 2 arrays"} {
		if !strings.Contains(out, want) {
			t.Errorf("transcode output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "a hierarchy: 2 groups, 2 arrays") {
		t.Errorf("plan: %s", errOut)
	}
	out, _, err = run(t, nil, "inspect", dst)
	if err != nil || !strings.Contains(out, "/stamp") || !strings.Contains(out, "M8[ms]") || !strings.Contains(out, "float64") || !strings.Contains(out, "range 20") {
		t.Errorf("inspect: %v\n%s", err, out)
	}
	out, _, err = run(t, nil, "inspect", "--json", dst)
	var rep struct {
		Kind  string `json:"kind"`
		Nodes []struct {
			Path string `json:"path"`
			Time *struct {
				Min *int64 `json:"min"`
			} `json:"time"`
		} `json:"nodes"`
	}
	if err != nil || json.Unmarshal([]byte(out), &rep) != nil || rep.Kind != "group" || len(rep.Nodes) != 4 || rep.Nodes[1].Path != "stamp" || rep.Nodes[1].Time == nil || rep.Nodes[1].Time.Min == nil {
		t.Errorf("inspect --json: %v %+v\n%s", err, rep, out)
	}
	out, _, err = run(t, nil, "validate", dst)
	if err != nil || !strings.Contains(out, "ok: 2 arrays valid") {
		t.Errorf("validate: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dst, "temp", "0"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err = run(t, nil, "validate", dst)
	if err == nil || !strings.Contains(out, "temp/0") {
		t.Errorf("validate of a damaged chunk: %v\n%s", err, out)
	}
	// --overwrite replaces a hierarchy dt64 wrote.
	_, _, err = run(t, nil, "transcode", src, dst, "--overwrite", "--format", "3")
	if err != nil {
		t.Fatalf("overwrite of dt64's own hierarchy: %v", err)
	}
	// With a file dt64 did not write in it, the refusal names the file
	// and leaves the destination as it is.
	if err := os.WriteFile(filepath.Join(dst, "README"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := dirFiles(t, dst)
	_, _, err = run(t, nil, "transcode", src, dst, "--overwrite", "--unit", "s")
	if err == nil || !strings.Contains(err.Error(), "README") {
		t.Errorf("overwrite with a foreign file: %v", err)
	}
	after := dirFiles(t, dst)
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Error("a refused overwrite changed the destination")
	}
}

// TestGroupPlanCF: the plan names a CF time array's stored numbers and
// what they become, and says why a CF array it does not convert is
// carried over as numbers.
func TestGroupPlanCF(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "out.zarr")
	_, errOut, err := run(t, nil, "transcode", filepath.Join("..", "..", "testdata", "zarr", "groups", "xarray_v2.zarr"), dst, "--unit", "us")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`array: +time +<i8 \[\d+\]: transcode <i8 -> <M8\[us\]`).MatchString(errOut) || strings.Contains(errOut, "Unit(") {
		t.Errorf("plan of a CF time array:\n%s", errOut)
	}
	dst = filepath.Join(t.TempDir(), "noleap.zarr")
	noleap := filepath.Join("..", "..", "testdata", "xarray", "noleap.zarr")
	_, _, err = run(t, nil, "transcode", noleap, dst)
	if err == nil || !strings.Contains(err.Error(), `time: a time array that cannot be converted`) || !strings.Contains(err.Error(), "--skip-unconvertible") {
		t.Errorf("a refused CF array, not skipped: %v", err)
	}
	out, errOut, err := run(t, nil, "transcode", noleap, dst, "--skip-unconvertible")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, "note:        time: not converted") || !strings.Contains(errOut, `calendar "noleap"`) {
		t.Errorf("plan of a refused CF array:\n%s", errOut)
	}
	if !regexp.MustCompile(`time +copy .*\(not converted, see the note\)`).MatchString(out) {
		t.Errorf("summary of a refused CF array:\n%s", out)
	}
}

// runAndKill runs dt64 with args in a subprocess, slowed down, and kills
// it with SIGKILL: after 1 to files chunks of dst are written
// (killAfterChunks), or, one time in odds, after a random time up to
// duration. It reports whether the kill landed (the run may finish
// first) and when; err is a run that failed on its own.
func runAndKill(t *testing.T, rng *rand.Rand, args []string, dst string, files int, duration time.Duration, odds int) (killed bool, when string, err error) {
	t.Helper()
	cmd := dt64Subprocess([]string{"DT64_TRANSCODE_TEST_DELAY=2ms"}, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if rng.IntN(odds) > 0 {
		when = killAfterChunks(t, cmd, dst, 1+rng.IntN(files))
	} else {
		d := time.Duration(rng.Int64N(int64(duration)))
		time.Sleep(d)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		when = fmt.Sprint("after ", d.Round(time.Millisecond))
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); ok && ee.Sys().(syscall.WaitStatus).Signaled() {
		return true, when, nil
	}
	return false, when, err
}

// TestGroupCFBounds: inspect and validate of a group read CF bounds that
// lack units or a calendar with their coordinate's, as transcode converts
// them and as xarray decodes them (testdata/xarray-bounds: time_bnds
// without units, jtime_bnds with units but not jtime's julian calendar).
func TestGroupCFBounds(t *testing.T) {
	dir := filepath.Join("..", "..", "testdata", "xarray-bounds")
	raw, err := os.ReadFile(filepath.Join(dir, "bounds.values.json"))
	if err != nil {
		t.Fatal(err)
	}
	var xr map[string][]int64
	if err := json.Unmarshal(raw, &xr); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "bounds.zarr")
	out, _, err := run(t, nil, "inspect", "--json", src)
	var rep struct {
		Nodes []struct {
			Path string `json:"path"`
			Note string `json:"note"`
			Time *struct {
				MinText string `json:"min_text"`
				MaxText string `json:"max_text"`
			} `json:"time"`
		} `json:"nodes"`
	}
	if err != nil || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("inspect --json: %v\n%s", err, out)
	}
	day := func(ns int64) string { return time.Unix(0, ns).UTC().Format("2006-01-02") }
	checked := 0
	for _, n := range rep.Nodes {
		coord, isBounds := map[string]string{"time_bnds": "time", "jtime_bnds": "jtime"}[n.Path]
		if !isBounds {
			continue
		}
		checked++
		w := xr[n.Path]
		if n.Time == nil || !strings.HasPrefix(n.Note, "CF bounds of "+coord) ||
			!strings.HasPrefix(n.Time.MinText, day(slices.Min(w))) || !strings.HasPrefix(n.Time.MaxText, day(slices.Max(w))) {
			t.Errorf("%s: note %q, time %+v; want the bounds of %s from %s to %s, as xarray decodes them", n.Path, n.Note, n.Time, coord, day(slices.Min(w)), day(slices.Max(w)))
		}
	}
	if checked != 2 {
		t.Errorf("inspect lists %d of the 2 bounds arrays:\n%s", checked, out)
	}
	out, _, err = run(t, nil, "validate", src)
	if err != nil || !strings.Contains(out, "time_bnds: (CF bounds of time: read with its units and calendar) ok") ||
		!strings.Contains(out, "jtime_bnds: (CF bounds of jtime: read with its calendar) ok") {
		t.Errorf("validate: %v\n%s", err, out)
	}
}

// TestGroupBadCFAttributes: a group's CF time array whose attributes do
// not parse is a problem for validate (as validating the array alone is,
// and transcode refuses it), not a numeric array found valid; inspect
// says it is not decoded, and why.
func TestGroupBadCFAttributes(t *testing.T) {
	for _, c := range []struct{ attr, value, reason string }{
		{"units", "hours since 2000-13-01", "month 13 is out of range"},
		{"units", "hours since", "hours since"},
		{"calendar", "foo", `calendar "foo"`},
	} {
		t.Run(c.attr+"="+c.value, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "g.zarr")
			if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "testdata", "xarray", "hourly_int.zarr"))); err != nil {
				t.Fatal(err)
			}
			attrsFile := filepath.Join(dir, "time", ".zattrs")
			var attrs map[string]any
			b, err := os.ReadFile(attrsFile)
			if err != nil || json.Unmarshal(b, &attrs) != nil {
				t.Fatal(err)
			}
			attrs[c.attr] = c.value
			if b, err = json.Marshal(attrs); err != nil || os.WriteFile(attrsFile, b, 0o644) != nil {
				t.Fatal(err)
			}
			out, _, err := run(t, nil, "validate", dir)
			if err == nil || !strings.Contains(out, "time: a Zarr array of int64 with CF time attribute") || !strings.Contains(out, c.reason) || strings.Contains(out, "ok:") {
				t.Errorf("validate: %v\n%s", err, out)
			}
			out, _, err = run(t, nil, "inspect", dir)
			if err != nil || !strings.Contains(out, "not decoded: CF time attribute") || !strings.Contains(out, c.reason) {
				t.Errorf("inspect: %v\n%s", err, out)
			}
		})
	}
}

// TestValidateCFLeftovers: a datetime64 array that carries CF units gets
// a warning naming the attribute and what to do; the array is still
// valid.
func TestValidateCFLeftovers(t *testing.T) {
	src := writeSample(t, 600, 64)
	if err := os.WriteFile(filepath.Join(src, ".zattrs"), []byte(`{"units": "hours since 2000-01-01", "calendar": "standard"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := run(t, nil, "validate", src)
	all := out + errOut
	if err != nil || !strings.Contains(all, `CF time attribute units "hours since 2000-01-01", which describes numbers, not datetime64 values`) ||
		!strings.Contains(all, "remove units and calendar") || !strings.Contains(all, "ok:") {
		t.Errorf("validate: %v\n%s", err, all)
	}
}

// validate of a group warns of every leftover, named by its path in the
// hierarchy: temporary files in time arrays, other arrays and at the
// root (a group overwrite killed early leaves one there), and files that
// belong to no array or group; they are warnings, not problems (a
// tester found those outside time arrays unreported, the others without
// their array's path).
func TestValidateGroupLeftovers(t *testing.T) {
	src := writeGroupSample(t)
	for _, f := range []string{".dt64-tmp-0123456789abcdef-.dt64-store-wipe.json", "README", "temp/.dt64-tmp-0123456789abcdef-3",
		"stamp/.dt64-tmp-0123456789abcdef-5", "stamp/junk", "sub/notes.txt"} {
		if err := os.WriteFile(filepath.Join(src, filepath.FromSlash(f)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, errOut, err := run(t, nil, "validate", src)
	if err != nil {
		t.Fatalf("validate: %v\n%s", err, errOut)
	}
	for _, want := range []string{
		".dt64-tmp-0123456789abcdef-.dt64-store-wipe.json: warning: temporary file",
		"README: warning: not part of an array",
		"temp/.dt64-tmp-0123456789abcdef-3: warning: temporary file",
		"stamp/.dt64-tmp-0123456789abcdef-5: warning: temporary file",
		"stamp/junk: warning: not a chunk",
		"sub/notes.txt: warning: not part of an array",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("no %q in:\n%s", want, errOut)
		}
	}
	if n := strings.Count(errOut, "warning:"); n != 6 {
		t.Errorf("%d warnings, want 6:\n%s", n, errOut)
	}
}
