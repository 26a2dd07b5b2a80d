package transcode

import (
	"context"
	"errors"
	"fmt"

	"github.com/zarr-dt64/dt64/zarr"
)

// A VersionLister is a zarr.Versioner that can also tell the versions of
// every value under a key prefix at once, as Version would give them
// (keys not stored are absent): an object store's listing carries each
// object's ETag, so one LIST of up to 1000 keys replaces as many HEADs.
type VersionLister interface {
	Versions(ctx context.Context, prefix string) (map[string]string, error)
}

// listedVersions answers Version from one listing.
type listedVersions map[string]string

func (l listedVersions) Version(ctx context.Context, key string) (string, error) { return l[key], nil }

// bulkVersioner returns a Versioner for n of the total chunks of source
// s: v itself, or, when s lists versions and listing it whole costs fewer
// requests than one per chunk (a listing page holds 1000 keys), the
// versions from one listing.
func bulkVersioner(ctx context.Context, s zarr.Store, v zarr.Versioner, n, total int64) (zarr.Versioner, error) {
	vl, ok := find[VersionLister](s)
	if !ok || n*1000 < total {
		return v, nil
	}
	all, err := vl.Versions(ctx, "")
	if errors.Is(err, errors.ErrUnsupported) {
		return v, nil // a view whose root lists no versions
	}
	if err != nil {
		return nil, fmt.Errorf("reading the source: %w", err)
	}
	return listedVersions(all), nil
}

// A ReadVersioner is a source store that can tell the version of the
// value a read returned, from the read's own answer (an object's GET
// carries its ETag), so that checking a chunk just read needs no second
// request. After TrackReadVersions, the store remembers the version of
// each value Get (or GetInto) returns, and "" for a key it found missing;
// ReadVersion hands one out, once, and forgets it. A store may remember a
// bounded number and report false for the others: the engine then asks
// Version.
type ReadVersioner interface {
	TrackReadVersions()
	ReadVersion(key string) (version string, ok bool)
}

// readVersion is the version of the value of key the unit just read, if
// the source can tell it without a request.
func readVersion(s zarr.Store, key string) (string, bool) {
	if rv, ok := find[ReadVersioner](s); ok {
		return rv.ReadVersion(key)
	}
	return "", false
}

// trackReadVersions asks the source to remember its reads' versions (a
// ReadVersioner), once the per-unit checks have something to check.
func trackReadVersions(s zarr.Store) {
	if rv, ok := find[ReadVersioner](s); ok {
		rv.TrackReadVersions()
	}
}
