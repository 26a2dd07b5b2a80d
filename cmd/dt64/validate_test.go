package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// flipFileByte inverts one byte of a file (counted from the end when at < 0).
func flipFileByte(t *testing.T, path string, at int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if at < 0 {
		at += len(b)
	}
	b[at] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// truncateFileBy drops the last n bytes of a file.
func truncateFileBy(t *testing.T, path string, n int64) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, info.Size()-n); err != nil {
		t.Fatal(err)
	}
}

func TestValidateFixturesOK(t *testing.T) {
	want := map[string]string{
		"dt64_D_le_zstd_sharded.zarr":   "ok: 2 chunks (2 present) valid\n",
		"td64_25h_be_gzip_sharded.zarr": "ok: 2 chunks (2 present) valid\n",
		"dt64_ns_be_gzip.zarr":          "ok: 4 chunks (3 present) valid\n",
		"dt64_ns_le_zstd0.zarr":         "ok: 4 chunks (3 present) valid\n",
	}
	for _, name := range readableV3Fixtures {
		dir := copyV3Fixture(t, name)
		out, errOut, err := runCLIInProcess(t, "validate", dir)
		w, ok := want[name]
		if !ok {
			w = "ok: 4 chunks (4 present) valid\n"
		}
		if err != nil || out != w || errOut != "" {
			t.Errorf("%s: %v\nstdout %q, want %q\nstderr %q", name, err, out, w, errOut)
		}
	}
}

// checkValidateProblems runs validate and checks it fails listing exactly the given
// chunk keys, each line containing its reason.
func checkValidateProblems(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	out, _, err := runCLIInProcess(t, "validate", dir)
	var pe *problemsError
	if !errors.As(err, &pe) || pe.n != len(want) || isUsageFailure(err) {
		t.Fatalf("validate: error %v, want %d problems\n%s", err, len(want), out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for _, l := range lines {
		key, reason, _ := strings.Cut(l, ": ")
		sub, ok := want[key]
		if !ok {
			t.Errorf("unexpected problem line %q", l)
		} else if !strings.Contains(reason, sub) {
			t.Errorf("%s: reason %q lacks %q", key, reason, sub)
		}
	}
}

func TestValidateEveryProblem(t *testing.T) {
	// crc32c over zstd: a flipped byte is a checksum failure, a truncated
	// chunk too (the last 4 bytes are taken as the checksum).
	dir := copyV3Fixture(t, "dt64_10us_le_zstd_crc32c.zarr")
	flipFileByte(t, filepath.Join(dir, "c", "1"), 5)
	truncateFileBy(t, filepath.Join(dir, "c", "3"), 3)
	checkValidateProblems(t, dir, map[string]string{"c/1": "checksum", "c/3": ""})

	// zstd without crc32c: truncated frames, and a corrupted frame header.
	dir = copyV3Fixture(t, "td64_ms_le_zstd.zarr")
	truncateFileBy(t, filepath.Join(dir, "c", "0"), 4)
	truncateFileBy(t, filepath.Join(dir, "c", "2"), 1)
	flipFileByte(t, filepath.Join(dir, "c", "3"), 0)
	checkValidateProblems(t, dir, map[string]string{"c/0": "", "c/2": "", "c/3": ""})

	// No compression: a chunk of the wrong size.
	dir = copyV3Fixture(t, "dt64_s_be_none.zarr")
	truncateFileBy(t, filepath.Join(dir, "c", "2"), 8)
	checkValidateProblems(t, dir, map[string]string{"c/2": ""})

	// Sharding: a damaged (crc32c-protected) shard index and a damaged
	// inner gzip chunk in the other shard.
	dir = copyV3Fixture(t, "td64_25h_be_gzip_sharded.zarr")
	flipFileByte(t, filepath.Join(dir, "c", "0"), -6)
	flipFileByte(t, filepath.Join(dir, "c", "1"), 12)
	checkValidateProblems(t, dir, map[string]string{"c/0": "", "c/1": ""})

	// zstd frame checksum.
	dir = copyV3Fixture(t, "dt64_M_le_zstd_checksum.zarr")
	flipFileByte(t, filepath.Join(dir, "c", "0"), -1)
	checkValidateProblems(t, dir, map[string]string{"c/0": ""})
}

func TestValidateMetadata(t *testing.T) {
	dir := copyV3Fixture(t, "dt64_s_be_none.zarr")
	js, err := os.ReadFile(filepath.Join(dir, "zarr.json"))
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(js), `"scale_factor": 1`, `"scale_factor": 0`, 1)
	if bad == string(js) {
		t.Fatal("fixture changed: no scale_factor to break")
	}
	if err := os.WriteFile(filepath.Join(dir, "zarr.json"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLIInProcess(t, "validate", dir)
	var pe *problemsError
	if !errors.As(err, &pe) || !strings.HasPrefix(out, "metadata: ") || !strings.Contains(out, "scale_factor") {
		t.Errorf("broken zarr.json: %v\n%s", err, out)
	}

	// Not an array at all, and a missing path: errors, not problem lists.
	for _, p := range []string{t.TempDir(), filepath.Join(t.TempDir(), "missing")} {
		out, _, err := runCLIInProcess(t, "validate", p)
		if err == nil || errors.As(err, &pe) || isUsageFailure(err) || out != "" {
			t.Errorf("%s: %v, output %q", p, err, out)
		}
	}
	if _, _, err := runCLIInProcess(t, "validate"); !isUsageFailure(err) {
		t.Errorf("no PATH: %v, want a usage error", err)
	}
	// An unknown codec is a metadata problem.
	dir = copyV3Fixture(t, "dt64_s_be_none.zarr")
	renameCodec(t, dir, "bytes", "no-such-codec")
	out, _, err = runCLIInProcess(t, "validate", dir)
	if !errors.As(err, &pe) || !strings.HasPrefix(out, "metadata: ") || !strings.Contains(out, "no-such-codec") {
		t.Errorf("unknown codec: %v\n%s", err, out)
	}

	// blosc: a truncated frame is found.
	dir = copyV3Fixture(t, "dt64_us_le_blosc_lz4.zarr")
	truncateFileBy(t, filepath.Join(dir, "c", "1"), 5)
	checkValidateProblems(t, dir, map[string]string{"c/1": ""})
}

// TestValidateStrayFiles: files that are not part of the array are warnings.
func TestValidateStrayFiles(t *testing.T) {
	dir := copyV3Fixture(t, "dt64_ns_le_zstd0.zarr")
	for _, name := range []string{"c/.dt64-tmp-0123456789abcdef-3", "c/7", "notes.txt", "c/01"} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, errOut, err := runCLIInProcess(t, "validate", dir)
	if err != nil || out != "ok: 4 chunks (3 present) valid\n" {
		t.Errorf("validate: %v\n%s", err, out)
	}
	for _, want := range []string{
		"c/.dt64-tmp-0123456789abcdef-3: warning: temporary file of an interrupted write",
		"c/7: warning: chunk key outside the chunk grid [4]",
		"notes.txt: warning: not a chunk",
		"c/01: warning: not a chunk",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	// inspect ignores them.
	rep := runInspectJSON(t, dir)
	if rep.Chunks.Present != 3 || rep.NaT != 4 {
		t.Errorf("inspect with stray files: %+v", rep.Chunks)
	}
}

// TestChunkKeyNotAFile: a chunk key that is a directory holding files
// ("c/1/" with "c/1/0" inside) fails every read of the chunk, so validate lists it and exits 1, inspect fails naming it, and
// transcode fails on it as well.
func TestChunkKeyNotAFile(t *testing.T) {
	dir := copyV3Fixture(t, "dt64_ns_le_zstd0.zarr")
	c1 := filepath.Join(dir, "c", "1")
	if err := os.Remove(c1); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(c1, "0"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(c1, "0", "0"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkValidateProblems(t, dir, map[string]string{"c/1": "is a directory, not a regular file"})
	if _, _, err := runCLIInProcess(t, "inspect", dir); err == nil || !strings.Contains(err.Error(), `chunk "c/1": is a directory`) {
		t.Errorf("inspect: %v, want it to name c/1 as a directory", err)
	}
	if _, _, err := runCLIInProcess(t, "transcode", "--unit", "us", dir, filepath.Join(t.TempDir(), "out.zarr")); err == nil || !strings.Contains(err.Error(), "c/1") {
		t.Errorf("transcode: %v, want a failure naming c/1", err)
	}

}
