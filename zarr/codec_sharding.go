package zarr

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// shardStage is the sharding_indexed codec: a shard of shape shard is a
// grid of inner chunks, each encoded with inner, followed (or preceded) by
// an index of (offset, nbytes) uint64 pairs encoded with index.
type shardStage struct {
	shard, innerShape, grid []int64
	nInner                  int
	inner, index            *chain
	indexSize               int // encoded index size, fixed
	atStart                 bool
}

func newShardStage(c ShardingCodec, shard []int64, el elemSpec) (*shardStage, error) {
	if len(c.ChunkShape) != len(shard) {
		return nil, inField("configuration.chunk_shape", fmt.Errorf("%v has %d dimensions, the shard %v has %d", c.ChunkShape, len(c.ChunkShape), shard, len(shard)))
	}
	s := &shardStage{shard: shard, innerShape: append([]int64(nil), c.ChunkShape...), grid: make([]int64, len(shard))}
	for d, n := range c.ChunkShape {
		if n <= 0 || shard[d]%n != 0 {
			return nil, inField("configuration.chunk_shape", fmt.Errorf("inner chunk shape %v must divide the shard shape %v", c.ChunkShape, shard))
		}
		s.grid[d] = shard[d] / n
	}
	n, _ := numElements(s.grid, math.MaxInt64) // at most the shard's element count
	s.nInner = int(n)
	switch c.IndexLocation {
	case IndexStart:
		s.atStart = true
	case IndexEnd, "":
	default:
		return nil, inField("configuration.index_location", fmt.Errorf("%q (want \"start\" or \"end\")", c.IndexLocation))
	}
	var err error
	if s.inner, err = newChain(c.Codecs, s.innerShape, el); err != nil {
		return nil, inField("configuration.codecs", err)
	}
	// The index must have a size known before reading it, so only
	// fixed-size codecs may encode it.
	s.indexSize = s.nInner * 16
	for i, ic := range c.IndexCodecs {
		switch ic.(type) {
		case BytesCodec, TransposeCodec:
		case CRC32CCodec:
			s.indexSize += 4
		default:
			name := "nil"
			if ic != nil {
				name = ic.Name()
			}
			return nil, inField(fmt.Sprintf("configuration.index_codecs[%d]", i), fmt.Errorf("codec %q has no fixed encoded size; index codecs may be bytes, crc32c and transpose only", name))
		}
	}
	indexShape := append(append([]int64(nil), s.grid...), 2) // uint64 pairs
	if s.index, err = newChain(c.IndexCodecs, indexShape, timeElem(-1)); err != nil {
		return nil, inField("configuration.index_codecs", err)
	}
	return s, nil
}

func (s *shardStage) order() binary.ByteOrder { return s.inner.order }
func (s *shardStage) direct() bool            { return false }

func (s *shardStage) bound() int {
	return s.indexSize + s.nInner*s.inner.maxEncoded()
}

// origin returns the element coordinates of inner chunk q (C order).
func (s *shardStage) origin(q int, out []int64) []int64 {
	out = out[:len(s.grid)]
	for d := len(s.grid) - 1; d >= 0; d-- {
		out[d] = int64(q) % s.grid[d] * s.innerShape[d]
		q /= int(s.grid[d])
	}
	return out
}

func (s *shardStage) encode(sc *scratch, raw []byte, writeEmpty bool) ([]byte, error) {
	idxOrder := s.index.order
	idx := sc.get(s.nInner * 16)
	// Start from the raw size plus the index, not bound(): inner chunks
	// usually encode to less than their raw size, while bound() assumes
	// every one hits its codecs' worst case (tens of MB for many small
	// compressed inner chunks). append grows data when needed.
	data0 := sc.get(min(s.bound(), len(raw)+s.indexSize))
	data := data0[:0]
	block := sc.get(s.inner.nbytes)
	org := make([]int64, len(s.grid))
	z := s.inner.elem
	for q := range s.nInner {
		ForEachRow(s.shard, s.innerShape, s.origin(q, org), func(o, b, n int) {
			copy(block[z*b:z*(b+n)], raw[z*o:z*(o+n)])
		})
		if !writeEmpty && allFill(block, s.inner.fill) {
			idxOrder.PutUint64(idx[q*16:], emptyMarker)
			idxOrder.PutUint64(idx[q*16+8:], emptyMarker)
			continue
		}
		child := getScratch()
		enc, err := s.inner.encode(child, block, writeEmpty)
		if err != nil {
			child.release()
			return nil, fmt.Errorf("inner chunk %d: %w", q, err)
		}
		off := len(data)
		if s.atStart {
			off += s.indexSize
		}
		idxOrder.PutUint64(idx[q*16:], uint64(off))
		idxOrder.PutUint64(idx[q*16+8:], uint64(len(enc)))
		data = append(data, enc...)
		child.release()
	}
	sc.keep(data0, data)
	idxEnc, err := s.index.encode(sc, idx, true)
	if err != nil {
		return nil, fmt.Errorf("shard index: %w", err)
	}
	if len(idxEnc) != s.indexSize {
		return nil, fmt.Errorf("shard index encoded to %d bytes, want %d", len(idxEnc), s.indexSize)
	}
	if s.atStart {
		out := sc.get(s.indexSize + len(data))
		copy(out, idxEnc)
		copy(out[s.indexSize:], data)
		return out, nil
	}
	grown := append(data, idxEnc...)
	sc.keep(data, grown)
	data = grown
	return data, nil
}

func (s *shardStage) decode(sc *scratch, dst, enc []byte) error {
	if len(enc) < s.indexSize {
		return fmt.Errorf("shard: %w: %d bytes, shorter than its %d-byte index", ErrCorrupt, len(enc), s.indexSize)
	}
	lo, hi := 0, len(enc)
	var idxEnc []byte
	if s.atStart {
		idxEnc, lo = enc[:s.indexSize], s.indexSize
	} else {
		idxEnc, hi = enc[len(enc)-s.indexSize:], len(enc)-s.indexSize
	}
	idx := sc.get(s.nInner * 16)
	if err := s.index.decode(sc, idx, idxEnc); err != nil {
		return fmt.Errorf("shard index: %w", err)
	}
	o := s.index.order
	z := s.inner.elem
	org := make([]int64, len(s.grid))
	// Inner chunks must not overlap. Writers store them in index order,
	// so one pass checks that (each starts at or after the previous end)
	// without memory beyond the index; only a shard stored in another
	// order is sorted (shardOverlap), and never with more than 4 bytes a
	// chunk: a shard of millions of tiny inner chunks already holds its
	// stored bytes and its index twice.
	inOrder := true
	var prevEnd uint64
	for q := range s.nInner {
		off, nb := o.Uint64(idx[q*16:]), o.Uint64(idx[q*16+8:])
		if off == emptyMarker && nb == emptyMarker {
			ForEachRow(s.shard, s.innerShape, s.origin(q, org), func(d, _, n int) {
				setFill(dst[z*d:z*(d+n)], s.inner.fill)
			})
			continue
		}
		if off > math.MaxUint64-nb || off < uint64(lo) || off+nb > uint64(hi) {
			return fmt.Errorf("shard: %w: index entry %d (offset %d, nbytes %d) points outside the shard's data [%d, %d)", ErrCorrupt, q, off, nb, lo, hi)
		}
		inOrder = inOrder && off >= prevEnd
		prevEnd = off + nb
	}
	if !inOrder {
		if err := shardOverlap(idx, s.nInner, o); err != nil {
			return err
		}
	}
	block := sc.get(s.inner.nbytes)
	for q := range s.nInner {
		off, nb := o.Uint64(idx[q*16:]), o.Uint64(idx[q*16+8:])
		if off == emptyMarker && nb == emptyMarker {
			continue
		}
		child := getScratch()
		err := s.inner.decode(child, block, enc[off:off+nb])
		child.release()
		if err != nil {
			return fmt.Errorf("inner chunk %d: %w", q, err)
		}
		ForEachRow(s.shard, s.innerShape, s.origin(q, org), func(d, b, n int) {
			copy(dst[z*d:z*(d+n)], block[z*b:z*(b+n)])
		})
	}
	return nil
}

// shardOverlap reports two inner chunks of a shard index (its n entries
// checked to lie inside the shard) whose bytes overlap, as corrupt.
func shardOverlap(idx []byte, n int, o binary.ByteOrder) error {
	span := func(q uint32) (off, end uint64) {
		off = o.Uint64(idx[q*16:])
		return off, off + o.Uint64(idx[q*16+8:])
	}
	qs := make([]uint32, 0, n)
	for q := range uint32(n) {
		if o.Uint64(idx[q*16:]) != emptyMarker || o.Uint64(idx[q*16+8:]) != emptyMarker {
			qs = append(qs, q)
		}
	}
	slices.SortFunc(qs, func(a, b uint32) int {
		ao, ae := span(a)
		bo, be := span(b)
		if ao != bo {
			return cmpU64(ao, bo)
		}
		return cmpU64(ae, be)
	})
	for i := 1; i < len(qs); i++ {
		po, pe := span(qs[i-1])
		off, end := span(qs[i])
		if off < pe {
			return fmt.Errorf("shard: %w: inner chunks %d [%d, %d) and %d [%d, %d) overlap", ErrCorrupt, qs[i-1], po, pe, qs[i], off, end)
		}
	}
	return nil
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
