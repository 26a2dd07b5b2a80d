package s3test

import (
	"os"
	"testing"
)

// TestBuildServer builds the versitygw binary into the cache directory
// (make versitygw runs it alone, before the tests that start servers).
func TestBuildServer(t *testing.T) {
	bin, err := Binary()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI: the S3 server is required: %v", err)
		}
		t.Skipf("versitygw %s could not be built: %v", Version, err)
	}
	t.Logf("versitygw %s: %s", Version, bin)
}

func TestServerRestart(t *testing.T) {
	s := Start(t)
	b := s.Bucket(t)
	s.Stop()
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.Dir + "/" + b); err != nil {
		t.Fatalf("the bucket is gone after a restart: %v", err)
	}
}
