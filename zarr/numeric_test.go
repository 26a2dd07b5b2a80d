package zarr

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/storage"
)

func TestFloat16(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := float16To64(uint16(h))
		if math.IsNaN(f) {
			if h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
				t.Fatalf("%#04x: NaN", h)
			}
			continue
		}
		if got := float64To16(f); got != uint16(h) {
			t.Fatalf("%#04x -> %v -> %#04x", h, f, got)
		}
	}
	for _, c := range []struct {
		f    float64
		want uint16
	}{
		{1 + 1.0/2048, 0x3c00},             // a tie rounds to even
		{1 + 3.0/2048, 0x3c02},             // a tie rounds to even
		{1 + 1.0/2048 + 1e-10, 0x3c01},     // above the tie
		{65504, 0x7bff},                    // the largest
		{65519.99, 0x7bff},                 // rounds down to it
		{65520, 0x7c00},                    // rounds to infinity
		{math.Ldexp(1, -25), 0},            // half the smallest subnormal: tie to 0
		{math.Ldexp(1.5, -25), 1},          // above it
		{math.Ldexp(2047, -25), 0x0400},    // rounds up to the smallest normal
		{math.Copysign(0, -1), 0x8000},     // the sign of zero
		{math.NaN(), 0x7e00},               // NumPy's quiet NaN
		{math.Inf(-1), 0xfc00},             //
		{0.1, 0x2e66},                      // numpy.float16(0.1)
		{math.Ldexp(1, -24) * 3 / 2, 0x02}, // 1.5 units: tie to even (2)
	} {
		if got := float64To16(c.f); got != c.want {
			t.Errorf("float64To16(%v) = %#04x, want %#04x", c.f, got, c.want)
		}
	}
}

func TestNumericTypeNames(t *testing.T) {
	for _, name := range []string{"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
		"float16", "float32", "float64", "complex64", "complex128"} {
		nt, ok := parseNumericV3(name)
		if !ok || nt.String() != name {
			t.Errorf("%s: %v %v", name, nt, ok)
		}
		for _, o := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			s := nt.NumPy(o)
			back, order, ok, err := parseNumericV2(s)
			if !ok || err != nil || back != nt || (nt.Size > 1 && order != o) || (nt.Size == 1 && order != nil) {
				t.Errorf("%s: %s -> %v %v %v %v", name, s, back, order, ok, err)
			}
		}
	}
	for _, bad := range []string{"int", "int7", "int128", "float128", "complex32", "uint08", "Int8", "bool8"} {
		if nt, ok := parseNumericV3(bad); ok {
			t.Errorf("%s parsed as %v", bad, nt)
		}
	}
	for _, bad := range []string{"<i3", ">f16", "|i2", "<c4", "<b2"} {
		if _, _, ok, err := parseNumericV2(bad); !ok || err == nil {
			t.Errorf("%s: ok %v err %v", bad, ok, err)
		}
	}
	for _, other := range []string{"<M8[ns]", "|S5", "<U3", "|O", "i8", "<i8x"} {
		if _, _, ok, _ := parseNumericV2(other); ok {
			t.Errorf("%s taken as numeric", other)
		}
	}
}

func TestNumericFillValues(t *testing.T) {
	ty := func(name string) NumericType { nt, _ := parseNumericV3(name); return nt }
	good := []struct {
		typ, json string
		v2        bool
		bits      [2]uint64
		back      string // written form, "" = as given
	}{
		{"bool", "true", false, [2]uint64{1}, ""},
		{"int8", "-128", false, [2]uint64{1<<64 - 128}, ""},
		{"uint64", "18446744073709551615", true, [2]uint64{1<<64 - 1}, ""},
		{"int64", "-9223372036854775808", false, [2]uint64{1 << 63}, ""},
		{"float32", `"NaN"`, false, [2]uint64{0x7fc00000}, ""},
		{"float32", `"0x7fc00001"`, false, [2]uint64{0x7fc00001}, ""},
		{"float64", `"0x7ff8000000000000"`, false, [2]uint64{0x7ff8000000000000}, `"NaN"`},
		{"float16", `"0x7c00"`, false, [2]uint64{0x7c00}, `"Infinity"`},
		{"float64", `"-Infinity"`, true, [2]uint64{0xfff0000000000000}, ""},
		{"float64", "0", true, [2]uint64{0}, "0.0"},
		{"float64", "1e300", true, [2]uint64{math.Float64bits(1e300)}, "1e+300"},
		{"float64", "1234567.0", true, [2]uint64{math.Float64bits(1234567)}, ""},
		{"float64", "0.0001", true, [2]uint64{math.Float64bits(0.0001)}, ""},
		{"float64", "1e-05", true, [2]uint64{math.Float64bits(1e-5)}, ""},
		{"float64", "1e+16", true, [2]uint64{math.Float64bits(1e16)}, ""},
		{"float32", "0.1", true, [2]uint64{uint64(math.Float32bits(0.1))}, "0.10000000149011612"},
		{"complex64", `[1.5, "NaN"]`, false, [2]uint64{uint64(math.Float32bits(1.5)), 0x7fc00000}, `[1.5,"NaN"]`},
		{"complex128", `[-0.0, "-Infinity"]`, true, [2]uint64{1 << 63, 0xfff0000000000000}, `[-0.0,"-Infinity"]`},
	}
	for _, c := range good {
		bits, null, err := parseNumericFill(json.RawMessage(c.json), ty(c.typ), c.v2)
		if err != nil || null || bits != c.bits {
			t.Errorf("%s %s: %x %v %v, want %x", c.typ, c.json, bits, null, err, c.bits)
			continue
		}
		want := c.back
		if want == "" {
			want = c.json
		}
		if got := string(formatNumericFill(ty(c.typ), bits, c.v2)); got != want {
			t.Errorf("%s %s written as %s, want %s", c.typ, c.json, got, want)
		}
	}
	bad := []struct{ typ, json, want string }{
		{"bool", "1", "true or false"},
		{"int8", "128", "out of int8 range"},
		{"uint8", "-1", "out of uint8 range"},
		{"int32", "1.0", "without fraction"},
		{"int32", `"NaN"`, "integer"},
		{"float32", "1e39", "out of float32 range"},
		{"float16", "65520", "out of float16 range"},
		{"float64", "1e400", "out of float64 range"},
		{"float64", `"nan"`, "want a number"},
		{"float32", `"0x7fc0"`, "exactly 8 hex digits"},
		{"complex64", "[1.0]", "[real, imaginary]"},
		{"complex64", `[1.0, "x"]`, "imaginary part"},
		{"float64", "null", "null is not"},
	}
	for _, c := range bad {
		_, _, err := parseNumericFill(json.RawMessage(c.json), ty(c.typ), false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want %q", c.typ, c.json, err, c.want)
		}
	}
	if _, _, err := parseNumericFill(json.RawMessage(`"0x7fc00000"`), ty("float32"), true); err == nil {
		t.Error("v2 took a hex fill value")
	}
}

// TestNumericRoundTripV3 writes and reads every numeric type through the
// codecs that depend on the element size (transpose, sharding with
// padding, blosc's typesize, bytes without endian for 1-byte types),
// comparing bytes, on any host byte order.
func TestNumericRoundTripV3(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"bool", "int8", "uint8", "int16", "uint32", "float16", "float32", "float64", "complex64", "complex128"} {
		nt, _ := parseNumericV3(name)
		for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			var endian binary.ByteOrder = order
			if nt.Size == 1 && order == binary.BigEndian {
				endian = nil // no endian at all
			}
			inner := []Codec{TransposeCodec{Order: []int{1, 0}}, BytesCodec{Endian: endian}, BloscCodec{CName: "zstd", CLevel: 3, Shuffle: "shuffle"}}
			m := Metadata{Numeric: nt, Shape: []int64{9, 7}, ChunkShape: []int64{4, 6},
				NumericFill: [2]uint64{3, 5},
				Codecs:      []Codec{ShardingCodec{ChunkShape: []int64{2, 3}, Codecs: inner, IndexCodecs: []Codec{BytesCodec{Endian: binary.LittleEndian}, CRC32CCodec{}}}}}
			switch nt.Kind {
			case Bool:
				m.NumericFill = [2]uint64{1}
			case Complex:
			default:
				m.NumericFill = [2]uint64{3}
			}
			store := storage.NewMemory()
			a, err := Create(ctx, store, m)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := a.WriteMetadata(ctx); err != nil {
				t.Fatal(err)
			}
			doc, _ := store.Get(ctx, v3MetadataKey)
			if !bytes.Contains(doc, []byte(`"data_type": "`+name+`"`)) {
				t.Fatalf("%s: zarr.json\n%s", name, doc)
			}
			b, err := Open(ctx, store)
			if err != nil {
				t.Fatalf("%s: reopening: %v\n%s", name, err, doc)
			}
			if bm := b.Metadata(); bm.Numeric != nt || bm.NumericFill != m.NumericFill || b.ChunkBytes() != 24*nt.Size {
				t.Fatalf("%s: reopened as %v fill %x, %d bytes", name, bm.Numeric, bm.NumericFill, b.ChunkBytes())
			}
			r := rand.New(rand.NewPCG(uint64(nt.Size), 9))
			want := map[int64][]byte{}
			for i, c := range b.ChunkCoords() {
				raw := make([]byte, b.ChunkBytes())
				for j := range raw {
					raw[j] = byte(r.Uint32())
				}
				if i == 1 {
					setFill(raw, nt.Element(m.NumericFill, b.ByteOrder()))
				}
				if _, err := b.WriteChunkRaw(ctx, c, raw); err != nil {
					t.Fatal(err)
				}
				want[i] = raw // padded in place
			}
			buf := make([]byte, b.ChunkBytes())
			for i, c := range b.ChunkCoords() {
				if _, _, err := b.ReadChunkRaw(ctx, c, buf); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf, want[i]) {
					t.Fatalf("%s %v: chunk %v differs", name, order, c)
				}
			}
			var ce *ChunkError
			if err := b.WriteChunk(ctx, []int64{0, 0}, make([]int64, b.ChunkLen())); !errors.As(err, &ce) || !strings.Contains(err.Error(), "WriteChunkRaw") {
				t.Errorf("%s: WriteChunk: %v", name, err)
			}
		}
	}
}

func TestNumericMetadataErrors(t *testing.T) {
	ctx := context.Background()
	nt := NumericType{Int, 2}
	for _, c := range []struct {
		m    Metadata
		want string
	}{
		{Metadata{Numeric: nt, Shape: []int64{4}, ChunkShape: []int64{2}, Codecs: []Codec{BytesCodec{}}}, `"endian" is required for 2-byte`},
		{Metadata{Numeric: NumericType{Int, 3}, Shape: []int64{4}, ChunkShape: []int64{2}}, "invalid numeric data type"},
		{Metadata{Numeric: nt, FillValue: 5, Shape: []int64{4}, ChunkShape: []int64{2}}, "NumericFill"},
		{Metadata{Numeric: nt, NumericFill: [2]uint64{0x10000}, Shape: []int64{4}, ChunkShape: []int64{2}}, "not a int16 value"},
		{Metadata{Numeric: NumericType{Float, 4}, NumericFill: [2]uint64{0, 1}, Shape: []int64{4}, ChunkShape: []int64{2}}, "not a float32 value"},
	} {
		if _, err := Create(ctx, storage.NewMemory(), c.m); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.m, err, c.want)
		}
	}
}
