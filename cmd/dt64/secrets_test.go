package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoSecretPrinted runs every command that takes a store, as a real
// dt64 process, with credentials in s3:// and https:// URLs, a presigned
// query string and an endpoint URL with a token, succeeding and failing,
// and finds none of the secrets (nor the server's secret key from the
// environment) anywhere in what it printed.
func TestNoSecretPrinted(t *testing.T) {
	f := newS3Fixture(t)
	const secret = "Zq7SuperSecretKey12345XYZ"
	hs := httptest.NewServer(http.FileServer(http.Dir(f.src)))
	defer hs.Close()
	tmp := t.TempDir()
	s3u := "s3://AKIAAUDIT:" + secret + "@" + f.bucket + "/x.zarr"
	httpsU := "https://user:" + secret + "@127.0.0.1:1/x.zarr"
	httpU := strings.Replace(hs.URL, "http://", "http://user:"+secret+"@", 1)
	presigned := hs.URL + "/?X-Amz-Signature=" + secret + "&X-Amz-Credential=AKIAAUDIT"
	runs := [][]string{
		{"transcode", f.src, s3u},
		{"transcode", s3u, filepath.Join(tmp, "a.zarr")},
		{"transcode", httpsU, filepath.Join(tmp, "b.zarr")},
		{"transcode", f.src, httpsU},
		{"transcode", httpU, filepath.Join(tmp, "c.zarr")}, // succeeds: the file server ignores the user
		{"transcode", presigned, filepath.Join(tmp, "d.zarr")},
		{"transcode", httpU, f.url("e.zarr"), "--verify"},
		{"inspect", s3u}, {"inspect", httpsU}, {"inspect", httpU}, {"inspect", presigned},
		{"validate", s3u}, {"validate", httpsU}, {"validate", httpU}, {"validate", presigned},
		{"export", s3u, filepath.Join(tmp, "x.parquet")},
		{"export", httpsU, filepath.Join(tmp, "y.parquet")},
		{"export", httpU, filepath.Join(tmp, "z.parquet")},
		{"cast", "--from", "<M8[ns]", "--to", "<M8[us]", s3u, filepath.Join(tmp, "out.bin")},
		{"cast", "--from", "<M8[ns]", "--to", "<M8[us]", httpsU},
		{"transcode", "gs://user:" + secret + "@bkt/x", filepath.Join(tmp, "g.zarr")},
		{"transcode", "ftp://user:" + secret + "@host/x", filepath.Join(tmp, "h.zarr")},
	}
	succeeded := 0
	check := func(env []string, args []string) {
		t.Helper()
		out, err := dt64Subprocess(env, args...).CombinedOutput()
		if err == nil {
			succeeded++
		}
		for _, s := range []string{secret, f.srv.Secret} {
			if strings.Contains(string(out), s) {
				t.Errorf("dt64 %s printed a secret:\n%s", strings.Join(args, " "), out)
			}
		}
		t.Logf("dt64 %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	for _, args := range runs {
		check([]string{"DT64_REQUEST_ATTEMPTS=1"}, args)
	}
	// An endpoint URL with a token in its query, and one that refuses.
	for _, ep := range []string{f.srv.Endpoint + "/?token=" + secret, "http://user:" + secret + "@127.0.0.1:1/?token=" + secret} {
		env := []string{"DT64_REQUEST_ATTEMPTS=1", "AWS_ENDPOINT_URL_S3=" + ep}
		check(env, []string{"transcode", f.src, f.url("q.zarr")})
		check(env, []string{"inspect", f.srcURL})
	}
	if succeeded < 4 {
		t.Errorf("only %d runs succeeded: the test should show successful runs too", succeeded)
	}
}
