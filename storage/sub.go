package storage

import (
	"context"
	"strings"
)

// Sub returns the part of store under node path p ("sub/stamp"): key k of
// the result is key p+"/"+k of store, so Open(ctx, Sub(store, "sub/stamp"))
// opens an array inside a hierarchy. An empty p returns store itself; a
// Sub of a Sub joins the paths. p must be a valid key (see ValidKey).
//
// The view reads with limits as store does (BufferGetter), and is a
// Versioner or a Syncer when store is one: versions are those of the
// prefixed keys, and Sync makes the whole store durable. It deliberately
// has no Unwrap method: code that looks through wrappers (to a directory
// store's temporary files, say) must not reach keys outside the view.
func Sub(store Store, p string) (Store, error) {
	if p == "" {
		return store, nil
	}
	if err := ValidKey(p); err != nil {
		return nil, err
	}
	if s, ok := store.(interface{ sub() *subStore }); ok {
		inner := s.sub()
		store, p = inner.inner, inner.prefix+p
	}
	s := &subStore{inner: store, prefix: p + "/"}
	// Found through the wrappers around store, as every capability is.
	s.ranges, _ = Find[RangeGetter](store)
	s.versioner, _ = Find[Versioner](store)
	s.syncer, _ = Find[Syncer](store)
	versions, syncs := s.versioner != nil, s.syncer != nil
	switch {
	case versions && syncs:
		return subVersionSyncer{s}, nil
	case versions:
		return subVersioner{s}, nil
	case syncs:
		return subSyncer{s}, nil
	}
	return s, nil
}

// subStore is the view Sub returns; the wrappers below add the optional
// interfaces the wrapped store has.
type subStore struct {
	inner     Store
	prefix    string      // the node path and a trailing "/"
	ranges    RangeGetter // inner's capabilities, or nil
	versioner Versioner
	syncer    Syncer
}

func (s *subStore) sub() *subStore { return s }

// String names the view as the wrapped store's name joined with the
// path, so errors say "data.zarr/sub/stamp/zarr.json".
func (s *subStore) String() string {
	p := strings.TrimSuffix(s.prefix, "/")
	if n := Name(s.inner); n != "" {
		return Join(n, p)
	}
	return p
}

func (s *subStore) key(k string) (string, error) {
	if err := ValidKey(k); err != nil {
		return "", err
	}
	return s.prefix + k, nil
}

func (s *subStore) Get(ctx context.Context, k string) ([]byte, error) {
	key, err := s.key(k)
	if err != nil {
		return nil, err
	}
	return s.inner.Get(ctx, key)
}

// GetInto implements BufferGetter, through the wrapped store's when it has
// one, else by Get and a check of the size.
func (s *subStore) GetInto(ctx context.Context, k string, buf []byte, limit int) ([]byte, error) {
	key, err := s.key(k)
	if err != nil {
		return nil, err
	}
	return GetInto(ctx, s.inner, key, buf, limit)
}

// GetRange implements RangeGetter through the wrapped store's; without
// one it reports ErrNoRanges, and a region read falls back to whole
// chunks.
func (s *subStore) GetRange(ctx context.Context, k string, off, n int64) ([]byte, error) {
	key, err := s.key(k)
	if err != nil {
		return nil, err
	}
	if s.ranges != nil {
		return s.ranges.GetRange(ctx, key, off, n)
	}
	return nil, ErrNoRanges
}

func (s *subStore) Set(ctx context.Context, k string, value []byte) error {
	key, err := s.key(k)
	if err != nil {
		return err
	}
	return s.inner.Set(ctx, key, value)
}

func (s *subStore) Delete(ctx context.Context, k string) error {
	key, err := s.key(k)
	if err != nil {
		return err
	}
	return s.inner.Delete(ctx, key)
}

func (s *subStore) List(ctx context.Context, prefix string) ([]string, error) {
	keys, err := s.inner.List(ctx, s.prefix+prefix)
	if err != nil {
		return nil, err
	}
	out := keys[:0]
	for _, k := range keys {
		if rest, ok := strings.CutPrefix(k, s.prefix); ok {
			out = append(out, rest)
		}
	}
	return out, nil
}

type subVersioner struct{ *subStore }

func (s subVersioner) Version(ctx context.Context, k string) (string, error) {
	return s.subStore.version(ctx, k)
}

type subSyncer struct{ *subStore }

func (s subSyncer) Sync(ctx context.Context) error { return s.syncer.Sync(ctx) }

type subVersionSyncer struct{ *subStore }

func (s subVersionSyncer) Version(ctx context.Context, k string) (string, error) {
	return s.subStore.version(ctx, k)
}

func (s subVersionSyncer) Sync(ctx context.Context) error { return s.syncer.Sync(ctx) }

func (s *subStore) version(ctx context.Context, k string) (string, error) {
	key, err := s.key(k)
	if err != nil {
		return "", err
	}
	return s.versioner.Version(ctx, key)
}
