package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strings"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// HTTP is a read-only storage.Store at an http:// or https:// URL: key
// "c/0/1" is a GET of URL/c/0/1. A server lists nothing, so a missing key
// is found by its 404 (or 410): List fails with ErrNoListing, and a reader
// that walks the chunk grid (the transcode engine) takes a 404 for a chunk
// that is not stored. Set and Delete fail with ErrReadOnly. Versions
// (storage.Versioner) are the ETag, else Last-Modified and the length.
type HTTP struct {
	base   string // ends in "/"
	query  string // the URL's query string, sent with every request ("" for none)
	name   string // base with any user information redacted
	client *http.Client
	retry  Retry
	reads  *storage.ReadVersions // the ETags GETs saw (shared by requestHeader's copy)
}

var (
	// ErrReadOnly is returned by Set and Delete on an HTTP store.
	ErrReadOnly = errors.New("an http(s) location is read-only")
	// ErrNoListing is returned by List on an HTTP store; it is
	// storage.ErrNoListing, which the zarr package knows.
	ErrNoListing = storage.ErrNoListing
)

// OpenHTTP returns the store at u. client nil means a client of its own.
func OpenHTTP(u string, client *http.Client, r Retry) (*HTTP, error) {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return nil, fmt.Errorf("%q: want http://HOST/PATH or https://HOST/PATH", RedactURL(u))
	}
	// A query string (an access token, say) goes with every key's
	// request, as it went with the URL; messages show it as xxxxx.
	query := p.RawQuery
	p.RawQuery, p.Fragment = "", ""
	base := strings.TrimSuffix(p.String(), "/") + "/"
	if client == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.MaxIdleConns, t.MaxIdleConnsPerHost = 256, 256
		client = &http.Client{Transport: t}
	}
	return &HTTP{base: base, query: query, name: strings.TrimSuffix(RedactURL(p.String()), "/"), client: client, retry: r, reads: new(storage.ReadVersions)}, nil
}

// RedactURL returns u for messages: any user information and query
// string (a presigned URL's signature, a token) replaced by "xxxxx".
func RedactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return "(an unparsable URL)"
	}
	if p.User != nil {
		p.User = url.User("xxxxx")
	}
	if p.RawQuery != "" {
		p.RawQuery = "xxxxx"
	}
	return p.String()
}

func (h *HTTP) String() string { return h.name }

func (h *HTTP) Close() error { h.client.CloseIdleConnections(); return nil }

func httpPermanent(err error) bool {
	var se *errStatus
	if errors.As(err, &se) {
		return !transientStatus(se.code)
	}
	return !transportError(err)
}

func (h *HTTP) url(key string) string {
	segs := strings.Split(key, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	u := h.base + strings.Join(segs, "/")
	if h.query != "" {
		u += "?" + h.query
	}
	return u
}

// request sends one method to key and hands a 2xx response to ok; it
// reports a 404 or 410 as missing.
func (h *HTTP) request(ctx context.Context, method, op, key string, ok func(*http.Response) error) (missing bool, err error) {
	if err := storage.ValidKey(key); err != nil {
		return false, err
	}
	err = h.retry.do(ctx, h.name, op, key, httpPermanent, func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, method, h.url(key), nil)
		if err != nil {
			return err
		}
		resp, err := h.client.Do(req)
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err // url.Error prints the URL, user information included
			}
			return err
		}
		defer resp.Body.Close()
		switch {
		case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
			missing = true
			return nil
		case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable:
			return rangeShort(key, 0, 0, -1)
		case resp.StatusCode/100 != 2:
			msg, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
			return &errStatus{resp.StatusCode, strings.TrimSpace(string(msg))}
		}
		missing = false
		return ok(resp)
	})
	return missing, err
}

func (h *HTTP) Get(ctx context.Context, key string) ([]byte, error) {
	return h.GetInto(ctx, key, nil, -1)
}

// GetInto implements storage.BufferGetter. A negative limit means no limit.
func (h *HTTP) GetInto(ctx context.Context, key string, buf []byte, limit int) ([]byte, error) {
	var out []byte
	missing, err := h.request(ctx, http.MethodGet, "get", key, func(r *http.Response) error {
		if limit >= 0 && r.ContentLength > int64(limit) {
			return fmt.Errorf("%s is %d bytes: %w (at most %d)", key, r.ContentLength, zarr.ErrTooLarge, limit)
		}
		var body io.Reader = r.Body
		if limit >= 0 && r.ContentLength < 0 {
			body = io.LimitReader(r.Body, int64(limit)+1)
		}
		var err error
		out, err = readBody(body, r.ContentLength, buf)
		if err == nil && limit >= 0 && len(out) > limit {
			return fmt.Errorf("%s is over %d bytes: %w", key, limit, zarr.ErrTooLarge)
		}
		// The ETag of this very answer is the version of the bytes read,
		// as a HEAD (Version) reports it, unless the transport asked for
		// and undid a compression: a server may then tag the compressed
		// form apart ("…-gzip"), and Version must be asked instead.
		if err == nil && !r.Uncompressed && r.Header.Get("ETag") != "" {
			h.reads.Remember(key, "etag "+r.Header.Get("ETag"))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if missing {
		h.reads.Remember(key, "")
		return nil, notFound("get", key)
	}
	return out, nil
}

// TrackReadVersions makes the store remember the ETag of each value Get
// returns (and that a key was missing) until ReadVersion takes it, so
// that checking a chunk just read costs no HEAD.
func (h *HTTP) TrackReadVersions() { h.reads.TrackReadVersions() }

// ReadVersion returns, once, the version (as Version gives it) of the
// value the last Get of key returned, or false when it was not kept.
func (h *HTTP) ReadVersion(key string) (string, bool) { return h.reads.ReadVersion(key) }

// GetRange reads the n bytes at offset off of key (its last n bytes when
// off is negative) with one range request, as storage.RangeGetter asks: a
// value shorter than the range is an error wrapping io.ErrUnexpectedEOF.
// A server that ignores the range (200 instead of 206) is answered from
// the whole body.
func (h *HTTP) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	rng, err := rangeHeader(key, off, n)
	if err != nil {
		return nil, err
	}
	var out []byte
	missing, err := h.requestHeader(ctx, key, "Range", rng, func(r *http.Response) error {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return err
		}
		if r.StatusCode == http.StatusOK { // the whole value
			o := off
			if o < 0 {
				o = int64(len(b)) - n
			}
			if o < 0 || o+n > int64(len(b)) {
				return rangeShort(key, off, n, int64(len(b)))
			}
			b = b[o : o+n]
		}
		if int64(len(b)) != n {
			return rangeShort(key, off, n, -1)
		}
		out = b
		return nil
	})
	if err != nil {
		return nil, err
	}
	if missing {
		return nil, notFound("get", key)
	}
	return out, nil
}

func (h *HTTP) requestHeader(ctx context.Context, key, name, value string, ok func(*http.Response) error) (bool, error) {
	c := *h
	c.client = &http.Client{Transport: headerTransport{h.client.Transport, name, value}, Timeout: h.client.Timeout}
	return c.request(ctx, http.MethodGet, "get", key, ok)
}

type headerTransport struct {
	rt          http.RoundTripper
	name, value string
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(t.name, t.value)
	rt := t.rt
	if rt == nil {
		rt = http.DefaultTransport
	}
	return rt.RoundTrip(r)
}

// Version implements storage.Versioner with a HEAD: the ETag, else
// Last-Modified and Content-Length; "" for a missing key.
func (h *HTTP) Version(ctx context.Context, key string) (string, error) {
	var v string
	missing, err := h.request(ctx, http.MethodHead, "head", key, func(r *http.Response) error {
		switch {
		case r.Header.Get("ETag") != "":
			v = "etag " + r.Header.Get("ETag")
		default:
			v = fmt.Sprintf("size %d modified %s", r.ContentLength, r.Header.Get("Last-Modified"))
		}
		return nil
	})
	if missing || err != nil {
		return "", err
	}
	return v, nil
}

// Size returns the size of the value at key with a HEAD (its
// Content-Length, -1 when the server gives none); a missing key is an
// error satisfying errors.Is(err, fs.ErrNotExist).
func (h *HTTP) Size(ctx context.Context, key string) (int64, error) {
	var n int64
	missing, err := h.request(ctx, http.MethodHead, "head", key, func(r *http.Response) error {
		n = r.ContentLength
		return nil
	})
	if missing {
		return 0, &fs.PathError{Op: "head", Path: key, Err: fs.ErrNotExist}
	}
	return n, err
}

func (h *HTTP) Set(ctx context.Context, key string, value []byte) error {
	return &Error{Store: h.name, Op: "put", Key: key, Err: ErrReadOnly}
}

func (h *HTTP) Delete(ctx context.Context, key string) error {
	return &Error{Store: h.name, Op: "delete", Key: key, Err: ErrReadOnly}
}

func (h *HTTP) List(ctx context.Context, prefix string) ([]string, error) {
	return nil, &Error{Store: h.name, Op: "list", Key: prefix, Err: ErrNoListing}
}
