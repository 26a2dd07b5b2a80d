package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// xarrayGrid writes tools/xarray/long_table.py's dataset: t2m and tp on
// time × lat × lon, mean_t2m along time, land on lat × lon.
// requireXarray returns the Python that has xarray and zarr 2.13 (Debian's),
// skipping the test in -short runs without them and failing it otherwise.
func requireXarray(t *testing.T) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import xarray, zarr").Run(); err != nil {
		if testing.Short() {
			t.Skipf("xarray not available: %v", err)
		}
		t.Fatalf("xarray not available (apt-get install python3-xarray): %v", err)
	}
	return py
}

// jsClients returns tools/js, where DuckDB's and apache-arrow's clients are
// installed (make js-deps): a test without them is skipped, and fails in CI.
func jsClients(t *testing.T) string {
	t.Helper()
	js, _ := filepath.Abs("../../tools/js")
	if _, err := os.Stat(filepath.Join(js, "node_modules", "@duckdb", "node-api")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("the JavaScript clients are not installed: run make js-deps")
		}
		t.Skip("the JavaScript clients are not installed: run make js-deps")
	}
	return js
}

func xarrayGrid(t *testing.T) string {
	t.Helper()
	py := requireXarray(t)
	dir := filepath.Join(t.TempDir(), "grid.zarr")
	cmd := exec.Command(py, "../../tools/xarray/long_table.py", dir)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// export --layout long writes a row per element of the gridded variables
// with the coordinates as columns, states its memory bound and notes the
// arrays it leaves out; without --layout, the wide export names every
// array it skips (those not 1-D, and the 1-D ones along other
// dimensions); --vars refuses a variable off the grid by name.
func TestExportLayoutLong(t *testing.T) {
	src := xarrayGrid(t)
	dir := t.TempDir()
	out, errOut, err := run(t, nil, "export", src, filepath.Join(dir, "long.parquet"), "--layout", "long", "--rows", "7")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"long layout: 60 rows = time 3 × lat 4 × lon 5 (variables t2m, tp); batches of at most 5 rows", "memory at most",
		"note:        land: left out", "note:        mean_t2m: left out"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("plan lacks %q:\n%s", want, errOut)
		}
	}
	if !strings.Contains(out, "exported 60 rows × 5 columns") {
		t.Errorf("summary: %s", out)
	}
	_, errOut, err = run(t, nil, "export", src, filepath.Join(dir, "wide.parquet"))
	if err != nil || !strings.Contains(errOut, "skips the arrays that are not 1-D: land, t2m, tp (--layout long exports gridded ones") ||
		!strings.Contains(errOut, `skips the 1-D arrays along other dimensions than "time": lat, lon`) {
		t.Errorf("wide: %v\n%s", err, errOut)
	}
	_, _, err = run(t, nil, "export", src, filepath.Join(dir, "bad.parquet"), "--layout", "long", "--vars", "t2m,mean_t2m")
	if err == nil || !strings.Contains(err.Error(), `variable "mean_t2m"`) {
		t.Errorf("--vars t2m,mean_t2m: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.parquet")); err == nil {
		t.Error("a refused export left its file")
	}
	for _, args := range [][]string{{"--vars", "t2m"}, {"--layout", "tall"}, {"--name", "x"}} {
		if _, _, err := run(t, nil, append([]string{"export", src, filepath.Join(dir, "u.parquet")}, args...)...); !isUsage(err) {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}

// A standalone array's column is named after it without ".zarr", or by
// --name.
func TestExportArrayName(t *testing.T) {
	src := filepath.Join(t.TempDir(), "legacy_v3.zarr")
	if err := os.CopyFS(src, os.DirFS(filepath.Join(xarrayGrid(t), "time"))); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, errOut, err := run(t, nil, "export", src, filepath.Join(dir, "a.parquet"))
	if err != nil || !strings.Contains(errOut, "\n  legacy_v3 ") {
		t.Errorf("default name: %v\n%s", err, errOut)
	}
	// One column and one worker, in the singular.
	_, errOut, err = run(t, nil, "export", src, filepath.Join(dir, "b.parquet"), "--name", "valid_time", "--workers", "1")
	if err != nil || !strings.Contains(errOut, "\n  valid_time ") || !strings.Contains(errOut, " rows, 1 column\n") ||
		!strings.Contains(errOut, "plan:        1 worker (") {
		t.Errorf("--name: %v\n%s", err, errOut)
	}
	if _, _, err := run(t, nil, "export", src, filepath.Join(dir, "c.parquet"), "--layout", "long"); !isUsage(err) {
		t.Errorf("--layout long of an array: %v, want a usage error", err)
	}
}
