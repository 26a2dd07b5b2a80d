package transcode_test

import (
	"path/filepath"
	"testing"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
)

// wrappedStore is a store the engine cannot tell is local, like a remote
// one.
type wrappedStore struct{ storage.Store }

func noSync(dir string) *storage.Dir {
	d := storage.NewDir(dir)
	d.NoSync = true
	return d
}

// Units in flight default to the workers between local stores (their I/O
// is CPU work) and to twice the workers otherwise (I/O is waiting: a
// remote store); an
// explicit InFlight wins either way, also below Workers (then only that
// many units convert at once), and the memory bound follows.
func TestInFlightDefaults(t *testing.T) {
	srcDir := filepath.Join(t.TempDir(), "s")
	v2Source(t, storage.NewDir(srcDir))
	mem := storage.NewMemory()
	v2Source(t, mem)
	for _, c := range []struct {
		name              string
		src, dst          storage.Store
		workers, inFlight int
		wantWorkers       int
		wantInFlight      int
	}{
		{"dir to durable dir", storage.NewDir(srcDir), storage.NewDir(filepath.Join(t.TempDir(), "d")), 3, 0, 3, 3},
		{"dir to dir without sync", storage.NewDir(srcDir), noSync(filepath.Join(t.TempDir(), "d")), 3, 0, 3, 3},
		{"memory to memory", mem, storage.NewMemory(), 2, 0, 2, 2},
		{"wrapped source", &wrappedStore{storage.NewDir(srcDir)}, noSync(filepath.Join(t.TempDir(), "d")), 3, 0, 3, 6},
		{"wrapped destination", storage.NewDir(srcDir), &wrappedStore{storage.NewMemory()}, 2, 0, 2, 4},
		{"explicit, local", storage.NewDir(srcDir), storage.NewMemory(), 2, 5, 2, 5},
		{"explicit below workers", &wrappedStore{mem}, storage.NewMemory(), 3, 1, 1, 1},
		{"explicit below workers, local", storage.NewDir(srcDir), storage.NewMemory(), 4, 2, 2, 2},
	} {
		tr, err := transcode.New(ctx, c.src, c.dst, transcode.Options{Workers: c.workers, InFlight: c.inFlight})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p := tr.Plan()
		if p.InFlight != c.wantInFlight || p.Workers != c.wantWorkers {
			t.Errorf("%s: %d workers, %d in flight; want %d, %d", c.name, p.Workers, p.InFlight, c.wantWorkers, c.wantInFlight)
		}
		one, err := transcode.New(ctx, c.src, c.dst, transcode.Options{Workers: 1, InFlight: 1})
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(p.InFlight) * one.Plan().MemoryBound; p.MemoryBound != want {
			t.Errorf("%s: memory bound %d, want %d (%d in flight)", c.name, p.MemoryBound, want, p.InFlight)
		}
		// The run completes whether or not the workers share CPU tokens.
		if _, err := tr.Run(ctx); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
