package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/objstore"
	"github.com/zarr-dt64/dt64/objstore/s3test"
	"github.com/zarr-dt64/dt64/zarr"
)

func openS3(t *testing.T, srv *s3test.Server, u string, r objstore.Retry) *objstore.S3 {
	t.Helper()
	srv.Setenv(t)
	s, err := objstore.OpenS3(context.Background(), u, objstore.S3Options{Retry: r})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestS3Store(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	s := openS3(t, srv, "s3://"+bucket+"/a.zarr", objstore.Retry{})
	ctx := context.Background()
	if got := s.String(); got != "s3://"+bucket+"/a.zarr" {
		t.Errorf("String = %q", got)
	}
	if _, err := s.Get(ctx, "zarr.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Get of a missing key: %v, want fs.ErrNotExist", err)
	}
	if v, err := s.Version(ctx, "zarr.json"); v != "" || err != nil {
		t.Fatalf("Version of a missing key: %q, %v", v, err)
	}
	for _, k := range []string{"zarr.json", "c/0/0", "c/0/1", "c/1/0"} {
		if err := s.Set(ctx, k, []byte("value of "+k)); err != nil {
			t.Fatal(err)
		}
	}
	b, err := s.Get(ctx, "c/0/1")
	if err != nil || string(b) != "value of c/0/1" {
		t.Fatalf("Get = %q, %v", b, err)
	}
	buf := make([]byte, 0, 64)
	b, err = s.GetInto(ctx, "c/0/1", buf, 100)
	if err != nil || string(b) != "value of c/0/1" || &b[0] != &buf[:1][0] {
		t.Fatalf("GetInto = %q, %v (in buf: %v)", b, err, len(b) > 0 && &b[0] == &buf[:1][0])
	}
	if _, err := s.GetInto(ctx, "c/0/1", nil, 3); !errors.Is(err, zarr.ErrTooLarge) || !strings.Contains(err.Error(), "c/0/1") {
		t.Fatalf("GetInto over the limit: %v", err)
	}
	// Ranges: the bytes at an offset, the last bytes, a range too long.
	if b, err := s.GetRange(ctx, "c/0/1", 6, 2); err != nil || string(b) != "of" {
		t.Errorf("GetRange(6, 2) = %q, %v", b, err)
	}
	if b, err := s.GetRange(ctx, "c/0/1", -3, 3); err != nil || string(b) != "0/1" {
		t.Errorf("GetRange(-3, 3) = %q, %v", b, err)
	}
	if _, err := s.GetRange(ctx, "c/0/1", 10, 100); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("GetRange past the end: %v, want io.ErrUnexpectedEOF", err)
	}
	if _, err := s.GetRange(ctx, "c/9/9", 0, 1); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("GetRange of a missing key: %v", err)
	}
	keys, err := s.List(ctx, "c/0/")
	if err != nil || !slices.Equal(keys, []string{"c/0/0", "c/0/1"}) {
		t.Fatalf("List(c/0/) = %q, %v", keys, err)
	}
	v1, err := s.Version(ctx, "c/0/0")
	if err != nil || v1 == "" {
		t.Fatalf("Version = %q, %v", v1, err)
	}
	if err := s.Set(ctx, "c/0/0", []byte("another value")); err != nil {
		t.Fatal(err)
	}
	v2, _ := s.Version(ctx, "c/0/0")
	if v2 == v1 {
		t.Errorf("Version did not change with the value: %q", v2)
	}
	// A GET's own ETag, remembered once tracking is on, is HEAD's version.
	s.TrackReadVersions()
	if _, err := s.Get(ctx, "c/0/0"); err != nil {
		t.Fatal(err)
	}
	_, _ = s.Get(ctx, "c/7/7")
	if rv, ok := s.ReadVersion("c/0/0"); !ok || rv != v2 {
		t.Errorf("ReadVersion = %q, %v; HEAD says %q", rv, ok, v2)
	}
	if _, ok := s.ReadVersion("c/0/0"); ok {
		t.Error("ReadVersion handed the same read out twice")
	}
	if rv, ok := s.ReadVersion("c/7/7"); !ok || rv != "" {
		t.Errorf("ReadVersion of a missing key = %q, %v", rv, ok)
	}
	// A listing gives the versions HEAD gives.
	vs, err := s.Versions(ctx, "")
	if err != nil || len(vs) != 4 {
		t.Fatalf("Versions = %v, %v", vs, err)
	}
	for k, lv := range vs {
		if hv, _ := s.Version(ctx, k); hv != lv {
			t.Errorf("%s: listed version %q, HEAD %q", k, lv, hv)
		}
	}
	if err := s.Delete(ctx, "c/0/0"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "c/0/0"); err != nil {
		t.Fatalf("Delete of a missing key: %v", err)
	}
	keys, _ = s.List(ctx, "")
	if !slices.Equal(keys, []string{"c/0/1", "c/1/0", "zarr.json"}) {
		t.Fatalf("List = %q", keys)
	}

	created, err := s.SetIfAbsent(ctx, "marker", []byte("first"))
	if err != nil || !created {
		t.Fatalf("SetIfAbsent of a new key: %v, %v", created, err)
	}
	created, err = s.SetIfAbsent(ctx, "marker", []byte("second"))
	if errors.Is(err, objstore.ErrNoConditionalWrite) {
		t.Skip("the server does not support If-None-Match")
	}
	if err != nil || created {
		t.Fatalf("SetIfAbsent of an existing key: %v, %v", created, err)
	}
	if b, _ := s.Get(ctx, "marker"); string(b) != "first" {
		t.Fatalf("the conditional write replaced the value: %q", b)
	}
}

func TestS3ErrorsNameKeyNotSecret(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	srv.Setenv(t)
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong-"+srv.Secret)
	s, err := objstore.OpenS3(context.Background(), "s3://"+bucket+"/x", objstore.S3Options{Retry: objstore.Retry{Attempts: 2, Base: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Set(context.Background(), "c/0", []byte("v"))
	if err == nil {
		t.Fatal("a wrong secret was accepted")
	}
	msg := err.Error()
	if !strings.Contains(msg, "c/0") || !strings.Contains(msg, bucket) {
		t.Errorf("error does not name the key and the store: %s", msg)
	}
	if strings.Contains(msg, srv.Secret) || strings.Contains(msg, srv.Access+":") {
		t.Errorf("error holds the secret: %s", msg)
	}
	// Stopped server: a clear error after the retries, naming the key.
	srv.Stop()
	t.Setenv("AWS_SECRET_ACCESS_KEY", srv.Secret)
	s, _ = objstore.OpenS3(context.Background(), "s3://"+bucket+"/x", objstore.S3Options{Retry: objstore.Retry{Attempts: 3, Base: time.Millisecond}})
	_, err = s.Get(context.Background(), "c/0/7")
	var oe *objstore.Error
	if !errors.As(err, &oe) || oe.Key != "c/0/7" || oe.Attempts != 3 {
		t.Fatalf("Get from a stopped server: %v", err)
	}
	if bytes.Contains([]byte(err.Error()), []byte(srv.Secret)) {
		t.Errorf("error holds the secret: %v", err)
	}
}

// TestS3MissingBucket: a 404 about the bucket (NoSuchBucket) or the
// caller (versitygw's unknown access key) is an error naming it, not a
// missing key: reading a mistyped bucket said "no Zarr array here".
func TestS3MissingBucket(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.Bucket(t)
	ctx := context.Background()
	r := objstore.Retry{Attempts: 1}
	s := openS3(t, srv, "s3://no-such-bucket-"+bucket+"/a.zarr", r)
	for name, get := range map[string]func() error{
		"Get":      func() error { _, err := s.Get(ctx, "zarr.json"); return err },
		"GetRange": func() error { _, err := s.GetRange(ctx, "zarr.json", 0, 4); return err },
	} {
		if err := get(); err == nil || errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "NoSuchBucket") {
			t.Errorf("%s from a missing bucket: %v, want an error naming NoSuchBucket", name, err)
		}
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "nobody")
	s, err := objstore.OpenS3(ctx, "s3://"+bucket+"/a.zarr", objstore.S3Options{Retry: r})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "zarr.json"); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Get with an unknown access key: %v, want an error, not a missing key", err)
	}
}

// TestS3NoRegion: without a region, and without a custom endpoint (which
// defaults it), OpenS3 says so instead of the SDK's "Invalid region:
// region was not a valid DNS name" at the first request.
func TestS3NoRegion(t *testing.T) {
	for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_PROFILE"} {
		t.Setenv(k, "")
	}
	t.Setenv("AWS_CONFIG_FILE", t.TempDir()+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", t.TempDir()+"/none")
	_, err := objstore.OpenS3(context.Background(), "s3://b/a.zarr", objstore.S3Options{})
	if err == nil || !strings.Contains(err.Error(), "no AWS region: set AWS_REGION") || !strings.Contains(err.Error(), "s3://b/a.zarr") {
		t.Errorf("OpenS3 without a region: %v", err)
	}
	t.Setenv("AWS_REGION", "eu-west-1")
	if _, err := objstore.OpenS3(context.Background(), "s3://b/a.zarr", objstore.S3Options{}); err != nil {
		t.Errorf("OpenS3 with a region: %v", err)
	}
}
