package transcode

import (
	"context"
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

// bulkVersioner returns a Versioner for the source chunks of units
// [lo, hi): v itself, or, when the source lists versions and listing it
// whole costs fewer requests than one per chunk of the range (a listing
// page holds 1000 keys), the versions from one listing.
func (t *Job) bulkVersioner(ctx context.Context, v zarr.Versioner, lo, hi int64) (zarr.Versioner, error) {
	vl, ok := find[VersionLister](t.srcStore)
	if !ok || (hi-lo)*1000 < t.geo.units {
		return v, nil
	}
	all, err := vl.Versions(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("reading the source: %w", err)
	}
	return listedVersions(all), nil
}
