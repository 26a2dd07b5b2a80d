package transcode_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// A run's lease (live.go): an overwrite refuses to start over while a run
// renews it, a stale one does not stop it, and a run whose destination is
// taken over all the same stops writing.

const leaseEvery = 20 * time.Millisecond

// gateStore holds the at-th chunk write (1-based) until release is
// closed, so a run is caught mid-way for as long as a test needs, and
// counts the chunk writes that come after the run's context ended: a run
// stopped must write nothing more.
type gateStore struct {
	storage.Store
	at      int64
	reached chan struct{}
	release chan struct{}
	chunks  atomic.Int64
	late    atomic.Int64
}

func newGate(s storage.Store, at int64) *gateStore {
	return &gateStore{Store: s, at: at, reached: make(chan struct{}), release: make(chan struct{})}
}

// isChunk tells chunks from metadata and dt64's state by name.
func isChunk(key string) bool {
	base := path.Base(key)
	return !strings.HasPrefix(key, ".dt64-") && !strings.HasPrefix(base, ".") && base != "zarr.json"
}

func (s *gateStore) Set(ctx context.Context, key string, v []byte) error {
	if isChunk(key) {
		if ctx.Err() != nil {
			s.late.Add(1)
		}
		if s.chunks.Add(1) == s.at {
			close(s.reached)
			<-s.release
		}
	}
	return s.Store.Set(ctx, key, v)
}

func (s *gateStore) Unwrap() storage.Store { return s.Store }

func (s *gateStore) String() string { return storage.Name(s.Store) }

// liveSource is a v2 ">M8[ns]" array of 100 chunks in memory.
func liveSource(t *testing.T) storage.Store {
	t.Helper()
	src := storage.NewMemory()
	writeArray(t, src, zarr.Metadata{
		Format: 2, DataType: ns, Shape: []int64{400}, ChunkShape: []int64{4}, FillValue: dtype.NaT,
		Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}},
	}, sampleValues(400, 3), nil)
	return src
}

type runResult struct {
	sum transcode.Summary
	err error
}

// startRun runs a job of o from src into dst in the background.
func startRun(t *testing.T, src, dst storage.Store, o transcode.Options) (*transcode.Job, chan runResult) {
	t.Helper()
	j, err := transcode.New(ctx, src, dst, o)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan runResult, 1)
	go func() {
		s, err := j.Run(ctx)
		done <- runResult{s, err}
	}()
	return j, done
}

// stateKeysIn lists the keys of dt64's state in s.
func stateKeysIn(t *testing.T, s storage.Store) []string {
	t.Helper()
	keys, err := s.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, k := range keys {
		if strings.Contains(k, ".dt64-") {
			out = append(out, k)
		}
	}
	return out
}

// TestOverwriteRefusedWhileRunning is the race a tester found on S3: run A
// writes seconds, run B starts over with --overwrite in milliseconds while
// A runs. B must be refused (before: it deleted A's work and A wrote
// seconds into B's array), and A must complete, correct; once A is done B
// may start over.
func TestOverwriteRefusedWhileRunning(t *testing.T) {
	src := liveSource(t)
	mem := storage.NewMemory()
	gate := newGate(mem, 5)
	a, done := startRun(t, src, gate, transcode.Options{Unit: dtype.Second, Workers: 1, InFlight: 1, LeaseInterval: leaseEvery})
	<-gate.reached

	b, err := transcode.New(ctx, src, mem, transcode.Options{Unit: dtype.Millisecond, Overwrite: true, LeaseInterval: leaseEvery})
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.Run(ctx)
	var de *transcode.DestinationError
	if !errors.Is(err, transcode.ErrRunning) || !errors.As(err, &de) || de.Overwrite ||
		!strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) || !strings.Contains(err.Error(), "stop it first") {
		t.Fatalf("an overwrite while a run writes the destination: %v", err)
	}
	// A run of the same plan without --resume is refused, saying the run
	// may still be going (it said "interrupted", inviting a --resume).
	c, err := transcode.New(ctx, src, mem, transcode.Options{Unit: dtype.Second, LeaseInterval: leaseEvery})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(ctx); !errors.Is(err, transcode.ErrDestinationExists) || !strings.Contains(err.Error(), "or still running (lease .dt64-live/") {
		t.Fatalf("a second run of the plan while one runs: %v", err)
	}
	close(gate.release)
	r := <-done
	if r.err != nil || !r.sum.Complete {
		t.Fatalf("the running job: %+v, %v", r.sum, r.err)
	}
	if err := a.Verify(ctx); err != nil {
		t.Fatalf("the running job's array: %v", err)
	}
	if got, _ := readArray(t, mem); got.DataType().Unit != dtype.Second {
		t.Errorf("the array is in %v, want seconds (run A's)", got.DataType())
	}
	if left := stateKeysIn(t, mem); len(left) > 0 {
		t.Errorf("state left after the run: %v", left)
	}
	// A is done: its lease is gone, and B starts over at once.
	b, _ = transcode.New(ctx, src, mem, transcode.Options{Unit: dtype.Millisecond, Overwrite: true, LeaseInterval: time.Hour})
	if s, err := b.Run(ctx); err != nil || !s.Complete {
		t.Fatalf("the overwrite once the run ended: %+v, %v", s, err)
	}
	if err := b.Verify(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestStoreOverwriteRefusedWhileRunning: the same for a hierarchy, on a
// directory.
func TestStoreOverwriteRefusedWhileRunning(t *testing.T) {
	src := storage.NewDir(groupFixture("xarray_v2.zarr"))
	dir := filepath.Join(t.TempDir(), "out.zarr")
	gate := newGate(storage.NewDir(dir), 2)
	a, err := transcode.NewStore(ctx, src, gate, transcode.StoreOptions{Options: transcode.Options{Unit: dtype.Second, Workers: 1, InFlight: 1, LeaseInterval: leaseEvery}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		s, err := a.Run(ctx)
		if err == nil && !s.Complete {
			err = fmt.Errorf("incomplete: %+v", s)
		}
		done <- err
	}()
	<-gate.reached
	_, err = runStore(t, src, storage.NewDir(dir), transcode.StoreOptions{Options: transcode.Options{Unit: dtype.Millisecond, Overwrite: true, LeaseInterval: leaseEvery}})
	if !errors.Is(err, transcode.ErrRunning) {
		t.Fatalf("an overwrite while a run writes the hierarchy: %v", err)
	}
	close(gate.release)
	if err := <-done; err != nil {
		t.Fatalf("the running job: %v", err)
	}
	if err := a.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	if left := stateKeysIn(t, storage.NewDir(dir)); len(left) > 0 {
		t.Errorf("state left after the run: %v", left)
	}
	if _, err := os.Stat(filepath.Join(dir, ".dt64-live")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the leases' directory is left: %v", err)
	}
}

// plantLease stores a lease as another process would have written it.
func plantLease(t *testing.T, s storage.Store, id, host string, pid int, seq int64) {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"tool": "dt64 transcode", "host": host, "pid": pid, "run": "0123456789abcdef", "part": "0-of-1", "interval_ms": leaseEvery.Milliseconds(), "seq": seq})
	if err := s.Set(ctx, ".dt64-live/"+id+".json", b); err != nil {
		t.Fatal(err)
	}
}

// completeArray is a destination holding a finished run's array.
func completeArray(t *testing.T, src storage.Store) storage.Store {
	t.Helper()
	dst := storage.NewMemory()
	j, err := transcode.New(ctx, src, dst, transcode.Options{Unit: dtype.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	return dst
}

func overwriteMs(src, dst storage.Store, every time.Duration) error {
	j, err := transcode.New(ctx, src, dst, transcode.Options{Unit: dtype.Millisecond, Overwrite: true, LeaseInterval: every})
	if err != nil {
		return err
	}
	s, err := j.Run(ctx)
	if err == nil && !s.Complete {
		err = fmt.Errorf("incomplete: %+v", s)
	}
	return err
}

// TestOverwriteStaleLeases: leases a killed run left do not stop an
// overwrite, which deletes them with the rest: one of a process of this
// host that is gone at once, one of another host once it is seen not to
// change for two and a half intervals.
func TestOverwriteStaleLeases(t *testing.T) {
	src := liveSource(t)
	host, err := os.Hostname()
	if err != nil {
		t.Skip("no host name:", err)
	}
	t.Run("dead pid on this host", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("processes are not looked up here: the lease is watched")
		}
		dst := completeArray(t, src)
		plantLease(t, dst, "00000000000000aa", host, 1<<30-3, 7) // above any pid_max
		start := time.Now()
		// An interval of an hour: waiting would time the test out.
		if err := overwriteMs(src, dst, time.Hour); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("the overwrite waited %v for a dead process's lease", d)
		}
		if left := stateKeysIn(t, dst); len(left) > 0 {
			t.Errorf("state left: %v", left)
		}
	})
	t.Run("unchanged lease of another host", func(t *testing.T) {
		dst := completeArray(t, src)
		plantLease(t, dst, "00000000000000bb", "elsewhere.invalid", 1, 7)
		start := time.Now()
		if err := overwriteMs(src, dst, leaseEvery); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < 2*leaseEvery {
			t.Errorf("the overwrite took %v: it did not watch the other host's lease", d)
		}
		if left := stateKeysIn(t, dst); len(left) > 0 {
			t.Errorf("state left: %v", left)
		}
	})
}

// TestOverwriteRefusedRenewedLease: a lease of another host that changes
// while the overwrite watches it is a live run: nothing is deleted.
func TestOverwriteRefusedRenewedLease(t *testing.T) {
	src := liveSource(t)
	dst := completeArray(t, src)
	plantLease(t, dst, "00000000000000cc", "elsewhere.invalid", 4242, 0)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for seq := int64(1); ; seq++ {
			select {
			case <-stop:
				return
			case <-time.After(leaseEvery / 2):
			}
			plantLease(t, dst, "00000000000000cc", "elsewhere.invalid", 4242, seq)
		}
	})
	err := overwriteMs(src, dst, leaseEvery)
	close(stop)
	wg.Wait()
	if !errors.Is(err, transcode.ErrRunning) || !strings.Contains(err.Error(), "host elsewhere.invalid, pid 4242") {
		t.Fatalf("an overwrite under a renewed lease: %v", err)
	}
	if a, _ := readArray(t, dst); a.DataType().Unit != dtype.Second {
		t.Errorf("the array was replaced: %v", a.DataType())
	}
}

// TestTakenOverStops: a run whose plan marker is removed or replaced, or
// whose lease is deleted, while it works (its destination taken over)
// stops with ErrTakenOver at its next lease renewal, writing no chunk after it noticed, and no part
// marker, metadata or lease.
func TestTakenOverStops(t *testing.T) {
	src := liveSource(t)
	for _, how := range []string{"removed", "replaced", "lease deleted"} {
		t.Run(how, func(t *testing.T) {
			mem := storage.NewMemory()
			gate := newGate(mem, 5)
			_, done := startRun(t, src, gate, transcode.Options{Unit: dtype.Second, Workers: 1, InFlight: 1, LeaseInterval: leaseEvery})
			<-gate.reached
			const plan = ".dt64-transcode.json"
			switch how {
			case "lease deleted":
				// Emptied by hand, and the plan marker written again as
				// a part's would be, with the same run id: the lease's
				// absence tells.
				keys, _ := mem.List(ctx, ".dt64-live/")
				for _, k := range keys {
					if err := mem.Delete(ctx, k); err != nil {
						t.Fatal(err)
					}
				}
			case "removed":
				if err := mem.Delete(ctx, plan); err != nil {
					t.Fatal(err)
				}
			case "replaced":
				b, err := mem.Get(ctx, plan)
				if err != nil {
					t.Fatal(err)
				}
				var doc map[string]any
				if err := json.Unmarshal(b, &doc); err != nil {
					t.Fatal(err)
				}
				doc["run"] = "fedcba9876543210" // another run of the same plan
				b, _ = json.Marshal(doc)
				if err := mem.Set(ctx, plan, b); err != nil {
					t.Fatal(err)
				}
			}
			// The write caught at the gate was under way before: it ends
			// after the run noticed, as a PUT in flight would.
			time.Sleep(5 * leaseEvery)
			close(gate.release)
			var r runResult
			select {
			case r = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("the run did not stop")
			}
			if !errors.Is(r.err, transcode.ErrTakenOver) || !strings.Contains(r.err.Error(), "discarded") {
				t.Fatalf("the run taken over: %+v, %v", r.sum, r.err)
			}
			if n := gate.late.Load(); n > 0 {
				t.Errorf("%d chunks written after the run noticed", n)
			}
			if n := gate.chunks.Load(); n != 5 {
				t.Errorf("%d chunks written, want the 5 before the takeover", n)
			}
			for _, k := range []string{".zarray", ".dt64-parts/0-of-1.json"} {
				if _, err := mem.Get(ctx, k); err == nil {
					t.Errorf("%s written by the run taken over", k)
				}
			}
			if keys, _ := mem.List(ctx, ".dt64-live/"); len(keys) > 0 {
				t.Errorf("leases left: %v", keys)
			}
		})
	}
}

// TestStoreTakenOverStops: the same for a hierarchy.
func TestStoreTakenOverStops(t *testing.T) {
	src := storage.NewDir(groupFixture("xarray_v2.zarr"))
	dir := filepath.Join(t.TempDir(), "out.zarr")
	gate := newGate(storage.NewDir(dir), 2)
	j, err := transcode.NewStore(ctx, src, gate, transcode.StoreOptions{Options: transcode.Options{Unit: dtype.Second, Workers: 1, InFlight: 1, LeaseInterval: leaseEvery}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := j.Run(ctx)
		done <- err
	}()
	<-gate.reached
	if err := os.Remove(filepath.Join(dir, ".dt64-store.json")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * leaseEvery)
	close(gate.release)
	if err := <-done; !errors.Is(err, transcode.ErrTakenOver) {
		t.Fatalf("the run taken over: %v", err)
	}
	if n := gate.late.Load(); n > 0 {
		t.Errorf("%d chunks written after the run noticed", n)
	}
	if n := gate.chunks.Load(); n != 2 {
		t.Errorf("%d chunks written, want the 2 before the takeover", n)
	}
	for _, k := range []string{".zgroup", ".zmetadata", ".dt64-store-parts/0-of-1.json", ".dt64-live"} {
		if _, err := os.Stat(filepath.Join(dir, k)); err == nil {
			t.Errorf("%s written by the run taken over", k)
		}
	}
}

// swapStore replaces the run id of the plan marker at plan when the key
// at is written: an overwrite that took the destination over while the
// run was stopped between reading its plan and claiming the finalize.
type swapStore struct {
	storage.Store
	at, plan string
	swapped  atomic.Bool
}

func (s *swapStore) Set(ctx context.Context, key string, v []byte) error {
	if key == s.at && !s.swapped.Swap(true) {
		b, err := s.Store.Get(ctx, s.plan)
		if err != nil {
			return err
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			return err
		}
		doc["run"] = "fedcba9876543210"
		if b, err = json.Marshal(doc); err != nil {
			return err
		}
		if err := s.Store.Set(ctx, s.plan, b); err != nil {
			return err
		}
	}
	return s.Store.Set(ctx, key, v)
}

func (s *swapStore) Unwrap() storage.Store { return s.Store }

// A run whose destination is taken over between the start of its finalize
// and its claim writes no metadata: it reads the plan marker again once
// the claim is its own (before, a run stopped there, continued after an
// overwrite had finished, wrote its old metadata over the new array and
// exited 0). The same for a hierarchy's metadata.
func TestTakenOverAtFinalize(t *testing.T) {
	mem := storage.NewMemory()
	sw := &swapStore{Store: mem, at: ".dt64-finalize.json", plan: ".dt64-transcode.json"}
	_, done := startRun(t, liveSource(t), sw, transcode.Options{Unit: dtype.Second, Workers: 1, LeaseInterval: time.Hour})
	r := <-done
	if !sw.swapped.Load() {
		t.Fatal("the run did not claim its finalize")
	}
	if !errors.Is(r.err, transcode.ErrTakenOver) {
		t.Fatalf("the run taken over at its finalize: %+v, %v", r.sum, r.err)
	}
	if _, err := mem.Get(ctx, ".zarray"); err == nil {
		t.Error("metadata written by the run taken over")
	}

	src := storage.NewDir(groupFixture("xarray_v2.zarr"))
	dir := filepath.Join(t.TempDir(), "out.zarr")
	ssw := &swapStore{Store: storage.NewDir(dir), at: "time/.dt64-finalize.json", plan: ".dt64-store.json"}
	j, err := transcode.NewStore(ctx, src, ssw, transcode.StoreOptions{Options: transcode.Options{Unit: dtype.Second, Workers: 1, LeaseInterval: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = j.Run(ctx)
	if !ssw.swapped.Load() {
		t.Fatal("the hierarchy's time array did not claim its finalize")
	}
	if !errors.Is(err, transcode.ErrTakenOver) {
		t.Fatalf("the hierarchy taken over at its finalize: %v", err)
	}
	for _, k := range []string{".zgroup", ".zmetadata"} {
		if _, err := os.Stat(filepath.Join(dir, k)); err == nil {
			t.Errorf("%s written by the run taken over", k)
		}
	}
}

// A resume of a run that is still running (its lease renewed) is refused
// with ErrRunning, naming the lease: two processes of one part wrote the
// same chunks and removed each other's temporary files (one failed with a
// bare rename error). Parts of the same plan still run side by side.
func TestResumeRefusedWhileRunning(t *testing.T) {
	src := liveSource(t)
	mem := storage.NewMemory()
	gate := newGate(mem, 5)
	o := transcode.Options{Unit: dtype.Second, Workers: 1, InFlight: 1, LeaseInterval: leaseEvery}
	_, done := startRun(t, src, gate, o)
	<-gate.reached
	ro := o
	ro.Resume = true
	j, err := transcode.New(ctx, src, mem, ro)
	if err == nil {
		_, err = j.Run(ctx)
	}
	if !errors.Is(err, transcode.ErrRunning) || !strings.Contains(err.Error(), "refusing to run beside it") {
		t.Errorf("a resume beside the running run: %v, want ErrRunning", err)
	}
	close(gate.release)
	if r := <-done; r.err != nil || !r.sum.Complete {
		t.Fatalf("the running run: %+v, %v", r.sum, r.err)
	}
	// Another part of a partitioned plan is not refused by a part's lease.
	mem2 := storage.NewMemory()
	gate2 := newGate(mem2, 3)
	p0 := o
	p0.Part = transcode.Part{Index: 0, Count: 2}
	_, done0 := startRun(t, src, gate2, p0)
	<-gate2.reached
	p1 := o
	p1.Part = transcode.Part{Index: 1, Count: 2}
	j1, err := transcode.New(ctx, src, mem2, p1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j1.Run(ctx); err != nil {
		t.Errorf("part 1 beside a running part 0: %v", err)
	}
	close(gate2.release)
	if r := <-done0; r.err != nil || !r.sum.Complete {
		t.Fatalf("part 0: %+v, %v", r.sum, r.err)
	}
}
