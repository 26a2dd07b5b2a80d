package transcode

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/zarr-dt64/dt64/storage"
)

// A running job holds a lease on its destination: a small state document
// of its own (liveKey, one per process, so per part too) that it rewrites
// every lease interval with a counter that changes each time, and deletes
// when it ends, however it ends short of a kill. An overwrite first looks
// for leases and refuses to start over while one is renewed (checkLive):
// without that, a run started over would go on writing chunks of its plan
// into the new run's array. Liveness is decided without comparing clocks
// of different machines: a lease of a process of this host that is not
// running is stale at once; any other is read, read again after a bit more
// than two of its intervals, and live if it changed.
//
// The lease is also where a running job checks, at every renewal, that the
// destination is still its own (its plan marker there, with its run id):
// a run whose destination was taken over anyway (by an overwrite that
// judged it stale while it stalled, or by hand) stops at once with
// ErrTakenOver, writing no further chunk, part marker or metadata.

// livePrefix holds the leases: livePrefix + <16 hex digits> + ".json".
const livePrefix = ".dt64-live/"

// DefaultLeaseInterval is how often a running job renews its lease when
// Options.LeaseInterval is 0; an overwrite finding a lease waits about
// two and a half intervals (of its own or the lease's, the longer) to
// tell whether it is renewed.
const DefaultLeaseInterval = 5 * time.Second

// maxLeaseInterval bounds the interval a lease claims, so that a
// damaged one cannot make an overwrite wait for ever.
const maxLeaseInterval = 10 * time.Minute

func liveKey(id string) string { return livePrefix + id + ".json" }

// isLiveKey reports whether key names a lease.
func isLiveKey(key string) bool {
	id, ok := strings.CutPrefix(key, livePrefix)
	if !ok {
		return false
	}
	id, ok = strings.CutSuffix(id, ".json")
	return ok && isRunID(id)
}

// newRunID is a random id for a run's plan marker and for a lease.
func newRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// planRunID is the run id of a plan marker: random, so that a run started
// over with the same plan is told from the one it replaced; but for a
// partitioned run the same for every part (of the plan doc, with Run
// unset, and the part count), since parts starting at once each write
// the marker and must all find their own there.
func planRunID(doc any, part Part) string {
	if part.count() == 1 {
		return newRunID()
	}
	b, _ := json.Marshal(doc)
	h := sha256.Sum256(fmt.Appendf(b, "\x00%d parts", part.count()))
	return hex.EncodeToString(h[:8])
}

// partLabel names a part as leases do: "0-of-1" for a whole run.
func partLabel(p Part) string { return strings.TrimSuffix(partName(p), ".json") }

func isRunID(s string) bool {
	if len(s) != 16 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

// leaseDoc is a lease as stored. Seq changes on every renewal; the rest
// names the process for an error of the run it stops starting over.
type leaseDoc struct {
	Tool string `json:"tool"`
	Host string `json:"host"`
	PID  int    `json:"pid"`
	// Run is the run id of the plan marker the process works for, Part
	// its share ("0-of-1").
	Run        string `json:"run"`
	Part       string `json:"part"`
	IntervalMS int64  `json:"interval_ms"`
	Seq        int64  `json:"seq"`
}

func (o Options) leaseInterval() time.Duration {
	if o.LeaseInterval > 0 {
		return o.LeaseInterval
	}
	return DefaultLeaseInterval
}

// running holds the keys of this process's leases while their runs run:
// of a lease with this process's host and pid, it tells at once whether
// it is live (a run of this process that ended without deleting its
// lease, on a store that failed, left a stale one).
var running sync.Map

// lease is a running job's lease: renewed by a goroutine until stop.
type lease struct {
	store storage.Store
	key   string
	doc   leaseDoc
	every time.Duration
	// owned reports whether the destination is still this run's; checked
	// at every renewal while guard is set (until the run's part marker).
	owned  func(ctx context.Context) (bool, error)
	cancel context.CancelCauseFunc
	stopc  chan struct{}
	done   chan struct{}

	mu     sync.Mutex
	guard  bool
	lost   error     // the takeover, once noticed
	lastOK time.Time // when the destination was last found the run's (monotonic)
	// checking serializes the checks writes make (fresh): one at a time
	// reads the marker, the others then find it fresh.
	checking sync.Mutex
}

// guardKey is the context key under which a run's context carries its
// lease, for the writes to check (ioStore.Set, fresh).
type guardKey struct{}

// fresh is what every write of the run asks first: nil when the
// destination was found the run's less than two renewal intervals ago (an
// overwrite waits at least two and a half to judge a lease stale), else a
// check now, on the spot. A process stopped (SIGSTOP, a stalled VM) for
// longer than an overwrite waits has its writes, once it goes on, find
// the destination taken over before they are made, instead of landing in
// the new run's array while the renewal that would notice waits its turn.
func (l *lease) fresh(ctx context.Context) error {
	l.mu.Lock()
	guard, lost, ok := l.guard, l.lost, time.Since(l.lastOK) < 2*l.every
	l.mu.Unlock()
	switch {
	case !guard:
		return nil
	case lost != nil:
		return lost
	case ok:
		return nil
	}
	// One check at a time, but never waiting for another: a directory
	// store's flusher asks fresh before each rename (WithPublishCheck),
	// and the goroutine checking may be reading a value that flusher is
	// about to publish. Two checks at once only read twice.
	if !l.checking.TryLock() {
		return l.check(ctx)
	}
	defer l.checking.Unlock()
	l.mu.Lock()
	ok = time.Since(l.lastOK) < 2*l.every
	l.mu.Unlock()
	if ok {
		return nil // another write checked meanwhile
	}
	return l.check(ctx)
}

// freshFor is fresh of the lease ctx carries, nil for a context without.
func freshFor(ctx context.Context) error {
	if l, ok := ctx.Value(guardKey{}).(*lease); ok {
		return l.fresh(ctx)
	}
	return nil
}

// startLease writes a lease for the run id run in st and renews it until
// stop. The context returned is ctx, cancelled with an ErrTakenOver error
// as soon as owned says the destination is no longer this run's.
func startLease(ctx context.Context, st storage.Store, run string, part Part, every time.Duration, owned func(context.Context) (bool, error)) (*lease, context.Context, error) {
	host, _ := os.Hostname()
	l := &lease{
		store: st, key: liveKey(newRunID()), every: every, owned: owned,
		doc:   leaseDoc{Tool: "dt64 transcode", Host: host, PID: os.Getpid(), Run: run, Part: partLabel(part), IntervalMS: every.Milliseconds()},
		stopc: make(chan struct{}), done: make(chan struct{}), guard: true,
	}
	if err := l.write(ctx); err != nil {
		return nil, ctx, fmt.Errorf("writing the run's lease %s/%s: %w", storage.Name(st), l.key, err)
	}
	running.Store(l.key, true)
	rctx, cancel := context.WithCancelCause(ctx)
	rctx = context.WithValue(rctx, guardKey{}, l)
	l.cancel = cancel
	// Taken over before the first renewal: an overwrite that did not wait
	// for a lease (there was none yet) started over after this run's plan.
	if err := l.check(ctx); err != nil {
		close(l.done)
		_ = l.stop(ctx)
		return nil, ctx, err
	}
	go l.renew(ctx)
	return l, rctx, nil
}

func (l *lease) write(ctx context.Context) error {
	l.doc.Seq++
	b, err := json.MarshalIndent(&l.doc, "", "  ")
	if err != nil {
		return err
	}
	// In place before Set returns (storage.WithSetNow): a lease is judged
	// by its presence.
	return l.store.Set(storage.WithSetNow(ctx), l.key, append(b, '\n'))
}

// renew rewrites the lease every interval, first checking that the
// destination is still this run's. A failed write or check is tried again
// at the next interval: a store that stays unreachable fails the run's
// own writes too.
func (l *lease) renew(ctx context.Context) {
	defer close(l.done)
	tick := time.NewTicker(l.every)
	defer tick.Stop()
	for {
		select {
		case <-l.stopc:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if err := l.check(ctx); err != nil {
			return // the run stops; stop deletes the lease
		}
		_ = l.write(ctx)
	}
}

// check cancels the run when the destination is found not to be its own
// while guarded, and returns the takeover error.
func (l *lease) check(ctx context.Context) error {
	l.mu.Lock()
	guard := l.guard
	l.mu.Unlock()
	if !guard {
		return nil
	}
	// The lease itself first: an overwrite deletes it with the rest, and
	// so does anyone who empties the destination by hand, which a plan
	// marker written again with the same run id (a part's) would hide.
	_, err := l.store.Get(ctx, l.key)
	gone := errors.Is(err, fs.ErrNotExist)
	owned := false
	if !gone {
		var oerr error
		if owned, oerr = l.owned(ctx); err != nil || oerr != nil {
			return nil // unreadable is not a takeover: see next time
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if owned {
		l.lastOK = time.Now()
		return nil
	}
	if !l.guard {
		return nil // the run reached its part marker meanwhile (confirm)
	}
	l.lost = takeoverErr(l.store)
	l.cancel(l.lost)
	return l.lost
}

// takeoverErr is the error of a run that found st taken over.
func takeoverErr(st storage.Store) error {
	return fmt.Errorf("%w: %s: this run stopped; its work there is discarded", ErrTakenOver, storage.Name(st))
}

// confirm ends the ownership checks, before the run writes its part
// marker (after it, another part finalizing may remove the plan marker),
// with one last check: the takeover error if the destination is not the
// run's, or its context's error. On a nil lease (a Job of a StoreJob, whose
// lease is the StoreJob's) it returns the context's error only.
func (l *lease) confirm(ctx context.Context) error {
	if ctx.Err() != nil {
		if l != nil && l.takenOver() != nil {
			return l.takenOver()
		}
		return context.Cause(ctx)
	}
	if l == nil {
		return nil
	}
	if err := l.check(ctx); err != nil {
		return err
	}
	l.mu.Lock()
	l.guard = false
	l.mu.Unlock()
	return nil
}

func (l *lease) takenOver() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

// stop ends the renewals and deletes the lease, even when ctx is
// cancelled (an interrupted run deletes it too). It returns the error of
// the deletion: a lease left behind makes the next overwrite wait.
func (l *lease) stop(ctx context.Context) error {
	select {
	case <-l.stopc:
	default:
		close(l.stopc)
	}
	<-l.done
	running.Delete(l.key)
	ctx = context.WithoutCancel(ctx)
	err := l.store.Delete(ctx, l.key)
	if dir, ok := localDir(l.store); ok {
		removeEmptyDir(dir, strings.TrimSuffix(livePrefix, "/"))
	}
	if l.cancel != nil {
		l.cancel(nil)
	}
	if err != nil {
		return fmt.Errorf("deleting the run's lease %s/%s: %w", storage.Name(l.store), l.key, err)
	}
	return nil
}

// end is the run's error once its lease is stopped: the takeover once
// noticed (the run's own error is then only the cancellation it caused),
// else the run's error, else the lease's.
func (l *lease) end(ctx context.Context, err error) error {
	serr := l.stop(ctx)
	if lost := l.takenOver(); lost != nil {
		return lost
	}
	if err != nil {
		return err
	}
	return serr
}

// leaseOf is one lease as read by checkLive.
type leaseOf struct {
	key string
	raw []byte
	doc leaseDoc // zero when it does not parse
}

// readLeases reads the leases in st (those that vanish meanwhile, runs
// that just ended, left out).
func readLeases(ctx context.Context, st storage.Store) ([]leaseOf, error) {
	keys, err := st.List(ctx, livePrefix)
	if err != nil {
		return nil, err
	}
	var out []leaseOf
	for _, k := range keys {
		if !isLiveKey(k) {
			continue
		}
		b, err := st.Get(ctx, k)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		l := leaseOf{key: k, raw: b}
		_ = json.Unmarshal(b, &l.doc) // unreadable: a zero doc, judged by its changes
		out = append(out, l)
	}
	return out, nil
}

// stale reports whether lease l is known dead without waiting: a lease of
// this process whose run has ended, or of this host whose process is gone.
// ownLive is set for a lease of a run of this process still running.
func (l leaseOf) stale(host string) (stale, ownLive bool) {
	if host == "" || l.doc.Host != host {
		return false, false
	}
	if l.doc.PID == os.Getpid() {
		_, live := running.Load(l.key)
		return !live, live
	}
	return l.doc.PID > 0 && !pidRunning(l.doc.PID), false
}

// maybeRunning says what the leases in st suggest, without waiting to
// judge them: "" when there are none that may be live (known stale, or
// unreadable), else ", or still running (lease K of host H, pid P, part
// N)" for the first, to follow "an interrupted transcode" in a refusal:
// --resume would run beside it.
func maybeRunning(ctx context.Context, st storage.Store) string {
	leases, _ := readLeases(ctx, st)
	host, _ := os.Hostname()
	for _, l := range leases {
		if stale, _ := l.stale(host); stale || l.doc.Host == "" {
			continue
		}
		return fmt.Sprintf(", or still running (lease %s of host %s, pid %d, part %s)", l.key, l.doc.Host, l.doc.PID, l.doc.Part)
	}
	return ""
}

// checkLive refuses to start over on st while a run holds a live lease
// there (see the top of this file); stale leases are left for the
// overwrite to delete with the rest. every is this run's lease interval.
// With part set ("1-of-4"), for a resume or a part joining a run, only
// a live lease of that same part refuses: two processes of one part
// would write the same chunks, and remove each other's temporary files.
func checkLive(ctx context.Context, st storage.Store, every time.Duration, part string) error {
	leases, err := readLeases(ctx, st)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	var watch, dead []leaseOf
	wait := every
	for _, l := range leases {
		if part != "" && l.doc.Part != part {
			continue
		}
		stale, ownLive := l.stale(host)
		if ownLive {
			return liveErr(st, l, part != "")
		}
		if stale {
			dead = append(dead, l)
			continue
		}
		if d := time.Duration(l.doc.IntervalMS) * time.Millisecond; d > wait {
			wait = min(d, maxLeaseInterval)
		}
		watch = append(watch, l)
	}
	if len(watch) > 0 {
		select {
		case <-time.After(2*wait + wait/2):
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
	for _, l := range watch {
		b, err := st.Get(ctx, l.key)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if !bytes.Equal(b, l.raw) {
			return liveErr(st, l, part != "")
		}
		dead = append(dead, l)
	}
	// The caller takes the destination (or part) over: the stale leases
	// go, so that a run merely stopped (SIGSTOP, a stalled VM) finds its
	// own lease gone when it goes on and stops with ErrTakenOver at its
	// next write, instead of writing beside this one (whose plan marker
	// may carry its run id: a resume's does).
	for _, l := range dead {
		if err := st.Delete(ctx, l.key); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("removing the stale lease %s/%s: %w", storage.Name(st), l.key, err)
		}
	}
	return nil
}

// liveErr is the error of an overwrite (or, beside, a resume or part)
// refused for the live lease l.
func liveErr(st storage.Store, l leaseOf, beside bool) error {
	who := "a process"
	if l.doc.Host != "" || l.doc.PID != 0 {
		who = fmt.Sprintf("host %s, pid %d", l.doc.Host, l.doc.PID)
	}
	if l.doc.Part != "" && l.doc.Part != "0-of-1" {
		who += ", part " + l.doc.Part
	}
	e := &DestinationError{
		Destination: storage.Name(st), Err: ErrRunning,
		Holds: fmt.Sprintf("the lease %s of a transcode running there (%s): refusing to start over; stop it first", l.key, who),
	}
	if beside {
		e.Holds = fmt.Sprintf("the lease %s of a transcode of the same part running there (%s): refusing to run beside it; wait for it, or stop it and run again", l.key, who)
	}
	return e
}
