package storage

import (
	"sync"
	"sync/atomic"
)

// maxReadVersions bounds what a store remembers of its reads' versions: a
// caller that reads without asking for them (a verification pass) must
// not grow the store's memory with every value.
const maxReadVersions = 1 << 16

// ReadVersions remembers the version of each value a store's reads
// returned, once TrackReadVersions asked for it, until ReadVersion takes
// it: so that a caller checking a value it just read against a recorded
// version (the transcode engine) needs no second request, and checks the
// version of exactly the bytes read. A store embeds one, remembers with
// Remember, and so implements TrackReadVersions and ReadVersion. The zero
// value tracks nothing.
type ReadVersions struct {
	m  sync.Map // key -> version ("" for a missing key)
	n  atomic.Int64
	ok atomic.Bool
}

// TrackReadVersions makes the store remember the version of each value a
// read returns (and that a key was missing).
func (r *ReadVersions) TrackReadVersions() { r.ok.Store(true) }

// Tracking reports whether TrackReadVersions was called.
func (r *ReadVersions) Tracking() bool { return r.ok.Load() }

// Remember records the version a read of key saw; beyond maxReadVersions
// untaken ones it records nothing (the caller then asks Version).
func (r *ReadVersions) Remember(key, version string) {
	if !r.ok.Load() || r.n.Load() >= maxReadVersions {
		return
	}
	if _, loaded := r.m.Swap(key, version); !loaded {
		r.n.Add(1)
	}
}

// ReadVersion returns, once, the version (as Version gives it) of the
// value the last read of key returned, or false when none was kept.
func (r *ReadVersions) ReadVersion(key string) (string, bool) {
	v, ok := r.m.LoadAndDelete(key)
	if !ok {
		return "", false
	}
	r.n.Add(-1)
	return v.(string), true
}
