package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestDemo(t *testing.T) {
	dir := t.TempDir()
	out, _, err := run(t, nil, "demo", "--elements", "200000", "--chunk", "8192", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"working in " + dir + " (kept)", "source:", ">M8[ns]", "<M8[us]", "summary:", "200000 elements", "overflowed 0", "verified:", "checked:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "dest.zarr", "zarr.json")); err != nil {
		t.Errorf("DIR not kept: %v", err)
	}
	if _, _, err := run(t, nil, "demo", "--elements", "1000", dir); err == nil {
		t.Error("demo into a used DIR succeeded")
	}

	out, _, err = run(t, nil, "demo", "--elements", "30000", "--chunk", "4096", "--format", "3")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := regexp.MustCompile(`working in (\S+) \(removed`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no working directory in:\n%s", out)
	}
	if _, err := os.Stat(m[1]); !os.IsNotExist(err) {
		t.Errorf("temporary directory %s not removed: %v", m[1], err)
	}
	if _, _, err := run(t, nil, "demo", "--elements", "0"); !isUsage(err) {
		t.Errorf("--elements 0: %v", err)
	}
}
