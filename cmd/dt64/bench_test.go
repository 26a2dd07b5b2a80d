package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// dt64 bench --cast runs real dt64 cast processes (this test binary as
// dt64) against cp, both without and with fsync, and reports every round.
func TestBenchCast(t *testing.T) {
	old := benchDt64
	benchDt64 = func() ([]string, error) {
		argv := []string{os.Args[0], "-test.run=^TestTranscodeHelperProcess$", "--"}
		if w := os.Getenv("DT64_TEST_EXEC"); w != "" {
			argv = append([]string{w}, argv...)
		}
		return argv, nil
	}
	t.Cleanup(func() { benchDt64 = old })
	t.Setenv("DT64_TRANSCODE_HELPER", "1")
	dir := t.TempDir()
	out, _, err := run(t, nil, "bench", "--cast", "--sizes", "1MiB", "--rounds", "3", "--dir", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cast    string `json:"cast"`
		Rounds  int    `json:"rounds"`
		Results []struct {
			Bytes    int       `json:"bytes"`
			Fsync    bool      `json:"fsync"`
			Ratio    float64   `json:"ratio_to_cp"`
			Ratios   []float64 `json:"ratios"`
			CPURatio float64   `json:"cpu_ratio_to_cp"`
			Cast     float64   `json:"cast_seconds"`
			Cp       float64   `json:"cp_seconds"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.Cast != ">M8[s] -> <M8[ns]" || doc.Rounds != 3 || len(doc.Results) != 2 {
		t.Fatalf("unexpected report:\n%s", out)
	}
	for i, r := range doc.Results {
		if r.Bytes != 1<<20 || r.Fsync != (i == 1) || len(r.Ratios) != 3 || !(r.Ratio > 0) || !(r.CPURatio > 0) || !(r.Cast > 0) || !(r.Cp > 0) {
			t.Errorf("result %d: %+v", i, r)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left in --dir: %v", ents)
	}
}

// --plot writes a chart of the run (here an SVG: its root element and the
// kernel's name); a name it cannot draw, or --plot with --cast, is a usage
// error before anything is measured.
func TestBenchPlot(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "bench.svg")
	out, _, err := run(t, nil, "bench", "--sizes", "64KiB", "--rounds", "1", "--kernel", "^ByteSwap$", "--plot", name)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "ByteSwap") {
		t.Errorf("no table printed:\n%s", out)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name
		Texts   []string `xml:"g>text"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil || doc.XMLName.Local != "svg" || !slices.Contains(doc.Texts, "ByteSwap") {
		t.Errorf("%s: root %q, texts %q, %v", name, doc.XMLName.Local, doc.Texts, err)
	}
	for _, args := range [][]string{
		{"--plot", filepath.Join(dir, "bench.jpg")},
		{"--plot", filepath.Join(dir, "bench")},
		{"--plot", filepath.Join(dir, "c.svg"), "--cast"},
	} {
		start := time.Now()
		_, _, err := run(t, nil, append([]string{"bench", "--sizes", "256MiB"}, args...)...)
		if !isUsage(err) || !strings.Contains(err.Error(), "--plot") {
			t.Errorf("%v: got %v, want a usage error about --plot", args, err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%v: the error took %v: it measured first", args, d)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("files in the directory: %v", ents)
	}
}

// dt64 bench --markdown writes the page make bench-report commits as
// docs/performance.md: the machine stated once, then a table per size with
// a row per kernel and a column per implementation.
func TestBenchMarkdown(t *testing.T) {
	out, _, err := run(t, nil, "bench", "--markdown", "--sizes", "64KiB", "--rounds", "1", "--kernel", "^Validity$", "--impl", "generic")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Performance\n", "| machine | ", "| Go | go1.", "\n## 64KiB\n\n| kernel | generic |\n|---|---|\n| Validity | "} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Count(out, "\n| Validity | ") != 1 {
		t.Errorf("want one Validity row:\n%s", out)
	}
}
