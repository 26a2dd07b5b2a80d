package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCheck runs check on testdata/mod, whose files each hold a problem
// that only one target selects: every target must report its own, and
// linux/amd64 without tags none.
func TestCheck(t *testing.T) {
	dir, err := filepath.Abs("testdata/mod")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("GOWORK", "off")
	t.Setenv("GOFLAGS", "-mod=mod")
	for _, c := range []struct {
		goos, goarch, tags string
		want               int
	}{
		{"linux", "amd64", "", 0},
		{"windows", "amd64", "", 1},
		{"darwin", "arm64", "", 1},
		{"linux", "amd64", "purego", 1},
	} {
		// check prints what it finds: keep it out of the test's output.
		stdout := os.Stdout
		os.Stdout, _ = os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		n, err := check(c.goos, c.goarch, c.tags, []string{"./..."})
		os.Stdout = stdout
		if err != nil {
			t.Fatalf("%s/%s -tags %q: %v", c.goos, c.goarch, c.tags, err)
		}
		if n != c.want {
			t.Errorf("%s/%s -tags %q: %d problems, want %d", c.goos, c.goarch, c.tags, n, c.want)
		}
	}
}
