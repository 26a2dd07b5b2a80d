package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/transcode"
)

// export never writes into its source: OUT inside SRC, directly or
// through a symbolic link to it, is refused and nothing is written. So is
// a ".." after a link to a directory beside SRC, which leads back to SRC's
// directory, not to the link's.
func TestExportRefusesInsideSource(t *testing.T) {
	src := exportGroup(t)
	dir := filepath.Dir(src)
	if err := os.Symlink(src, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "beside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "beside"), filepath.Join(other, "up")); err != nil {
		t.Fatal(err)
	}
	before := allFiles(t, src)
	for _, out := range []string{
		filepath.Join(src, "time", "0.parquet"),
		filepath.Join(dir, "link", "x.parquet"),
		filepath.Join(dir, "link", "new", "x.arrow"),
		other + "/up/../ds.zarr/x.parquet", // not filepath.Join, which would clean "up/.." away
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

// An existing OUT is refused, and left as it was, unless --overwrite,
// which replaces it (keeping its permissions, as cast does).
func TestExportRefusesExistingOut(t *testing.T) {
	src := exportGroup(t)
	out := filepath.Join(t.TempDir(), "keep.parquet")
	if err := os.WriteFile(out, []byte("precious"), 0o444); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, nil, "export", src, out, "-q")
	var ee *ExistsError
	if !errors.As(err, &ee) || ee.Path != out {
		t.Errorf("export over an existing OUT: %v, want an ExistsError", err)
	}
	wantContents(t, out, []byte("precious"))
	if left := allFiles(t, filepath.Dir(out)); len(left) != 2 {
		t.Errorf("files left: %v", left)
	}
	if _, _, err := run(t, nil, "export", src, out, "-q", "--overwrite"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() < 100 || fi.Mode().Perm() != 0o444 {
		t.Errorf("after --overwrite: %v %v", fi, err)
	}
}

// A killed export leaves its temporary file (it cannot help it); the next
// export to the same OUT removes it, and nothing else: not another
// program's file of a similar name, nor the temporary file of an export
// still running (its lock is held).
func TestExportRemovesStaleTemps(t *testing.T) {
	src := writeSample(t, 4_000_000, 250_000)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.parquet")
	cmd := dt64Subprocess(nil, "export", src, out, "-q", "--rows", "1000")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var stale []string
	for deadline := time.Now().Add(20 * time.Second); len(stale) == 0 && time.Now().Before(deadline); {
		stale, _ = filepath.Glob(filepath.Join(dir, ".out.parquet.tmp-*"))
		time.Sleep(time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if len(stale) != 1 {
		t.Fatalf("temporary files while exporting: %v", stale)
	}
	if _, err := os.Stat(stale[0]); err != nil {
		t.Fatalf("the killed export left no temporary file: %v", err)
	}
	foreign := []string{filepath.Join(dir, ".out.parquet.tmp-mine"), filepath.Join(dir, "out.parquet.tmp-0123456789abcdef")}
	for _, f := range foreign {
		writeFileT(t, f).Close()
	}
	live := filepath.Join(dir, ".out.parquet.tmp-0123456789abcdef")
	lf := writeFileT(t, live)
	defer lf.Close()
	if err := lockTemp(lf); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, nil, "export", src, out, "-q"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale[0]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temporary file %s still there: %v", stale[0], err)
	}
	for _, f := range append(foreign, live) {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s removed: %v", f, err)
		}
	}
}

func writeFileT(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// export of an array declaring [2^62] elements in chunks of one, two of
// them stored, is refused at once (a SparseError) rather than writing
// nulls until killed.
func TestExportSparseGridRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "big.zarr")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	meta := `{"zarr_format": 2, "shape": [4611686018427387904], "chunks": [1], "dtype": "<M8[ns]", "compressor": null, "fill_value": null, "filters": null, "order": "C"}`
	for name, text := range map[string]string{".zarray": meta, "0": "\x05\x00\x00\x00\x00\x00\x00\x00", "1000": "\x07\x00\x00\x00\x00\x00\x00\x00"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	_, _, err := run(t, nil, "export", dir, filepath.Join(t.TempDir(), "out.arrow"), "-q")
	var se *transcode.SparseError
	if !errors.As(err, &se) || se.StoredChunks != 2 {
		t.Errorf("export: %v, want a SparseError", err)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("refusing took %s", el)
	}
}

// A panic during an export (a bug; here in the flush of the temporary
// file, on the command's goroutine) fails the export with an error that
// keeps the panic's stack, and removes the temporary file: it no longer
// ends the process with the file left behind.
func TestExportPanicRemovesTemp(t *testing.T) {
	src := exportGroup(t)
	dir := t.TempDir()
	hookFsync(t, func(f *os.File) error {
		if strings.Contains(f.Name(), ".tmp-") {
			panic("flush failed")
		}
		return f.Sync()
	})
	for _, out := range []string{filepath.Join(dir, "x.parquet"), filepath.Join(dir, "x.arrow")} {
		_, _, err := run(t, nil, "export", src, out, "-q")
		if err == nil || !strings.Contains(err.Error(), "panic: flush failed") || isUsage(err) {
			t.Fatalf("export to %s: %v, want the panic as an error", out, err)
		}
		if stack := panicStack(err); !strings.Contains(string(stack), "runExport") {
			t.Errorf("export to %s: the error keeps no stack of the panic: %q", out, stack)
		}
	}
	if ns := names(t, dir); len(ns) != 0 {
		t.Errorf("files left: %v", ns)
	}
}

// export writes a local file: an OUT that is a URL export cannot write
// (s3://, http://, any scheme but file://) is a usage error saying so,
// where it was taken for the path "s3:/bucket/x.parquet". A file:// OUT
// is the local path it names.
func TestExportOutURL(t *testing.T) {
	src := exportGroup(t)
	t.Chdir(t.TempDir())
	for _, out := range []string{"s3://bucket/x.parquet", "S3://bucket/x.arrow", "https://example.com/x.parquet", "gs://b/x.csv"} {
		_, _, err := run(t, nil, "export", src, out, "-q")
		if !isUsage(err) || !strings.Contains(err.Error(), "export writes a local file") || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower("OUT "+out+" is a URL")) {
			t.Errorf("OUT %s: %v, want a usage error saying it is a URL", out, err)
		}
	}
	if left := allFiles(t, "."); len(left) != 1 {
		t.Errorf("files made: %v", left)
	}
	out := filepath.Join(t.TempDir(), "x.parquet")
	if _, _, err := run(t, nil, "export", src, "file://"+out, "-q"); err != nil {
		t.Fatalf("file:// OUT: %v", err)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() == 0 {
		t.Errorf("file:// OUT: %v %v", fi, err)
	}
}
