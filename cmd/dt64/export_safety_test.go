package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/zarr-dt64/dt64/transcode"
)

// export never writes into its source: OUT inside SRC, directly or
// through a symbolic link to it, is refused and nothing is written.
func TestExportRefusesInsideSource(t *testing.T) {
	src := exportGroup(t)
	dir := filepath.Dir(src)
	if err := os.Symlink(src, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	before := allFiles(t, src)
	for _, out := range []string{
		filepath.Join(src, "time", "0.parquet"),
		filepath.Join(dir, "link", "x.parquet"),
		filepath.Join(dir, "link", "new", "x.arrow"),
	} {
		_, _, err := run(t, nil, "export", src, out, "-q")
		var oe *transcode.OverlapError
		if !errors.As(err, &oe) {
			t.Errorf("export to %s: %v, want an OverlapError", out, err)
		}
	}
	for _, out := range []string{filepath.Join(src, "time", "0.parquet"), filepath.Join(dir, "link", "time", "new", "x.arrow")} {
		_, _, err := run(t, nil, "export", filepath.Join(src, "time"), out, "-q")
		var oe *transcode.OverlapError
		if !errors.As(err, &oe) {
			t.Errorf("export of the array to %s: %v, want an OverlapError", out, err)
		}
	}
	if after := allFiles(t, src); len(after) != len(before) {
		t.Errorf("the source changed: %v, was %v", after, before)
	}
}

// allFiles lists every path under dir.
func allFiles(t *testing.T, dir string) []string {
	t.Helper()
	var all []string
	err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		all = append(all, p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return all
}
