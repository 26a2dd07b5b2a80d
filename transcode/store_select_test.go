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

// A selection pattern that matches no array is refused, naming it, and
// nothing is written (a group path is not an array path).
func TestStoreSelectionMatchesNothing(t *testing.T) {
	src := storage.NewDir(groupFixture("migrated_v3.source_v2.zarr"))
	for _, o := range []transcode.StoreOptions{
		{Include: []string{"sub"}},
		{Include: []string{"time", "tmie"}},
		{Exclude: []string{"nothing*"}},
		{Include: []string{"time"}, Exclude: []string{"t*"}},
	} {
		dst := filepath.Join(t.TempDir(), "out.zarr")
		_, err := runStore(t, src, storage.NewDir(dst), o)
		if !errors.Is(err, transcode.ErrPlan) || !strings.Contains(err.Error(), `"`) {
			t.Errorf("%v / %v: %v, want a plan error naming the pattern", o.Include, o.Exclude, err)
		}
		if _, err := os.Stat(dst); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v / %v: destination written", o.Include, o.Exclude)
		}
	}
	if _, err := runStore(t, src, storage.NewDir(filepath.Join(t.TempDir(), "ok.zarr")), transcode.StoreOptions{Include: []string{"sub/*", "time"}}); err != nil {
		t.Errorf("patterns that match: %v", err)
	}
}

// A hierarchy finalize (run without a part) before every part is done
// says how many of how many are, and which are missing, as an array's
// finalize does; once all are, it completes.
func TestStoreFinalizeReportsParts(t *testing.T) {
	src := storage.NewDir(groupFixture("migrated_v3.source_v2.zarr"))
	o := transcode.Options{Unit: dtype.Second, Format: 3}
	dir := filepath.Join(t.TempDir(), "out.zarr")
	finalize := func() (transcode.StoreSummary, error) {
		j, err := transcode.NewStore(ctx, src, storage.NewDir(dir), transcode.StoreOptions{Options: o})
		if err != nil {
			t.Fatal(err)
		}
		return j.Finalize(ctx)
	}
	for i := range 3 {
		po := o
		po.Part = transcode.Part{Index: i, Count: 3}
		if _, err := runStore(t, src, storage.NewDir(dir), transcode.StoreOptions{Options: po}); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			sum, err := finalize()
			want := "2 of 3 parts done (missing parts 2 of 3)"
			if !errors.Is(err, transcode.ErrIncomplete) || !strings.Contains(err.Error(), want) || sum.PartsDone != 2 {
				t.Errorf("finalize with 2 of 3 parts: %v (%d done), want %q", err, sum.PartsDone, want)
			}
		}
	}
	if sum, err := finalize(); err != nil || !sum.Complete {
		t.Errorf("finalize of a complete run: %+v, %v", sum, err)
	}
}
