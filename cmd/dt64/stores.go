package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/zarr-dt64/dt64/objstore"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// Every command names an array by one argument, which objstore.Open
// turns into a store. DT64_REQUEST_TIMEOUT (a Go duration, default 60s)
// bounds each attempt of a request to a remote store,
// DT64_REQUEST_ATTEMPTS (default 6) how many are made.

// isRemote reports whether arg names a store that is not a directory.
func isRemote(arg string) bool { k := objstore.Scheme(arg); return k != "" && k != "file" }

// storeRetry reads DT64_REQUEST_TIMEOUT and DT64_REQUEST_ATTEMPTS.
func storeRetry() (objstore.Retry, error) {
	var r objstore.Retry
	if v := os.Getenv("DT64_REQUEST_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return r, usageError{fmt.Errorf("DT64_REQUEST_TIMEOUT=%q: want a positive duration such as 30s", v)}
		}
		r.Timeout = d
	}
	if v := os.Getenv("DT64_REQUEST_ATTEMPTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return r, usageError{fmt.Errorf("DT64_REQUEST_ATTEMPTS=%q: want a positive integer", v)}
		}
		r.Attempts = n
	}
	return r, nil
}

// openStore returns the store arg names. A directory source must exist
// (source true); a destination directory is created by its first write.
// A location objstore cannot use is a mistake on the command line.
func openStore(ctx context.Context, arg string, source bool) (storage.Store, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	role := "destination"
	if source {
		role = "source"
	}
	var r objstore.Retry
	if isRemote(arg) {
		var err error
		if r, err = storeRetry(); err != nil {
			return nil, err
		}
	}
	s, err := objstore.Open(ctx, arg, objstore.OpenOptions{Retry: r, Write: !source, MustExist: source})
	switch {
	case errors.Is(err, objstore.ErrLocation):
		return nil, usageError{fmt.Errorf("%s %w", role, err)}
	case err != nil && objstore.Scheme(arg) == "":
		return nil, fmt.Errorf("%s %s: %w", role, arg, errors.Unwrap(err))
	}
	return s, err
}

// storeLabel is how a command names the store: the argument for a
// directory, the store's own (credential-free) URL otherwise.
func storeLabel(s storage.Store, arg string) string {
	if st, ok := s.(fmt.Stringer); ok && isRemote(arg) {
		return st.String()
	}
	return arg
}

// openTranscodeStores opens a transcode's source and destination.
func openTranscodeStores(ctx context.Context, srcArg, dstArg string, noSync bool) (src, dst storage.Store, err error) {
	if src, err = openStore(ctx, srcArg, true); err != nil {
		return nil, nil, err
	}
	if dst, err = openStore(ctx, dstArg, false); err != nil {
		return nil, nil, err
	}
	if d, ok := dst.(*storage.Dir); ok {
		d.NoSync = noSync
		// Each chunk's flush and rename overlaps the next chunk's
		// conversion; Close waits for those still in flight.
		d.FlushAhead = flushAhead
	}
	return src, dst, nil
}

// arrayStore is what inspect and validate read: a store they can list
// (zarr's Array.Inventory).
type arrayStore interface {
	storage.Store
	storage.EntryLister
	Close() error
}

// openArrayStore returns the store of an array that inspect or validate
// reads: a directory that exists, or an object store that can list.
func openArrayStore(ctx context.Context, arg string) (arrayStore, error) {
	if !isRemote(arg) {
		s, err := openStore(ctx, arg, false)
		if err != nil {
			return nil, err
		}
		d := s.(*storage.Dir)
		fi, err := os.Stat(d.String())
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("%s: not a directory (a Zarr array is a directory holding zarr.json or .zarray)", arg)
		}
		return d, nil
	}
	s, err := openStore(ctx, arg, true)
	if err != nil {
		return nil, err
	}
	if as, ok := s.(arrayStore); ok {
		return as, nil
	}
	if sz, ok := s.(sizer); ok {
		return &gridStore{sizer: sz}, nil
	}
	return nil, usageError{fmt.Errorf("%s cannot be listed, and this command reads every stored chunk: copy it with dt64 transcode first", storeLabel(s, arg))}
}

// sizer is a store that cannot list but can tell a value's size without
// reading it (http(s): HEAD).
type sizer interface {
	storage.Store
	Size(ctx context.Context, key string) (int64, error)
	Close() error
}

// gridStore lists an unlistable store's array by its chunk grid
// (zarr's Array.ProbeChunks: a HEAD for every chunk key the metadata
// allows); those missing are not stored (read as the fill value).
type gridStore struct{ sizer }

// String names the store it lists, as messages name a store.
func (g *gridStore) String() string { return storage.Name(g.sizer) }

func (g *gridStore) Entries(ctx context.Context, prefix string) ([]storage.Entry, error) {
	a, err := zarr.Open(ctx, g.sizer)
	if err != nil {
		return nil, err
	}
	entries, err := a.ProbeChunks(ctx, g.Size)
	if a.NumChunks() > zarr.MaxProbedChunks {
		err = fmt.Errorf("%w: copy it with dt64 transcode first", err)
	}
	return entries, err
}
