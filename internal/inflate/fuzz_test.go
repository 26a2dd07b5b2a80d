package inflate

import (
	"testing"
)

// Differential fuzz targets: see check. Seeds are the streams of
// TestStreams (small inputs only, to keep the fuzzer fast) and their
// truncations; testdata/fuzz/<Name>/ holds regressions.

func seed(f *testing.F, format string) {
	for name, s := range streams(true)[format] {
		if len(s) > 20000 && name != "handmade" {
			s = s[:20000] // a truncated prefix still exercises the decoder
		}
		f.Add(s)
	}
}

func FuzzRaw(f *testing.F) {
	seed(f, "raw")
	f.Fuzz(func(t *testing.T, src []byte) { check(t, formats[0], src) })
}

func FuzzZlib(f *testing.F) {
	seed(f, "zlib")
	f.Fuzz(func(t *testing.T, src []byte) { check(t, formats[1], src) })
}

func FuzzGzip(f *testing.F) {
	seed(f, "gzip")
	f.Fuzz(func(t *testing.T, src []byte) { check(t, formats[2], src) })
}
