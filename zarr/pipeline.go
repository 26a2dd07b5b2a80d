package zarr

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// A chain is a codec pipeline compiled for one chunk shape. Inside the
// package a decoded chunk is "raw": its elements (8 bytes for every time
// type, 1 to 16 for numeric ones) in C order, each in the byte order of the
// bytes codec (order). Keeping elements in stored
// order lets ReadChunkRaw hand them to the transcode kernel, which swaps
// bytes in the same pass as it converts units.
type chain struct {
	arrays []transposeStage // array->array, in encoding order
	ab     arrayBytesStage
	bbs    []bytesStage // bytes->bytes, in encoding order
	// sizes[0] is the largest output of ab, sizes[i+1] of bbs[i]: the most
	// any stage's decoder may produce and the most the store may hold.
	sizes  []int
	shape  []int64
	nbytes int
	elem   int // bytes per element
	order  binary.ByteOrder
	fill   []byte // one element of fill value, in order
}

// elemSpec is what a chain knows of its elements: their size and the fill
// value's bits (NumericType.Bits; a time fill is bits[0]). Complex elements
// are two floats, each in the byte order.
type elemSpec struct {
	size    int
	fill    [2]uint64
	complex bool
}

// timeElem describes 8-byte time elements with fill value fill.
func timeElem(fill int64) elemSpec { return elemSpec{size: 8, fill: [2]uint64{uint64(fill)}} }

// fillBytes is one fill element in order.
func (e elemSpec) fillBytes(order binary.ByteOrder) []byte {
	b := make([]byte, e.size)
	if e.complex {
		putUint(b[:e.size/2], order, e.fill[0])
		putUint(b[e.size/2:], order, e.fill[1])
	} else {
		putUint(b, order, e.fill[0])
	}
	return b
}

// arrayBytesStage is an array->bytes codec at run time.
type arrayBytesStage interface {
	order() binary.ByteOrder
	bound() int
	// encode returns the encoding of raw (which it may return as is).
	encode(sc *scratch, raw []byte, writeEmpty bool) ([]byte, error)
	// decode decodes enc into dst (len == chunk bytes).
	decode(sc *scratch, dst, enc []byte) error
	// direct reports whether the last bytes->bytes decoder may write
	// straight into the chunk's buffer (true for the plain bytes codec).
	direct() bool
}

// errChunkSize marks a chunk shape beyond maxChunkBytes: an error of the
// chunk grid's, not of the codecs'.
var errChunkSize = errors.New("more than 1 TiB decoded")

// maxChunkBytes bounds one chunk's decoded size, so size arithmetic never
// overflows an int and no metadata makes us allocate absurd buffers.
const maxChunkBytes = 1 << 40

// numElements returns the product of shape, or an error when it exceeds
// limit (so int64 overflow cannot happen).
func numElements(shape []int64, limit int64) (int64, error) {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension %d", d)
		}
		if d != 0 && n > limit/d {
			return 0, fmt.Errorf("shape %v has more than %d elements", shape, limit)
		}
		n *= d
	}
	return n, nil
}

// newChain compiles codecs for chunks of shape. Errors name the codec as
// "[i]".
func newChain(codecs []Codec, shape []int64, el elemSpec) (*chain, error) {
	n, err := numElements(shape, maxChunkBytes/int64(el.size))
	if err != nil {
		return nil, fmt.Errorf("chunk %w: %w", err, errChunkSize)
	}
	c := &chain{shape: append([]int64(nil), shape...), nbytes: int(n) * el.size, elem: el.size}
	cur := c.shape
	state := arrayToArray
	for i, codec := range codecs {
		if codec == nil {
			return nil, inField(fmt.Sprintf("[%d]", i), errors.New("nil codec"))
		}
		k := codec.kind()
		if k == bytesToBytes && c.ab == nil {
			return nil, inField(fmt.Sprintf("[%d]", i), fmt.Errorf("bytes->bytes codec %q comes before the array->bytes codec (order: array->array, one array->bytes, bytes->bytes)", codec.Name()))
		}
		if k < state {
			// What came before: the array->bytes codec itself, or a
			// bytes->bytes codec after it.
			before := fmt.Sprintf("a %s codec", state)
			if state == bytesToBytes && codecs[i-1].kind() == arrayToBytes {
				before = fmt.Sprintf("the array->bytes codec %q", codecs[i-1].Name())
			}
			return nil, inField(fmt.Sprintf("[%d]", i), fmt.Errorf("%s codec %q cannot follow %s (order: array->array, one array->bytes, bytes->bytes)", k, codec.Name(), before))
		}
		switch k {
		case arrayToArray:
			t, err := newTransposeStage(codec.(TransposeCodec), cur)
			if err != nil {
				return nil, inField(fmt.Sprintf("[%d]", i), err)
			}
			c.arrays = append(c.arrays, t)
			cur = t.out
		case arrayToBytes:
			var err error
			switch codec := codec.(type) {
			case BytesCodec:
				c.ab, err = newPlainBytesStage(codec, c.nbytes, el.size)
			case ShardingCodec:
				c.ab, err = newShardStage(codec, cur, el)
			}
			if err != nil {
				return nil, inField(fmt.Sprintf("[%d]", i), err)
			}
			state = bytesToBytes
			c.sizes = append(c.sizes, c.ab.bound())
		case bytesToBytes:
			b, err := newBytesStage(codec, el.size)
			if err != nil {
				return nil, inField(fmt.Sprintf("[%d]", i), err)
			}
			next := b.bound(c.sizes[len(c.sizes)-1])
			if next > maxChunkBytes*2 {
				return nil, inField(fmt.Sprintf("[%d]", i), errors.New("encoded chunk bound overflows"))
			}
			c.bbs = append(c.bbs, b)
			c.sizes = append(c.sizes, next)
		}
		state = max(state, k)
	}
	if c.ab == nil {
		return nil, errors.New("no array->bytes codec (\"bytes\" or \"sharding_indexed\"); one is required")
	}
	c.order = c.ab.order()
	c.fill = el.fillBytes(c.order)
	return c, nil
}

// maxEncoded is the largest stored chunk the chain accepts.
func (c *chain) maxEncoded() int { return c.sizes[len(c.sizes)-1] }

func (c *chain) encode(sc *scratch, raw []byte, writeEmpty bool) ([]byte, error) {
	cur := raw
	for _, t := range c.arrays {
		out := sc.get(len(cur))
		transpose(out, cur, c.elem, t.in, t.perm)
		cur = out
	}
	b, err := c.ab.encode(sc, cur, writeEmpty)
	if err != nil {
		return nil, err
	}
	for i, bb := range c.bbs {
		// bb's bound for this input, not c.sizes[i+1] (the bound for the
		// largest input the previous stage could produce): after a shard
		// stage the two differ by orders of magnitude.
		out := sc.get(min(c.sizes[i+1], bb.bound(len(b))))
		enc, err := bb.encode(out[:0], b)
		if err != nil {
			return nil, err
		}
		sc.keep(out, enc)
		b = enc
	}
	return b, nil
}

func (c *chain) decode(sc *scratch, dst, enc []byte) error {
	return c.decodeEach(sc, dst, enc, 0, nil)
}

// decodeEach decodes enc into dst; with fn, it hands the chunk's bytes to
// fn instead, in pieces (Array.ReadChunkFunc): straight from enc when its
// codecs only store them (none but checks, or zstd blocks kept raw), else
// once decoded into dst.
func (c *chain) decodeEach(sc *scratch, dst, enc []byte, align int, fn func(off int, p []byte) error) error {
	if len(enc) > c.maxEncoded() {
		return fmt.Errorf("stored chunk of %d bytes is %w: no valid encoding of this chunk exceeds %d bytes", len(enc), ErrTooLarge, c.maxEncoded())
	}
	direct := len(c.arrays) == 0 && c.ab.direct()
	decoded := false // cur is no longer enc or a part of it
	cur := enc
	for i := len(c.bbs) - 1; i >= 0; i-- {
		limit := c.sizes[i]
		if ch, ok := c.bbs[i].(checker); ok {
			var err error
			if cur, err = ch.check(cur, limit); err != nil {
				return err
			}
			continue
		}
		var out []byte
		if i == 0 && direct {
			out = dst[:0:len(dst)]
		} else {
			out = sc.get(limit)[:0:limit]
		}
		var err error
		if z, ok := c.bbs[i].(zstdStage); ok && i == 0 && direct && fn != nil {
			var passed bool
			if cur, passed, err = z.decodeEach(out, cur, align, fn); passed {
				return err // fn had the stored blocks
			}
		} else {
			cur, err = c.bbs[i].decode(out, cur)
		}
		if err != nil {
			return err
		}
		decoded = true
	}
	if len(c.arrays) == 0 {
		if p, ok := c.ab.(*plainBytesStage); ok && fn != nil && !decoded {
			if err := p.check(dst, cur); err != nil {
				return err
			}
			return fn(0, cur)
		}
		if err := c.ab.decode(sc, dst, cur); err != nil {
			return err
		}
	} else {
		tmp := sc.get(c.nbytes)
		if err := c.ab.decode(sc, tmp, cur); err != nil {
			return err
		}
		for i := len(c.arrays) - 1; i >= 0; i-- {
			out := dst
			if i > 0 {
				out = sc.get(c.nbytes)
			}
			t := c.arrays[i]
			transpose(out, tmp, c.elem, t.out, t.inv)
			tmp = out
		}
	}
	if fn != nil {
		return fn(0, dst)
	}
	return nil
}

// ---- bytes ----

type plainBytesStage struct {
	endian binary.ByteOrder
	nbytes int
	elem   int
}

// newPlainBytesStage compiles the bytes codec for elements of elem bytes.
// One-byte elements have no byte order: endian may be absent, and the
// chain then says little-endian (any order reads a byte the same).
func newPlainBytesStage(c BytesCodec, nbytes, elem int) (*plainBytesStage, error) {
	o := normalOrder(c.Endian)
	if o == nil {
		if elem != 1 {
			return nil, inField("configuration", fmt.Errorf("bytes codec: \"endian\" is required for %d-byte data types", elem))
		}
		o = binary.LittleEndian
	}
	return &plainBytesStage{endian: o, nbytes: nbytes, elem: elem}, nil
}

func (s *plainBytesStage) order() binary.ByteOrder { return s.endian }
func (s *plainBytesStage) bound() int              { return s.nbytes }
func (s *plainBytesStage) direct() bool            { return true }

func (s *plainBytesStage) encode(sc *scratch, raw []byte, writeEmpty bool) ([]byte, error) {
	return raw, nil
}

func (s *plainBytesStage) decode(sc *scratch, dst, enc []byte) error {
	if err := s.check(dst, enc); err != nil {
		return err
	}
	if len(dst) > 0 && &enc[0] != &dst[0] {
		copy(dst, enc)
	}
	return nil
}

// check refuses a decoded chunk enc of another size than dst.
func (s *plainBytesStage) check(dst, enc []byte) error {
	if len(enc) != len(dst) {
		return fmt.Errorf("%w: decoded chunk is %d bytes, want %d (%d elements of %d bytes)", ErrCorrupt, len(enc), len(dst), len(dst)/s.elem, s.elem)
	}
	return nil
}

// ---- transpose ----

type transposeStage struct {
	perm, inv []int
	in, out   []int64 // decoded and encoded shapes
}

func newTransposeStage(c TransposeCodec, shape []int64) (transposeStage, error) {
	if len(c.Order) != len(shape) {
		return transposeStage{}, fmt.Errorf("transpose codec: order %v has %d entries for a %d-dimensional array", c.Order, len(c.Order), len(shape))
	}
	t := transposeStage{
		perm: append([]int(nil), c.Order...),
		inv:  make([]int, len(shape)),
		in:   shape,
		out:  make([]int64, len(shape)),
	}
	seen := make([]bool, len(shape))
	for i, p := range c.Order {
		if p < 0 || p >= len(shape) || seen[p] {
			return transposeStage{}, fmt.Errorf("transpose codec: order %v is not a permutation of 0..%d", c.Order, len(shape)-1)
		}
		seen[p] = true
		t.inv[p] = i
		t.out[i] = shape[p]
	}
	return t, nil
}

// transpose writes numpy.transpose(src, perm) to dst, for elements of size
// bytes in C order; inShape is src's shape.
func transpose(dst, src []byte, size int, inShape []int64, perm []int) {
	nd := len(inShape)
	if nd <= 1 {
		copy(dst, src)
		return
	}
	var strideBuf, idxBuf, outShapeBuf [8]int64
	stride, idx, outShape := strideBuf[:0], idxBuf[:0], outShapeBuf[:0]
	if nd > 8 {
		stride, idx, outShape = make([]int64, 0, nd), make([]int64, 0, nd), make([]int64, 0, nd)
	}
	stride, idx, outShape = stride[:nd], idx[:nd], outShape[:nd]
	s := int64(size)
	for d := nd - 1; d >= 0; d-- {
		stride[d] = s
		s *= inShape[d]
	}
	for k := range nd {
		outShape[k] = inShape[perm[k]]
		idx[k] = 0
	}
	// Walk dst in C order; the innermost dst dimension steps src by
	// stride[perm[nd-1]].
	inner := outShape[nd-1]
	innerStride := stride[perm[nd-1]]
	o := 0
	for {
		base := int64(0)
		for k := 0; k < nd-1; k++ {
			base += idx[k] * stride[perm[k]]
		}
		for j := int64(0); j < inner; j++ {
			copy(dst[o:o+size], src[base+j*innerStride:])
			o += size
		}
		k := nd - 2
		for ; k >= 0; k-- {
			idx[k]++
			if idx[k] < outShape[k] {
				break
			}
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// allFill reports whether every element of raw equals fill (one element).
// Element sizes divide 16, so the fill repeats every 16 bytes: compare two
// words at a time, then the tail.
func allFill(raw []byte, fill []byte) bool {
	var pat [16]byte
	for i := 0; i < 16; i += len(fill) {
		copy(pat[i:], fill)
	}
	w0, w1 := binary.LittleEndian.Uint64(pat[:]), binary.LittleEndian.Uint64(pat[8:])
	i := 0
	for ; i+16 <= len(raw); i += 16 {
		if binary.LittleEndian.Uint64(raw[i:]) != w0 || binary.LittleEndian.Uint64(raw[i+8:]) != w1 {
			return false
		}
	}
	return bytes.Equal(raw[i:], pat[:len(raw)-i])
}

// setFill writes fill (one element) to every element of raw.
func setFill(raw []byte, fill []byte) {
	if len(raw) < len(fill) || len(fill) == 0 {
		return
	}
	copy(raw, fill)
	for n := len(fill); n < len(raw); n *= 2 {
		copy(raw[n:], raw[:n])
	}
}

const emptyMarker = math.MaxUint64
