package objstore

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/zarr-dt64/dt64/storage"
)

// rangeHeader is the HTTP Range of n bytes at off, or of the last n bytes
// when off is negative.
func rangeHeader(key string, off, n int64) (string, error) {
	if err := storage.ValidKey(key); err != nil {
		return "", err
	}
	if n <= 0 {
		return "", fmt.Errorf("%s: range of %d bytes", key, n)
	}
	if off < 0 {
		return fmt.Sprintf("bytes=-%d", n), nil
	}
	return fmt.Sprintf("bytes=%d-%d", off, off+n-1), nil
}

// rangeShort is the error of a range the value does not hold (size -1:
// not known).
func rangeShort(key string, off, n, size int64) error {
	if size >= 0 {
		return fmt.Errorf("%s: range of %d bytes at %d is outside the value's %d bytes: %w", key, n, off, size, io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("%s: the value is shorter than the range asked for: %w", key, io.ErrUnexpectedEOF)
}

// GetRange reads the n bytes at offset off of key (its last n bytes when
// off is negative) with one ranged GET, as storage.RangeGetter asks, so a
// sharded array reads a shard's index and the inner chunks it needs, not
// the whole shard. A value shorter than the range is an error wrapping
// io.ErrUnexpectedEOF.
func (s *S3) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	rng, err := rangeHeader(key, off, n)
	if err != nil {
		return nil, err
	}
	var out []byte
	missing := false
	err = s.do(ctx, "get", key, func(ctx context.Context) error {
		r, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: aws.String(s.prefix + key), Range: aws.String(rng)})
		switch {
		case missingKey(err):
			missing = true
			return nil
		case s3Status(err) == http.StatusRequestedRangeNotSatisfiable:
			return rangeShort(key, off, n, -1)
		}
		if err != nil {
			return err
		}
		defer r.Body.Close()
		b, err := io.ReadAll(io.LimitReader(r.Body, n+1))
		if err != nil {
			return fmt.Errorf("reading the body: %w", err)
		}
		if int64(len(b)) != n {
			return rangeShort(key, off, n, -1)
		}
		out = b
		return nil
	})
	if missing {
		return nil, notFound("get", key)
	}
	return out, err
}

var (
	_ storage.RangeGetter  = (*S3)(nil)
	_ storage.RangeGetter  = (*HTTP)(nil)
	_ storage.BufferGetter = (*S3)(nil)
	_ storage.Versioner    = (*S3)(nil)
	_ storage.Versioner    = (*HTTP)(nil)
	_ storage.EntryLister  = (*S3)(nil)
)
