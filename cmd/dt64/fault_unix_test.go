//go:build unix

package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStoppedRunTakenOverByResume: a run stopped (SIGSTOP) for longer
// than a --resume waits to judge its lease is taken over by the resume,
// which finishes the array; the stopped run, continued while the resume
// writes, stops with "taken over", and the array is the uninterrupted
// run's. Before, the resume left
// the stopped run's lease (and a resume keeps the run id), so the stopped
// run went on writing beside it, and failed on the rename of a temporary
// file the resume had removed (a tester's case).
func TestStoppedRunTakenOverByResume(t *testing.T) {
	src := writeSample(t, 6000, 64)
	ref := filepath.Join(t.TempDir(), "ref.zarr")
	dst := filepath.Join(t.TempDir(), "dst.zarr")
	args := func(dst string, more ...string) []string {
		return append([]string{"transcode", src, dst, "--unit", "ms", "--workers", "1", "-q"}, more...)
	}
	if _, _, err := run(t, nil, args(ref)...); err != nil {
		t.Fatal(err)
	}
	env := []string{"DT64_TRANSCODE_TEST_DELAY=20ms", "DT64_TRANSCODE_TEST_LEASE=100ms"}
	first := dt64Subprocess(env, args(dst)...)
	var firstOut strings.Builder
	first.Stdout, first.Stderr = &firstOut, &firstOut
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); chunkFiles(dst) < 10; time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 60*time.Second {
			first.Process.Kill()
			first.Wait()
			t.Fatalf("the first run wrote no chunks:\n%s", firstOut.String())
		}
	}
	if err := first.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	// The resume judges the lease after 250 ms, then writes a chunk each
	// 20 ms: the stopped run goes on while it writes.
	resume := dt64Subprocess(env, args(dst, "--resume")...)
	var resumeOut strings.Builder
	resume.Stdout, resume.Stderr = &resumeOut, &resumeOut
	if err := resume.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(800 * time.Millisecond)
	if err := first.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- first.Wait() }()
	var err error
	select {
	case err = <-waited:
	case <-time.After(60 * time.Second): // (without the fix it wrote on beside the resume, then hung)
		first.Process.Signal(syscall.SIGQUIT) // its goroutines, in its output
		select {
		case err = <-waited:
		case <-time.After(5 * time.Second):
			first.Process.Kill()
			err = <-waited
		}
		t.Errorf("the stopped run, continued, did not end in 60 s")
	}
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(firstOut.String(), "taken over by another run") {
		t.Errorf("the stopped run, continued: %v\n%s", err, firstOut.String())
	}
	if err := resume.Wait(); err != nil {
		t.Fatalf("the resume: %v\n%s", err, resumeOut.String())
	}
	sameDirs(t, ref, dst)
}
