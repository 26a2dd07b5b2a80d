package transcode_test

import (
	"path/filepath"
	"testing"

	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// wrappedStore is a store the engine cannot tell is local, like a remote
// one.
type wrappedStore struct{ zarr.Store }

func noSync(dir string) *zarr.DirStore {
	d := zarr.Dir(dir)
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
	v2Source(t, zarr.Dir(srcDir))
	mem := zarr.NewMemory()
	v2Source(t, mem)
	for _, c := range []struct {
		name              string
		src, dst          zarr.Store
		workers, inFlight int
		wantWorkers       int
		wantInFlight      int
	}{
		{"dir to durable dir", zarr.Dir(srcDir), zarr.Dir(filepath.Join(t.TempDir(), "d")), 3, 0, 3, 3},
		{"dir to dir without sync", zarr.Dir(srcDir), noSync(filepath.Join(t.TempDir(), "d")), 3, 0, 3, 3},
		{"memory to memory", mem, zarr.NewMemory(), 2, 0, 2, 2},
		{"wrapped source", &wrappedStore{zarr.Dir(srcDir)}, noSync(filepath.Join(t.TempDir(), "d")), 3, 0, 3, 6},
		{"wrapped destination", zarr.Dir(srcDir), &wrappedStore{zarr.NewMemory()}, 2, 0, 2, 4},
		{"explicit, local", zarr.Dir(srcDir), zarr.NewMemory(), 2, 5, 2, 5},
		{"explicit below workers", &wrappedStore{mem}, zarr.NewMemory(), 3, 1, 1, 1},
		{"explicit below workers, local", zarr.Dir(srcDir), zarr.NewMemory(), 4, 2, 2, 2},
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
