package transcode_test

import (
	"errors"
	"os"
	"path/filepath"
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
