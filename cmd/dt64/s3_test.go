package main

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/objstore"
	"github.com/zarr-dt64/dt64/objstore/s3test"
	"github.com/zarr-dt64/dt64/transcode"
)

// The object-store tests run dt64 against a real S3 server (versitygw over
// a directory, on 127.0.0.1) and an httptest file server. versitygw keeps
// object "prefix/key" of a bucket as the file DIR/bucket/prefix/key, so a
// result in S3 is compared file by file with one in a directory.

var s3Plan = []string{"--unit", "us", "--format", "3", "--codec", "zstd:1", "--shard-chunks", "2", "--workers", "2", "-q"}

// s3Fixture is a sample source, the reference result of s3Plan on it,
// and a server with a bucket.
type s3Fixture struct {
	srv      *s3test.Server
	bucket   string
	src, ref string
	srcURL   string // the source uploaded to the bucket
	flags    []string
}

func newS3Fixture(t *testing.T) *s3Fixture {
	t.Helper()
	f := &s3Fixture{srv: s3test.Start(t), flags: s3Plan}
	f.srv.Setenv(t)
	f.bucket = f.srv.Bucket(t)
	f.src = writeSample(t, 6000, 64)
	f.ref = filepath.Join(t.TempDir(), "ref.zarr")
	if _, _, err := run(t, nil, append([]string{"transcode", f.src, f.ref}, f.flags...)...); err != nil {
		t.Fatal(err)
	}
	// The source in S3: a plain copy (the default plan changes nothing).
	f.srcURL = f.url("src.zarr")
	if _, _, err := run(t, nil, "transcode", f.src, f.srcURL, "-q"); err != nil {
		t.Fatal(err)
	}
	sameDirs(t, f.src, f.path("src.zarr"))
	return f
}

func (f *s3Fixture) url(prefix string) string  { return "s3://" + f.bucket + "/" + prefix }
func (f *s3Fixture) path(prefix string) string { return filepath.Join(f.srv.Dir, f.bucket, prefix) }

func TestS3TranscodeInspectValidate(t *testing.T) {
	f := newS3Fixture(t)
	// dir -> s3, s3 -> s3, s3 -> dir: each the reference, byte for byte.
	if _, _, err := run(t, nil, append([]string{"transcode", f.src, f.url("from-dir.zarr")}, f.flags...)...); err != nil {
		t.Fatal(err)
	}
	sameDirs(t, f.ref, f.path("from-dir.zarr"))
	out, errOut, err := run(t, nil, append([]string{"transcode", f.srcURL, f.url("from-s3.zarr"), "--verify"}, f.flags[:len(f.flags)-1]...)...)
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, errOut)
	}
	// A remote store keeps twice the workers in flight, and says so.
	if !strings.Contains(errOut, "2 workers, 4 in flight") || !strings.Contains(errOut, f.srcURL) {
		t.Errorf("the plan does not show the remote default (4 in flight for 2 workers):\n%s", errOut)
	}
	sameDirs(t, f.ref, f.path("from-s3.zarr"))
	dst := filepath.Join(t.TempDir(), "to-dir.zarr")
	if _, _, err := run(t, nil, append([]string{"transcode", f.srcURL, dst}, f.flags...)...); err != nil {
		t.Fatal(err)
	}
	sameDirs(t, f.ref, dst)
	// An existing destination is refused as on a directory.
	if _, _, err := run(t, nil, append([]string{"transcode", f.srcURL, f.url("from-s3.zarr")}, f.flags...)...); err == nil || !strings.Contains(err.Error(), "destination exists") {
		t.Errorf("an existing S3 destination: %v", err)
	}
	// --overwrite deletes the array in S3 (listing and deleting objects)
	// and writes it again: a plain copy this time.
	if _, _, err := run(t, nil, "transcode", f.srcURL, f.url("from-dir.zarr"), "--overwrite", "-q"); err != nil {
		t.Fatal(err)
	}
	sameDirs(t, f.src, f.path("from-dir.zarr"))
	// The source is never the destination.
	if _, _, err := run(t, nil, "transcode", f.srcURL, f.url("src.zarr/inner"), "-q"); err == nil || !strings.Contains(err.Error(), "overlap") {
		t.Errorf("a destination inside the source: %v", err)
	}

	// inspect and validate read s3:// as they read a directory.
	want, _, err := run(t, nil, "inspect", f.ref)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := run(t, nil, "inspect", f.url("from-s3.zarr"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.ReplaceAll(got, f.url("from-s3.zarr"), "X") != strings.ReplaceAll(want, f.ref, "X") {
		t.Errorf("inspect s3:// differs from inspect of the directory:\n%s\nwant\n%s", got, want)
	}
	if out, _, err := run(t, nil, "validate", f.url("from-s3.zarr")); err != nil {
		t.Errorf("validate s3://: %v\n%s", err, out)
	}
	// A damaged chunk is found in S3 too.
	var chunk string
	filepath.WalkDir(f.path("from-s3.zarr/c"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && chunk == "" {
			chunk = p
		}
		return nil
	})
	rel, _ := filepath.Rel(f.path("from-s3.zarr"), chunk)
	if _, _, err := run(t, nil, "transcode", f.ref, f.url("damaged.zarr"), "-q"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.path("damaged.zarr"), rel), []byte("not a shard"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, err := run(t, nil, "validate", f.url("damaged.zarr")); err == nil || !strings.Contains(out, rel) {
		t.Errorf("validate of a damaged chunk in S3: %v\n%s", err, out)
	}
}

func TestS3MissingServerIsClear(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	t.Setenv("DT64_REQUEST_ATTEMPTS", "2")
	bucket := srv.Bucket(t)
	srv.Stop()
	_, _, err := run(t, nil, "inspect", "s3://"+bucket+"/a.zarr")
	if err == nil || !strings.Contains(err.Error(), "s3://"+bucket+"/a.zarr") || !strings.Contains(err.Error(), "after 2 attempts") {
		t.Errorf("inspect with the server down: %v", err)
	}
	if err != nil && strings.Contains(err.Error(), srv.Secret) {
		t.Errorf("the error holds the secret: %v", err)
	}
}

// TestHTTPSource reads a source over HTTP (an httptest file server: GET
// only, no listing, missing chunks are 404s) into a directory and into
// S3; and over HTTPS in a subprocess that trusts the test certificate.
func TestHTTPSource(t *testing.T) {
	f := newS3Fixture(t)
	var gets atomic.Int64
	fsrv := http.FileServer(http.Dir(f.src))
	count := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { gets.Add(1); fsrv.ServeHTTP(w, r) })
	hs := httptest.NewServer(count)
	defer hs.Close()
	dst := filepath.Join(t.TempDir(), "from-http.zarr")
	if _, _, err := run(t, nil, append([]string{"transcode", hs.URL + "/", dst}, f.flags...)...); err != nil {
		t.Fatal(err)
	}
	sameDirs(t, f.ref, dst)
	if gets.Load() == 0 {
		t.Fatal("no request reached the HTTP server")
	}
	if _, _, err := run(t, nil, append([]string{"transcode", hs.URL, f.url("from-http.zarr")}, f.flags...)...); err != nil {
		t.Fatal(err)
	}
	sameDirs(t, f.ref, f.path("from-http.zarr"))
	if _, _, err := run(t, nil, "transcode", f.src, hs.URL+"/out.zarr"); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("an http destination: %v", err)
	}
	// Not listed: its chunks are found from the grid, a 404 being one not stored.
	if out, _, err := run(t, nil, "validate", hs.URL); err != nil || !strings.Contains(out, "ok:") {
		t.Errorf("validate over http: %v\n%s", err, out)
	}
	// Nothing there: the error names the location (it said ": no Zarr
	// array here").
	for _, cmd := range []string{"inspect", "validate"} {
		if _, _, err := run(t, nil, cmd, hs.URL+"/nothing.zarr"); err == nil || !strings.Contains(err.Error(), hs.URL+"/nothing.zarr: no Zarr array here") {
			t.Errorf("%s of a missing array over http: %v", cmd, err)
		}
	}

	tls := httptest.NewTLSServer(fsrv)
	defer tls.Close()
	pem := filepath.Join(t.TempDir(), "cert.pem")
	if err := os.WriteFile(pem, certPEM(tls), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, to := range []string{filepath.Join(t.TempDir(), "from-https.zarr"), f.url("from-https.zarr")} {
		cmd := dt64Subprocess([]string{"SSL_CERT_FILE=" + pem}, append([]string{"transcode", tls.URL, to}, f.flags...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("https source to %s: %v\n%s", to, err, out)
		}
	}
	sameDirs(t, f.ref, f.path("from-https.zarr"))
}

// TestS3ServerStoppedResume stops the S3 server in the middle of a run:
// the run fails with an error naming the store and the key, and a resume
// once the server is back gives the uninterrupted result.
func TestS3ServerStoppedResume(t *testing.T) {
	f := newS3Fixture(t)
	args := append([]string{"transcode", f.srcURL, f.url("dst.zarr")}, f.flags...)
	cmd := dt64Subprocess([]string{"DT64_TRANSCODE_TEST_DELAY=5ms", "DT64_REQUEST_ATTEMPTS=3"}, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); time.Since(start) < 30*time.Second && chunkFiles(f.path("dst.zarr")) < 10; {
		time.Sleep(time.Millisecond)
	}
	f.srv.Stop()
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("with the server stopped: %v, want exit status 1\n%s", err, stderr.String())
	}
	msg := stderr.String()
	if !strings.Contains(msg, "s3://"+f.bucket+"/") || !strings.Contains(msg, "after 3 attempts") {
		t.Errorf("the error does not name the store and the attempts:\n%s", msg)
	}
	if strings.Contains(msg, f.srv.Secret) {
		t.Errorf("the error holds the secret:\n%s", msg)
	}
	if err := f.srv.Restart(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, nil, append(args, "--resume")...); err != nil {
		t.Fatal(err)
	}
	sameDirs(t, f.ref, f.path("dst.zarr"))
}

// TestS3FaultyProxy puts a proxy between dt64 and the server that answers
// about one request in six with 503 SlowDown and holds about one in
// twenty past the per-attempt timeout: the retries hide all of it.
func TestS3FaultyProxy(t *testing.T) {
	f := newS3Fixture(t)
	target, _ := url.Parse(f.srv.Endpoint)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ErrorLog = log.New(io.Discard, "", 0) // the attempts cut short by their timeout
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	var failed, slowed, total atomic.Int64
	px := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		total.Add(1)
		mu.Lock()
		n := rng.IntN(120)
		mu.Unlock()
		switch {
		case n < 20:
			failed.Add(1)
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
			return
		case n < 26:
			slowed.Add(1)
			select {
			case <-time.After(1500 * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
		rp.ServeHTTP(w, r)
	}))
	defer px.Close()
	t.Setenv("AWS_ENDPOINT_URL_S3", px.URL)
	t.Setenv("DT64_REQUEST_TIMEOUT", "500ms")
	t.Setenv("DT64_REQUEST_ATTEMPTS", "12")
	if _, _, err := run(t, nil, append([]string{"transcode", f.srcURL, f.url("dst.zarr")}, f.flags...)...); err != nil {
		t.Fatal(err)
	}
	sameDirs(t, f.ref, f.path("dst.zarr"))
	t.Logf("%d requests, %d answered 503, %d slowed past the timeout", total.Load(), failed.Load(), slowed.Load())
	if failed.Load() == 0 || slowed.Load() == 0 {
		t.Errorf("no fault was injected (%d 503s, %d slow)", failed.Load(), slowed.Load())
	}
}

// TestS3KillResume kills dt64 processes writing to S3 at random moments;
// a resume gives the uninterrupted result byte for byte.
func TestS3KillResume(t *testing.T) {
	f := newS3Fixture(t)
	start := time.Now()
	timed := dt64Subprocess([]string{"DT64_TRANSCODE_TEST_DELAY=2ms"}, append([]string{"transcode", f.srcURL, f.url("timed.zarr")}, f.flags...)...)
	if out, err := timed.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	d := time.Since(start)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d, a run takes %v", seed, d)
	rng := rand.New(rand.NewPCG(seed, 2))
	rounds, kills := 6, 0
	if testing.Short() {
		rounds = 3
	}
	for round := range rounds {
		prefix := fmt.Sprintf("dst-%d.zarr", round)
		args := append([]string{"transcode", f.srcURL, f.url(prefix)}, f.flags...)
		cmd := dt64Subprocess([]string{"DT64_TRANSCODE_TEST_DELAY=2ms"}, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(rng.Int64N(int64(d))))
		_ = cmd.Process.Signal(syscall.SIGKILL)
		if err := cmd.Wait(); err != nil {
			kills++
		}
		// Metadata in the bucket means every chunk is there already.
		if hasMetadata(f.path(prefix)) {
			completeSoFar(t, f.ref, f.path(prefix), fmt.Sprintf("round %d", round))
		}
		if _, _, err := run(t, nil, append(args, "--resume")...); err != nil {
			t.Fatalf("round %d: resume: %v", round, err)
		}
		sameDirs(t, f.ref, f.path(prefix))
		if t.Failed() {
			t.Fatalf("round %d: the resumed result differs", round)
		}
	}
	if kills == 0 {
		t.Errorf("no run was killed mid-way")
	}
}

// TestS3PartsRace runs the parts of a partitioned run at once, as the pods
// of an Indexed Job with no shared volume would: the conditional write
// lets exactly one finalize, and the result is the reference.
func TestS3PartsRace(t *testing.T) {
	f := newS3Fixture(t)
	const n = 4
	var wg sync.WaitGroup
	outs := make([]string, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			cmd := dt64Subprocess(nil, append([]string{"transcode", f.srcURL, f.url("parts.zarr"), "--part", fmt.Sprintf("%d/%d", i, n)}, f.flags...)...)
			b, err := cmd.CombinedOutput()
			outs[i], errs[i] = string(b), err
		})
	}
	wg.Wait()
	finalized := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("part %d: %v\n%s", i, errs[i], outs[i])
		}
		if strings.Contains(outs[i], "the destination is complete") {
			finalized++ // the others say the last one writes the metadata
		}
	}
	lost := 0
	for _, o := range outs {
		if strings.Contains(o, fmt.Sprintf("%d of %d parts finished", n, n)) {
			lost++ // saw every part done, but another held the finalize claim
		}
	}
	t.Logf("%d parts saw all %d done and left the finalize to the claimant", lost, n)
	// A part that finishes after the claimant completed also reports the
	// array complete, so only "at least one" is certain from outside.
	if finalized == 0 {
		t.Errorf("no part reported the array complete:\n%s", strings.Join(outs, "\n"))
	}
	sameDirs(t, f.ref, f.path("parts.zarr"))
}

// certPEM is the test server's certificate, for SSL_CERT_FILE.
func certPEM(s *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.Certificate().Raw})
}

// TestS3SourceChanged rewrites a source chunk in S3 between the parts of
// a run: the finalize notices it by its ETag and names it.
func TestS3SourceChanged(t *testing.T) {
	f := newS3Fixture(t)
	dst := f.url("changed.zarr")
	if _, _, err := run(t, nil, append([]string{"transcode", f.srcURL, dst, "--part", "0/2"}, f.flags...)...); err != nil {
		t.Fatal(err)
	}
	src, err := objstore.OpenS3(context.Background(), f.srcURL, objstore.S3Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Chunk 1's bytes as chunk 0 (an ETag is the MD5 of the bytes: the
	// same bytes again would rightly be the same version).
	b, err := src.Get(context.Background(), "1")
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Set(context.Background(), "0", b); err != nil {
		t.Fatal(err)
	}
	_, _, err = run(t, nil, append([]string{"transcode", f.srcURL, dst, "--part", "1/2"}, f.flags...)...)
	var sc *transcode.SourceChangedError
	if !errors.As(err, &sc) || sc.Key != "0" {
		t.Fatalf("a source chunk rewritten between parts: %v, want a SourceChangedError naming chunk 0", err)
	}
}

// TestS3SourceChangedMidRun rewrites a source chunk in S3 while a run is
// under way, after its versions were recorded: the unit that reads it
// checks the ETag its GET saw and stops the run, naming the chunk.
func TestS3SourceChangedMidRun(t *testing.T) {
	f := newS3Fixture(t)
	dst := f.url("midrun.zarr")
	cmd := dt64Subprocess([]string{"DT64_TRANSCODE_TEST_DELAY=40ms"}, append([]string{"transcode", f.srcURL, dst}, f.flags...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); time.Since(start) < 30*time.Second && chunkFiles(f.path("midrun.zarr")) < 1; {
		time.Sleep(time.Millisecond)
	}
	src, err := objstore.OpenS3(context.Background(), f.srcURL, objstore.S3Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := src.Get(context.Background(), "92")
	if err == nil {
		err = src.Set(context.Background(), "93", b)
	}
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), `chunk "93" changed`) {
		t.Fatalf("a source chunk rewritten mid-run: %v\n%s", err, stderr.String())
	}
}

// TestS3OverwriteWhileRunning is the race a tester found: run A writes
// seconds into S3, run B starts over there with --overwrite in
// milliseconds. B used to delete A's work and finish while A went on
// writing seconds into B's array (1000× too small, validate passing).
// Now B is refused while A's lease is renewed, A finishes the reference
// result, and B may start over afterwards. A run whose plan marker is
// removed under it stops with exit status 1 and says so.
func TestS3OverwriteWhileRunning(t *testing.T) {
	f := newS3Fixture(t)
	env := []string{"DT64_TRANSCODE_TEST_DELAY=20ms", "DT64_TRANSCODE_TEST_LEASE=100ms"}
	ref := filepath.Join(t.TempDir(), "ref.zarr")
	if _, _, err := run(t, nil, "transcode", f.src, ref, "--unit", "s", "-q"); err != nil {
		t.Fatal(err)
	}
	// startA starts run A on prefix and waits for its first chunk (its
	// lease is written before).
	startA := func(prefix string) (*exec.Cmd, *strings.Builder) {
		a := dt64Subprocess(env, "transcode", f.srcURL, f.url(prefix), "--unit", "s", "--workers", "1", "-q")
		var out strings.Builder
		a.Stdout, a.Stderr = &out, &out
		if err := a.Start(); err != nil {
			t.Fatal(err)
		}
		for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
			if chunkFiles(f.path(prefix)) > 0 {
				break
			}
			if time.Since(start) > 30*time.Second {
				_ = a.Process.Kill()
				t.Fatalf("run A wrote no chunk:\n%s", out.String())
			}
		}
		return a, &out
	}

	a, aOut := startA("r.zarr")
	b, err := dt64Subprocess(env, "transcode", f.srcURL, f.url("r.zarr"), "--unit", "ms", "--overwrite", "-q").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(b), "a transcode is running on this destination") ||
		!strings.Contains(string(b), "stop it first") {
		t.Errorf("--overwrite while a run writes the destination: %v\n%s", err, b)
	}
	if err := a.Wait(); err != nil {
		t.Fatalf("run A: %v\n%s", err, aOut.String())
	}
	if chunkFiles(f.path("r.zarr")) == 0 {
		t.Fatal("run A wrote nothing")
	}
	sameDirs(t, ref, f.path("r.zarr")) // no B chunk, no state left
	if out, err := dt64Subprocess(env, "transcode", f.srcURL, f.url("r.zarr"), "--unit", "ms", "--overwrite", "-q").CombinedOutput(); err != nil {
		t.Fatalf("--overwrite once run A ended: %v\n%s", err, out)
	}

	// The destination taken over under a run (its plan marker gone, as an
	// overwrite that judged its lease stale would delete it).
	a, aOut = startA("t.zarr")
	if err := os.Remove(f.path("t.zarr/.dt64-transcode.json")); err != nil {
		t.Fatal(err)
	}
	err = a.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(aOut.String(), "taken over by another run") ||
		strings.Contains(aOut.String(), "parts finished") {
		t.Errorf("a run whose destination was taken over: %v\n%s", err, aOut.String())
	}
	if hasMetadata(f.path("t.zarr")) {
		t.Error("the run taken over wrote the metadata")
	}
	if _, err := os.Stat(f.path("t.zarr/.dt64-parts")); err == nil {
		t.Error("the run taken over wrote its part marker")
	}
}
