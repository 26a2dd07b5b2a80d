package main

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// The process-level fault tests: a real dt64 process whose writes fail
// partway through a chunk, and dt64 processes killed with SIGKILL at
// random moments, each followed by --resume. The store-level ones (a disk
// filling up at every point of a run) are in transcode's tests.

// TestTranscodeFileTooLarge runs dt64 under a file-size limit that about
// half of the destination chunks exceed: their writes fail with EFBIG
// partway through, so the run fails naming the chunk, leaves no array that
// opens and no temporary file, and a resume without the limit gives the
// bytes of an uninterrupted run.
func TestTranscodeFileTooLarge(t *testing.T) {
	needFileSizeLimit(t)
	src := writeSample(t, 40_000, 1000)
	flags := []string{"--unit", "us", "--format", "3", "--codec", "zstd:1", "--workers", "2", "-q"}
	ref := filepath.Join(t.TempDir(), "ref.zarr")
	if _, _, err := run(t, nil, append([]string{"transcode", src, ref}, flags...)...); err != nil {
		t.Fatal(err)
	}
	var sizes []int64
	filepath.WalkDir(filepath.Join(ref, "c"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			st, _ := d.Info()
			sizes = append(sizes, st.Size())
		}
		return nil
	})
	slices.Sort(sizes)
	limit := sizes[len(sizes)/2]
	if sizes[0] == sizes[len(sizes)-1] {
		t.Fatalf("chunks all of %d bytes: no limit that some of them exceed", sizes[0])
	}
	dst := filepath.Join(t.TempDir(), "dst.zarr")
	cmd := dt64Subprocess([]string{fmt.Sprint("DT64_TEST_FSIZE=", limit)}, append([]string{"transcode", src, dst}, flags...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("under a %d-byte file limit: %v, want exit status 1\n%s", limit, err, stderr.String())
	}
	msg := stderr.String()
	if !strings.Contains(msg, "file too large") || !strings.Contains(msg, "/c/") {
		t.Errorf("the error does not name the chunk and the cause:\n%s", msg)
	}
	if hasMetadata(dst) {
		t.Fatal("a failed run wrote the metadata")
	}
	if tmp := strayFiles(t, dst, ".dt64-tmp-"); len(tmp) > 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
	if _, _, err := run(t, nil, append([]string{"transcode", src, dst, "--resume"}, flags...)...); err != nil {
		t.Fatal(err)
	}
	sameDirs(t, ref, dst)
}

// hasMetadata reports whether dir holds Zarr v3 or v2 array metadata.
func hasMetadata(dir string) bool {
	for _, name := range []string{"zarr.json", ".zarray"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// strayFiles lists the files under dir whose names start with prefix.
func strayFiles(t *testing.T, dir, prefix string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), prefix) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestTranscodeKillResume kills real dt64 processes (SIGKILL) at random
// moments, over many rounds and several plans. In each round a run is
// killed, its resume may be killed too (up to three kills), and a last
// resume finishes; the result must be byte for byte the uninterrupted
// run's. After every kill, a destination whose metadata exists (one that
// opens as an array) must already hold every chunk of the finished array,
// with at most the run's own state files besides.
func TestTranscodeKillResume(t *testing.T) {
	src := writeSample(t, 6000, 64) // 94 chunks, 80 stored
	rounds := 24
	if testing.Short() {
		rounds = 6
	}
	killResumeRounds(t, src, rounds, [][]string{
		{"--unit", "us", "--format", "3", "--codec", "zstd:1", "--shard-chunks", "2", "--workers", "2", "-q"},
		{"--unit", "ms", "--endian", "little", "--codec", "gzip:1", "--workers", "3", "-q"},
		{"--format", "3", "--codec", "blosc:lz4:5:shuffle", "--crc32c", "--workers", "1", "-q"},
	})
}

// killResumeRounds runs rounds of TestTranscodeKillResume on src, the
// plans (transcode flags) in turn.
func killResumeRounds(t *testing.T, src string, rounds int, plans [][]string) {
	t.Helper()
	refs := make([]string, len(plans))
	files := make([]int, len(plans)) // chunk files of each plan's result
	durations := make([]time.Duration, len(plans))
	for i, flags := range plans {
		refs[i] = filepath.Join(t.TempDir(), "ref.zarr")
		if _, _, err := run(t, nil, append([]string{"transcode", src, refs[i]}, flags...)...); err != nil {
			t.Fatal(err)
		}
		files[i] = chunkFiles(refs[i])
		// How long a whole run takes here, to spread the timed kills over.
		start := time.Now()
		cmd := dt64Subprocess([]string{"DT64_TRANSCODE_TEST_DELAY=2ms"}, append([]string{"transcode", src, filepath.Join(t.TempDir(), "timed.zarr")}, flags...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", flags, err, out)
		}
		durations[i] = time.Since(start)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	kills, finalizeKills := 0, 0
	for round := range rounds {
		p := round % len(plans)
		flags, ref := plans[p], refs[p]
		dst := filepath.Join(t.TempDir(), "dst.zarr")
		args := append([]string{"transcode", src, dst}, flags...)
		for attempt := range 1 + rng.IntN(3) {
			if attempt > 0 {
				args = append(args, "--resume")
			}
			cmd := dt64Subprocess([]string{"DT64_TRANSCODE_TEST_DELAY=2ms"}, args...)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Kill once a random number of destination chunk files exist
			// (mid-run on any machine, fast or slow), or after a random
			// time (at start-up, mid-run or while finalizing).
			var when string
			if rng.IntN(3) > 0 {
				when = killAfterChunks(t, cmd, dst, 1+rng.IntN(files[p]))
			} else {
				d := time.Duration(rng.Int64N(int64(durations[p])))
				time.Sleep(d)
				_ = cmd.Process.Signal(syscall.SIGKILL)
				when = fmt.Sprint("after ", d.Round(time.Millisecond))
			}
			err := cmd.Wait()
			killed := false
			if ee, ok := err.(*exec.ExitError); ok && ee.Sys().(syscall.WaitStatus).Signaled() {
				kills++
				killed = true
			} else if err != nil {
				t.Fatalf("round %d attempt %d: %v", round, attempt, err)
			} else {
				t.Logf("round %d attempt %d: finished before the kill %s", round, attempt, when)
			}
			if hasMetadata(dst) {
				if killed {
					finalizeKills++
				}
				completeSoFar(t, ref, dst, fmt.Sprintf("round %d attempt %d, killed %s", round, attempt, when))
			}
		}
		out, errOut, err := run(t, nil, append(args[:len(args):len(args)], "--resume")...)
		if err != nil {
			t.Fatalf("round %d: resume: %v\n%s%s", round, err, out, errOut)
		}
		sameDirs(t, ref, dst)
		if t.Failed() {
			t.Fatalf("round %d (%v): the resumed result differs", round, flags)
		}
	}
	t.Logf("%d rounds, %d kills, %d after the metadata", rounds, kills, finalizeKills)
	if kills < rounds/2 {
		t.Errorf("only %d of at least %d runs were killed mid-way", kills, rounds)
	}
}

// completeSoFar checks a destination that holds metadata: every file of
// the finished array ref is in it, identical, and anything else is the
// run's own state (.dt64-* files and directories, at the root or inside an
// array, such as a copied array's recorded source versions), which may
// outlive the root's metadata until the cleanup a resume finishes.
func completeSoFar(t *testing.T, ref, dst, where string) {
	t.Helper()
	compareDirs(t, ref, dst, where+": the array opens, but ", func(name string) bool {
		return strings.HasPrefix(name, ".dt64-") || strings.Contains(name, "/.dt64-")
	})
}

// killAfterChunks SIGKILLs cmd as soon as dst holds k chunk files (or after
// 30 s), and says when.
func killAfterChunks(t *testing.T, cmd *exec.Cmd, dst string, k int) string {
	t.Helper()
	start := time.Now()
	for time.Since(start) < 30*time.Second && chunkFiles(dst) < k {
		time.Sleep(200 * time.Microsecond)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	return fmt.Sprintf("at %d chunks (%s)", k, time.Since(start).Round(time.Millisecond))
}

// chunkFiles counts the chunk files in array directory dir: every file but
// the metadata and dot files (the run's state, temporary files).
func chunkFiles(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir // dt64's state (.dt64-live/ leases, .dt64-parts/), not chunks
		}
		if err == nil && d.Type().IsRegular() && !strings.HasPrefix(d.Name(), ".") && d.Name() != "zarr.json" {
			n++
		}
		return nil
	})
	return n
}

// TestResumeWaitsForRunThatFinishes: a --resume started beside a running
// transcode of the same part waits to judge its lease; when that run
// finishes meanwhile, the resume reports the array or hierarchy complete
// (exit 0), as it is, not "taken over by another run" (a tester's case;
// each fails without its own branch of the fix, e1a96ad).
func TestResumeWaitsForRunThatFinishes(t *testing.T) {
	for _, c := range []struct {
		name  string
		src   func(t *testing.T) string
		delay string // per chunk: the first run takes about a second
	}{
		{"array", func(t *testing.T) string { return writeSample(t, 6000, 64) }, "10ms"},
		{"hierarchy", writeGroupSample, "5ms"}, // two time arrays of 94 chunks
	} {
		t.Run(c.name, func(t *testing.T) {
			src := c.src(t)
			dst := filepath.Join(t.TempDir(), "dst.zarr")
			args := []string{"transcode", src, dst, "--unit", "ms", "--workers", "1"}
			first := dt64Subprocess([]string{"DT64_TRANSCODE_TEST_DELAY=" + c.delay, "DT64_TRANSCODE_TEST_LEASE=100ms"}, args...)
			var firstErr strings.Builder
			first.Stderr = &firstErr
			if err := first.Start(); err != nil {
				t.Fatal(err)
			}
			for start := time.Now(); ; time.Sleep(5 * time.Millisecond) {
				if es, _ := os.ReadDir(filepath.Join(dst, ".dt64-live")); len(es) > 0 {
					break
				}
				if time.Since(start) > 30*time.Second {
					first.Process.Kill()
					first.Wait()
					t.Fatalf("the first run wrote no lease\n%s", firstErr.String())
				}
			}
			// The resume waits 2.5 of its 1 s lease intervals to judge the
			// lease; the first run's remaining chunks take about a second.
			resume := dt64Subprocess([]string{"DT64_TRANSCODE_TEST_LEASE=1s"}, append(args, "--resume")...)
			out, err := resume.CombinedOutput()
			if werr := first.Wait(); werr != nil {
				t.Fatalf("the first run: %v\n%s", werr, firstErr.String())
			}
			if err != nil || !strings.Contains(string(out), "destination already complete") {
				t.Errorf("the resume: %v\n%s", err, out)
			}
		})
	}
}

// TestCompleteResumeSourceChanged: a complete destination keeps no record
// of its source: --resume after the source changed says it is complete
// and that the source is not read again, and --resume --verify finds the
// changed chunk and fails (docs/guarantees.md).
func TestCompleteResumeSourceChanged(t *testing.T) {
	ctx := context.Background()
	src := writeSample(t, 6000, 64)
	dst := filepath.Join(t.TempDir(), "dst.zarr")
	args := []string{"transcode", src, dst, "--unit", "ms", "-q"}
	if _, _, err := run(t, nil, args...); err != nil {
		t.Fatal(err)
	}
	a, err := zarr.Open(ctx, storage.NewDir(src))
	if err != nil {
		t.Fatal(err)
	}
	v := make([]int64, a.ChunkLen())
	if err := a.ReadChunk(ctx, []int64{0}, v); err != nil {
		t.Fatal(err)
	}
	v[3] += 86_400_000_000_000 // a day later
	if err := a.WriteChunk(ctx, []int64{0}, v); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, nil, append(args, "--resume")...)
	if err != nil || !strings.Contains(out, "already complete: nothing to do (the source is not read again: --verify") {
		t.Errorf("--resume: %v\n%s", err, out)
	}
	if _, _, err := run(t, nil, append(args, "--resume", "--verify")...); err == nil || !strings.Contains(err.Error(), `chunk "0"`) {
		t.Errorf("--resume --verify of a changed source: %v, want a failure naming chunk 0", err)
	}
}
