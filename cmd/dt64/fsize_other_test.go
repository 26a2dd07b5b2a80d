//go:build !unix

package main

import (
	"errors"
	"testing"
)

// limitFileSize: only Unix has RLIMIT_FSIZE.
func limitFileSize(uint64) error {
	return errors.New("no file-size limit on this system")
}

// needFileSizeLimit skips a test that runs dt64 under DT64_TEST_FSIZE:
// without RLIMIT_FSIZE the child would exit 3 before doing anything.
func needFileSizeLimit(t *testing.T) {
	t.Helper()
	t.Skip("no RLIMIT_FSIZE on this system: the test needs a limit on the size of files a process writes")
}
