package blosc

import (
	"bytes"
	"errors"
	"testing"
)

func TestBlosclzDecodeHandmade(t *testing.T) {
	cases := []struct {
		name string
		src  []byte
		want []byte
	}{
		// Marker bits in the first control byte are ignored.
		{"literal", []byte{0x20 | 2, 'a', 'b', 'c'}, []byte("abc")},
		// Literal "ab", then a match of 3 bytes starting 2 back (ctrl
		// 1<<5, distance byte 1): overlapping copy.
		{"overlap", []byte{1, 'a', 'b', 1 << 5, 1}, []byte("ababa")},
		// Run: literal "x", match distance 1 of length 7+2+3=12.
		{"run-extended", []byte{0, 'x', 7 << 5, 3, 0}, bytes.Repeat([]byte("x"), 13)},
		// Long length: 255 then 1 extra bytes.
		{"run-255", []byte{0, 'y', 7 << 5, 255, 1, 0}, bytes.Repeat([]byte("y"), 1+9+256)},
	}
	for _, c := range cases {
		dst := make([]byte, len(c.want))
		if err := blosclzDecode(dst, c.src); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !bytes.Equal(dst, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, dst, c.want)
		}
	}
}

func TestBlosclzFarDistance(t *testing.T) {
	// 9000 literal bytes, then a far match of 10 bytes starting 9000
	// back: distance 9000 = 8192 + 808.
	var lit []byte
	for i := range 9000 {
		lit = append(lit, byte(i*7+i/256))
	}
	var src []byte
	for off := 0; off < len(lit); off += 32 {
		chunk := lit[off:min(off+32, len(lit))]
		src = append(src, byte(len(chunk)-1))
		src = append(src, chunk...)
	}
	// length 10 = (ctrl>>5)+2 with ctrl>>5 = 7 needs an extra byte of 1;
	// ctrl&31 = 31 and distance byte 255 select the far form.
	src = append(src, 7<<5|31, 1, 255, 808>>8, 808&255)
	want := append(bytes.Clone(lit), lit[:10]...)
	dst := make([]byte, len(want))
	if err := blosclzDecode(dst, src); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst, want) {
		t.Fatal("far match decoded wrongly")
	}
}

func TestBlosclzDecodeCorrupt(t *testing.T) {
	cases := []struct {
		name string
		src  []byte
		n    int
	}{
		{"empty", nil, 1},
		{"literal truncated", []byte{5, 'a'}, 6},
		{"literal overruns", []byte{2, 'a', 'b', 'c'}, 2},
		{"match before start", []byte{0, 'a', 1 << 5, 5}, 4},
		{"match overruns", []byte{0, 'a', 1 << 5, 0}, 3},
		{"length runs out", []byte{0, 'a', 7 << 5, 255}, 1000},
		{"distance missing", []byte{0, 'a', 1 << 5}, 4},
		{"far distance missing", []byte{0, 'a', 1<<5 | 31, 255, 1}, 4},
		{"short output", []byte{1, 'a', 'b'}, 3},
		{"huge length", append([]byte{0, 'a', 7 << 5}, bytes.Repeat([]byte{255}, 100)...), 50},
	}
	for _, c := range cases {
		err := blosclzDecode(make([]byte, c.n), c.src)
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: got %v, want ErrCorrupt", c.name, err)
		}
	}
}
