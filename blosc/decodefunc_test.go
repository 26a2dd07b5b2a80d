package blosc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// pieceRecorder is a DecodeFunc sink that checks the pieces are
// consecutive slices of the output and remembers what they held.
type pieceRecorder struct {
	t      *testing.T
	name   string
	next   int
	seen   []byte
	pieces int
}

func (r *pieceRecorder) sink(off int, piece []byte) error {
	if off != r.next {
		r.t.Errorf("%s: piece %d at offset %d, want %d", r.name, r.pieces, off, r.next)
	}
	if len(piece) == 0 {
		r.t.Errorf("%s: empty piece at %d", r.name, off)
	}
	r.next = off + len(piece)
	r.pieces++
	r.seen = append(r.seen, piece...)
	return nil
}

// checkDecodeFunc decodes frame with and without a sink and checks that
// the results agree, that the pieces cover the output exactly, in order,
// and that each piece was already final when the sink saw it.
func checkDecodeFunc(t *testing.T, name string, frame []byte) {
	t.Helper()
	h, err := ParseHeader(frame)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	want, err := Decode(make([]byte, 0, h.NBytes), frame)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	r := &pieceRecorder{t: t, name: name}
	got, err := DecodeFunc(make([]byte, 0, h.NBytes), frame, r.sink)
	if err != nil {
		t.Fatalf("%s: DecodeFunc: %v", name, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: DecodeFunc result differs from Decode", name)
	}
	if r.next != len(want) {
		t.Errorf("%s: pieces cover %d bytes, want %d", name, r.next, len(want))
	}
	if !bytes.Equal(r.seen, want) {
		t.Errorf("%s: a piece changed after the sink saw it", name)
	}
	nb := h.numBlocks()
	if h.Memcpyed() {
		nb = (h.NBytes + memcpyPiece - 1) / memcpyPiece
	}
	if r.pieces != nb {
		t.Errorf("%s: %d pieces, want %d", name, r.pieces, nb)
	}
}

func TestDecodeFuncPieces(t *testing.T) {
	big := timestamps(100000, 4) // 800 kB: several memcpyed pieces
	for _, in := range append(encodeInputs(), encodeInput{"big", big, 8, 0}) {
		for _, cname := range encodeCompressors {
			for _, sh := range allShuffles {
				for _, level := range []int{0, 1, 5, 9} {
					o := Options{Compressor: cname, Level: level, Shuffle: sh, TypeSize: in.typesize, BlockSize: in.blocksize}
					frame, err := Encode(nil, in.data, o)
					if err != nil {
						t.Fatal(err)
					}
					checkDecodeFunc(t, fmt.Sprintf("%s/%s/%v/%d", in.name, cname, sh, level), frame)
				}
			}
		}
	}
	// c-blosc's own frames: blosclz, split and unsplit blocks.
	for _, c := range readManifest(t, "testdata/cblosc") {
		frame, err := os.ReadFile(filepath.Join("testdata/cblosc", c.Name+".blosc"))
		if err != nil {
			t.Fatal(err)
		}
		checkDecodeFunc(t, c.Name, frame)
	}
}

// The sink may convert each piece in place: the result is what it wrote.
func TestDecodeFuncInPlace(t *testing.T) {
	ts := timestamps(50000, 6)
	frame, err := Encode(nil, ts, Options{Compressor: "lz4", Level: 5, Shuffle: ByteShuffle, TypeSize: 8, BlockSize: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeFunc(make([]byte, 0, len(ts)), frame, func(off int, piece []byte) error {
		for i := range piece {
			piece[i] ^= 0x5a
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ts {
		if got[i] != ts[i]^0x5a {
			t.Fatalf("byte %d: %#x, want %#x", i, got[i], ts[i]^0x5a)
		}
	}
}

func TestDecodeFuncSinkError(t *testing.T) {
	ts := timestamps(4096, 9)
	frame, err := Encode(nil, ts, Options{Compressor: "lz4", Level: 5, Shuffle: ByteShuffle, TypeSize: 8, BlockSize: 8192})
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop here")
	calls := 0
	sink := func(off int, piece []byte) error {
		calls++
		if off == 8192 {
			return stop
		}
		return nil
	}
	if _, err := DecodeFunc(make([]byte, 0, len(ts)), frame, sink); err != stop {
		t.Fatalf("error %v, want the sink's own", err)
	}
	if calls != 2 {
		t.Errorf("sink called %d times, want 2 (never after its error)", calls)
	}

	// Damage in a later block wins over the sink's error, as it would
	// without a sink: corrupt the last block's first stream size.
	h, _ := ParseHeader(frame)
	bad := bytes.Clone(frame)
	last := int(le32(bad[HeaderSize+4*(h.numBlocks()-1):]))
	bad[last], bad[last+1], bad[last+2], bad[last+3] = 0xff, 0xff, 0xff, 0x7f
	_, want := Decode(make([]byte, 0, len(ts)), bad)
	if !errors.Is(want, ErrCorrupt) {
		t.Fatalf("Decode of the damaged frame: %v, want ErrCorrupt", want)
	}
	calls = 0
	_, err = DecodeFunc(make([]byte, 0, len(ts)), bad, sink)
	if err == nil || err.Error() != want.Error() {
		t.Fatalf("DecodeFunc: %v, want %v", err, want)
	}
	// A sink that never fails sees no piece of a frame that fails before.
	calls = 0
	if _, err := DecodeFunc(make([]byte, 0, len(ts)-8), frame, sink); !errors.Is(err, ErrTooLarge) || calls != 0 {
		t.Fatalf("short buffer: %v after %d calls, want ErrTooLarge before any", err, calls)
	}
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
