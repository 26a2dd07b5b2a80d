package blosc

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to Decode: it must return a frame's
// bytes or an error wrapping one of the sentinels, never panic, never write
// past the buffer it was given, and any frame it accepts must re-encode and
// decode to the same bytes. Seeds: every committed
// c-blosc frame, frames from Encode in every mode, and truncations of them.
func FuzzDecode(f *testing.F) {
	names, _ := filepath.Glob("testdata/cblosc/*.blosc")
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) <= 4096 {
			f.Add(b)
		}
	}
	ts := timestamps(300, 4)
	for _, cname := range encodeCompressors {
		for _, sh := range allShuffles {
			b, err := Encode(nil, ts, Options{Compressor: cname, Level: 5, Shuffle: sh, TypeSize: 8, BlockSize: 1024})
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
			f.Add(b[:len(b)/2])
		}
	}
	// Seeds decode to at most 27000 bytes; 64 KiB keeps each run cheap
	// while leaving room for what mutations grow.
	const limit = 1 << 16
	// One buffer per fuzzing process (runs are sequential within it), with
	// a guard region after cap(dst) that detects writes past it.
	buf := make([]byte, limit+64)
	f.Fuzz(func(t *testing.T, frame []byte) {
		for i := limit; i < len(buf); i++ {
			buf[i] = 0xa5
		}
		out, err := Decode(buf[:0:limit], frame)
		for i := limit; i < len(buf); i++ {
			if buf[i] != 0xa5 {
				t.Fatalf("Decode wrote past cap(dst) at %d", i)
			}
		}
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrUnsupported) {
				t.Fatalf("error %v wraps no sentinel", err)
			}
			return
		}
		h, _ := ParseHeader(frame)
		if len(out) != h.NBytes {
			t.Fatalf("decoded %d bytes, header says %d", len(out), h.NBytes)
		}
		again, err := Encode(nil, out, Options{Compressor: "lz4", Level: 1, Shuffle: h.Shuffle(), TypeSize: h.TypeSize})
		if err != nil {
			t.Fatal(err)
		}
		if back2, err := Decode(make([]byte, 0, len(out)), again); err != nil || !bytes.Equal(back2, out) {
			t.Fatalf("re-encoded frame: %v", err)
		}
	})
}
