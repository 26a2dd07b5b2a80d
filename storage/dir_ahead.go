package storage

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"
)

// flushHook, when set by a test, runs in the flusher before each batch
// is made durable, with the batch's keys.
var flushHook func(keys []string)

// flushDelay is how long the flusher lets a batch grow before it flushes
// one smaller than FlushAhead, when nobody waits for its values (a
// variable for the tests).
var flushDelay = 50 * time.Millisecond

// pendingValue is a value written to its temporary file, waiting to be
// made durable and renamed to its key.
type pendingValue = tempValue

// flushAhead is a Dir's group commit (FlushAhead): Set writes a
// value to a temporary file and hands it to one flusher goroutine, which
// makes a whole batch durable with one flush (syncfs on Linux, an fsync
// of each file elsewhere), then renames the batch into place. One device
// flush for a batch instead of one per value is what makes durable
// writes cheap, and every value is still on disk before its name is.
type flushAhead struct {
	mu      sync.Mutex
	keys    map[string]chan struct{} // in flight, each closed when done
	pending []pendingValue           // written, not yet flushed
	wake    chan struct{}            // a value is pending, or someone waits
	urgent  int                      // callers waiting: flush now
	slot    chan struct{}            // one token per value in flight
	err     error
	running bool
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
			a.wake = make(chan struct{}, 1)
		}
		busy := a.keys[key]
		if busy == nil {
			a.keys[key] = make(chan struct{})
		}
		slot := a.slot
		a.mu.Unlock()
		if busy != nil {
			a.hurry(busy)
			continue
		}
		select {
		case slot <- struct{}{}:
			return nil
		default:
		}
		// Every slot is taken: the batch is full, flush it.
		a.mu.Lock()
		a.urgent++
		a.mu.Unlock()
		a.signal()
		select {
		case slot <- struct{}{}:
			a.mu.Lock()
			a.urgent--
			a.mu.Unlock()
			return nil
		case <-ctx.Done():
			a.mu.Lock()
			a.urgent--
			done := a.keys[key]
			delete(a.keys, key)
			a.mu.Unlock()
			close(done)
			return ctx.Err()
		}
	}
}

// abandon gives up a claimed key whose value was not written (its slot
// too).
func (a *flushAhead) abandon(key string) {
	a.mu.Lock()
	done := a.keys[key]
	delete(a.keys, key)
	a.mu.Unlock()
	close(done)
	<-a.slot
}

// add hands a written value to the flusher, starting it on first use.
func (a *flushAhead) add(d *Dir, r *os.Root, p pendingValue) {
	a.mu.Lock()
	a.pending = append(a.pending, p)
	if !a.running {
		a.running = true
		go a.flusher(d, r)
	}
	a.mu.Unlock()
	a.signal()
}

func (a *flushAhead) signal() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// flusher makes the pending values durable and renames them, a batch at
// a time: at once when a batch is full or someone waits for a value,
// else after flushDelay, so that a batch holds as many values as the
// writers produce meanwhile. It stops when nothing is pending.
func (a *flushAhead) flusher(d *Dir, r *os.Root) {
	timer := time.NewTimer(flushDelay)
	defer timer.Stop()
	for {
		a.mu.Lock()
		n, full, hurry := len(a.pending), len(a.pending) >= cap(a.slot), a.urgent > 0
		if n == 0 {
			a.running = false
			a.mu.Unlock()
			return
		}
		if !full && !hurry {
			a.mu.Unlock()
			timer.Reset(flushDelay)
			select {
			case <-a.wake:
				continue
			case <-timer.C:
			}
			a.mu.Lock()
		}
		batch := a.pending
		a.pending = nil
		a.mu.Unlock()
		keys := make([]string, len(batch))
		files := make([]*os.File, len(batch))
		for i, p := range batch {
			keys[i], files[i] = p.key, p.f
		}
		if flushHook != nil {
			flushHook(keys)
		}
		err := syncBatch(r, files)
		for _, p := range batch {
			e := err
			if cerr := p.closeFile(); e == nil {
				e = cerr
			}
			if e == nil {
				e = p.rename(inFlusher, r)
			}
			if e != nil {
				gone := vanished(r, &p, e)
				p.remove(r)
				if gone && p.value != nil {
					// Another process's cleanup removed the temporary file
					// (see keepForRetry): write the value again, now.
					e = d.setNow(inFlusher, r, p.key, p.value, p.check)
				}
			}
			p.closeDir()
			a.release(p.key, e)
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

// hurry waits for done, asking the flusher not to wait for a fuller batch.
func (a *flushAhead) hurry(done chan struct{}) {
	a.mu.Lock()
	a.urgent++
	a.mu.Unlock()
	a.signal()
	<-done
	a.mu.Lock()
	a.urgent--
	a.mu.Unlock()
}

// inFlusher is the context the flusher asks publish checks with: a read
// of the store under it does not wait for values in flight, which the
// flusher itself is to publish (it would wait for ever), and reads what
// is in place.
var inFlusher = context.WithValue(context.Background(), flusherKey{}, true)

type flusherKey struct{}

// waitKey returns once key is not in flight (at once under inFlusher's
// context).
func (a *flushAhead) waitKey(ctx context.Context, key string) {
	if ctx.Value(flusherKey{}) != nil {
		return
	}
	a.mu.Lock()
	busy := a.keys[key]
	a.mu.Unlock()
	if busy != nil {
		a.hurry(busy)
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
		a.hurry(c)
	}
}

// wait is waitAll, then the first background error.
func (a *flushAhead) wait() error {
	a.waitAll()
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}
