package inflate

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"

	"github.com/zarr-dt64/dt64/internal/cputime"
)

// benchChunkSize is the decoded size of one benchmark chunk: 1 MiB, i.e.
// 131072 int64 values, a common Zarr chunk size.
const benchChunkSize = 1 << 20

// benchData is the decoded chunks: (a) jittered int64 ns timestamps, (b)
// the end-to-end benchmark's big-endian ns timestamps, (c) regular hourly
// µs timestamps, (d) text-like data.
func benchData() []struct {
	name string
	p    []byte
} {
	return []struct {
		name string
		p    []byte
	}{
		{"jitter-ns", jitteredNS(benchChunkSize/8, 42)},
		{"e2e-ns", e2eNS(benchChunkSize/8, 1)},
		{"hourly-us", hourlyUS(benchChunkSize / 8)},
		{"text", textLike(benchChunkSize, 42)},
	}
}

var benchLevels = []int{1, 5, 9}

// loopCPU runs decode b.N times and also reports MB per CPU second
// ("cpuMB/s", see internal/cputime).
func loopCPU(b *testing.B, size int, decode func()) {
	b.SetBytes(int64(size))
	c0 := cputime.Process()
	for b.Loop() {
		decode()
	}
	if c := cputime.Process() - c0; c > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/1e6/c.Seconds(), "cpuMB/s")
	}
}

// BenchmarkInflate decodes the same gzip chunks (written by klauspost, as
// the zarr codec writes them) with this package, klauspost/compress/gzip
// and compress/gzip, the readers reused as the zarr codec reuses them.
func BenchmarkInflate(b *testing.B) {
	for _, d := range benchData() {
		for _, level := range benchLevels {
			src := kGzip(d.p, level)
			dst := make([]byte, len(d.p))
			prefix := fmt.Sprintf("data=%s/level=%d/dec=", d.name, level)
			b.Run(prefix+"dt64", func(b *testing.B) {
				loopCPU(b, len(d.p), func() {
					if n, err := Gzip(dst, src); err != nil || n != len(dst) {
						b.Fatal(n, err)
					}
				})
			})
			b.Run(prefix+"klauspost", func(b *testing.B) {
				zr, _ := kgzip.NewReader(bytes.NewReader(src))
				loopCPU(b, len(d.p), func() {
					if err := zr.Reset(bytes.NewReader(src)); err != nil {
						b.Fatal(err)
					}
					if _, err := io.ReadFull(zr, dst); err != nil {
						b.Fatal(err)
					}
				})
			})
			b.Run(prefix+"stdlib", func(b *testing.B) {
				zr, _ := gzip.NewReader(bytes.NewReader(src))
				loopCPU(b, len(d.p), func() {
					if err := zr.Reset(bytes.NewReader(src)); err != nil {
						b.Fatal(err)
					}
					if _, err := io.ReadFull(zr, dst); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

func BenchmarkAdler32(b *testing.B) {
	p := textLike(1<<20, 1)
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		adler32(p)
	}
}

// TestDumpBench writes the benchmark's gzip chunks to $INFLATE_DUMP, for
// timing other decoders (tools/inflate/bench.py) on the same bytes.
func TestDumpBench(t *testing.T) {
	dir := os.Getenv("INFLATE_DUMP")
	if dir == "" {
		t.Skip("INFLATE_DUMP not set")
	}
	for _, d := range benchData() {
		for _, level := range benchLevels {
			name := filepath.Join(dir, fmt.Sprintf("%s.%d.gz", d.name, level))
			if err := os.WriteFile(name, kGzip(d.p, level), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
