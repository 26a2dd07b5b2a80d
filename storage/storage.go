package storage

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Store is a key-value store holding one array: keys are relative,
// "/"-separated ("zarr.json", "c/0/1", ".zarray", "0.1").
//
// Get returns an error satisfying errors.Is(err, fs.ErrNotExist) for a
// missing key. Set replaces a value atomically (a reader sees the old value
// or the new one, never a mix) and must not retain value after it returns.
// Delete of a missing key is not an error. List returns the keys starting
// with prefix, sorted. All methods must be safe for concurrent use.
type Store interface {
	Get(ctx context.Context, key string) ([]byte, error)
	Set(ctx context.Context, key string, value []byte) error
	Delete(ctx context.Context, key string) error
	List(ctx context.Context, prefix string) ([]string, error)
}

// GetInto reads key from s as BufferGetter.GetInto does: through s's own
// GetInto when it is a BufferGetter, else by Get and a check of the size
// against limit (negative: none), for a store that wraps another.
func GetInto(ctx context.Context, s Store, key string, buf []byte, limit int) ([]byte, error) {
	if bg, ok := Find[BufferGetter](s); ok {
		return bg.GetInto(ctx, key, buf, limit)
	}
	b, err := s.Get(ctx, key)
	if err == nil && limit >= 0 && len(b) > limit {
		return nil, fmt.Errorf("%s is %d bytes: %w (at most %d)", key, len(b), ErrTooLarge, limit)
	}
	return b, err
}

// ValidKey reports whether key is a store key dt64 accepts: non-empty,
// relative, "/"-separated, with no empty, "." or ".." segment, no backslash
// and no NUL byte. Such a key cannot name anything outside the store.
func ValidKey(key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty key", ErrInvalidKey)
	}
	if strings.ContainsAny(key, "\\\x00") {
		return fmt.Errorf("%w %q: contains a backslash or NUL byte", ErrInvalidKey, key)
	}
	if key[0] == '/' {
		return fmt.Errorf("%w %q: absolute path", ErrInvalidKey, key)
	}
	for seg := range strings.SplitSeq(key, "/") {
		switch seg {
		case "":
			return fmt.Errorf("%w %q: empty path segment", ErrInvalidKey, key)
		case ".", "..":
			return fmt.Errorf("%w %q: %q segment would leave the store", ErrInvalidKey, key, seg)
		}
	}
	return nil
}

// Memory is a Store in memory, for tests and small pipelines. Its
// versions (Versioner) count the Sets: every Set gives its key a new one.
type Memory struct {
	mu   sync.RWMutex
	m    map[string]memValue
	sets uint64
}

type memValue struct {
	b   []byte
	gen uint64
}

// NewMemory returns an empty Memory.
func NewMemory() *Memory { return &Memory{m: make(map[string]memValue)} }

func (s *Memory) String() string { return "memory" }

func (s *Memory) Get(ctx context.Context, key string) ([]byte, error) {
	if err := ValidKey(key); err != nil {
		return nil, err
	}
	s.mu.RLock()
	v, ok := s.m[key]
	s.mu.RUnlock()
	if !ok {
		return nil, &fs.PathError{Op: "get", Path: key, Err: fs.ErrNotExist}
	}
	return append([]byte(nil), v.b...), nil
}

// Version implements Versioner: the number of the Set that stored key's
// value.
func (s *Memory) Version(ctx context.Context, key string) (string, error) {
	if err := ValidKey(key); err != nil {
		return "", err
	}
	s.mu.RLock()
	v, ok := s.m[key]
	s.mu.RUnlock()
	if !ok {
		return "", nil
	}
	return "set " + strconv.FormatUint(v.gen, 10), nil
}

func (s *Memory) Set(ctx context.Context, key string, value []byte) error {
	if err := ValidKey(key); err != nil {
		return err
	}
	v := append([]byte(nil), value...)
	s.mu.Lock()
	s.sets++
	s.m[key] = memValue{v, s.sets}
	s.mu.Unlock()
	return nil
}

func (s *Memory) Delete(ctx context.Context, key string) error {
	if err := ValidKey(key); err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.m, key)
	s.mu.Unlock()
	return nil
}

func (s *Memory) List(ctx context.Context, prefix string) ([]string, error) {
	s.mu.RLock()
	var keys []string
	for k := range s.m {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	s.mu.RUnlock()
	sort.Strings(keys)
	return keys, nil
}
