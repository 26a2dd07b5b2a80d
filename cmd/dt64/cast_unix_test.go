//go:build unix

package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// castMode casts a small file into out under umask mask and returns the
// output's permissions.
func castMode(t *testing.T, mask int, out string) os.FileMode {
	t.Helper()
	in := filepath.Join(t.TempDir(), "in.bin")
	if err := os.WriteFile(in, encode(binary.LittleEndian, 1, 2), 0o644); err != nil {
		t.Fatal(err)
	}
	old := syscall.Umask(mask)
	_, _, err := run(t, nil, "cast", "--from", "<M8[s]", "--to", "<M8[ms]", in, out)
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

// A new output file gets 0666 minus the umask, as cp gives it; an
// existing one keeps its permissions, as cp keeps them.
func TestCastOutputMode(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		mask int
		want os.FileMode
	}{{0o022, 0o644}, {0o002, 0o664}, {0o077, 0o600}} {
		out := filepath.Join(dir, fmt.Sprintf("new-%03o.bin", c.mask))
		if got := castMode(t, c.mask, out); got != c.want {
			t.Errorf("umask %03o: new output has mode %03o, want %03o", c.mask, got, c.want)
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
		if got := castMode(t, 0o022, out); got != keep {
			t.Errorf("replacing a file of mode %03o: output has mode %03o", keep, got)
		}
	}
}
