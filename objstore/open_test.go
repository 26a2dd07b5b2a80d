package objstore

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/storage"
)

// Open turns every location a command takes into its store, and refuses
// the ones it cannot use with ErrLocation and no credential in the text.
func TestOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, loc := range []string{dir, "file://" + dir, "file://localhost" + dir} {
		s, err := Open(ctx, loc, OpenOptions{MustExist: true})
		if _, ok := s.(*storage.Dir); err != nil || !ok {
			t.Errorf("%s: %T, %v; want a directory store", loc, s, err)
		}
	}
	missing := filepath.Join(dir, "nothing")
	if _, err := Open(ctx, missing, OpenOptions{MustExist: true}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing source directory: %v", err)
	}
	if _, err := Open(ctx, missing, OpenOptions{Write: true}); err != nil {
		t.Errorf("a destination directory is made by its first write: %v", err)
	}
	if s, err := Open(ctx, "https://example.org/a.zarr", OpenOptions{}); err != nil {
		t.Errorf("https: %v", err)
	} else if _, ok := s.(*HTTP); !ok {
		t.Errorf("https: %T", s)
	}
	for _, c := range []struct {
		loc  string
		o    OpenOptions
		want string
	}{
		{"https://user:s3cr3t@example.org/a.zarr?token=s3cr3t", OpenOptions{Write: true}, "read-only"},
		{"gs://bucket/a.zarr", OpenOptions{}, "AWS_ENDPOINT_URL_S3"},
		{"azblob://c/a.zarr", OpenOptions{}, "S3 gateway"},
		{"ftp://user:s3cr3t@host/a.zarr", OpenOptions{}, `unknown scheme "ftp"`},
		{"file://", OpenOptions{}, "no path"},
	} {
		_, err := Open(ctx, c.loc, c.o)
		if !errors.Is(err, ErrLocation) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "s3cr3t") {
			t.Errorf("%s: %v; want ErrLocation, %q and no secret", c.loc, err, c.want)
		}
	}
	if Scheme("data/x://y") != "" || Scheme("S3://b/p") != "s3" || Scheme("rel/path") != "" {
		t.Error("Scheme: a path's first segment decides")
	}
}
