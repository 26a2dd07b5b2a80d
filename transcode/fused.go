package transcode

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/zarr-dt64/dt64/kernels"
)

// Fused decode: the kernel converts each piece of a source chunk (a Blosc
// block, or a whole chunk for other codecs) right after it is decoded,
// while it is still in cache, instead of in a second pass over a region
// far larger than the cache (convertRegion). It needs each source chunk to
// land in one contiguous run of the region buffer (geometry.srcContig);
// other layouts are assembled row by row and take the two-pass path.
//
// The result is convertRegion's to the byte, and so are the statistics
// (the kernel is element-wise; statistics add up over pieces) and the
// errors: the first failing element in region order, because pieces are
// converted in that order and conversion stops at the first failure; and a
// source chunk that fails to decode still wins over a conversion error, as
// it does when the whole region is read before converting, because the
// remaining blocks and chunks are still read after a conversion fails.

// fusedEnabled reads DT64_FUSED, once per Transcoder: the fused decode is
// off unless DT64_FUSED=1. Measured on the development machine (AMD EPYC
// Turin VM; bench/fused_test.go) it saved nothing worth its code path: the
// second pass is bound by the kernel's arithmetic, not by memory (the
// floor-divide kernel runs at the same ~26 GB/s from L1 as from DRAM), and
// a 4 MiB chunk is still in L3 when it runs. It stays, tested against the
// two-pass path, for machines where the pass is memory-bound.
func fusedEnabled() bool { return os.Getenv("DT64_FUSED") == "1" }

// fusedError carries a conversion error out of a ChunkSink, its element
// index already made relative to the region.
type fusedError struct{ err error }

func (e *fusedError) Error() string { return e.err.Error() }

// readConverted reads the source chunks of the region at origin into
// b.region and converts them in the same pass; it returns what readRegion
// and convertRegion together return. Chunks that are not stored are
// converted (as fill) only when some other chunk of the region is stored:
// an all-missing region is not converted at all, as in doUnit.
func (t *Transcoder) readConverted(ctx context.Context, b *buffers, origin []int64) (present bool, st kernels.Stats, err error) {
	g := t.geo
	ext, inside, whole := g.extent(origin)
	// convert converts region elements [lo, hi) in place, padding first.
	convert := func(lo, hi int) error {
		if !whole {
			g.setOutsideRange(b.region, ext, t.srcFill[:], lo, hi)
		}
		piece := b.region[8*lo : 8*hi]
		s, err := t.kern.Run(piece, piece, nil)
		st.Add(s)
		if err != nil {
			return &fusedError{shiftIndex(err, lo)}
		}
		return nil
	}
	var (
		convErr error // the first conversion error
		missing []int // region offsets of chunks not stored
		covered int   // region elements [0, covered) belong to source chunks
	)
	off := make([]int64, len(origin))
	err = g.chunksIn(origin, g.srcChunk, g.srcGrid, func(c []int64) error {
		o := 0
		if !g.srcSame {
			o = g.blockOffset(origin, g.srcChunk, c, off)
		}
		buf := b.region[8*o : 8*(o+g.srcLen)]
		covered = o + g.srcLen
		var ok bool
		var err error
		if convErr == nil {
			_, ok, err = t.src.ReadChunkRawFunc(ctx, c, buf, func(pos int, piece []byte) error {
				lo := o + pos/8
				return convert(lo, lo+len(piece)/8)
			})
		} else {
			// After a conversion error only a read error can still
			// change the outcome: read the rest without converting.
			_, ok, err = t.src.ReadChunkRaw(ctx, c, buf)
		}
		var fe *fusedError
		if errors.As(err, &fe) {
			convErr, err = fe.err, nil
		}
		if err != nil {
			return fmt.Errorf("reading the source: %w", err)
		}
		if !ok {
			missing = append(missing, o)
		}
		present = present || ok
		return nil
	})
	if err != nil {
		return present, st, err
	}
	if convErr != nil {
		return present, st, t.elementError(origin, convErr)
	}
	if !present {
		return false, st, nil
	}
	// The fill value converts without error (New checked it), so when
	// these are converted does not change which error a run reports.
	// With chunks contiguous, those inside the source grid are a prefix
	// of the region; the rest of an edge region lies outside the array
	// and is converted as fill, as convertRegion does.
	for _, o := range missing {
		if err := convert(o, o+g.srcLen); err != nil {
			return present, st, t.elementError(origin, err.(*fusedError).err)
		}
	}
	if covered < g.regionLen {
		if err := convert(covered, g.regionLen); err != nil {
			return present, st, t.elementError(origin, err.(*fusedError).err)
		}
	}
	// Padding is the fill value: take its statistics back out.
	out := g.regionLen - int(inside)
	st.Elements -= out * t.fillSt.Elements
	st.NaT -= out * t.fillSt.NaT
	st.Valid -= out * t.fillSt.Valid
	st.Lossy -= out * t.fillSt.Lossy
	return present, st, nil
}

// shiftIndex returns err with the element index of a kernel error moved
// by lo (a piece's offset in the region). Other errors pass unchanged.
func shiftIndex(err error, lo int) error {
	var ke *kernels.ElementError
	if errors.As(err, &ke) {
		e := *ke
		e.Index += lo
		return &e
	}
	return err
}

// setOutsideRange is setOutside for the region elements [lo, hi) only:
// it stores fill in those of them that lie outside the array.
func (g *geometry) setOutsideRange(buf []byte, ext []int64, fill []byte, lo, hi int) {
	nd := len(ext)
	if nd == 0 || lo >= hi {
		return
	}
	rowLen := int(g.region[nd-1])
	inRow := int(ext[nd-1])
	for r := lo / rowLen; r*rowLen < hi; r++ {
		start := r * rowLen
		// A row is all padding when a leading coordinate is outside.
		from := start + inRow
		q := int64(r)
		for d := nd - 2; d >= 0; d-- {
			if q%g.region[d] >= ext[d] {
				from = start
				break
			}
			q /= g.region[d]
		}
		for i := max(from, lo); i < min(start+rowLen, hi); i++ {
			copy(buf[8*i:8*i+8], fill)
		}
	}
}
