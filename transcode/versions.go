package transcode

import (
	"context"
	"errors"
	"fmt"

	"github.com/zarr-dt64/dt64/storage"
)

// listedVersions answers Version from one listing.
type listedVersions map[string]string

func (l listedVersions) Version(ctx context.Context, key string) (string, error) { return l[key], nil }

// bulkVersioner returns a Versioner for n of the total chunks of source
// s: v itself, or, when s lists versions and listing it whole costs fewer
// requests than one per chunk (a listing page holds 1000 keys), the
// versions from one listing.
func bulkVersioner(ctx context.Context, s storage.Store, v storage.Versioner, n, total int64) (storage.Versioner, error) {
	vl, ok := storage.Find[storage.VersionLister](s)
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

// readVersion is the version of the value of key the unit just read, if
// the source can tell it without a request.
func readVersion(s storage.Store, key string) (string, bool) {
	if rv, ok := storage.Find[storage.ReadVersioner](s); ok {
		return rv.ReadVersion(key)
	}
	return "", false
}

// trackReadVersions asks the source to remember its reads' versions (a
// storage.ReadVersioner), once the per-unit checks have something to check.
func trackReadVersions(s storage.Store) {
	if rv, ok := storage.Find[storage.ReadVersioner](s); ok {
		rv.TrackReadVersions()
	}
}
