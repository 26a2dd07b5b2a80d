package zarr

import (
	"context"
	"fmt"
	"sync"
)

// flushHook, when set by a test, runs in each background flush before it
// starts.
var flushHook func(key string)

// flushAhead tracks the values a DirStore with FlushAhead is still
// flushing and renaming in the background: the keys in flight, each with
// a channel closed when it is done, and the first error.
type flushAhead struct {
	mu   sync.Mutex
	keys map[string]chan struct{}
	slot chan struct{} // one token per value in flight
	err  error
}

// claim waits until key is not in flight and a slot is free (or ctx is
// done), then marks key in flight. It fails with the first background
// error, so a store that lost a value takes no more.
func (a *flushAhead) claim(ctx context.Context, key string, limit int) error {
	for {
		a.mu.Lock()
		if a.err != nil {
			err := a.err
			a.mu.Unlock()
			return err
		}
		if a.slot == nil {
			a.slot = make(chan struct{}, limit)
			a.keys = map[string]chan struct{}{}
		}
		busy := a.keys[key]
		if busy == nil {
			a.keys[key] = make(chan struct{})
		}
		slot := a.slot
		a.mu.Unlock()
		if busy != nil {
			<-busy
			continue
		}
		select {
		case slot <- struct{}{}:
			return nil
		case <-ctx.Done():
			a.mu.Lock()
			done := a.keys[key]
			delete(a.keys, key)
			a.mu.Unlock()
			close(done)
			return ctx.Err()
		}
	}
}

// release marks key done with err (nil: it is in place) and frees its slot.
func (a *flushAhead) release(key string, err error) {
	a.mu.Lock()
	if err != nil && a.err == nil {
		a.err = fmt.Errorf("writing %s: %w", key, err)
	}
	done := a.keys[key]
	delete(a.keys, key)
	a.mu.Unlock()
	close(done)
	<-a.slot
}

// waitKey returns once key is not in flight.
func (a *flushAhead) waitKey(key string) {
	a.mu.Lock()
	busy := a.keys[key]
	a.mu.Unlock()
	if busy != nil {
		<-busy
	}
}

// waitAll returns once every value in flight when it was called is done.
func (a *flushAhead) waitAll() {
	a.mu.Lock()
	busy := make([]chan struct{}, 0, len(a.keys))
	for _, c := range a.keys {
		busy = append(busy, c)
	}
	a.mu.Unlock()
	for _, c := range busy {
		<-c
	}
}

// wait is waitAll, then the first background error.
func (a *flushAhead) wait() error {
	a.waitAll()
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}
