package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/objstore"
	"github.com/zarr-dt64/dt64/storage"
)

func TestOpenStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, arg := range []string{dir, "file://" + dir, "file://localhost" + dir} {
		s, err := openStore(ctx, arg, true)
		if d, ok := s.(*storage.Dir); err != nil || !ok || filepath.Clean(d.String()) != dir {
			t.Errorf("%s: %T %v", arg, s, err)
		}
	}
	if _, err := openStore(ctx, filepath.Join(dir, "missing"), true); err == nil || !strings.Contains(err.Error(), "source") {
		t.Errorf("a missing source directory: %v", err)
	}
	if s, err := openStore(ctx, "https://example.org/a.zarr", true); err != nil {
		t.Errorf("https: %v", err)
	} else if _, ok := s.(*objstore.HTTP); !ok {
		t.Errorf("https: %T", s)
	}
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_REGION", "eu-west-1") // objstore refuses S3 without one (TestS3NoRegion)
	if s, err := openStore(ctx, "s3://bucket/a.zarr", false); err != nil {
		t.Errorf("s3: %v", err)
	} else if s.(*objstore.S3).String() != "s3://bucket/a.zarr" {
		t.Errorf("s3: %v", s)
	}
	for arg, want := range map[string]string{
		"gs://bucket/a.zarr":                 "storage.googleapis.com",
		"azblob://container/a.zarr":          "S3 gateway",
		"ftp://user:secret@host/a.zarr":      "unknown scheme",
		"s3:///a.zarr":                       "no bucket",
		"https://user:secret@host/a.zarr/..": "",
	} {
		_, err := openStore(ctx, arg, false)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: %v, want an error saying %q without the password", arg, err, want)
		}
	}
	// A malformed s3:// location is a mistake on the command line (exit
	// 2), as other unusable locations are.
	for _, arg := range []string{"s3://", "s3:///a.zarr", "s3://KEY:s3cr3tVALUE@bkt/x", "gs://bucket/a.zarr"} {
		if _, err := openStore(ctx, arg, false); !isUsage(err) || strings.Contains(err.Error(), "s3cr3tVALUE") {
			t.Errorf("%s: %v, want a usage error without the secret", arg, err)
		}
	}
	t.Setenv("DT64_REQUEST_TIMEOUT", "soon")
	if _, err := openStore(ctx, "s3://bucket/a", true); !isUsage(err) {
		t.Errorf("a bad DT64_REQUEST_TIMEOUT: %v", err)
	}
}
