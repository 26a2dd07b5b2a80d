package objstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/zarr-dt64/dt64/storage"
)

// ErrLocation marks a location Open cannot turn into a store: an unknown
// or unsupported scheme, a file:// URL without a path, an http(s)
// location opened for writing. A command reports it as a mistake in its
// arguments.
var ErrLocation = errors.New("unusable location")

// OpenOptions say how Open opens a location.
type OpenOptions struct {
	// Retry tunes the requests of a remote store.
	Retry Retry
	// Write opens the location for writing: an http(s) location, which
	// is read-only, is refused.
	Write bool
	// MustExist refuses a directory that does not exist (a source); a
	// destination directory is created by its first write.
	MustExist bool
}

// Open returns the store a location names, the one place a location
// becomes a store:
//
//	PATH, file:///PATH         a directory (storage.Dir)
//	s3://BUCKET/PREFIX         an S3 bucket or S3-compatible server (S3)
//	http://…, https://…        read-only, GET and range requests (HTTP)
//	gs://…, azblob://…         not built in: refused, saying what to use instead
//
// A refused location gives an error wrapping ErrLocation; messages never
// show a location's credentials (RedactURL).
func Open(ctx context.Context, location string, o OpenOptions) (storage.Store, error) {
	path := location
	switch k := Scheme(location); k {
	case "":
	case "file":
		path = strings.TrimPrefix(location[len("file://"):], "localhost")
		if path == "" {
			return nil, fmt.Errorf("%s: %w: no path (want file:///PATH)", location, ErrLocation)
		}
	case "s3":
		return OpenS3(ctx, location, S3Options{Retry: o.Retry})
	case "http", "https":
		if o.Write {
			return nil, fmt.Errorf("%s: %w: an http(s) location is read-only: write to a directory or s3://", RedactURL(location), ErrLocation)
		}
		return OpenHTTP(location, nil, o.Retry)
	case "gs":
		return nil, fmt.Errorf("%s: %w: gs:// is not built in; Cloud Storage speaks S3: use s3://BUCKET/PREFIX with AWS_ENDPOINT_URL_S3=https://storage.googleapis.com and an HMAC key as AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", RedactURL(location), ErrLocation)
	case "azblob", "az", "abfs", "abfss":
		return nil, fmt.Errorf("%s: %w: Azure Blob Storage is not built in; use an S3 gateway in front of it (versitygw azure) and s3://", RedactURL(location), ErrLocation)
	default:
		return nil, fmt.Errorf("%s: %w: unknown scheme %q (want a path, file://, s3://, http:// or https://)", RedactURL(location), ErrLocation, k)
	}
	if o.MustExist {
		if _, err := os.Stat(path); err != nil {
			return nil, err
		}
	}
	return storage.NewDir(path), nil
}

// Scheme is the lower-case URL scheme of a location, or "" for a path
// (which may contain "://" after a directory name, but not in its first
// segment).
func Scheme(location string) string {
	scheme, _, ok := strings.Cut(location, "://")
	if !ok || strings.ContainsAny(scheme, "/\\.") {
		return ""
	}
	return strings.ToLower(scheme)
}
