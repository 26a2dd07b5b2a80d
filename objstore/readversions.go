package objstore

import (
	"sync"
	"sync/atomic"
)

// maxReadVersions bounds what a store remembers of its reads' versions: a
// caller that reads without asking (a verification pass) must not grow
// the store's memory with every chunk.
const maxReadVersions = 1 << 16

// readVersions remembers the version each GET saw, for a caller that
// checks a value it just read (transcode.ReadVersioner): the ETag of the
// answer itself, so the check costs no HEAD, and it is the version of
// exactly the bytes read.
type readVersions struct {
	m  sync.Map // key -> version ("" for missing)
	n  atomic.Int64
	ok atomic.Bool
}

func (r *readVersions) track() { r.ok.Store(true) }

func (r *readVersions) remember(key, version string) {
	if !r.ok.Load() || r.n.Load() >= maxReadVersions {
		return
	}
	if _, loaded := r.m.Swap(key, version); !loaded {
		r.n.Add(1)
	}
}

func (r *readVersions) take(key string) (string, bool) {
	v, ok := r.m.LoadAndDelete(key)
	if !ok {
		return "", false
	}
	r.n.Add(-1)
	return v.(string), true
}

// TrackReadVersions makes the store remember the ETag of each value Get
// returns (and that a key was missing) until ReadVersion takes it.
func (s *S3) TrackReadVersions() { s.reads.track() }

// ReadVersion returns, once, the version (as Version gives it) of the
// value the last Get of key returned, or false when it was not kept.
func (s *S3) ReadVersion(key string) (string, bool) { return s.reads.take(key) }
