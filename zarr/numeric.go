package zarr

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// NumericKind is the kind of a numeric (non-time) Zarr data type.
type NumericKind uint8

const (
	Bool NumericKind = iota + 1
	Int
	Uint
	Float
	Complex
)

func (k NumericKind) String() string {
	switch k {
	case Bool:
		return "bool"
	case Int:
		return "int"
	case Uint:
		return "uint"
	case Float:
		return "float"
	case Complex:
		return "complex"
	}
	return fmt.Sprintf("NumericKind(%d)", uint8(k))
}

// NumericType is a Zarr core data type that is not a time type: bool,
// int8…int64, uint8…uint64, float16…float64, complex64, complex128. dt64
// opens such arrays to read and write their chunks as bytes and to read
// their values for verification; its time semantics do not apply. The zero
// NumericType means "not numeric": the array is a time array.
type NumericType struct {
	Kind NumericKind
	Size int // bytes per element: 1 (bool), 1/2/4/8, 2/4/8 (float), 8/16 (complex)
}

var numericSizes = map[NumericKind][]int{
	Bool: {1}, Int: {1, 2, 4, 8}, Uint: {1, 2, 4, 8}, Float: {2, 4, 8}, Complex: {8, 16},
}

// Validate reports whether t is one of the core data types.
func (t NumericType) Validate() error {
	for _, s := range numericSizes[t.Kind] {
		if s == t.Size {
			return nil
		}
	}
	return fmt.Errorf("invalid numeric data type %s of %d bytes", t.Kind, t.Size)
}

// String is the Zarr v3 name: "int16", "float64", "complex128", "bool".
func (t NumericType) String() string {
	if t.Kind == Bool {
		return "bool"
	}
	return t.Kind.String() + strconv.Itoa(t.Size*8)
}

// numpyCode is the NumPy type character.
func (t NumericType) numpyCode() byte {
	return map[NumericKind]byte{Bool: 'b', Int: 'i', Uint: 'u', Float: 'f', Complex: 'c'}[t.Kind]
}

// NumPy is the NumPy dtype string as zarr-python 2 writes it: "|u1",
// "<i8", ">f4", "<c16" (1-byte types always with '|').
func (t NumericType) NumPy(order binary.ByteOrder) string {
	c := "<"
	switch {
	case t.Size == 1:
		c = "|"
	case isBig(order):
		c = ">"
	}
	return c + string(t.numpyCode()) + strconv.Itoa(t.Size)
}

// parseNumericV3 parses a v3 core data type name; ok is false when name
// is not one.
func parseNumericV3(name string) (NumericType, bool) {
	if name == "bool" {
		return NumericType{Bool, 1}, true
	}
	for _, k := range []NumericKind{Int, Uint, Float, Complex} {
		if rest, ok := strings.CutPrefix(name, k.String()); ok {
			bits, err := strconv.Atoi(rest)
			t := NumericType{k, bits / 8}
			if err == nil && bits%8 == 0 && strconv.Itoa(bits) == rest && t.Validate() == nil {
				return t, true
			}
		}
	}
	return NumericType{}, false
}

// parseNumericV2 parses a NumPy numeric dtype string ("<i8", "|b1",
// ">c16"). ok is false when s is not a numeric dtype string at all (it may
// be a datetime one); err is set when it is one dt64 refuses.
func parseNumericV2(s string) (t NumericType, order binary.ByteOrder, ok bool, err error) {
	if len(s) < 3 {
		return t, nil, false, nil
	}
	switch s[1] {
	case 'b':
		t.Kind = Bool
	case 'i':
		t.Kind = Int
	case 'u':
		t.Kind = Uint
	case 'f':
		t.Kind = Float
	case 'c':
		t.Kind = Complex
	default:
		return t, nil, false, nil
	}
	size, perr := strconv.Atoi(s[2:])
	if perr != nil || strconv.Itoa(size) != s[2:] {
		return t, nil, false, nil
	}
	t.Size = size
	if err := t.Validate(); err != nil {
		return t, nil, true, fmt.Errorf("%q: %v", s, err)
	}
	switch {
	case s[0] == '<':
		order = binary.LittleEndian
	case s[0] == '>':
		order = binary.BigEndian
	case s[0] == '|' && size == 1:
	case s[0] == '|':
		return t, nil, true, fmt.Errorf("%q: a %d-byte type needs a byte order, '<' or '>'", s, size)
	default:
		return t, nil, false, nil
	}
	if size == 1 {
		order = nil // a byte has no order; zarr-python writes '|'
	}
	return t, order, true, nil
}

// Bits returns the element at the start of elem (Size bytes in order) as
// dt64 represents numeric values: an integer's two's complement
// (sign-extended), a float's IEEE 754 bits (float16 too), a bool's 0 or 1;
// a complex number's real part in [0] and imaginary part in [1].
func (t NumericType) Bits(elem []byte, order binary.ByteOrder) [2]uint64 {
	if t.Kind == Complex {
		h := t.Size / 2
		return [2]uint64{uintOf(elem[:h], order), uintOf(elem[h:2*h], order)}
	}
	v := uintOf(elem[:t.Size], order)
	if t.Kind == Int && t.Size < 8 {
		shift := 64 - 8*t.Size
		v = uint64(int64(v<<shift) >> shift)
	}
	return [2]uint64{v}
}

func uintOf(b []byte, order binary.ByteOrder) uint64 {
	if order == nil {
		order = binary.LittleEndian
	}
	switch len(b) {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(order.Uint16(b))
	case 4:
		return uint64(order.Uint32(b))
	}
	return order.Uint64(b)
}

func putUint(b []byte, order binary.ByteOrder, v uint64) {
	if order == nil {
		order = binary.LittleEndian
	}
	switch len(b) {
	case 1:
		b[0] = byte(v)
	case 2:
		order.PutUint16(b, uint16(v))
	case 4:
		order.PutUint32(b, uint32(v))
	default:
		order.PutUint64(b, v)
	}
}

// Element writes bits (as Bits returns them, or as Metadata.NumericFill
// holds a fill value) as one element in order: the element's stored bytes.
// It is the one place a numeric value becomes bytes.
func (t NumericType) Element(bits [2]uint64, order binary.ByteOrder) []byte {
	b := make([]byte, t.Size)
	if t.Kind == Complex {
		h := t.Size / 2
		putUint(b[:h], order, bits[0])
		putUint(b[h:], order, bits[1])
		return b
	}
	putUint(b, order, bits[0])
	return b
}

// Float64 returns a float element's bits (of a Float type, or one half of
// a Complex type) as a float64, exactly.
func (t NumericType) Float64(bits uint64) float64 {
	switch t.floatSize() {
	case 2:
		return float16To64(uint16(bits))
	case 4:
		return float64(math.Float32frombits(uint32(bits)))
	}
	return math.Float64frombits(bits)
}

// floatSize is the size of one float of a Float or Complex type.
func (t NumericType) floatSize() int {
	if t.Kind == Complex {
		return t.Size / 2
	}
	return t.Size
}

// floatBits rounds f to the nearest float of size bytes (ties to even, as
// NumPy casts) and returns its bits.
func floatBits(f float64, size int) uint64 {
	switch size {
	case 2:
		return uint64(float64To16(f))
	case 4:
		return uint64(math.Float32bits(float32(f)))
	}
	return math.Float64bits(f)
}

func float16To64(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1024+frac, exp-25)
}

// float64To16 rounds f to binary16, ties to even.
func float64To16(f float64) uint16 {
	var sign uint16
	if math.Signbit(f) {
		sign, f = 0x8000, -f
	}
	switch {
	case math.IsNaN(f):
		return sign | 0x7e00
	case f < math.Ldexp(1, -14): // subnormal or zero: units of 2^-24
		return sign | uint16(math.RoundToEven(math.Ldexp(f, 24))) // 1024 is the smallest normal's bits
	}
	_, e := math.Frexp(f) // f = frac × 2^e, frac in [0.5, 1)
	e--
	q := math.RoundToEven(math.Ldexp(f, 10-e)) // in [1024, 2048]
	if q == 2048 {
		e, q = e+1, 1024
	}
	if e > 15 || math.IsInf(f, 0) {
		return sign | 0x7c00
	}
	return sign | uint16(e+15)<<10 | uint16(q-1024)
}
