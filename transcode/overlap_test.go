package transcode_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
)

// A destination reached through a symbolic link to the source, any number
// of new levels deep, is the source: every way in (an array's Run and
// Finalize, a hierarchy's Run and Finalize) refuses it before writing.
func TestOverlapThroughLink(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.zarr")
	if err := os.CopyFS(src, os.DirFS(groupFixture("migrated_v3.source_v2.zarr"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src.zarr", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	before := treeHash(t, src)
	arr := filepath.Join(src, "time")
	if _, err := os.Stat(filepath.Join(arr, ".zarray")); err != nil {
		t.Fatalf("fixture has no time array: %v", err)
	}
	o := transcode.Options{Unit: dtype.Second, Format: 3}
	check := func(what string, err error) {
		t.Helper()
		var oe *transcode.OverlapError
		if !errors.As(err, &oe) || !errors.Is(err, transcode.ErrPlan) {
			t.Errorf("%s: %v, want an OverlapError", what, err)
		}
	}
	for _, dst := range []string{"link/x", "link/a/b", "link/time/c/d", "link/../link/a"} {
		d := filepath.Join(dir, dst)
		check("store run "+dst, func() error {
			_, err := runStore(t, storage.NewDir(src), storage.NewDir(d), transcode.StoreOptions{Options: o})
			return err
		}())
		if j, err := transcode.NewStore(ctx, storage.NewDir(src), storage.NewDir(d), transcode.StoreOptions{Options: o}); err != nil {
			t.Fatal(err)
		} else {
			_, err := j.Finalize(ctx)
			check("store finalize "+dst, err)
		}
	}
	for _, dst := range []string{"link/time", "link/time/c/d", "link/../link/time/c"} {
		d := filepath.Join(dir, dst)
		check("array run "+dst, func() error { _, err := run(t, storage.NewDir(arr), storage.NewDir(d), o); return err }())
		tr, err := transcode.New(ctx, storage.NewDir(arr), storage.NewDir(d), o)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tr.Finalize(ctx)
		check("array finalize "+dst, err)
	}
	if treeHash(t, src) != before {
		t.Error("the source changed")
	}
	// A sibling of the source, even through the link's directory, is not
	// an overlap.
	if err := transcode.CheckOverlap(src, filepath.Join(dir, "link2", "a")); err != nil {
		t.Errorf("sibling: %v", err)
	}
	if err := transcode.CheckOverlap("s3://b/src.zarr", "s3://b/src.zarr/x"); err == nil {
		t.Error("URL inside the source: no error")
	}
	if err := transcode.CheckOverlap("s3://b/src.zarr", "s3://b/src.zarr2"); err != nil {
		t.Errorf("URL sibling: %v", err)
	}
}

// overlapSource copies a v2 group with a time array into dir/src.zarr,
// with dir/a a directory beside it, and returns the source's path.
func overlapSource(t *testing.T, dir string) string {
	t.Helper()
	src := filepath.Join(dir, "src.zarr")
	if err := os.CopyFS(src, os.DirFS(groupFixture("migrated_v3.source_v2.zarr"))); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	return src
}

// checkRefused runs a transcode (with Overwrite, which would wipe what
// the destination holds) of the hierarchy src to dst, its finalize, and
// with array a transcode of src's array of that name: each must be
// refused as an overlap, before anything is written.
func checkRefused(t *testing.T, src, dst, array string) {
	t.Helper()
	check := func(what string, err error) {
		t.Helper()
		var oe *transcode.OverlapError
		if !errors.As(err, &oe) || !errors.Is(err, transcode.ErrPlan) {
			t.Errorf("%s %s: %v, want an OverlapError", what, dst, err)
		}
	}
	o := transcode.Options{Unit: dtype.Second, Format: 3, Overwrite: true}
	check("CheckOverlap", transcode.CheckOverlap(src, dst))
	_, err := runStore(t, storage.NewDir(src), storage.NewDir(dst), transcode.StoreOptions{Options: o})
	check("store run", err)
	j, err := transcode.NewStore(ctx, storage.NewDir(src), storage.NewDir(dst), transcode.StoreOptions{Options: o})
	if err != nil {
		t.Fatal(err)
	}
	_, err = j.Finalize(ctx)
	check("store finalize", err)
	if array != "" {
		_, err = run(t, storage.NewDir(filepath.Join(src, array)), storage.NewDir(dst), o)
		check("array run", err)
	}
}

// A ".." after a link is taken where the system takes it, in the link's
// target's parent: "link/../src.zarr" is the source when link points
// into the directory holding it, though the path cleaned ("src.zarr"
// beside link) is not. The check took the cleaned path, and a run made
// its destination's directory inside the source.
func TestOverlapLinkDotDot(t *testing.T) {
	dir := t.TempDir()
	src := overlapSource(t, filepath.Join(dir, "d"))
	if err := os.Symlink(filepath.Join("d", "a", "b"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	before := treeHash(t, src)
	// Not filepath.Join, which would clean "link/.." away.
	at := func(p string) string { return dir + string(filepath.Separator) + filepath.FromSlash(p) }
	for _, c := range [][2]string{{"link/../../src.zarr", ""}, {"link/../../src.zarr/inner.zarr", ""}, {"link/../../src.zarr/x/y.zarr", ""},
		{"link/../..", ""}, {"link/../../src.zarr/time/c/x", "time"}} {
		checkRefused(t, src, at(c[0]), c[1])
	}
	if treeHash(t, src) != before {
		t.Error("the source changed")
	}
	for _, dst := range []string{"link/../../other.zarr", "link/../src.zarr"} { // d/other.zarr, d/a/src.zarr
		if err := transcode.CheckOverlap(src, at(dst)); err != nil {
			t.Errorf("%s: %v", dst, err)
		}
	}
	err := transcode.CheckOverlap(src, at("link/../../src.zarr/inner.zarr"))
	if want := filepath.Join(dir, "d", "src.zarr", "inner.zarr") + " and "; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("message %v, want the resolved paths (%s...)", err, want)
	}
}
