package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// export writes the same bytes for any --workers, wide and long, Parquet
// and Arrow IPC (compressed or not), with batches and row groups that do
// not line up, and Parquet the same bytes for any --rows; the plan states
// the workers and the memory bound.
func TestExportSameForAnyWorkers(t *testing.T) {
	grid := xarrayGrid(t)
	wide := exportGroup(t)
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
	}{
		{"wide.parquet", []string{wide, "--rows", "2", "--row-group", "3"}},
		{"wide.arrow", []string{wide, "--rows", "2"}},
		// one timestamp column: zarrow's int64 page encoder
		{"time.parquet", []string{filepath.Join(wide, "time"), "--rows", "2", "--row-group", "3"}},
		{"long.parquet", []string{grid, "--layout", "long", "--rows", "7", "--row-group", "11"}},
		{"long.arrow", []string{grid, "--layout", "long", "--rows", "7", "--compression", "zstd"}},
	}
	for _, c := range cases {
		var first []byte
		for _, w := range []string{"1", "2", "7"} {
			out := filepath.Join(dir, w+"-"+c.name)
			args := append([]string{"export", c.args[0], out, "--workers", w}, c.args[1:]...)
			_, errOut, err := run(t, nil, args...)
			if err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			want := "plan:        " + w + " workers ("
			if w == "1" {
				want = "plan:        1 worker ("
			}
			if !strings.Contains(errOut, want) || !strings.Contains(errOut, "memory at most") {
				t.Errorf("%v: the plan lacks %q and the memory bound:\n%s", args, want, errOut)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = b
			} else if !bytes.Equal(b, first) {
				t.Errorf("%s: --workers %s wrote other bytes than --workers 1", c.name, w)
			}
		}
		if !strings.HasSuffix(c.name, ".parquet") {
			continue // an Arrow IPC file holds the batches as they are
		}
		for _, rows := range []string{"1", "1000"} {
			out := filepath.Join(dir, "rows"+rows+"-"+c.name)
			args := append([]string{"export", c.args[0], out, "-q"}, c.args[1:]...)
			args[slices.Index(args, "--rows")+1] = rows
			if _, _, err := run(t, nil, args...); err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			if b, err := os.ReadFile(out); err != nil || !bytes.Equal(b, first) {
				t.Errorf("%s: --rows %s wrote other bytes (%v)", c.name, rows, err)
			}
		}
	}
}
