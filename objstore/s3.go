package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// S3 is a storage.Store under a key prefix in an S3 bucket: key "c/0/1" of
// s3://bucket/a.zarr is the object "a.zarr/c/0/1". It implements
// storage.BufferGetter, storage.Versioner (the ETag) and storage.EntryLister.
type S3 struct {
	client         *s3.Client
	bucket, prefix string // prefix is "" or ends in "/"
	name           string
	retry          Retry
	reads          storage.ReadVersions // the ETags GETs saw (readversions.go)
}

// S3Options configure OpenS3. The zero value takes everything from the
// standard AWS environment and configuration files.
type S3Options struct {
	Retry Retry
	// Endpoint overrides AWS_ENDPOINT_URL_S3 and AWS_ENDPOINT_URL.
	Endpoint string
}

// ParseS3URL splits "s3://bucket/prefix" into bucket and prefix ("" or
// ending in "/").
func ParseS3URL(u string) (bucket, prefix string, err error) {
	rest, ok := strings.CutPrefix(u, "s3://")
	if !ok {
		return "", "", fmt.Errorf("%q: %w: not an s3:// URL", RedactURL(u), ErrLocation)
	}
	bucket, prefix, _ = strings.Cut(rest, "/")
	if strings.Contains(bucket, "@") {
		// No bucket name holds "@": these are credentials, and the SDK
		// takes them from its own chain only.
		return "", "", fmt.Errorf("%s: %w: credentials in an s3:// URL are not used: give them as AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE)", RedactURL(u), ErrLocation)
	}
	if bucket == "" {
		return "", "", fmt.Errorf("%q: %w: no bucket (want s3://BUCKET/PREFIX)", u, ErrLocation)
	}
	prefix = strings.Trim(prefix, "/")
	if prefix != "" {
		if err := storage.ValidKey(prefix); err != nil {
			return "", "", fmt.Errorf("%q: %w: prefix: %w", RedactURL(u), ErrLocation, err)
		}
		prefix += "/"
	}
	return bucket, prefix, nil
}

// S3Endpoint returns the custom S3 endpoint the environment names
// (AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL), or "".
func S3Endpoint() string {
	if e := os.Getenv("AWS_ENDPOINT_URL_S3"); e != "" {
		return e
	}
	return os.Getenv("AWS_ENDPOINT_URL")
}

// OpenS3 returns the store at u ("s3://bucket/prefix"). Credentials and
// region come from the SDK's standard chain (AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION, AWS_PROFILE and the
// shared files, then the instance's role). With a custom endpoint
// (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, or o.Endpoint) requests use
// path-style addressing (http://host/bucket/key), which every
// S3-compatible server understands, and the region defaults to us-east-1.
// Nothing is sent until the store is used.
func OpenS3(ctx context.Context, u string, o S3Options) (*S3, error) {
	bucket, prefix, err := ParseS3URL(u)
	if err != nil {
		return nil, err
	}
	endpoint := o.Endpoint
	if endpoint == "" {
		endpoint = S3Endpoint()
	}
	httpClient := awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
		// Many requests in flight to one host: keep their connections.
		t.MaxIdleConns, t.MaxIdleConnsPerHost = 256, 256
	})
	opts := []func(*config.LoadOptions) error{
		config.WithHTTPClient(httpClient),
		// Retries are ours (Retry): they cover reading the body too and
		// name the key in the last error.
		config.WithRetryer(func() aws.Retryer { return aws.NopRetryer{} }),
	}
	if endpoint != "" && os.Getenv("AWS_REGION") == "" && os.Getenv("AWS_DEFAULT_REGION") == "" {
		opts = append(opts, config.WithRegion("us-east-1"))
	}
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: AWS configuration: %w", RedactURL(u), err)
	}
	if cfg.Region == "" {
		// AWS's endpoints need one; the SDK would say "Invalid region:
		// region was not a valid DNS name" at the first request.
		return nil, fmt.Errorf("%s: no AWS region: set AWS_REGION (or a region in the AWS_PROFILE's configuration), or AWS_ENDPOINT_URL_S3 for an S3-compatible server", RedactURL(u))
	}
	// Checksums only when an operation requires one: over HTTPS, TLS
	// guards the bytes, and over plain HTTP the SigV4 signature covers a
	// SHA-256 of the payload; the aws-chunked trailers of the default are
	// what S3-compatible servers most often reject.
	cfg.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
	cfg.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	client := s3.NewFromConfig(cfg, func(so *s3.Options) {
		if endpoint != "" {
			so.BaseEndpoint = aws.String(endpoint)
			so.UsePathStyle = true
		}
	})
	return &S3{client: client, bucket: bucket, prefix: prefix, name: "s3://" + bucket + "/" + strings.TrimSuffix(prefix, "/"), retry: o.Retry}, nil
}

// String returns the store's URL.
func (s *S3) String() string { return s.name }

// Close releases idle connections.
func (s *S3) Close() error { return nil }

// s3Permanent reports whether an S3 error is an answer no retry changes.
func s3Permanent(err error) bool {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		if code := re.HTTPStatusCode(); code > 0 {
			return !transientStatus(code)
		}
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "SlowDown", "Throttling", "ThrottlingException", "RequestTimeout", "InternalError", "ServiceUnavailable", "ConditionalRequestConflict":
			return false
		}
		return true
	}
	return !transportError(err) && !errors.Is(err, errRetry)
}

var errRetry = errors.New("retry")

func s3Status(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// missingKey reports whether err says the key does not exist: a 404 for
// the key itself (NoSuchKey; a HEAD's 404 has no body, so no code, and
// the SDK names it NotFound). A 404 with another code, NoSuchBucket or a
// server's unknown user, is an error about the store, reported as such,
// not "no array here".
func missingKey(err error) bool {
	if s3Status(err) != http.StatusNotFound {
		return false
	}
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		return true
	}
	switch ae.ErrorCode() {
	case "NoSuchKey", "NotFound", "":
		return true
	}
	return false
}

func (s *S3) do(ctx context.Context, op, key string, f func(ctx context.Context) error) error {
	return s.retry.do(ctx, s.name, op, key, s3Permanent, f)
}

func notFound(op, key string) error { return &fs.PathError{Op: op, Path: key, Err: fs.ErrNotExist} }

func (s *S3) Get(ctx context.Context, key string) ([]byte, error) {
	return s.GetInto(ctx, key, nil, -1)
}

// GetInto implements storage.BufferGetter: one GET, the body read into buf
// when it fits. A negative limit means no limit.
func (s *S3) GetInto(ctx context.Context, key string, buf []byte, limit int) ([]byte, error) {
	if err := storage.ValidKey(key); err != nil {
		return nil, err
	}
	var out []byte
	missing := false
	err := s.do(ctx, "get", key, func(ctx context.Context) error {
		r, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: aws.String(s.prefix + key)})
		if err != nil {
			if missingKey(err) {
				missing = true
				return nil
			}
			return err
		}
		defer r.Body.Close()
		n := aws.ToInt64(r.ContentLength)
		if limit >= 0 && n > int64(limit) {
			return fmt.Errorf("%s is %d bytes: %w (at most %d)", key, n, zarr.ErrTooLarge, limit)
		}
		out, err = readBody(r.Body, n, buf)
		if err == nil && r.ETag != nil {
			s.reads.Remember(key, etagVersion(*r.ETag))
		}
		return err
	})
	if missing {
		s.reads.Remember(key, "")
		return nil, notFound("get", key)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readBody reads a body of n bytes (n < 0: unknown) into buf when it fits.
func readBody(body io.Reader, n int64, buf []byte) ([]byte, error) {
	if n < 0 {
		b := bytes.NewBuffer(buf[:0])
		_, err := b.ReadFrom(body)
		return b.Bytes(), err
	}
	buf = storage.Resize(buf, int(n))
	if _, err := io.ReadFull(body, buf); err != nil {
		return nil, fmt.Errorf("reading the body: %w", err)
	}
	return buf, nil
}

// Set stores value with one PUT: the object is replaced whole.
func (s *S3) Set(ctx context.Context, key string, value []byte) error {
	if err := storage.ValidKey(key); err != nil {
		return err
	}
	return s.do(ctx, "put", key, func(ctx context.Context) error {
		_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: &s.bucket, Key: aws.String(s.prefix + key),
			Body: bytes.NewReader(value), ContentLength: aws.Int64(int64(len(value))),
		})
		return err
	})
}

// ErrNoConditionalWrite is returned by SetIfAbsent when the server does
// not support conditional writes.
var ErrNoConditionalWrite = fmt.Errorf("the store does not support conditional writes (If-None-Match): %w", errors.ErrUnsupported)

// SetIfAbsent stores value under key only if no object is there, with
// one conditional PUT (If-None-Match: *). It reports whether it created
// the object. A retried PUT whose first attempt did succeed reports false:
// the caller tells its own value from another writer's by reading it.
func (s *S3) SetIfAbsent(ctx context.Context, key string, value []byte) (bool, error) {
	if err := storage.ValidKey(key); err != nil {
		return false, err
	}
	created := true
	err := s.do(ctx, "put", key, func(ctx context.Context) error {
		_, err := s.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: &s.bucket, Key: aws.String(s.prefix + key), IfNoneMatch: aws.String("*"),
			Body: bytes.NewReader(value), ContentLength: aws.Int64(int64(len(value))),
		})
		var ae smithy.APIError
		if errors.As(err, &ae) && ae.ErrorCode() == "NotImplemented" {
			return ErrNoConditionalWrite
		}
		switch s3Status(err) {
		case http.StatusPreconditionFailed:
			created = false
			return nil
		case http.StatusNotImplemented:
			return ErrNoConditionalWrite
		}
		return err
	})
	return created && err == nil, err
}

// Version implements storage.Versioner: the object's ETag, from a HEAD.
func (s *S3) Version(ctx context.Context, key string) (string, error) {
	if err := storage.ValidKey(key); err != nil {
		return "", err
	}
	var etag string
	err := s.do(ctx, "head", key, func(ctx context.Context) error {
		r, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: aws.String(s.prefix + key)})
		if missingKey(err) {
			etag = ""
			return nil
		}
		if err != nil {
			return err
		}
		etag = etagVersion(aws.ToString(r.ETag))
		return nil
	})
	return etag, err
}

// Delete removes key; a missing key is not an error.
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := storage.ValidKey(key); err != nil {
		return err
	}
	return s.do(ctx, "delete", key, func(ctx context.Context) error {
		_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: aws.String(s.prefix + key)})
		if missingKey(err) {
			return nil
		}
		return err
	})
}

func (s *S3) List(ctx context.Context, prefix string) ([]string, error) {
	es, err := s.Entries(ctx, prefix)
	keys := make([]string, len(es))
	for i, e := range es {
		keys[i] = e.Key
	}
	return keys, err
}

// Entries implements storage.EntryLister. Objects whose names are not valid
// store keys (a "dir/" marker some tools create) are left out.
func (s *S3) Entries(ctx context.Context, prefix string) ([]storage.Entry, error) {
	var out []storage.Entry
	var token *string
	for {
		var page *s3.ListObjectsV2Output
		err := s.do(ctx, "list", prefix, func(ctx context.Context) error {
			var err error
			page, err = s.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{
				Bucket: &s.bucket, Prefix: aws.String(s.prefix + prefix), ContinuationToken: token,
			})
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, o := range page.Contents {
			k := strings.TrimPrefix(aws.ToString(o.Key), s.prefix)
			if storage.ValidKey(k) != nil {
				continue
			}
			out = append(out, storage.Entry{Key: k, Size: aws.ToInt64(o.Size)})
		}
		if !aws.ToBool(page.IsTruncated) || page.NextContinuationToken == nil {
			break
		}
		token = page.NextContinuationToken
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// Temps implements what a checker asks of a directory: an object store
// has no temporary values (a PUT is atomic), so it returns none.
func (s *S3) Temps(ctx context.Context) (map[string]string, error) { return nil, nil }

// Versions returns the version (as Version gives it: the ETag) of every
// object under prefix, from a listing: one request per 1000 keys instead
// of a HEAD per key (storage.VersionLister).
func (s *S3) Versions(ctx context.Context, prefix string) (map[string]string, error) {
	out := map[string]string{}
	var token *string
	for {
		var page *s3.ListObjectsV2Output
		err := s.do(ctx, "list", prefix, func(ctx context.Context) error {
			var err error
			page, err = s.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{
				Bucket: &s.bucket, Prefix: aws.String(s.prefix + prefix), ContinuationToken: token,
			})
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, o := range page.Contents {
			if o.ETag != nil {
				out[strings.TrimPrefix(aws.ToString(o.Key), s.prefix)] = etagVersion(*o.ETag)
			}
		}
		if !aws.ToBool(page.IsTruncated) || page.NextContinuationToken == nil {
			return out, nil
		}
		token = page.NextContinuationToken
	}
}

// etagVersion is the version string of an ETag, quoted or not (a listing
// and a HEAD may differ there).
func etagVersion(etag string) string { return "etag " + strings.Trim(etag, `"`) }
