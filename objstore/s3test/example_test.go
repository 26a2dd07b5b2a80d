package s3test_test

import (
	"fmt"
	"os"

	"github.com/zarr-dt64/dt64/objstore/s3test"
)

// A CI cache (DT64_CACHE) keeps the versitygw binary that `make
// versitygw` builds, one directory per release; a test then calls
// s3test.Start(t) for a server of its own on 127.0.0.1, and the server's
// Bucket(t) for an empty bucket.
func ExampleCacheDir() {
	old, had := os.LookupEnv("DT64_CACHE")
	os.Setenv("DT64_CACHE", "/var/cache/ci")
	defer func() {
		if had {
			os.Setenv("DT64_CACHE", old)
		} else {
			os.Unsetenv("DT64_CACHE")
		}
	}()
	dir, err := s3test.CacheDir()
	fmt.Println(dir, err)
	// Output: /var/cache/ci/versitygw-v1.8.0 <nil>
}
