package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The group-only flags on an array SRC are refused (they would select or
// change nothing, silently), naming the flag; nothing is written.
func TestTranscodeGroupFlagsOnArray(t *testing.T) {
	src := writeSample(t, 100, 10)
	for _, fl := range [][]string{{"--include", "nothing"}, {"--exclude", "x"}, {"--consolidate"}} {
		dst := filepath.Join(t.TempDir(), "out.zarr")
		_, _, err := run(t, nil, append([]string{"transcode", src, dst, "-q"}, fl...)...)
		if !isUsage(err) || !strings.Contains(err.Error(), fl[0]) {
			t.Errorf("%v on an array: %v, want a usage error naming it", fl, err)
		}
		if _, err := os.Stat(dst); !os.IsNotExist(err) {
			t.Errorf("%v: destination written", fl)
		}
	}
}
