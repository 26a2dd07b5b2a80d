package inflate

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"

	kflate "github.com/klauspost/compress/flate"
	kgzip "github.com/klauspost/compress/gzip"
	kzlib "github.com/klauspost/compress/zlib"
)

// Test data shared by the tests, fuzz seeds and benchmarks.

// jitteredNS is n int64 nanosecond timestamps, one a second from 2024 with
// up to ±0.5 s of jitter, little endian: irregular sensor times.
func jitteredNS(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	const base = int64(1704067200) * 1e9
	b := make([]byte, 8*n)
	for i := range n {
		v := base + int64(i)*1e9 + r.Int64N(1e9) - 5e8
		binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
	}
	return b
}

// e2eNS is n big-endian int64 nanosecond timestamps, one a second from
// 2024 with up to ±0.5 ms of jitter and 0.5 % NaT: the data of the
// end-to-end benchmark (cmd/dt64/internal/bench), whose matches need
// distance extra bits where jitteredNS's do not.
func e2eNS(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed+1))
	const base = int64(1704067200) * 1e9
	b := make([]byte, 8*n)
	for i := range n {
		v := base + int64(i)*1e9 + r.Int64N(1e6+1) - 5e5
		if r.IntN(200) == 0 {
			v = -1 << 63 // NaT
		}
		binary.BigEndian.PutUint64(b[8*i:], uint64(v))
	}
	return b
}

// hourlyUS is n regular hourly int64 microsecond timestamps.
func hourlyUS(n int) []byte {
	const base = int64(1704067200) * 1e6
	b := make([]byte, 8*n)
	for i := range n {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(base+int64(i)*3600e6))
	}
	return b
}

// textLike is n bytes of word salad with numbers: a CSV/log-like mix.
func textLike(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 2))
	words := []string{"time", "station", "temperature", "the", "of", "and", "NaN", "units", "since", "1970-01-01", "seconds", "calendar", "gregorian", "air", "pressure", "quality", "flag", "value", "\n", ", "}
	var b bytes.Buffer
	for b.Len() < n {
		if r.IntN(4) == 0 {
			fmt.Fprintf(&b, "%d.%02d ", r.IntN(5000), r.IntN(100))
		} else {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteByte(' ')
		}
	}
	return b.Bytes()[:n]
}

// randomBytes does not compress: stored blocks.
func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 3))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// runs has long runs and short periods: distance 1 to 7 copies.
func runs(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 4))
	b := make([]byte, 0, n)
	for len(b) < n {
		period := 1 + r.IntN(9)
		pat := make([]byte, period)
		for i := range pat {
			pat[i] = byte(r.IntN(4))
		}
		for k := r.IntN(600); k > 0 && len(b) < n; k-- {
			b = append(b, pat[k%period])
		}
	}
	return b
}

func sampleInputs() map[string][]byte {
	return map[string][]byte{
		"empty":   nil,
		"one":     {42},
		"jitter":  jitteredNS(4096, 1),
		"hourly":  hourlyUS(4096),
		"text":    textLike(50000, 1),
		"random":  randomBytes(70000, 1),
		"runs":    runs(100000, 1),
		"zeros":   make([]byte, 200000),
		"small":   []byte("hello, hello, hello world"),
		"bigtext": textLike(300000, 2),
	}
}

// Levels: -2 is HuffmanOnly, 0 stored.
var stdLevels = []int{-2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}

func stdDeflate(p []byte, level int) []byte {
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, level)
	if err != nil {
		panic(err)
	}
	w.Write(p)
	w.Close()
	return b.Bytes()
}

func kDeflate(p []byte, level int) []byte {
	var b bytes.Buffer
	w, err := kflate.NewWriter(&b, level)
	if err != nil {
		panic(err)
	}
	w.Write(p)
	w.Close()
	return b.Bytes()
}

func kGzip(p []byte, level int) []byte {
	var b bytes.Buffer
	w, err := kgzip.NewWriterLevel(&b, level)
	if err != nil {
		panic(err)
	}
	w.Write(p)
	w.Close()
	return b.Bytes()
}

func kZlib(p []byte, level int) []byte {
	var b bytes.Buffer
	w, err := kzlib.NewWriterLevel(&b, level)
	if err != nil {
		panic(err)
	}
	w.Write(p)
	w.Close()
	return b.Bytes()
}

// gzipWithHeader writes a gzip member by hand with every optional header
// field (FEXTRA, FNAME, FCOMMENT, FHCRC), which Go's writers cannot all
// produce.
func gzipWithHeader(p []byte, level int) []byte {
	h := []byte{0x1f, 0x8b, 8, gzFEXTRA | gzFNAME | gzFCOMMENT | gzFHCRC | gzFTEXT, 1, 2, 3, 4, 0, 3}
	h = append(h, 6, 0, 'A', 'B', 2, 0, 9, 9)
	h = append(h, "chunk.0.0\x00"...)
	h = append(h, "written by hand\x00"...)
	h = binary.LittleEndian.AppendUint16(h, uint16(crc32.ChecksumIEEE(h)))
	h = append(h, stdDeflate(p, level)...)
	h = binary.LittleEndian.AppendUint32(h, crc32.ChecksumIEEE(p))
	return binary.LittleEndian.AppendUint32(h, uint32(len(p)))
}

// fixedBlocks is a stream of hand-made blocks: an empty fixed block, a
// fixed block of literals "ab" and a match (length 3, distance 2), an
// empty stored block and a final empty fixed block. It exercises block
// sequencing that encoders rarely emit.
func fixedBlocks() []byte {
	var w bitWriter
	// Codes for fixed literals 0-143: 8 bits, 0x30+lit; EOB: 7 bits 0.
	fixedLitCode := func(lit int) { w.code(uint32(0x30+lit), 8) }
	w.bits(0, 1) // not final
	w.bits(1, 2) // fixed
	w.code(0, 7) // EOB
	w.bits(0, 1)
	w.bits(1, 2)
	fixedLitCode('a')
	fixedLitCode('b')
	w.code(1, 7) // length symbol 257: length 3
	w.code(1, 5) // distance symbol 1: distance 2
	w.code(0, 7)
	w.bits(0, 1)
	w.bits(0, 2) // stored
	w.align()
	w.raw(0, 0, 0xff, 0xff)
	w.bits(1, 1)
	w.bits(1, 2)
	w.code(0, 7)
	w.align()
	return w.b
}

// bitWriter writes DEFLATE bit fields, LSB first; Huffman codes go MSB
// first (code).
type bitWriter struct {
	b  []byte
	bb uint64
	nb uint
}

func (w *bitWriter) bits(v uint32, n uint) {
	w.bb |= uint64(v) << w.nb
	w.nb += n
	for w.nb >= 8 {
		w.b = append(w.b, byte(w.bb))
		w.bb >>= 8
		w.nb -= 8
	}
}

func (w *bitWriter) code(c uint32, n uint) {
	var r uint32
	for i := uint(0); i < n; i++ {
		r |= (c >> i & 1) << (n - 1 - i)
	}
	w.bits(r, n)
}

func (w *bitWriter) align() {
	if w.nb > 0 {
		w.bits(0, 8-w.nb)
	}
}

func (w *bitWriter) raw(p ...byte) { w.b = append(w.b, p...) }
