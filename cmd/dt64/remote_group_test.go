package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// TestS3GroupInspectValidate: inspect and validate of a group in S3 (the
// real server) work as on the directory it was copied from, v2 and v3,
// and name the store by its URL, never "s3:/bkt".
func TestS3GroupInspectValidate(t *testing.T) {
	f := newS3Fixture(t)
	dir := writeGroupSample(t)
	for _, format := range []string{"2", "3"} {
		url := f.url("group" + format + ".zarr")
		local := filepath.Join(t.TempDir(), "group.zarr")
		for _, dst := range []string{url, local} {
			if _, _, err := run(t, nil, "transcode", dir, dst, "--format", format, "-q"); err != nil {
				t.Fatal(err)
			}
		}
		want, _, err := run(t, nil, "inspect", "--json", local)
		if err != nil {
			t.Fatal(err)
		}
		got, errOut, err := run(t, nil, "inspect", "--json", url)
		if err != nil {
			t.Fatalf("inspect %s: %v\n%s", url, err, errOut)
		}
		if strings.ReplaceAll(got, url, local) != want {
			t.Errorf("inspect of v%s in S3:\n%s\nwant, as of the directory,\n%s", format, got, want)
		}
		out, errOut, err := run(t, nil, "validate", url)
		if err != nil || !strings.Contains(out, "ok: 3 arrays valid") {
			t.Errorf("validate %s: %v\n%s%s", url, err, out, errOut)
		}
	}
	// A damaged chunk is named with the store's URL.
	chunk := filepath.Join(f.path("group3.zarr"), "temp", "3")
	if err := os.WriteFile(chunk, []byte("not zstd"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, nil, "validate", f.url("group3.zarr"))
	if err == nil || !strings.Contains(out, "temp/3") || !strings.Contains(err.Error(), "s3://"+f.bucket+"/group3.zarr") {
		t.Errorf("validate of a damaged chunk in S3: %v\n%s", err, out)
	}
	if _, _, err := run(t, nil, "inspect", f.url("group3.zarr/nothing")); err == nil || strings.Contains(err.Error(), "s3:/"+f.bucket) {
		t.Errorf("inspect of a missing array in S3: %v", err)
	}
}

// TestS3GroupOddNames: inspect and validate of an S3 group whose prefix
// and member names hold a space and a "#" find every member: an s3://
// location is keys as typed, so a member's location must not be
// URL-escaped (it was: "s3://bkt/grp%20x.zarr/my%20var%231: no Zarr array
// here").
func TestS3GroupOddNames(t *testing.T) {
	f := newS3Fixture(t)
	dir := writeGroupSample(t)
	if err := os.CopyFS(filepath.Join(dir, "my var#1"), os.DirFS(filepath.Join(dir, "stamp"))); err != nil {
		t.Fatal(err)
	}
	if _, err := zarr.WriteConsolidated(context.Background(), storage.NewDir(dir)); err != nil {
		t.Fatal(err)
	}
	url := f.url("grp x.zarr")
	if _, _, err := run(t, nil, "transcode", dir, url, "--format", "3", "-q"); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := run(t, nil, "validate", url)
	if err != nil || !strings.Contains(out, "ok: 4 arrays valid") {
		t.Errorf("validate %s: %v\n%s%s", url, err, out, errOut)
	}
	out, errOut, err = run(t, nil, "inspect", url)
	if err != nil || !strings.Contains(out, "/my var#1") || strings.Contains(out, "not opened") {
		t.Errorf("inspect %s: %v\n%s%s", url, err, out, errOut)
	}
}

// TestHTTPGroup: a group served over HTTP (an httptest file server: no
// listing, missing chunks are 404s) with consolidated metadata, as xarray
// opens it, is transcoded byte for byte as from its directory, and
// inspect and validate of it and of one of its arrays work, finding the
// stored chunks from the grid.
func TestHTTPGroup(t *testing.T) {
	dir := writeGroupSample(t)
	hs := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer hs.Close()
	fromDir, fromHTTP := filepath.Join(t.TempDir(), "d.zarr"), filepath.Join(t.TempDir(), "h.zarr")
	for _, c := range [][2]string{{dir, fromDir}, {hs.URL, fromHTTP}} {
		if _, errOut, err := run(t, nil, "transcode", c[0], c[1], "--format", "3", "-q"); err != nil {
			t.Fatalf("transcode %s: %v\n%s", c[0], err, errOut)
		}
	}
	sameDirs(t, fromDir, fromHTTP)
	for _, sub := range []string{"", "/stamp", "/temp"} {
		want, _, err := run(t, nil, "inspect", "--json", dir+sub)
		if err != nil && sub != "/temp" {
			t.Fatal(err)
		}
		got, errOut, err := run(t, nil, "inspect", "--json", hs.URL+sub)
		if sub == "/temp" { // not a time array: refused alike
			if err == nil {
				t.Errorf("inspect of a float array over http: no error")
			}
			continue
		}
		if err != nil {
			t.Fatalf("inspect %s: %v\n%s", hs.URL+sub, err, errOut)
		}
		if got = strings.ReplaceAll(got, hs.URL, dir); got != want {
			t.Errorf("inspect %s:\n%s\nwant, as of the directory,\n%s", hs.URL+sub, got, want)
		}
	}
	out, errOut, err := run(t, nil, "validate", hs.URL)
	if err != nil || !strings.Contains(out, "ok: 3 arrays valid") || !strings.Contains(out, "stamp: ok: 94 chunks (81 present)") {
		t.Errorf("validate over http: %v\n%s%s", err, out, errOut)
	}
	// export walks the group through its consolidated metadata too (it
	// listed the store, which http cannot): the same file as from the
	// directory.
	exDir, exHTTP := filepath.Join(t.TempDir(), "d.arrow"), filepath.Join(t.TempDir(), "h.arrow")
	for _, c := range [][2]string{{dir, exDir}, {hs.URL, exHTTP}} {
		if _, errOut, err := run(t, nil, "export", c[0], c[1], "-q"); err != nil {
			t.Fatalf("export %s: %v\n%s", c[0], err, errOut)
		}
	}
	a, aerr := os.ReadFile(exDir)
	b, berr := os.ReadFile(exHTTP)
	if aerr != nil || berr != nil || !bytes.Equal(a, b) {
		t.Errorf("export over http: %d bytes differ from the directory's %d", len(b), len(a))
	}
	// Without consolidated metadata there is no hierarchy to read: said so.
	if err := os.Remove(filepath.Join(dir, ".zmetadata")); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"inspect", hs.URL}, {"validate", hs.URL}, {"transcode", hs.URL, filepath.Join(t.TempDir(), "n.zarr")}, {"export", hs.URL, filepath.Join(t.TempDir(), "n.arrow")}} {
		out, _, err := run(t, nil, cmd...)
		if msg := fmt.Sprint(err) + out; !strings.Contains(msg, "cannot be listed") || !strings.Contains(msg, "consolidated metadata") {
			t.Errorf("%s without consolidated metadata over http: %v\n%s", cmd[0], err, out)
		}
	}
}

// TestMalformedConsolidated: consolidated metadata with a member key that
// is not a valid path is reported: validate counts it as a problem,
// inspect notes it, transcode warns and gives the destination
// consolidated metadata of its own, made from the hierarchy it wrote.
func TestMalformedConsolidated(t *testing.T) {
	for _, key := range []string{"../x/.zarray", "/abs/.zarray", "a//b/.zarray", `a\\b/.zarray`, "a\\u0000b/.zarray", "./.zarray"} {
		dir := writeGroupSample(t)
		zm := filepath.Join(dir, ".zmetadata")
		b, err := os.ReadFile(zm)
		if err != nil {
			t.Fatal(err)
		}
		bad := strings.Replace(string(b), `"metadata": {`, `"metadata": {"`+key+`": {"zarr_format": 2},`, 1)
		if err := os.WriteFile(zm, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _, err := run(t, nil, "validate", dir)
		if err == nil || !strings.Contains(out, "consolidated metadata ignored") || !strings.Contains(out, "metadata[") {
			t.Errorf("%s: validate: %v\n%s", key, err, out)
		}
		out, _, err = run(t, nil, "inspect", dir)
		if err != nil || !strings.Contains(out, "note: consolidated metadata ignored") {
			t.Errorf("%s: inspect: %v\n%s", key, err, out)
		}
		dst := filepath.Join(t.TempDir(), "out.zarr")
		out, errOut, err := run(t, nil, "transcode", dir, dst, "-q")
		if err != nil || !strings.Contains(errOut, "warning: the source's consolidated metadata is ignored") {
			t.Errorf("%s: transcode: %v\n%s%s", key, err, out, errOut)
		}
		if b, err := os.ReadFile(filepath.Join(dst, ".zmetadata")); err != nil || strings.Contains(string(b), `"metadata": {"`) || !strings.Contains(string(b), `"temp/.zarray"`) {
			t.Errorf("%s: the destination has no consolidated metadata of its own: %v\n%s", key, err, b)
		}
		if out, _, err := run(t, nil, "validate", dst); err != nil {
			t.Errorf("%s: the destination does not validate: %v\n%s", key, err, out)
		}
	}
}

// TestS3GroupKillResume kills dt64 processes transcoding a whole hierarchy
// into S3 (the real server) after random chunk counts or at random
// moments, up to twice a round, and resumes: every result is byte for
// byte the uninterrupted run's into a directory, and a destination whose
// root already carries consolidated metadata is complete.
func TestS3GroupKillResume(t *testing.T) {
	f := newS3Fixture(t)
	src := writeGroupSample(t)
	flags := []string{"--unit", "us", "--format", "3", "--codec", "zstd:1", "--workers", "2", "-q"}
	ref := filepath.Join(t.TempDir(), "ref.zarr")
	if out, errOut, err := run(t, nil, append([]string{"transcode", src, ref}, flags...)...); err != nil {
		t.Fatalf("%v\n%s%s", err, out, errOut)
	}
	files := chunkFiles(ref)
	start := time.Now()
	timed := dt64Subprocess([]string{"DT64_TRANSCODE_TEST_DELAY=2ms"}, append([]string{"transcode", src, f.url("timed.zarr")}, flags...)...)
	if out, err := timed.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	duration := time.Since(start)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d, a run takes %v", seed, duration)
	rng := rand.New(rand.NewPCG(seed, 3))
	rounds, kills := 6, 0
	if testing.Short() {
		rounds = 3
	}
	for round := range rounds {
		prefix := fmt.Sprintf("group-%d.zarr", round)
		dst := f.path(prefix)
		args := append([]string{"transcode", src, f.url(prefix)}, flags...)
		for attempt := range 1 + rng.IntN(2) {
			if attempt > 0 {
				args = append(args, "--resume")
			}
			killed, when, err := runAndKill(t, rng, args, dst, files, duration, 2)
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
		if out, errOut, err := run(t, nil, append(args[:len(args):len(args)], "--resume")...); err != nil {
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
