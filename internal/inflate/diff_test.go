package inflate

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"testing"

	kflate "github.com/klauspost/compress/flate"
	kgzip "github.com/klauspost/compress/gzip"
	kzlib "github.com/klauspost/compress/zlib"
)

// Differential checking against compress/* and klauspost/compress: the
// same bytes come out, or both reject. Where the two references disagree
// with each other, matching either is accepted.

// refLimit bounds what a reference decodes, so that a fuzzed bomb cannot
// exhaust memory; inputs beyond it are not compared.
const refLimit = 4 << 20

type refResult struct {
	out []byte
	err error
	big bool // more than refLimit bytes
}

func readRef(r io.Reader, err error) refResult {
	if err != nil {
		return refResult{err: err}
	}
	out, err := io.ReadAll(io.LimitReader(r, refLimit+1))
	if len(out) > refLimit {
		return refResult{big: true}
	}
	return refResult{out: out, err: err}
}

func refRaw(src []byte, k bool) refResult {
	if k {
		return readRef(kflate.NewReader(bytes.NewReader(src)), nil)
	}
	return readRef(flate.NewReader(bytes.NewReader(src)), nil)
}

func refZlib(src []byte, k bool) refResult {
	if k {
		return readRef(kzlib.NewReader(bytes.NewReader(src)))
	}
	return readRef(zlib.NewReader(bytes.NewReader(src)))
}

// refGzip decodes with Python's gzip semantics (see Gzip) built from Go's
// single-member readers: members one after the other, zero bytes between
// and after them skipped, empty input empty. A bytes.Reader is an
// io.ByteReader, so the readers consume exactly their member.
func refGzip(src []byte, k bool) refResult {
	br := bytes.NewReader(src)
	var out []byte
	for br.Len() > 0 {
		var r io.Reader
		if k {
			z, err := kgzip.NewReader(br)
			if err != nil {
				return refResult{err: err}
			}
			z.Multistream(false)
			r = z
		} else {
			z, err := gzip.NewReader(br)
			if err != nil {
				return refResult{err: err}
			}
			z.Multistream(false)
			r = z
		}
		res := readRef(r, nil)
		if res.err != nil || res.big {
			return res
		}
		out = append(out, res.out...)
		if len(out) > refLimit {
			return refResult{big: true}
		}
		for br.Len() > 0 {
			c, _ := br.ReadByte()
			if c != 0 {
				br.UnreadByte()
				break
			}
		}
	}
	return refResult{out: out}
}

type format struct {
	name string
	dec  func(dst, src []byte) (int, error)
	ref  func(src []byte, k bool) refResult
}

var formats = []format{
	{"raw", Raw, refRaw},
	{"zlib", Zlib, refZlib},
	{"gzip", Gzip, refGzip},
}

// check decodes src with f, with every implementation of the fast loop
// (eachImpl), and with the references, and fails t on any disagreement:
// between an implementation and the references, or between the
// implementations (the same n, the same error, the same bytes). It also
// checks that a destination one byte short fails with ErrTooLarge and
// that errors are *Error values.
func check(t *testing.T, f format, src []byte) {
	t.Helper()
	std, kla := f.ref(src, false), f.ref(src, true)
	if std.big || kla.big {
		return
	}
	if std.err == nil && kla.err == nil && !bytes.Equal(std.out, kla.out) {
		t.Fatalf("%s: the references disagree on the output", f.name)
	}
	var first string
	var firstOut []byte
	var firstErr error
	eachImpl(t, func(name string) {
		out, err := checkImpl(t, f, src, std, kla, name)
		if first == "" {
			first, firstOut, firstErr = name, out, err
			return
		}
		if !bytes.Equal(out, firstOut) || fmt.Sprint(err) != fmt.Sprint(firstErr) {
			t.Fatalf("%s: %s decodes %d bytes (err %v), %s %d bytes (err %v), or different bytes", f.name, name, len(out), err, first, len(firstOut), firstErr)
		}
	})
}

// checkImpl is check's work for one implementation, name (selected):
// it returns the decoded bytes and the error.
func checkImpl(t *testing.T, f format, src []byte, std, kla refResult, name string) ([]byte, error) {
	t.Helper()
	okStd, okKla := std.err == nil, kla.err == nil
	size := 1 << 16
	if okStd {
		size = len(std.out)
	} else if okKla {
		size = len(kla.out)
	}
	dst := make([]byte, size)
	n, err := f.dec(dst, src)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%s (%s): error %v is not an *Error of a sentinel kind", f.name, name, err)
		}
		if e.Offset < 0 || e.Offset > len(src) {
			t.Fatalf("%s (%s): error offset %d outside the %d-byte input", f.name, name, e.Offset, len(src))
		}
	}
	switch {
	case err == nil && !okStd && !okKla:
		t.Fatalf("%s (%s): decoded %d bytes where both references fail (std: %v; klauspost: %v)", f.name, name, n, std.err, kla.err)
	case err != nil && okStd && okKla:
		t.Fatalf("%s (%s): %v, where both references decode %d bytes", f.name, name, err, len(std.out))
	case err != nil:
		// A failed decode may leave any bytes in dst: none are compared.
		return nil, err
	}
	if n > len(dst) {
		t.Fatalf("%s (%s): n = %d beyond the %d-byte destination", f.name, name, n, len(dst))
	}
	if !(okStd && bytes.Equal(dst[:n], std.out)) && !(okKla && bytes.Equal(dst[:n], kla.out)) {
		t.Fatalf("%s (%s): decoded %d bytes that match neither reference (%d / %d bytes)", f.name, name, n, len(std.out), len(kla.out))
	}
	if n > 0 {
		// A fresh buffer: a failed decode may leave any bytes in its
		// destination (the fast loop's word copies overrun a match's
		// end), and dst is compared below.
		if _, err := f.dec(make([]byte, n-1), src); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("%s (%s): destination one byte short: got %v, want ErrTooLarge", f.name, name, err)
		}
	}
	// A larger destination returns the same n.
	big := make([]byte, n+100)
	if m, err := f.dec(big, src); err != nil || m != n || !bytes.Equal(big[:m], dst[:n]) {
		t.Fatalf("%s (%s): with a larger destination: n = %d, err = %v; want %d, nil", f.name, name, m, err, n)
	}
	return dst[:n], nil
}
