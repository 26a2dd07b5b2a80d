package transcode

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/zarr-dt64/dt64/storage"
)

// cpuToken is a worker's right to use a CPU. A work unit holds it while it
// decodes, converts and encodes, and gives it up while it waits for the
// store, so a slow store leaves the CPUs to units that have their bytes.
// Each token belongs to one goroutine; the channel holds Workers slots, or
// is nil when there are no more goroutines than workers (nothing to share:
// acquire and release do nothing).
type cpuToken struct {
	sem  chan struct{}
	held bool
}

func (t *cpuToken) acquire(ctx context.Context) error {
	if t.held || t.sem == nil {
		return nil
	}
	select {
	case t.sem <- struct{}{}:
		t.held = true
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (t *cpuToken) release() {
	if t.held {
		<-t.sem
		t.held = false
	}
}

type tokenKey struct{}

// pause gives up the caller's CPU token (found in ctx) for the duration of
// an I/O call; resume takes it back.
func pause(ctx context.Context) *cpuToken {
	t, _ := ctx.Value(tokenKey{}).(*cpuToken)
	if t == nil || !t.held {
		return nil
	}
	t.release()
	return t
}

func resume(ctx context.Context, t *cpuToken, err error) error {
	if t == nil {
		return err
	}
	if aerr := t.acquire(ctx); aerr != nil && err == nil {
		return aerr
	}
	return err
}

// ioStore wraps a store for the engine: it counts bytes and releases the
// caller's CPU token around every store call.
type ioStore struct {
	storage.Store
	read, written atomic.Int64
}

func (s *ioStore) Unwrap() storage.Store { return s.Store }

func (s *ioStore) String() string {
	if st, ok := s.Store.(fmt.Stringer); ok {
		return st.String()
	}
	return ""
}

func (s *ioStore) Get(ctx context.Context, key string) ([]byte, error) {
	t := pause(ctx)
	b, err := s.Store.Get(ctx, key)
	s.read.Add(int64(len(b)))
	return b, resume(ctx, t, err)
}

// GetInto implements storage.BufferGetter so the array keeps using its pooled
// buffers when the wrapped store can fill them.
func (s *ioStore) GetInto(ctx context.Context, key string, buf []byte, limit int) ([]byte, error) {
	t := pause(ctx)
	b, err := storage.GetInto(ctx, s.Store, key, buf, limit)
	s.read.Add(int64(len(b)))
	return b, resume(ctx, t, err)
}

func (s *ioStore) Set(ctx context.Context, key string, value []byte) error {
	if ctx.Err() != nil {
		// A stopped run (interrupted, or its destination taken over:
		// live.go) writes nothing more, even to a store that does not
		// look at the context.
		return context.Cause(ctx)
	}
	// A run that may have been stopped for a while makes sure the
	// destination is still its own first (lease.fresh).
	if err := freshFor(ctx); err != nil {
		return err
	}
	if l, ok := ctx.Value(guardKey{}).(*lease); ok {
		// And again right before the value is in place, which in a
		// directory store that flushes ahead comes after Set returns: a
		// run stopped with values in flight must not publish them into an
		// array that has been taken over meanwhile.
		ctx = storage.WithPublishCheck(ctx, l.fresh)
	}
	t := pause(ctx)
	err := s.Store.Set(ctx, key, value)
	if err == nil {
		s.written.Add(int64(len(value)))
	} else if l, ok := ctx.Value(guardKey{}).(*lease); ok {
		// A write that fails may have lost its temporary file to the run
		// that took the destination over while this one was stopped (a
		// resume removes stray temporaries): that is the error to report.
		if terr := l.check(ctx); terr != nil {
			err = terr
		}
	}
	return resume(ctx, t, err)
}

func (s *ioStore) Delete(ctx context.Context, key string) error {
	t := pause(ctx)
	return resume(ctx, t, s.Store.Delete(ctx, key))
}

// dirStore returns the storage.Dir s is, or wraps through Unwrappers.
func dirStore(s storage.Store) (*storage.Dir, bool) { return storage.Find[*storage.Dir](s) }
