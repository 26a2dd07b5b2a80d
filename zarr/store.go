package zarr

import (
	"context"
	"fmt"
	"io/fs"
	"sort"
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

// BufferGetter is implemented by stores that can read a value into a
// caller's buffer. GetInto returns the value, in buf when it fits
// (otherwise in a new slice), and refuses a value longer than limit bytes
// with an error wrapping ErrTooLarge, before reading it. The array uses it
// to keep memory bounded and buffers reused.
type BufferGetter interface {
	GetInto(ctx context.Context, key string, buf []byte, limit int) ([]byte, error)
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

// MemoryStore is a Store in memory, for tests and small pipelines.
type MemoryStore struct {
	mu sync.RWMutex
	m  map[string][]byte
}

// NewMemory returns an empty MemoryStore.
func NewMemory() *MemoryStore { return &MemoryStore{m: make(map[string][]byte)} }

func (s *MemoryStore) String() string { return "memory" }

func (s *MemoryStore) Get(ctx context.Context, key string) ([]byte, error) {
	if err := ValidKey(key); err != nil {
		return nil, err
	}
	s.mu.RLock()
	v, ok := s.m[key]
	s.mu.RUnlock()
	if !ok {
		return nil, &fs.PathError{Op: "get", Path: key, Err: fs.ErrNotExist}
	}
	return append([]byte(nil), v...), nil
}

func (s *MemoryStore) Set(ctx context.Context, key string, value []byte) error {
	if err := ValidKey(key); err != nil {
		return err
	}
	v := append([]byte(nil), value...)
	s.mu.Lock()
	s.m[key] = v
	s.mu.Unlock()
	return nil
}

func (s *MemoryStore) Delete(ctx context.Context, key string) error {
	if err := ValidKey(key); err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.m, key)
	s.mu.Unlock()
	return nil
}

func (s *MemoryStore) List(ctx context.Context, prefix string) ([]string, error) {
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
