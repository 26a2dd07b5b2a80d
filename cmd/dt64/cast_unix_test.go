//go:build unix

package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// castMode casts a small file of mode inMode (0: from standard input)
// into out under umask mask and returns the output's permissions.
func castMode(t *testing.T, mask int, inMode os.FileMode, out string) os.FileMode {
	t.Helper()
	in := filepath.Join(t.TempDir(), "in.bin")
	if err := os.WriteFile(in, encode(binary.LittleEndian, 1, 2), 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"cast", "--from", "<M8[s]", "--to", "<M8[ms]", in, out}
	var stdin *os.File
	if inMode == 0 {
		f, err := os.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		stdin, args[5] = f, "-"
	} else if err := os.Chmod(in, inMode); err != nil {
		t.Fatal(err)
	}
	old := syscall.Umask(mask)
	var err error
	if stdin != nil {
		_, _, err = run(t, stdin, args...)
	} else {
		_, _, err = run(t, nil, args...)
	}
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// A new output file gets the input file's permissions minus the umask
// (0666 minus the umask from standard input), as cp gives it; an existing
// one keeps its permissions, as cp keeps them.
func TestCastOutputMode(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		mask   int
		inMode os.FileMode
		want   os.FileMode
	}{{0o022, 0, 0o644}, {0o002, 0, 0o664}, {0o077, 0, 0o600}, {0o022, 0o751, 0o751}, {0o002, 0o644, 0o644}, {0o077, 0o644, 0o600}} {
		out := filepath.Join(dir, fmt.Sprintf("new-%03o-%03o.bin", c.mask, c.inMode))
		if got := castMode(t, c.mask, c.inMode, out); got != c.want {
			t.Errorf("umask %03o, input mode %03o: new output has mode %03o, want %03o", c.mask, c.inMode, got, c.want)
		}
	}
	for _, keep := range []os.FileMode{0o640, 0o666, 0o604} {
		out := filepath.Join(dir, fmt.Sprintf("old-%03o.bin", keep))
		if err := os.WriteFile(out, []byte("old"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(out, keep); err != nil {
			t.Fatal(err)
		}
		if got := castMode(t, 0o022, 0o644, out); got != keep {
			t.Errorf("replacing a file of mode %03o: output has mode %03o", keep, got)
		}
	}
}

// TestCastInterruptWaitingForInput: SIGTERM stops a cast that waits on a
// pipe at once, with 143 and no OUT (it used to wait for the input's end,
// then publish OUT and exit 0); so does one that reaches the input's end
// after the signal.
func TestCastInterruptWaitingForInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.bin")
	cmd := dt64Subprocess(nil, "cast", "--from", "<M8[s]", "--to", "<M8[ms]", "-", out)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// More than a pipe holds: once written, dt64 is reading (its signal
	// handling set up), and then it waits for more.
	if _, err := stdin.Write(make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Without the fix the process would wait for the input's end: give it
	// one after a while, so that the test fails instead of hanging.
	timer := time.AfterFunc(10*time.Second, func() { stdin.Close() })
	defer timer.Stop()
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 143 {
		t.Errorf("exit: %v, want status 143", err)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 0 {
		t.Errorf("left %v after the interrupt", left)
	}
}

// TestCastSpecialOutputs: OUT is treated as cp treats a destination. A
// FIFO and a device are written into (they were replaced by a regular
// file, /dev/null too); a symbolic link is written through, the link
// kept; a dangling link and a directory are refused, and a missing
// directory is named.
func TestCastSpecialOutputs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bin")
	if err := os.WriteFile(in, encode(binary.LittleEndian, 1, 2, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	want := encode(binary.LittleEndian, 1000, 2000, 3000)
	cast := func(out string) error {
		_, _, err := run(t, nil, "cast", "--from", "<M8[s]", "--to", "<M8[ms]", in, out)
		return err
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 1)
	go func() {
		b, _ := os.ReadFile(fifo) // opens when cast opens the other end
		got <- b
	}()
	if err := cast(fifo); err != nil {
		t.Fatalf("into a FIFO: %v", err)
	}
	select {
	case b := <-got:
		if string(b) != string(want) {
			t.Errorf("the FIFO's reader got %v, want %v", b, want)
		}
	case <-time.After(10 * time.Second):
		t.Error("cast never opened the FIFO")
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil { // let the reader go
			f.Close()
		}
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v (%v)", fi.Mode(), err)
	}

	// A device: a null device of the test's own where it may make one
	// (root), never the system's /dev/null, which a regression would
	// replace.
	null := filepath.Join(dir, "null")
	if err := mknodNull(null); err == nil {
		if err := cast(null); err != nil {
			t.Errorf("into a device: %v", err)
		}
		if fi, err := os.Lstat(null); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Errorf("the device is now %v (%v)", fi.Mode(), err)
		}
	} else {
		t.Logf("no device node (%v): the FIFO stands for special files", err)
	}

	target, link := filepath.Join(dir, "target.bin"), filepath.Join(dir, "link.bin")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target.bin", link); err != nil {
		t.Fatal(err)
	}
	if err := cast(link); err != nil {
		t.Fatalf("through a link: %v", err)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != string(want) {
		t.Errorf("the link's target holds %v (%v), want %v", b, err, want)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link is now %v (%v)", fi.Mode(), err)
	}
	if fi, err := os.Stat(target); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the target's mode is now %v (%v), want 0600 kept", fi.Mode(), err)
	}

	dangling := filepath.Join(dir, "dangling.bin")
	if err := os.Symlink("nowhere.bin", dangling); err != nil {
		t.Fatal(err)
	}
	if err := cast(dangling); err == nil || !strings.Contains(err.Error(), "leads nowhere") {
		t.Errorf("through a dangling link: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere.bin")); err == nil {
		t.Error("a dangling link's target was created")
	}
	if err := cast(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("into a directory: %v", err)
	}
	missing := filepath.Join(dir, "no", "out.bin")
	if err := cast(missing); err == nil || !strings.Contains(err.Error(), "cannot write "+missing) {
		t.Errorf("into a missing directory: %v", err)
	}
}

// mknodNull makes a null device at path where the system allows it.
func mknodNull(path string) error {
	if runtime.GOOS != "linux" {
		return errors.ErrUnsupported
	}
	return syscall.Mknod(path, syscall.S_IFCHR|0o666, 1<<8|3)
}
