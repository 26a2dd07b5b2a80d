package transcode

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/zarr-dt64/dt64/zarr"
)

// cpuToken is a worker's right to use a CPU. A work unit holds it while it
// decodes, converts and encodes, and gives it up while it waits for the
// store, so a slow store leaves the CPUs to units that have their bytes.
// Each token belongs to one goroutine; the channel holds Workers slots.
type cpuToken struct {
	sem  chan struct{}
	held bool
	sets int64 // values this goroutine stored: tells a stored chunk from an all-fill one
}

func (t *cpuToken) acquire(ctx context.Context) error {
	if t.held {
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
	zarr.Store
	read, written atomic.Int64
}

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

// GetInto implements zarr.BufferGetter so the array keeps using its pooled
// buffers when the wrapped store can fill them.
func (s *ioStore) GetInto(ctx context.Context, key string, buf []byte, limit int) ([]byte, error) {
	t := pause(ctx)
	var b []byte
	var err error
	if bg, ok := s.Store.(zarr.BufferGetter); ok {
		b, err = bg.GetInto(ctx, key, buf, limit)
	} else {
		b, err = s.Store.Get(ctx, key)
		if err == nil && limit >= 0 && len(b) > limit {
			b, err = nil, fmt.Errorf("%s is %d bytes: %w (at most %d)", key, len(b), zarr.ErrTooLarge, limit)
		}
	}
	s.read.Add(int64(len(b)))
	return b, resume(ctx, t, err)
}

func (s *ioStore) Set(ctx context.Context, key string, value []byte) error {
	t := pause(ctx)
	err := s.Store.Set(ctx, key, value)
	if err == nil {
		s.written.Add(int64(len(value)))
		if tok, _ := ctx.Value(tokenKey{}).(*cpuToken); tok != nil {
			tok.sets++
		}
	}
	return resume(ctx, t, err)
}

func (s *ioStore) Delete(ctx context.Context, key string) error {
	t := pause(ctx)
	return resume(ctx, t, s.Store.Delete(ctx, key))
}

// tempPrefix is how zarr.DirStore names a value being written (its
// unexported tempPrefix): DIR/.dt64-tmp-<16 hex digits>-BASE for key
// DIR/BASE. A process killed between create and rename leaves such files.
const tempPrefix = ".dt64-tmp-"

// strayTemps lists the temporary files a killed DirStore.Set left under
// store s, with the key each was meant for. Other stores have none.
func strayTemps(s zarr.Store) (map[string]string, error) {
	ds, ok := s.(*zarr.DirStore)
	if !ok {
		return nil, nil
	}
	root := ds.String()
	temps := map[string]string{}
	err := filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil
			}
			return err
		}
		name := e.Name()
		if e.Type().IsRegular() && strings.HasPrefix(name, tempPrefix) {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			rest := name[len(tempPrefix):]
			base := rest
			if i := strings.IndexByte(rest, '-'); i >= 0 {
				base = rest[i+1:]
			}
			key := filepath.ToSlash(filepath.Join(filepath.Dir(rel), base))
			temps[p] = key
		}
		return nil
	})
	return temps, err
}
