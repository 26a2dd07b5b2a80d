package transcode

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/storage"
)

// TestLeaseFresh: a write of a run whose last ownership check is older
// than two renewal intervals (a process stopped, SIGSTOP, longer than an
// overwrite waits) checks again before it is made and fails when the
// destination is no longer the run's; a recent check lets writes through
// without reading anything. The renewals are not running here: this is
// the stopped process's view.
func TestLeaseFresh(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	owned, reads := true, 0
	l := &lease{store: st, key: liveKey("0123456789abcdef"), every: time.Hour, guard: true,
		owned: func(context.Context) (bool, error) { reads++; return owned, nil }}
	_, cancel := context.WithCancelCause(ctx)
	l.cancel = cancel
	if err := l.write(ctx); err != nil {
		t.Fatal(err)
	}
	wctx := context.WithValue(ctx, guardKey{}, l)
	l.lastOK = time.Now()
	if err := freshFor(wctx); err != nil || reads != 0 {
		t.Fatalf("a fresh lease: %v after %d reads, want nil without reading", err, reads)
	}
	l.lastOK = time.Now().Add(-3 * time.Hour) // stopped for three intervals
	if err := freshFor(wctx); err != nil || reads != 1 || time.Since(l.lastOK) > time.Minute {
		t.Fatalf("a stale lease still owned: %v after %d reads", err, reads)
	}
	l.lastOK = time.Now().Add(-3 * time.Hour)
	owned = false // taken over meanwhile
	if err := freshFor(wctx); !errors.Is(err, ErrTakenOver) {
		t.Fatalf("a stale lease taken over: %v, want ErrTakenOver", err)
	}
	if err := freshFor(wctx); !errors.Is(err, ErrTakenOver) || reads != 2 {
		t.Fatalf("once noticed: %v after %d reads, want ErrTakenOver without reading", err, reads)
	}
	// A lease deleted (an overwrite, or the destination emptied by hand)
	// is a takeover whatever the marker says.
	l2 := &lease{store: st, key: liveKey("fedcba9876543210"), every: time.Hour, guard: true,
		owned: func(context.Context) (bool, error) { return true, nil }, lastOK: time.Now().Add(-3 * time.Hour)}
	_, l2.cancel = context.WithCancelCause(ctx)
	if err := l2.fresh(ctx); !errors.Is(err, ErrTakenOver) {
		t.Errorf("a deleted lease: %v, want ErrTakenOver", err)
	}
	// After the part marker (confirm) nothing is checked any more.
	l3 := &lease{store: st, key: liveKey("00000000000000ff"), every: time.Hour, guard: false, lastOK: time.Now().Add(-3 * time.Hour)}
	if err := l3.fresh(ctx); err != nil {
		t.Errorf("unguarded: %v", err)
	}
}

// A directory store that flushes ahead renames a value into place after
// Set has returned: a run stopped with values in flight, whose
// destination was taken over meanwhile, must not publish them. The
// lease's check runs again right before the rename (storage's publish
// check), fails, and the value never appears; Sync reports the takeover.
// (Before, a SIGSTOPped run's pending chunks landed in the overwrite's
// array when it went on.)
func TestLeaseGatesFlushAhead(t *testing.T) {
	ctx := context.Background()
	d := storage.NewDir(t.TempDir())
	d.FlushAhead = 64
	defer d.Close()
	st := &ioStore{Store: d}
	checks := 0
	// The ownership check of Set passes; the one before the rename, 10 ms
	// later (far past two intervals of 1 ms), finds the destination taken
	// over.
	l := &lease{store: st, key: liveKey("0123456789abcdef"), every: time.Millisecond, guard: true,
		owned: func(context.Context) (bool, error) { checks++; return checks == 1, nil }}
	_, l.cancel = context.WithCancelCause(ctx)
	if err := l.write(ctx); err != nil {
		t.Fatal(err)
	}
	if err := d.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	wctx := context.WithValue(ctx, guardKey{}, l)
	if err := st.Set(wctx, "c/0", []byte("old run's chunk")); err != nil {
		t.Fatalf("Set: %v", err)
	}
	// The process "stopped" for 10 ms, five intervals: the rename (the
	// flusher's, hurried by Sync) comes after that.
	time.Sleep(10 * time.Millisecond)
	if err := d.Sync(ctx); !errors.Is(err, ErrTakenOver) {
		t.Fatalf("Sync: %v, want the takeover", err)
	}
	if _, err := d.Get(ctx, "c/0"); err == nil {
		t.Error("the stopped run's chunk was published after the takeover")
	}
	if checks != 2 {
		t.Errorf("%d ownership checks, want 2 (Set's and the rename's)", checks)
	}
	if temps, _ := d.Temps(ctx); len(temps) != 0 {
		t.Errorf("temporary files left: %v", temps)
	}
}

// failSet fails every Set.
type failSet struct{ storage.Store }

func (failSet) Set(context.Context, string, []byte) error {
	return errors.New("rename .dt64-tmp-x c/7: no such file or directory")
}

// A write that fails because the destination was taken over meanwhile
// (a resume removed the temporary file a stopped run was about to
// rename) reports the takeover, not the store's error; a run still the
// destination's owner gets the store's error.
func TestFailedWriteReportsTakeover(t *testing.T) {
	ctx := context.Background()
	mem := storage.NewMemory()
	st := &ioStore{Store: failSet{mem}}
	l := &lease{store: mem, key: liveKey("0123456789abcdef"), every: time.Hour, guard: true, lastOK: time.Now(),
		owned: func(context.Context) (bool, error) { return true, nil }}
	_, l.cancel = context.WithCancelCause(ctx)
	if err := l.write(ctx); err != nil {
		t.Fatal(err)
	}
	wctx := context.WithValue(ctx, guardKey{}, l)
	if err := st.Set(wctx, "c/7", []byte("x")); err == nil || errors.Is(err, ErrTakenOver) {
		t.Errorf("owned: %v, want the store's error", err)
	}
	if err := mem.Delete(ctx, l.key); err != nil { // taken over
		t.Fatal(err)
	}
	if err := st.Set(wctx, "c/7", []byte("x")); !errors.Is(err, ErrTakenOver) {
		t.Errorf("taken over: %v, want ErrTakenOver", err)
	}
}
