package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// validate has no false positives on valid data it cannot decode: an
// xarray dataset with a string coordinate, object, structured and
// Fortran-order arrays (Debian's zarr 2.13 writes them, transcode copies
// them), and dt64's own v3 output of a v2 Delta-filtered array. Those are
// "not checked (reason)"; the arrays dt64 decodes are still checked, and
// damage to them is still a problem.
func TestValidateNoFalsePositives(t *testing.T) {
	const py = "/usr/bin/python3"
	dir := t.TempDir()
	out, err := exec.Command(py, "-c", `
import sys, os, xarray as xr, numpy as np, pandas as pd, zarr, numcodecs
os.chdir(sys.argv[1])
ds = xr.Dataset({"t2m": (("time", "station"), np.zeros((4, 2), "f4"))},
                coords={"time": pd.date_range("2022-01-01", periods=4), "station": ["BER", "PAR"]})
ds.to_zarr("stations.zarr", mode="w", consolidated=True)
g = zarr.open_group("mixed.zarr", mode="w")
g.create_dataset("obj", data=np.array(["a", "bc", None], object), object_codec=numcodecs.VLenUTF8())
g.create_dataset("rec", data=np.zeros(3, [("x", "<i4"), ("y", "<f8")]))
g.create_dataset("fort", data=np.arange(12, dtype="<i8").reshape(3, 4), order="F")
g.create_dataset("time", data=np.arange(5).astype("M8[s]"), chunks=(2,))
g = zarr.open_group("delta.zarr", mode="w")
g.create_dataset("d", data=np.arange(100, dtype="i4"), chunks=(16,), filters=[numcodecs.Delta("i4")])
`, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("writing the datasets with %s (apt-get install python3-xarray python3-zarr): %v\n%s", py, err, out)
	}
	var pe *problemsError
	if _, _, err := run(t, nil, "transcode", filepath.Join(dir, "delta.zarr"), filepath.Join(dir, "delta3.zarr"), "--format", "3", "-q"); err != nil {
		t.Fatal(err)
	}
	for ds, unchecked := range map[string][]string{
		"stations.zarr": {"station"},
		"mixed.zarr":    {"obj", "rec", "fort"},
		"delta.zarr":    {"d"},
		"delta3.zarr":   {"d"},
	} {
		stdout, stderr, err := run(t, nil, "validate", filepath.Join(dir, ds))
		if err != nil {
			t.Errorf("validate %s: %v\n%s%s", ds, err, stdout, stderr)
			continue
		}
		for _, name := range unchecked {
			if !strings.Contains(stdout+stderr, name) {
				t.Errorf("validate %s does not name %s as not checked:\n%s%s", ds, name, stdout, stderr)
			}
		}
	}
	// Alone, the Fortran-order array cannot be checked: not a problem.
	if stdout, _, err := run(t, nil, "validate", filepath.Join(dir, "mixed.zarr", "fort")); errors.As(err, &pe) || err == nil ||
		!strings.HasPrefix(err.Error(), "cannot check") || strings.Contains(stdout, "problem") {
		t.Errorf("validate of the Fortran-order array alone: %v\n%s", err, stdout)
	}
	// Damage to an array dt64 decodes is still found beside them.
	if err := os.WriteFile(filepath.Join(dir, "mixed.zarr", "time", "0"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, nil, "validate", filepath.Join(dir, "mixed.zarr")); !errors.As(err, &pe) {
		t.Errorf("damaged time chunk: %v, want a problem", err)
	}
	// A dtype that is no NumPy dtype at all is a problem, not "not checked".
	za := filepath.Join(dir, "stations.zarr", "station", ".zarray")
	b, _ := os.ReadFile(za)
	if err := os.WriteFile(za, []byte(strings.Replace(string(b), "<U3", "<Q3", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, nil, "validate", filepath.Join(dir, "stations.zarr")); !errors.As(err, &pe) {
		t.Errorf("invalid dtype: %v, want a problem", err)
	}
}
