package blosc

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const python = "/usr/bin/python3"

type manifestCase struct {
	Name      string `json:"name"`
	CName     string `json:"cname"`
	CLevel    int    `json:"clevel"`
	Shuffle   string `json:"shuffle"`
	TypeSize  int    `json:"typesize"`
	BlockSize int    `json:"blocksize"`
	NBytes    int    `json:"nbytes"`
	SHA256    string `json:"sha256"`
}

func readManifest(t *testing.T, dir string) []manifestCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m []manifestCase
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// timestamps are like `dt64 demo`'s: nanoseconds at a 1 s cadence with up to
// ±5 ms of jitter, 0.5% NaT, little-endian.
func timestamps(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	start := int64(1704067200) * 1e9
	b := make([]byte, 8*n)
	for i := range n {
		v := start + int64(i)*1e9 + r.Int64N(10_000_001) - 5_000_000
		if r.IntN(200) == 0 {
			v = math.MinInt64
		}
		binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
	}
	return b
}

// checkManifestFrames decodes every frame listed in dir's manifest and
// compares it with the input's hash (and bytes, when NAME.raw exists).
func checkManifestFrames(t *testing.T, dir string, minCases int) {
	m := readManifest(t, dir)
	if len(m) < minCases {
		t.Fatalf("%s lists %d frames, want at least %d", dir, len(m), minCases)
	}
	for _, c := range m {
		frame, err := os.ReadFile(filepath.Join(dir, c.Name+".blosc"))
		if err != nil {
			t.Fatal(err)
		}
		h, err := ParseHeader(frame)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		if h.TypeSize != c.TypeSize || h.NBytes != c.NBytes {
			t.Errorf("%s: header typesize %d nbytes %d, want %d %d", c.Name, h.TypeSize, h.NBytes, c.TypeSize, c.NBytes)
		}
		if c.CLevel > 0 && c.NBytes >= minBufferSize && !h.Memcpyed() {
			wantComp := strings.TrimSuffix(c.CName, "hc")
			if h.Compressor().String() != wantComp {
				t.Errorf("%s: compressor %v, want %s", c.Name, h.Compressor(), wantComp)
			}
			if h.Shuffle().String() != c.Shuffle {
				t.Errorf("%s: shuffle %v, want %s", c.Name, h.Shuffle(), c.Shuffle)
			}
		}
		// Exactly the declared size must be enough.
		got, err := Decode(make([]byte, 0, c.NBytes), frame)
		if err != nil {
			t.Errorf("%s: %v", c.Name, err)
			continue
		}
		sum := sha256.Sum256(got)
		if hex.EncodeToString(sum[:]) != c.SHA256 {
			t.Errorf("%s: decoded %d bytes differ from c-blosc's input", c.Name, len(got))
		}
		if raw, err := os.ReadFile(filepath.Join(dir, c.Name+".raw")); err == nil && !bytes.Equal(raw, got) {
			t.Errorf("%s: decoded bytes differ from the input", c.Name)
		}
	}
}

// TestDecodeGolden decodes frames c-blosc 1.21.3 wrote (numcodecs 0.11,
// committed in testdata/cblosc by tools/zarrpy/blosc_frames.py --small).
func TestDecodeGolden(t *testing.T) {
	checkManifestFrames(t, "testdata/cblosc", 100)
}

func requirePythonBlosc(t *testing.T) {
	t.Helper()
	out, err := exec.Command(python, "-c", "import numcodecs.blosc, numpy").CombinedOutput()
	if err == nil {
		return
	}
	msg := "blosc interop test needs " + python + " with numcodecs (apt-get install python3-numcodecs): " + err.Error() + ": " + string(out)
	if testing.Short() {
		t.Skip(msg)
	}
	t.Fatal(msg)
}

// TestDecodeCBlosc decodes larger frames written now by the installed
// c-blosc (multiple blocks, every compressor and filter).
func TestDecodeCBlosc(t *testing.T) {
	requirePythonBlosc(t)
	dir := t.TempDir()
	if out, err := exec.Command(python, "../tools/zarrpy/blosc_frames.py", dir).CombinedOutput(); err != nil {
		t.Fatalf("blosc_frames.py: %v\n%s", err, out)
	}
	checkManifestFrames(t, dir, 100)
}

var encodeCompressors = []string{"lz4", "lz4hc", "zstd", "zlib", "snappy"}
var allShuffles = []Shuffle{NoShuffle, ByteShuffle, BitShuffle}

type encodeInput struct {
	name      string
	data      []byte
	typesize  int
	blocksize int
}

func encodeInputs() []encodeInput {
	ts := timestamps(40000, 1)
	runs := append(bytes.Repeat([]byte{0}, 5000), bytes.Repeat([]byte{1, 2, 3}, 3000)...)
	return []encodeInput{
		{"ts", ts, 8, 0},
		{"ts_bs4096", ts[:8*1000+8*13], 8, 4096}, // leftover block of 13 elements
		{"ts_bs1000", ts[:8*777], 8, 1000},       // blocksize rounded to 1000
		{"ts_small", ts[:120], 8, 0},             // stored raw
		{"ts_empty", nil, 8, 0},
		{"ts3", ts[:3*700+2], 3, 0},            // bytes past the last element
		{"ts17", ts[:17*300], 17, 0},           // never split
		{"ts1", ts[:5000], 1, 0},               // shuffle is the identity
		{"runs", runs, 8, 0},                   // compresses a lot
		{"noise", randomBytes(20000, 5), 8, 0}, // stored raw, whole or per stream
	}
}

func TestRoundTrip(t *testing.T) {
	for _, in := range encodeInputs() {
		for _, cname := range encodeCompressors {
			for _, sh := range allShuffles {
				for _, level := range []int{0, 1, 5, 9} {
					o := Options{Compressor: cname, Level: level, Shuffle: sh, TypeSize: in.typesize, BlockSize: in.blocksize}
					name := fmt.Sprintf("%s/%s/%v/%d", in.name, cname, sh, level)
					frame, err := Encode(nil, in.data, o)
					if err != nil {
						t.Fatalf("%s: encode: %v", name, err)
					}
					if len(frame) > MaxEncodedLen(len(in.data)) {
						t.Fatalf("%s: frame of %d bytes exceeds MaxEncodedLen %d", name, len(frame), MaxEncodedLen(len(in.data)))
					}
					h, err := ParseHeader(frame)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if h.Version != 2 || h.TypeSize != in.typesize || h.NBytes != len(in.data) {
						t.Fatalf("%s: header %+v", name, h)
					}
					got, err := Decode(make([]byte, 0, len(in.data)), frame)
					if err != nil {
						t.Fatalf("%s: decode: %v", name, err)
					}
					if !bytes.Equal(got, in.data) {
						t.Fatalf("%s: round trip differs", name)
					}
				}
			}
		}
	}
}

func TestEncodeCompresses(t *testing.T) {
	ts := timestamps(1<<17, 3) // 1 MiB
	for _, cname := range encodeCompressors {
		frame, err := Encode(nil, ts, Options{Compressor: cname, Level: 5, Shuffle: ByteShuffle, TypeSize: 8})
		if err != nil {
			t.Fatal(err)
		}
		h, _ := ParseHeader(frame)
		if h.Memcpyed() || len(frame) > len(ts)*6/10 {
			t.Errorf("%s: shuffled timestamps compress to %d of %d bytes (memcpyed %v)", cname, len(frame), len(ts), h.Memcpyed())
		}
	}
}

func TestEncodeOptionsRejected(t *testing.T) {
	bad := []Options{
		{Compressor: "blosclz", Level: 5, TypeSize: 8},
		{Compressor: "lzma", Level: 5, TypeSize: 8},
		{Compressor: "lz4", Level: 10, TypeSize: 8},
		{Compressor: "lz4", Level: -1, TypeSize: 8},
		{Compressor: "lz4", Level: 5, TypeSize: 0},
		{Compressor: "lz4", Level: 5, TypeSize: 256},
		{Compressor: "lz4", Level: 5, TypeSize: 8, Shuffle: 3},
		{Compressor: "lz4", Level: 5, TypeSize: 8, BlockSize: -1},
	}
	for _, o := range bad {
		if _, err := Encode(nil, make([]byte, 1000), o); err == nil {
			t.Errorf("%+v: accepted", o)
		}
	}
	if _, err := Encode(nil, nil, Options{Compressor: "blosclz", Level: 5, TypeSize: 8}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("blosclz encode: %v, want ErrUnsupported", err)
	}
}

// TestEncodeReadByCBlosc has c-blosc (numcodecs) decode dt64's frames.
func TestEncodeReadByCBlosc(t *testing.T) {
	requirePythonBlosc(t)
	dir := t.TempDir()
	var manifest []manifestCase
	for _, in := range encodeInputs() {
		if len(in.data) == 0 {
			// numcodecs refuses every empty frame, its own included
			// (TestEncodeEmptyLikeCBlosc compares the bytes instead).
			continue
		}
		for _, cname := range encodeCompressors {
			for _, sh := range allShuffles {
				for _, level := range []int{0, 5, 9} {
					name := fmt.Sprintf("%s_%s_%v_c%d", in.name, cname, sh, level)
					frame, err := Encode(nil, in.data, Options{Compressor: cname, Level: level, Shuffle: sh, TypeSize: in.typesize, BlockSize: in.blocksize})
					if err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, name+".blosc"), frame, 0o644); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, name+".raw"), in.data, 0o644); err != nil {
						t.Fatal(err)
					}
					manifest = append(manifest, manifestCase{Name: name})
				}
			}
		}
	}
	mb, _ := json.Marshal(manifest)
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), mb, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(python, "../tools/zarrpy/blosc_check.py", dir).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("blosc_check.py: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var res map[string]string
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("blosc_check.py output: %v\n%.500s", err, out)
	}
	if len(res) != len(manifest) {
		t.Fatalf("c-blosc checked %d frames, want %d", len(res), len(manifest))
	}
	for name, r := range res {
		if r != "ok" {
			t.Errorf("%s: c-blosc: %s", name, r)
		}
	}
}

// ---- corrupt frames ----

func header(version, versionlz, flags, typesize byte, nbytes, blocksize, cbytes uint32) []byte {
	h := []byte{version, versionlz, flags, typesize}
	h = binary.LittleEndian.AppendUint32(h, nbytes)
	h = binary.LittleEndian.AppendUint32(h, blocksize)
	return binary.LittleEndian.AppendUint32(h, cbytes)
}

func setCBytes(f []byte) []byte {
	binary.LittleEndian.PutUint32(f[12:], uint32(len(f)))
	return f
}

// compressedStream returns the offset of the first stream of block 0 that is
// compressed (not stored raw), and its index.
func compressedStream(t *testing.T, frame []byte) (int, int) {
	h, err := ParseHeader(frame)
	if err != nil {
		t.Fatal(err)
	}
	ns := h.splits(h.BlockSize, false)
	pos := int(binary.LittleEndian.Uint32(frame[16:]))
	for s := range ns {
		csize := int(binary.LittleEndian.Uint32(frame[pos:]))
		if csize != h.BlockSize/ns {
			return pos, s
		}
		pos += 4 + csize
	}
	t.Fatal("no compressed stream in block 0")
	return 0, 0
}

func TestDecodeCorrupt(t *testing.T) {
	ts := timestamps(4096, 9)
	good, err := Encode(nil, ts, Options{Compressor: "lz4", Level: 5, Shuffle: ByteShuffle, TypeSize: 8, BlockSize: 8192})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(make([]byte, 0, len(ts)), good); err != nil {
		t.Fatal(err)
	}
	// Bytes after the frame are not its own: ignored, as c-blosc (and so
	// numcodecs) ignores them; a frame cut short is corrupt (below).
	for _, extra := range [][]byte{{0}, make([]byte, 64), bytes.Repeat([]byte{0xff}, 9)} {
		got, err := Decode(make([]byte, 0, len(ts)), append(bytes.Clone(good), extra...))
		if err != nil || !bytes.Equal(got, ts) {
			t.Errorf("a frame with %d trailing bytes: %v", len(extra), err)
		}
	}
	nb := len(ts) / 8192
	mod := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	zstdGood, _ := Encode(nil, ts, Options{Compressor: "zstd", Level: 5, Shuffle: ByteShuffle, TypeSize: 8, BlockSize: 8192})
	// A one-block blosclz frame (noshuffle, unsplit) whose stream
	// decodes to 200 bytes instead of 256.
	lzShort := header(2, 1, flagDontSplit, 8, 256, 256, 0)
	lzShort = binary.LittleEndian.AppendUint32(lzShort, 20)
	lzShort = binary.LittleEndian.AppendUint32(lzShort, 5)
	lzShort = append(lzShort, 0, 'x', 7<<5, 200-10, 0)
	lzShort = setCBytes(lzShort)

	cases := []struct {
		name  string
		frame []byte
		cap   int
		want  error
		msg   string
	}{
		{"empty", nil, 100, ErrCorrupt, "shorter than the 16-byte header"},
		{"short header", good[:15], 100, ErrCorrupt, "shorter than the 16-byte header"},
		{"version 0", mod(func(b []byte) []byte { b[0] = 0; return b }), len(ts), ErrCorrupt, "version 0"},
		{"blosc2 version", mod(func(b []byte) []byte { b[0] = 3; return b }), len(ts), ErrUnsupported, "Blosc2"},
		{"both shuffles", mod(func(b []byte) []byte { b[2] |= flagBitShuffle; return b }), len(ts), ErrUnsupported, "extended-header"},
		{"reserved flag", mod(func(b []byte) []byte { b[2] |= flagReserved; return b }), len(ts), ErrUnsupported, "reserved"},
		{"compressor 5", mod(func(b []byte) []byte { b[2] = b[2]&0x1f | 5<<5; return b }), len(ts), ErrUnsupported, "compressor code 5"},
		{"typesize 0", mod(func(b []byte) []byte { b[3] = 0; return b }), len(ts), ErrCorrupt, "typesize 0"},
		{"cbytes too big", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[12:], uint32(len(b)+1)); return b }), len(ts), ErrCorrupt, "header says the frame is"},
		{"truncated", good[:len(good)-1], len(ts), ErrCorrupt, "header says the frame is"},
		{"sizes over int32", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[4:], 1<<31); return b }), len(ts), ErrCorrupt, "exceed 2^31-1"},
		{"nbytes over cap", good, len(ts) - 1, ErrTooLarge, "frame declares"},
		{"huge nbytes", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[4:], 1<<31-1); return b }), len(ts), ErrCorrupt, "cannot fit"},
		{"huge nbytes and blocksize", mod(func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[4:], 1<<31-1)
			binary.LittleEndian.PutUint32(b[8:], 1<<31-1)
			return b
		}), len(ts), ErrTooLarge, "frame declares 2147483647"},
		{"blocksize 0", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], 0); return b }), len(ts), ErrCorrupt, "blocksize 0"},
		{"blocksize over nbytes", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], uint32(len(ts)+8)); return b }), len(ts), ErrCorrupt, "blocksize"},
		{"too many blocks", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], 8); return b }), len(ts), ErrCorrupt, "cannot fit"},
		{"offset into header", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[16:], 3); return b }), len(ts), ErrCorrupt, "block 0 of"},
		{"offset past end", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[16+4*(nb-1):], uint32(len(b))); return b }), len(ts), ErrCorrupt, fmt.Sprintf("block %d of", nb-1)},
		{"stream size negative", mod(func(b []byte) []byte {
			off := binary.LittleEndian.Uint32(b[16:])
			binary.LittleEndian.PutUint32(b[off:], 0xffffffff)
			return b
		}), len(ts), ErrCorrupt, "block 0 stream 0: -1 compressed bytes"},
		{"stream size zero", mod(func(b []byte) []byte {
			off := binary.LittleEndian.Uint32(b[16:])
			binary.LittleEndian.PutUint32(b[off:], 0)
			return b
		}), len(ts), ErrCorrupt, "block 0 stream 0: 0 compressed bytes"},
		{"stream past end", mod(func(b []byte) []byte {
			off := binary.LittleEndian.Uint32(b[16+4*(nb-1):])
			binary.LittleEndian.PutUint32(b[off:], uint32(len(b)))
			return b
		}), len(ts), ErrCorrupt, "compressed bytes at offset"},
		{"lz4 stream damaged", mod(func(b []byte) []byte {
			off, s := compressedStream(t, b)
			for i := off + 4; i < off+14; i++ {
				b[i] = 0xff
			}
			_ = s
			return b
		}), len(ts), ErrCorrupt, "(lz4,"},
		{"zstd stream damaged", func() []byte {
			b := bytes.Clone(zstdGood)
			off, _ := compressedStream(t, b)
			b[off+4+4] ^= 0xff // the frame header descriptor, after the magic
			return b
		}(), len(ts), ErrCorrupt, "(zstd,"},
		{"blosclz decodes short", lzShort, 256, ErrCorrupt, "decodes to 200 bytes, block is 256"},
		{"memcpyed size mismatch", setCBytes(append(header(2, 1, flagMemcpyed, 8, 100, 100, 0), make([]byte, 99)...)), 100, ErrCorrupt, "holds 99 data bytes"},
		{"empty frame with data", setCBytes(append(header(2, 1, 0, 8, 0, 0, 0), 1, 2, 3, 4)), 0, ErrCorrupt, "empty frame"},
		{"split remainder", setCBytes(append(binary.LittleEndian.AppendUint32(header(2, 1, 0, 3, 3*128+1, 3*128+1, 0), 20), make([]byte, 8)...)), 3*128 + 1, ErrCorrupt, "cannot split"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := Decode(make([]byte, 0, c.cap), c.frame)
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v (%d bytes), want %v", err, len(out), c.want)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not mention %q", err, c.msg)
			}
		})
	}
}

// A decoder that allocates in proportion to a header's claims would fail
// this: the frame claims 2 GiB, the buffer holds 100 bytes.
func TestDecodeDoesNotAllocateForClaims(t *testing.T) {
	frame := header(2, 1, 0, 8, 1<<31-1, 1<<31-1, 0)
	frame = setCBytes(append(frame, make([]byte, 64)...))
	dst := make([]byte, 0, 100)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		if _, err := Decode(dst, frame); !errors.Is(err, ErrTooLarge) {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
		t.Errorf("refusing a frame 10 times allocated %d bytes", n)
	}
}

// TestEncodeEmptyLikeCBlosc compares an empty input's frame with the one
// c-blosc 1.21.3 writes (numcodecs Blosc lz4, clevel 5, shuffle, typesize 8).
func TestEncodeEmptyLikeCBlosc(t *testing.T) {
	f, err := Encode(nil, nil, Options{Compressor: "lz4", Level: 5, Shuffle: ByteShuffle, TypeSize: 8})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := hex.EncodeToString(f), "02013308000000000100000010000000"; got != want {
		t.Errorf("empty frame %s, c-blosc writes %s", got, want)
	}
}

func TestDecodeEmpty(t *testing.T) {
	for _, cname := range encodeCompressors {
		f, err := Encode(nil, nil, Options{Compressor: cname, Level: 5, Shuffle: ByteShuffle, TypeSize: 8})
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(nil, f)
		if err != nil || len(got) != 0 {
			t.Fatalf("%s: %v, %d bytes", cname, err, len(got))
		}
	}
}
