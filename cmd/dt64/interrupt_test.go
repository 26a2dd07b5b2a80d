package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/zarr-dt64/dt64/transcode"
)

// startInterruptible starts a dt64 transcode whose chunk writes each take
// delay, and returns it once its first progress line shows work done
// (with inWrite, once a write has started after that line: the process
// is then inside a write for delay, however slowly it runs, as under
// qemu), with its stderr so far and a function that waits for the rest
// of it.
func startInterruptible(t *testing.T, delay string, inWrite bool, args ...string) (*exec.Cmd, func() (string, int)) {
	t.Helper()
	env := []string{"DT64_TRANSCODE_TEST_DELAY=" + delay, "DT64_TRANSCODE_TEST_PROGRESS=30ms"}
	if inWrite {
		env = append(env, "DT64_TRANSCODE_TEST_MARK_WRITES=1")
	}
	cmd := dt64Subprocess(env, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var seen bytes.Buffer
	r := bufio.NewReader(stderr)
	started := regexp.MustCompile(`^transcode: [1-9][0-9]*/`)
	done := false
	for {
		line, err := r.ReadString('\n')
		seen.WriteString(line)
		done = done || started.MatchString(line)
		if done && (!inWrite || strings.HasPrefix(line, writeMark)) {
			break
		}
		if err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no progress before the end of stderr: %v\n%s", err, seen.String())
		}
	}
	return cmd, func() (string, int) {
		rest, _ := io.ReadAll(r)
		seen.Write(rest)
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return seen.String(), ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return seen.String(), 0
	}
}

// continueWith is the command the interrupted line says continues, as
// arguments after "dt64" (the test's paths need no quoting).
func continueWith(t *testing.T, stderr string) []string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^interrupted after (\d+)/(\d+) work units; continue with: dt64 (.*)$`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no interrupted line:\n%s", stderr)
	}
	return strings.Fields(m[3])
}

// SIGINT and SIGTERM stop a real dt64 transcode process: it says how far
// it got and the command that continues (--resume added, --overwrite
// dropped), and exits 130 or 143; inspect and validate of the destination
// say a run is unfinished; the command it printed finishes the run.
func TestInterruptTranscode(t *testing.T) {
	src := writeSample(t, 1<<16, 1<<10)
	for _, c := range []struct {
		sig    syscall.Signal
		status int
		extra  string
	}{{syscall.SIGINT, 130, "--overwrite"}, {syscall.SIGTERM, 143, ""}} {
		dst := filepath.Join(t.TempDir(), "dst.zarr")
		args := []string{"transcode", src, dst, "--unit", "us", "--workers", "1"}
		if c.extra != "" {
			args = append(args, c.extra)
		}
		cmd, wait := startInterruptible(t, "20ms", false, args...)
		if err := cmd.Process.Signal(c.sig); err != nil {
			t.Fatal(err)
		}
		stderr, status := wait()
		if status != c.status {
			t.Fatalf("%v: exit status %d, want %d\n%s", c.sig, status, c.status, stderr)
		}
		cont := continueWith(t, stderr)
		want := []string{"transcode", src, dst, "--unit", "us", "--workers", "1", "--resume"}
		if strings.Join(cont, " ") != strings.Join(want, " ") {
			t.Errorf("%v: continue with %v, want %v", c.sig, cont, want)
		}
		for _, command := range []string{"inspect", "validate"} {
			_, _, err := run(t, nil, command, dst)
			if err == nil || !strings.Contains(err.Error(), "an interrupted dt64 transcode") || !strings.Contains(err.Error(), "--resume") {
				t.Errorf("%s of the interrupted destination: %v", command, err)
			}
		}
		out, _, err := run(t, nil, cont...)
		if err != nil || !regexp.MustCompile(`\(\d+ units? already done, skipped\)`).MatchString(out) {
			t.Fatalf("%v: continuing: %v\n%s", c.sig, err, out)
		}
		// Its elements include the skipped units, its bytes do not: no ratio.
		if !strings.Contains(out, "compression not known for a resumed run") {
			t.Errorf("%v: the resumed run's summary gives compression ratios:\n%s", c.sig, out)
		}
		if _, _, err := run(t, nil, "validate", dst); err != nil {
			t.Errorf("validate after the resume: %v", err)
		}
	}
}

// A second SIGINT exits at once, while the first is still stopping the
// workers (here: each in a write that takes seconds).
func TestInterruptTwice(t *testing.T) {
	src := writeSample(t, 1<<14, 1<<10)
	dst := filepath.Join(t.TempDir(), "dst.zarr")
	cmd, wait := startInterruptible(t, "3s", true, "transcode", src, dst, "--workers", "1")
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	stderr, status := wait()
	if el := time.Since(start); status != 130 || el > 2*time.Second || !strings.Contains(stderr, "interrupted again") {
		t.Fatalf("exit status %d after %v:\n%s", status, el, stderr)
	}
}

// Under a terminal (script(1) gives the process a pty), a Ctrl-C typed
// into it stops dt64 as a signal from the terminal does: the line starts
// after the progress bar and the echoed ^C, and the exit status is 130.
func TestInterruptOnTerminal(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script (util-linux) is not installed")
	}
	src := writeSample(t, 1<<16, 1<<10)
	dst := filepath.Join(t.TempDir(), "dst.zarr")
	helper := dt64Subprocess(nil, "transcode", src, dst, "--workers", "1")
	var quoted []string
	for _, a := range helper.Args {
		quoted = append(quoted, "'"+a+"'")
	}
	cmd := exec.Command("script", "-qec", strings.Join(quoted, " "), "/dev/null")
	cmd.Env = append(helper.Env, "DT64_TRANSCODE_TEST_DELAY=20ms")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The plan is printed before the first chunk: wait for it, then a
	// little, so that work is under way.
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), "plan:") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	stdin.Write([]byte{3}) // Ctrl-C: the pty's line discipline sends SIGINT
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("script: %v, want exit status 130\n%q", err, out.String())
	}
	if !regexp.MustCompile(`\n\r?\n?interrupted after \d+/\d+ work units; continue with: dt64 transcode .* --resume\r?\n`).MatchString(out.String()) {
		t.Errorf("terminal output:\n%q", out.String())
	}
}

// syncBuffer is a bytes.Buffer a process writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The interrupted line of each command: a transcode continues with
// --resume (quoted for the shell where needed), a finalize and the other
// commands run again.
func TestInterruptedLine(t *testing.T) {
	root := newRootCmd()
	find := func(name string) *cobra.Command {
		c, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	setProgress("batches", func() transcode.Progress { return transcode.Progress{Units: 10, UnitsDone: 3} })
	defer setProgress("", nil)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"transcode", "a.zarr", "my dst.zarr", "--unit", "us"}, "interrupted after 3/10 batches; continue with: dt64 transcode a.zarr 'my dst.zarr' --unit us --resume"},
		{[]string{"transcode", "a.zarr", "b.zarr", "--resume", "--part", "1/4"}, "continue with: dt64 transcode a.zarr b.zarr --resume --part 1/4"},
		{[]string{"transcode", "a.zarr", "b.zarr", "--finalize"}, "; run the same command again: dt64 transcode a.zarr b.zarr --finalize"},
		{[]string{"export", "a.zarr", "a.parquet"}, "interrupted after 3/10 batches; run the same command again"},
		{[]string{"validate", "it's.zarr"}, "; run the same command again"},
	} {
		got := interruptedLine(find(c.args[0]), c.args, false)
		if !strings.HasSuffix(got, c.want) && !strings.Contains(got, c.want) {
			t.Errorf("%v: %q, want %q", c.args, got, c.want)
		}
	}
	if got := interruptedLine(find("export"), nil, true); !strings.HasPrefix(got, "\ninterrupted") {
		t.Errorf("on a terminal: %q, want a line of its own", got)
	}
}

// inspect and validate of the destination of a partitioned run, of an
// array or of a hierarchy, with parts missing say how many are done and
// point to --finalize.
func TestInspectPartitioned(t *testing.T) {
	for _, src := range []string{writeSample(t, 1<<12, 1<<10), exportGroup(t)} {
		dst := filepath.Join(t.TempDir(), "dst.zarr")
		if _, _, err := run(t, nil, "transcode", src, dst, "--part", "0/3", "-q"); err != nil {
			t.Fatal(err)
		}
		for _, command := range []string{"inspect", "validate"} {
			_, _, err := run(t, nil, command, dst)
			if err == nil || !strings.Contains(err.Error(), "1 of 3 parts done") || !strings.Contains(err.Error(), "--finalize") {
				t.Errorf("%s of %s: %v", command, src, err)
			}
		}
	}
}
