package inflate

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
	kzlib "github.com/klauspost/compress/zlib"
)

// TestNumcodecs decodes the streams numcodecs wrote (tools/inflate/gen.py),
// with each implementation of the fast loop, and compares with the recorded size and SHA-256 and with klauspost.
func TestNumcodecs(t *testing.T) {
	dir := filepath.Join("testdata", "numcodecs")
	m, err := os.Open(filepath.Join(dir, "MANIFEST"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	count := 0
	sc := bufio.NewScanner(m)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		size, _ := strconv.Atoi(f[1])
		src, err := os.ReadFile(filepath.Join(dir, f[0]))
		if err != nil {
			t.Fatal(err)
		}
		dec, format := Gzip, formats[2]
		if strings.Contains(f[0], ".zlib.") {
			dec, format = Zlib, formats[1]
		}
		eachImpl(t, func(impl string) {
			dst := make([]byte, size)
			n, err := dec(dst, src)
			sum := sha256.Sum256(dst[:n])
			if err != nil || n != size || hex.EncodeToString(sum[:]) != f[2] {
				t.Errorf("%s (%s): n = %d (want %d), err = %v, SHA-256 %x (want %s)", f[0], impl, n, size, err, sum, f[2])
			}
		})
		check(t, format, src)
		count++
	}
	// 4 data sets x 2 codecs x 3 levels: a missing file cannot pass.
	if count != 24 {
		t.Errorf("decoded %d numcodecs streams, want 24", count)
	}
}

// TestRepoFixtures decodes every gzip and zlib stream in the repository's
// testdata and blosc's (chunk files, shard-packed chunks, and zlib
// streams inside blosc frames), with each implementation of the fast
// loop, and compares with klauspost. Streams are found by
// scanning for their headers and kept where klauspost decodes them with a
// valid trailer, so that a header-like byte pair is not counted.
func TestRepoFixtures(t *testing.T) { runImpls(t, testRepoFixtures) }

func testRepoFixtures(t *testing.T) {
	var gz, zl int
	walk := func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if fi, _ := d.Info(); fi.Size() > 4<<20 {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i := 0; i+2 < len(b); i++ {
			switch {
			case b[i] == 0x1f && b[i+1] == 0x8b && b[i+2] == 8:
				want, used, ok := klauspostGzipMember(b[i:])
				if !ok {
					continue
				}
				dst := make([]byte, len(want))
				n, u, err := gzipMember(dst, b[i:])
				if err != nil || n != len(want) || u != used || !bytes.Equal(dst, want) {
					t.Errorf("%s@%d: gzip member: n = %d, used %d, err = %v; klauspost %d bytes, used %d", path, i, n, u, err, len(want), used)
				}
				gz++
			case b[i]&0x0f == 8 && b[i]>>4 <= 7 && (uint(b[i])<<8|uint(b[i+1]))%31 == 0 && b[i+1]&0x20 == 0:
				want, ok := klauspostZlib(b[i:])
				if !ok {
					continue
				}
				dst := make([]byte, len(want))
				n, err := Zlib(dst, b[i:])
				if err != nil || n != len(want) || !bytes.Equal(dst, want) {
					t.Errorf("%s@%d: zlib: n = %d, err = %v; klauspost %d bytes", path, i, n, err, len(want))
				}
				zl++
			}
		}
		return nil
	}
	for _, root := range []string{"../../testdata", "../../blosc/testdata"} {
		if err := filepath.WalkDir(root, walk); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d gzip members, %d zlib streams", gz, zl)
	// The fixtures hold gzip arrays (v3 dt64_ns_be_gzip, sharded td64)
	// and zlib-compressed blosc arrays; finding none means the scan broke.
	if gz == 0 || zl == 0 {
		t.Errorf("found %d gzip and %d zlib streams in testdata, want some of each", gz, zl)
	}
}

func klauspostGzipMember(b []byte) (out []byte, used int, ok bool) {
	r := bytes.NewReader(b)
	z, err := kgzip.NewReader(r)
	if err != nil {
		return nil, 0, false
	}
	z.Multistream(false)
	out, err = io.ReadAll(io.LimitReader(z, 64<<20))
	if err != nil {
		return nil, 0, false
	}
	return out, len(b) - r.Len(), true
}

func klauspostZlib(b []byte) ([]byte, bool) {
	z, err := kzlib.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, false
	}
	out, err := io.ReadAll(io.LimitReader(z, 64<<20))
	return out, err == nil
}
