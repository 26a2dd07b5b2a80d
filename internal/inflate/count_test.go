package inflate

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	kgzip "github.com/klauspost/compress/gzip"
)

// TestCount decodes one benchmark chunk N times with one decoder, inside
// countDecode, for counting instructions under valgrind (see
// tools/inflate/icount.sh). INFLATE_COUNT is "data/level/decoder/N",
// e.g. "jitter-ns/5/dt64/3"; without it the test is skipped.
func TestCount(t *testing.T) {
	spec := os.Getenv("INFLATE_COUNT")
	if spec == "" {
		t.Skip("INFLATE_COUNT not set")
	}
	f := strings.Split(spec, "/")
	if len(f) != 4 {
		t.Fatalf("INFLATE_COUNT=%q: want data/level/decoder/N", spec)
	}
	level, _ := strconv.Atoi(f[1])
	n, _ := strconv.Atoi(f[3])
	for _, d := range benchData() {
		if d.name != f[0] {
			continue
		}
		src := kGzip(d.p, level)
		dst := make([]byte, len(d.p))
		var zr *kgzip.Reader
		if f[2] == "klauspost" {
			zr, _ = kgzip.NewReader(bytes.NewReader(src))
		}
		for range n {
			if err := countDecode(f[2], zr, dst, src); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(dst, d.p) {
			t.Fatal("decoded bytes differ")
		}
		fmt.Printf("count %s: %d bytes in, %d out, %d times\n", spec, len(src), len(dst), n)
		return
	}
	t.Fatalf("no data %q", f[0])
}

//go:noinline
func countDecode(dec string, zr *kgzip.Reader, dst, src []byte) error {
	if dec == "klauspost" {
		if err := zr.Reset(bytes.NewReader(src)); err != nil {
			return err
		}
		_, err := io.ReadFull(zr, dst)
		return err
	}
	n, err := Gzip(dst, src)
	if err == nil && n != len(dst) {
		err = fmt.Errorf("decoded %d bytes, want %d", n, len(dst))
	}
	return err
}

// TestTime decodes one benchmark chunk N times with one decoder, timing
// each decode by the thread's CPU clock, and prints the best and the
// median as MB/s: on a loaded machine the best decode is the one least
// disturbed. INFLATE_TIME is "data/level/decoder/N". With INFLATE_TIME_GZ
// set to a gzip file, that file is the chunk, and data and level are
// ignored: tools/inflate/libdeflate_time.c times libdeflate the same way
// on the same files.
func TestTime(t *testing.T) {
	spec := os.Getenv("INFLATE_TIME")
	if spec == "" {
		t.Skip("INFLATE_TIME not set")
	}
	f := strings.Split(spec, "/")
	if len(f) != 4 {
		t.Fatalf("INFLATE_TIME=%q: want data/level/decoder/N", spec)
	}
	level, _ := strconv.Atoi(f[1])
	n, err := strconv.Atoi(f[3])
	if err != nil || n < 1 {
		t.Fatalf("INFLATE_TIME=%q: N must be a positive number", spec)
	}
	if name := os.Getenv("INFLATE_TIME_GZ"); name != "" {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		zr, err := kgzip.NewReader(bytes.NewReader(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		timeDecodes(t, name+" "+f[2], f[2], src, p, n)
		return
	}
	for _, d := range benchData() {
		if d.name == f[0] {
			timeDecodes(t, spec, f[2], kGzip(d.p, level), d.p, n)
			return
		}
	}
	t.Fatalf("no data %q", f[0])
}

// timeDecodes decodes src n times with dec, checks the output against
// want, and prints the best, 25th percentile and median MB/s.
func timeDecodes(t *testing.T, label, dec string, src, want []byte, n int) {
	dst := make([]byte, len(want))
	var zr *kgzip.Reader
	if dec == "klauspost" {
		zr, _ = kgzip.NewReader(bytes.NewReader(src))
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ts := make([]time.Duration, n)
	for i := range ts {
		c0 := threadCPU()
		if err := countDecode(dec, zr, dst, src); err != nil {
			t.Fatal(err)
		}
		ts[i] = threadCPU() - c0
	}
	if !bytes.Equal(dst, want) {
		t.Fatal("decoded bytes differ")
	}
	slices.Sort(ts)
	mb := func(d time.Duration) float64 { return float64(len(dst)) / 1e6 / d.Seconds() }
	fmt.Printf("time %s: best %.1f p25 %.1f median %.1f MB/s\n", label, mb(ts[0]), mb(ts[n/4]), mb(ts[n/2]))
}
