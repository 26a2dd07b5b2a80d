package transcode

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/zarr-dt64/dt64/storage"
)

// arrayView is a store seen from one node of a hierarchy, for a Job that
// converts one array of a store job: storage.Sub's view (which reaches no key
// outside the node, and syncs and reports versions as the whole store
// does) plus the root directory's temporary files under the node, so that
// the Job cleans up after a killed run inside its array and nowhere else.
type arrayView struct {
	storage.Store                    // storage.Sub(root, node)
	temps         storage.TempLister // the root's, or nil
	syncer        storage.Syncer
	versioner     storage.Versioner
	reads         storage.ReadVersioner // the root's, or nil
	lister        storage.VersionLister // the root's, or nil
	prefix        string                // the node path and "/"
	dir           string                // the node's directory, or "" for a store that is none
}

func newArrayView(root storage.Store, node string) (*arrayView, error) {
	s, err := storage.Sub(root, node)
	if err != nil {
		return nil, err
	}
	v := &arrayView{Store: s, prefix: node + "/"}
	if ts, ok := storage.Find[storage.TempLister](root); ok {
		v.temps = ts
	}
	// Found through the root's wrappers, which storage.Sub does not look
	// through: a wrapped directory still syncs and has versions.
	v.syncer, _ = storage.Find[storage.Syncer](root)
	v.versioner, _ = storage.Find[storage.Versioner](root)
	v.reads, _ = storage.Find[storage.ReadVersioner](root)
	v.lister, _ = storage.Find[storage.VersionLister](root)
	if ds, ok := dirStore(root); ok {
		v.dir = filepath.Join(ds.String(), filepath.FromSlash(node))
	}
	return v, nil
}

func (v *arrayView) Unwrap() storage.Store { return v.Store }

func (v *arrayView) String() string { return storage.Name(v.Store) }

// GetInto keeps the view's pooled reads (embedding hides the method).
func (v *arrayView) GetInto(ctx context.Context, key string, buf []byte, limit int) ([]byte, error) {
	return storage.GetInto(ctx, v.Store, key, buf, limit)
}

// Sync makes the whole root store durable (nothing to do for one that
// cannot tell).
func (v *arrayView) Sync(ctx context.Context) error {
	if v.syncer == nil {
		return nil
	}
	return v.syncer.Sync(ctx)
}

// Version is the root's version of the key under the node; "" (no
// version) when the root keeps none.
func (v *arrayView) Version(ctx context.Context, key string) (string, error) {
	if v.versioner == nil {
		return "", nil
	}
	if err := storage.ValidKey(key); err != nil {
		return "", err
	}
	return v.versioner.Version(ctx, v.prefix+key)
}

// Versions lists the versions of the root's values under the node and
// prefix, keyed relative to the node; an error wrapping
// errors.ErrUnsupported when the root lists none (bulkVersioner then asks
// Version of each key).
func (v *arrayView) Versions(ctx context.Context, prefix string) (map[string]string, error) {
	if v.lister == nil {
		return nil, fmt.Errorf("%s: %w: no listing of versions", storage.Name(v.Store), errors.ErrUnsupported)
	}
	all, err := v.lister.Versions(ctx, v.prefix+prefix)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(all))
	for k, ver := range all {
		out[strings.TrimPrefix(k, v.prefix)] = ver
	}
	return out, nil
}

// TrackReadVersions asks the root to remember its reads' versions.
func (v *arrayView) TrackReadVersions() {
	if v.reads != nil {
		v.reads.TrackReadVersions()
	}
}

// ReadVersion is the root's version of the value the last read of the key
// under the node returned.
func (v *arrayView) ReadVersion(key string) (string, bool) {
	if v.reads == nil {
		return "", false
	}
	return v.reads.ReadVersion(v.prefix + key)
}

// Temps lists the root's temporary files under the node, as paths and
// keys relative to it.
func (v *arrayView) Temps(ctx context.Context) (map[string]string, error) {
	if v.temps == nil {
		return nil, nil
	}
	var all map[string]string
	var err error
	if under, ok := v.temps.(interface {
		TempsUnder(context.Context, string) (map[string]string, error)
	}); ok {
		all, err = under.TempsUnder(ctx, v.prefix) // the node's directory only
	} else {
		all, err = v.temps.Temps(ctx)
	}
	if err != nil {
		return nil, err
	}
	mine := map[string]string{}
	for p, key := range all {
		if rest, ok := strings.CutPrefix(p, v.prefix); ok {
			mine[rest] = strings.TrimPrefix(key, v.prefix)
		}
	}
	return mine, nil
}

func (v *arrayView) RemoveTemp(tempPath string) error {
	return v.temps.RemoveTemp(v.prefix + tempPath)
}

// localDir is the directory s stores its keys in, when it is one.
func localDir(s storage.Store) (string, bool) {
	if v, ok := storage.Find[*arrayView](s); ok {
		return v.dir, v.dir != ""
	}
	if ds, ok := dirStore(s); ok {
		return ds.String(), true
	}
	return "", false
}
