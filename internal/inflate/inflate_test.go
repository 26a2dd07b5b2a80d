package inflate

import (
	"bytes"
	"encoding/binary"
	"errors"
	stdadler "hash/adler32"
	"math/rand/v2"
	"sort"
	"testing"
)

// streams returns named encoded streams per format: every sample input at
// every level of both encoders, plus hand-made and framing cases.
func streams(short bool) map[string]map[string][]byte {
	out := map[string]map[string][]byte{"raw": {}, "zlib": {}, "gzip": {}}
	in := sampleInputs()
	names := make([]string, 0, len(in))
	for k := range in {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		p := in[name]
		if short && len(p) > 100000 {
			continue
		}
		for _, l := range stdLevels {
			out["raw"][name+"/std"+itoa(l)] = stdDeflate(p, l)
			out["raw"][name+"/k"+itoa(l)] = kDeflate(p, l)
			out["zlib"][name+"/k"+itoa(l)] = kZlib(p, l)
			out["gzip"][name+"/k"+itoa(l)] = kGzip(p, l)
		}
		out["gzip"][name+"/header"] = gzipWithHeader(p, 6)
	}
	out["raw"]["handmade"] = fixedBlocks()
	a, b := kGzip([]byte("first member "), 9), kGzip(textLike(3000, 9), 1)
	out["gzip"]["multi"] = cat(a, b, a)
	out["gzip"]["zero-padding"] = cat(a, make([]byte, 7), b, make([]byte, 1))
	out["gzip"]["garbage"] = cat(a, []byte("trailing"))
	out["gzip"]["half-magic"] = cat(a, []byte{0x1f})
	out["gzip"]["empty"] = nil
	out["gzip"]["only-zeros"] = make([]byte, 4)
	out["zlib"]["garbage"] = cat(kZlib([]byte("abc"), 5), []byte("trailing"))
	out["raw"]["garbage"] = cat(stdDeflate([]byte("abc"), 5), []byte("trailing"))
	out["zlib"]["fdict"] = []byte{0x78, 0xbb, 0, 0, 0, 1, 3, 0}
	return out
}

func itoa(l int) string {
	if l < 0 {
		return "-" + string(rune('0'-l))
	}
	return string(rune('0' + l))
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func formatByName(name string) format {
	for _, f := range formats {
		if f.name == name {
			return f
		}
	}
	panic(name)
}

// TestStreams decodes every stream whole, truncated at a few points, and
// with random bit flips, against the references.
func TestStreams(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for fname, m := range streams(testing.Short()) {
		f := formatByName(fname)
		for name, s := range m {
			t.Run(fname+"/"+name, func(t *testing.T) {
				check(t, f, s)
				for _, cut := range []int{0, 1, 2, len(s) / 2, len(s) - 9, len(s) - 5, len(s) - 4, len(s) - 1} {
					if cut >= 0 && cut < len(s) {
						check(t, f, s[:cut])
					}
				}
				for range 20 {
					if len(s) == 0 {
						break
					}
					c := bytes.Clone(s)
					c[r.IntN(len(c))] ^= 1 << r.IntN(8)
					check(t, f, c)
				}
			})
		}
	}
}

// TestCompressed checks that the decoded bytes are the original ones,
// not just the references' (which TestStreams covers).
func TestCompressed(t *testing.T) {
	for name, p := range sampleInputs() {
		for _, l := range []int{-2, 0, 1, 6, 9} {
			s := kGzip(p, l)
			eachImpl(t, func(impl string) {
				dst := make([]byte, len(p))
				n, err := Gzip(dst, s)
				if err != nil || n != len(p) || !bytes.Equal(dst, p) {
					t.Fatalf("%s level %d (%s): n = %d, err = %v, equal %v", name, l, impl, n, err, bytes.Equal(dst[:n], p))
				}
			})
		}
	}
}

func TestErrors(t *testing.T) { runImpls(t, testErrors) }

func testErrors(t *testing.T) {
	p := textLike(10000, 3)
	s := kZlib(p, 6)
	dst := make([]byte, len(p))

	bad := bytes.Clone(s)
	bad[len(bad)-1] ^= 1
	_, err := Zlib(dst, bad)
	var e *Error
	if !errors.Is(err, ErrChecksum) || !errors.Is(err, ErrCorrupt) || !errors.As(err, &e) || e.Offset != len(s)-4 {
		t.Errorf("bad Adler-32: %v, want ErrChecksum at byte %d", err, len(s)-4)
	}
	_, err = Zlib(dst, s[:len(s)-20])
	if !errors.Is(err, ErrTruncated) || !errors.Is(err, ErrCorrupt) {
		t.Errorf("truncated: %v, want ErrTruncated", err)
	}
	_, err = Zlib(dst[:len(p)-1], s)
	if !errors.Is(err, ErrTooLarge) || errors.Is(err, ErrCorrupt) {
		t.Errorf("short destination: %v, want ErrTooLarge only", err)
	}
	// Block type 3 in the first byte of a raw stream.
	_, err = Raw(dst, []byte{0x07, 0, 0})
	if !errors.Is(err, ErrCorrupt) || !errors.As(err, &e) || e.Offset != 0 {
		t.Errorf("block type 3: %v, want ErrCorrupt at byte 0", err)
	}
	// Distance beyond the output start: fixed block, literal 'a', then
	// length 3 at distance 2.
	var w bitWriter
	w.bits(1, 1)
	w.bits(1, 2)
	w.code(0x30+'a', 8)
	w.code(1, 7)
	w.code(1, 5)
	w.code(0, 7)
	w.align()
	_, err = Raw(dst, w.b)
	if !errors.Is(err, ErrCorrupt) || errors.Is(err, ErrTruncated) {
		t.Errorf("distance too far: %v, want ErrCorrupt", err)
	}
	// Gzip ISIZE mismatch, with a good CRC.
	g := kGzip(p, 1)
	binary.LittleEndian.PutUint32(g[len(g)-4:], uint32(len(p)+1))
	if _, err = Gzip(dst, g); !errors.Is(err, ErrChecksum) {
		t.Errorf("ISIZE: %v, want ErrChecksum", err)
	}
}

func TestAdler32(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{0, 1, 15, 16, 17, 31, 5551, 5552, 5553, 5536, 65536, 100003} {
		p := make([]byte, n)
		for _, fill := range []func(i int) byte{
			func(int) byte { return 0xff }, // worst case for overflow
			func(int) byte { return byte(r.Uint32()) },
			func(i int) byte { return byte(i) },
		} {
			for i := range p {
				p[i] = fill(i)
			}
			if got, want := adler32(p), stdadler.Checksum(p); got != want {
				t.Fatalf("len %d: adler32 %08x, hash/adler32 %08x", n, got, want)
			}
		}
	}
}
