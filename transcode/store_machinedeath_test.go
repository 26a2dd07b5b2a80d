package transcode_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
)

// TestStoreMachineDeath kills the machine (the page-cache model of
// TestMachineDeath) at every store call of a whole-hierarchy run (v2 → v3
// with a time array converted and consolidated metadata), brings it back
// with any subset of the writes not yet synced, dies up to twice more
// while resuming, and requires the uninterrupted run's store, byte for
// byte.
func TestStoreMachineDeath(t *testing.T) {
	src := storage.NewDir(groupFixture("migrated_v3.source_v2.zarr"))
	o := transcode.StoreOptions{Options: transcode.Options{Unit: dtype.Second, Format: 3, Workers: 1}, Consolidate: true}
	run := func(d *crashStore, o transcode.StoreOptions) (transcode.StoreSummary, error) {
		j, err := transcode.NewStore(ctx, src, d, o)
		if err != nil {
			return transcode.StoreSummary{}, err
		}
		return j.Run(ctx)
	}
	empty := crashDisk{durable: map[string][]byte{}}
	ref := newCrashStore(empty, -1, false)
	if s, err := run(ref, o); err != nil || !s.Complete {
		t.Fatalf("uninterrupted: %+v %v", s, err)
	}
	want := ref.view()
	rng := rand.New(rand.NewPCG(15, 16))
	points := ref.ops
	if testing.Short() {
		points = min(points, 40)
	}
	deaths := 0
	for i := range points {
		dieAt := i
		if testing.Short() {
			dieAt = rng.IntN(ref.ops)
		}
		for _, keep := range []bool{false, true} {
			d := newCrashStore(empty, dieAt, false)
			if _, err := run(d, o); !errors.Is(err, errDead) {
				t.Fatalf("death at call %d: the run did not notice: %v", dieAt, err)
			}
			deaths++
			disk := d.reboot(rng, keep)
			for again := rng.IntN(3); ; again-- {
				dieAgain := -1
				if again > 0 {
					dieAgain = rng.IntN(points + 1)
				}
				r := newCrashStore(disk, dieAgain, false)
				ro := o
				ro.Resume = true
				sum, err := run(r, ro)
				if errors.Is(err, errDead) {
					deaths++
					disk = r.reboot(rng, rng.IntN(2) == 0)
					continue
				}
				if err != nil {
					t.Fatalf("death at call %d (kept writes %v): resume: %v", dieAt, keep, err)
				}
				if !sum.Complete {
					t.Fatalf("death at call %d (kept writes %v): resume did not complete: %+v", dieAt, keep, sum)
				}
				if diff := storeDiff(want, r.view()); diff != "" {
					t.Fatalf("death at call %d (kept writes %v): resumed store differs from an uninterrupted run: %s", dieAt, keep, diff)
				}
				break
			}
		}
	}
	t.Logf("%d store calls in an uninterrupted run, %d machine deaths survived", ref.ops, deaths)
}
