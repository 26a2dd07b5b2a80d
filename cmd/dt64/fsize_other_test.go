//go:build !unix

package main

import "errors"

// limitFileSize: only Unix has RLIMIT_FSIZE. The tests that set
// DT64_TEST_FSIZE run on Linux only.
func limitFileSize(uint64) error {
	return errors.New("no file-size limit on this system")
}
