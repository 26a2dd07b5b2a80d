package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The command's side of the Nothing-lost contract: refusals name what is
// there and the flags that would go on; --verify works with --finalize;
// --in-flight below --workers is honoured; --no-sync is accepted.
func TestTranscodeNothingLost(t *testing.T) {
	src := writeSample(t, 5000, 512)

	// --overwrite on a group: refused, nothing deleted.
	group := t.TempDir()
	files := map[string]string{
		"zarr.json":       `{"zarr_format": 3, "node_type": "group", "attributes": {}}`,
		"README.txt":      "not dt64's",
		"child/zarr.json": `{"zarr_format": 3, "node_type": "group"}`,
	}
	for name, text := range files {
		p := filepath.Join(group, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := run(t, nil, "transcode", src, group, "--unit", "us", "--overwrite", "-q")
	if err == nil || isUsage(err) || !strings.Contains(err.Error(), "Zarr group") || !strings.Contains(hint(err), "refusing") {
		t.Errorf("--overwrite on a group: %v", err)
	}
	for name, text := range files {
		if b, err := os.ReadFile(filepath.Join(group, name)); err != nil || string(b) != text {
			t.Errorf("%s: deleted or changed by a refused --overwrite", name)
		}
	}

	// Two parts, then --finalize --verify checks the whole array.
	dst := filepath.Join(t.TempDir(), "d.zarr")
	for _, part := range []string{"0/3", "2/3", "1/3"} {
		if part == "1/3" {
			// Before the last part: a plain run is refused with the way on.
			if _, _, err := run(t, nil, "transcode", src, dst, "--unit", "us", "-q"); err == nil || !strings.Contains(hint(err), "--resume finishes it") {
				t.Errorf("plain run into an interrupted one: %v", err)
			}
			os.Remove(filepath.Join(dst, ".dt64-parts", "2-of-3.json")) // that part "died" after its chunks
		}
		if _, _, err := run(t, nil, "transcode", src, dst, "--unit", "us", "--part", part, "-q"); err != nil {
			t.Fatalf("part %s: %v", part, err)
		}
	}
	if _, _, err := run(t, nil, "transcode", src, dst, "--unit", "us", "--part", "2/3", "-q"); err != nil {
		t.Fatal(err)
	}
	out, _, err := run(t, nil, "transcode", src, dst, "--unit", "us", "--finalize", "--verify", "-q")
	if err != nil || !strings.Contains(out, "verified: 10 work units") {
		t.Errorf("--finalize --verify: %v\n%s", err, out)
	}

	// --in-flight below --workers: honoured, and the plan says so.
	_, errOut, err := run(t, nil, "transcode", src, filepath.Join(t.TempDir(), "d"), "--unit", "ms", "--workers", "2", "--in-flight", "1", "--no-sync")
	if err != nil || !strings.Contains(errOut, "1 worker, 1 in flight") {
		t.Errorf("--workers 2 --in-flight 1: %v\n%s", err, errOut)
	}
}
