//go:build !unix

package s3test

import "os"

// lockFile does not lock outside Unix (no flock): test binaries that
// start at once may then each run go install of the same binary.
func lockFile(f *os.File) error { return nil }
