package objstore_test

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/objstore"
	"github.com/zarr-dt64/dt64/zarr"
)

func TestHTTPStore(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "c", "0"), 0o755)
	os.WriteFile(filepath.Join(dir, "zarr.json"), []byte(`{"zarr_format":3}`), 0o644)
	os.WriteFile(filepath.Join(dir, "c", "0", "1"), []byte("0123456789"), 0o644)
	var fails atomic.Int64
	fails.Store(2)
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/a.zarr/c/0/1" && fails.Add(-1) >= 0 {
			http.Error(w, "busy", http.StatusServiceUnavailable) // the first two GETs of the chunk
			return
		}
		if r.URL.Query().Get("norange") != "" || r.Header.Get("X-No-Range") != "" {
			r.Header.Del("Range")
		}
		http.StripPrefix("/a.zarr", files).ServeHTTP(w, r)
	}))
	defer srv.Close()
	ctx := context.Background()
	u := strings.Replace(srv.URL, "http://", "http://user:hunter2@", 1) + "/a.zarr/"
	h, err := objstore.OpenHTTP(u, nil, objstore.Retry{Base: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h.String(), "hunter2") {
		t.Errorf("String holds the password: %s", h)
	}
	b, err := h.Get(ctx, "c/0/1")
	if err != nil || string(b) != "0123456789" {
		t.Fatalf("Get after two 503s = %q, %v", b, err)
	}
	if _, err := h.Get(ctx, "c/0/2"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Get of a missing chunk (404): %v", err)
	}
	if _, err := h.GetInto(ctx, "c/0/1", nil, 4); !errors.Is(err, zarr.ErrTooLarge) {
		t.Errorf("GetInto over the limit: %v", err)
	}
	if b, err := h.GetRange(ctx, "c/0/1", 2, 3); err != nil || string(b) != "234" {
		t.Errorf("GetRange(2, 3) = %q, %v", b, err)
	}
	if b, err := h.GetRange(ctx, "c/0/1", -4, 4); err != nil || string(b) != "6789" {
		t.Errorf("GetRange(-4, 4) = %q, %v", b, err)
	}
	if _, err := h.GetRange(ctx, "c/0/1", 8, 4); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("GetRange past the end: %v", err)
	}
	v1, err := h.Version(ctx, "c/0/1")
	if err != nil || v1 == "" {
		t.Errorf("Version = %q, %v", v1, err)
	}
	if v, err := h.Version(ctx, "c/0/2"); v != "" || err != nil {
		t.Errorf("Version of a missing key = %q, %v", v, err)
	}
	if err := h.Set(ctx, "c/0/1", nil); !errors.Is(err, objstore.ErrReadOnly) {
		t.Errorf("Set: %v", err)
	}
	if _, err := h.List(ctx, ""); !errors.Is(err, objstore.ErrNoListing) {
		t.Errorf("List: %v", err)
	}
	// A server that always fails: the error names the key, the attempts,
	// never the password.
	fails.Store(1 << 30)
	_, err = h.Get(ctx, "c/0/1")
	var oe *objstore.Error
	if !errors.As(err, &oe) || oe.Key != "c/0/1" || oe.Attempts != 6 || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("Get from a failing server: %v", err)
	}
}

// TestHTTPTimeout: an attempt that takes longer than the timeout is cut
// and retried.
func TestHTTPTimeout(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			select {
			case <-time.After(5 * time.Second):
			case <-r.Context().Done():
				return
			}
		}
		w.Write([]byte("ok"))
	}))
	defer srv.Close()
	h, _ := objstore.OpenHTTP(srv.URL, nil, objstore.Retry{Timeout: 100 * time.Millisecond, Base: time.Millisecond})
	start := time.Now()
	b, err := h.Get(context.Background(), "k")
	if err != nil || string(b) != "ok" || time.Since(start) > 3*time.Second {
		t.Fatalf("Get = %q, %v after %v", b, err, time.Since(start))
	}
}

// TestHTTPReadVersions: a GET remembers the ETag of its own answer, the
// version a HEAD (Version) reports, so the engine checks a chunk it read
// without another request; a missing key is remembered as "". An answer
// the transport decompressed is not remembered: its ETag may be the
// compressed form's ("…-gzip", as Apache's mod_deflate tags it).
func TestHTTPReadVersions(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/a.zarr/c/0":
			w.Header().Set("ETag", `"v1"`)
			w.Write([]byte("chunk"))
		case "/a.zarr/c/1":
			if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				w.Header().Set("ETag", `"v1-gzip"`)
				w.Header().Set("Content-Encoding", "gzip")
				zw := gzip.NewWriter(w)
				zw.Write([]byte("chunk"))
				zw.Close()
				return
			}
			w.Header().Set("ETag", `"v1"`)
			w.Write([]byte("chunk"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	h, err := objstore.OpenHTTP(srv.URL+"/a.zarr/", nil, objstore.Retry{Base: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Get(ctx, "c/0"); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.ReadVersion("c/0"); ok {
		t.Error("a version remembered before TrackReadVersions")
	}
	h.TrackReadVersions()
	for _, key := range []string{"c/0", "c/1"} {
		if b, err := h.Get(ctx, key); err != nil || string(b) != "chunk" {
			t.Fatalf("Get(%q) = %q, %v", key, b, err)
		}
	}
	v, _ := h.Version(ctx, "c/0")
	if rv, ok := h.ReadVersion("c/0"); !ok || rv != v || v == "" {
		t.Errorf("ReadVersion(c/0) = %q, %v; Version %q", rv, ok, v)
	}
	if rv, ok := h.ReadVersion("c/1"); ok {
		t.Errorf("ReadVersion of a decompressed answer = %q; want none (ask Version)", rv)
	}
	_, _ = h.Get(ctx, "c/9")
	if rv, ok := h.ReadVersion("c/9"); !ok || rv != "" {
		t.Errorf("ReadVersion of a missing key = %q, %v", rv, ok)
	}
}

// A URL's query string (an access token, say) goes with every key's
// request, as it went with the URL (it was dropped, so a server that
// wants the token refused every request), and never into messages.
func TestHTTPQueryString(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "zarr.json"), []byte(`{"zarr_format":3}`), 0o644)
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("token") != "s3cr3t-token" {
			http.Error(w, "no token", http.StatusForbidden)
			return
		}
		http.StripPrefix("/a.zarr", files).ServeHTTP(w, r)
	}))
	defer srv.Close()
	h, err := objstore.OpenHTTP(srv.URL+"/a.zarr?token=s3cr3t-token", nil, objstore.Retry{Attempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	if b, err := h.Get(context.Background(), "zarr.json"); err != nil || string(b) != `{"zarr_format":3}` {
		t.Fatalf("Get with the URL's token: %q, %v", b, err)
	}
	_, err = h.Get(context.Background(), "missing.json")
	if strings.Contains(h.String(), "s3cr3t") || err != nil && strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("the token is shown: %s, %v", h, err)
	}
}
