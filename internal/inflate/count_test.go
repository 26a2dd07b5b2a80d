package inflate

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

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
