package transcode

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// Verify re-reads every destination chunk of this part (of the whole
// array, for a Job with no Part) and compares it, element by
// element, with a conversion of the source made independently of the
// path that wrote it: the destination's metadata is opened afresh from
// the store and must be the plan's to the byte (damage there is caught
// too), and the source is converted on the kernels' exact reference path
// (kernels.Options.Reference), not by the fast loops or SIMD kernels that
// converted it for writing. It works on the stored chunks, so it can run
// after Run, after Finalize, or on a finished array (by a Job
// planned with the same options, with Resume set). A mismatch is a
// *VerifyError.
func (t *Job) Verify(ctx context.Context) error {
	t.progress.unitsDone.Store(0)
	t.progress.elements.Store(0)
	dst, err := t.reopenDestination(ctx)
	if err != nil {
		return err
	}
	dec, ref, err := t.referenceKernels()
	if err != nil {
		return err
	}
	g := t.geo
	return t.forEachUnit(ctx, t.lo, t.hi, func(ctx context.Context, b *buffers, u int64) error {
		origin := g.origin(u)
		_, st, convErr, err := t.readRegion(ctx, b, origin, dec)
		if err != nil {
			return err
		}
		if convErr != nil {
			return convErr
		}
		if _, err := t.convertRegion(ref, b, origin, st); err != nil {
			return err
		}
		off := make([]int64, len(origin))
		stage := b.dst(g)
		err = g.chunksIn(origin, g.dstChunk, g.dstGrid, func(c []int64) error {
			if _, _, err := dst.ReadChunkRaw(ctx, c, stage); err != nil {
				return fmt.Errorf("verifying: %w", err)
			}
			g.blockOffset(origin, g.dstChunk, c, off)
			var bad error
			zarr.ForEachRow(g.region, g.dstChunk, off, func(o, i, n int) {
				if bad != nil {
					return
				}
				want, got := b.region[8*o:8*(o+n)], stage[8*i:8*(i+n)]
				if bytes.Equal(want, got) {
					return
				}
				for j := 0; j < n; j++ {
					if !bytes.Equal(want[8*j:8*j+8], got[8*j:8*j+8]) {
						bad = t.verifyError(origin, c, o+j, i+j, got[8*j:], want[8*j:])
						return
					}
				}
			})
			return bad
		})
		if err != nil {
			return err
		}
		_, inside, _ := g.extent(origin)
		t.progress.unitsDone.Add(1)
		t.progress.elements.Add(inside)
		return nil
	})
}

// referenceKernels compiles the job's conversion again, on the kernels'
// exact reference path: a CF source's decoder (nil for datetime64), and
// what convertRegion runs (nil for a CF source to datetime64).
func (t *Job) referenceKernels() (dec, conv cfKernel, err error) {
	p := t.plan
	ko := kernels.Options{From: p.SourceOrder, To: p.DestinationOrder, Overflow: t.opts.Overflow, Exact: t.opts.Exact, Reference: true, CFFloat: t.opts.CFFloat, Calendar: t.opts.Calendar}
	if t.cf.src != nil {
		do := ko
		if t.cf.dstUnits != nil {
			do.To = dtype.NativeOrder()
		}
		d, err := kernels.NewCFDecoder(t.cf.src, t.cf.mid, do)
		if err != nil {
			return nil, nil, err
		}
		dec = d
	}
	switch {
	case t.cf.dstUnits != nil:
		eo := ko
		if t.cf.src != nil {
			eo.From = dtype.NativeOrder()
		}
		e, err := kernels.NewCFEncoder(t.cf.mid, *t.cf.dstUnits, eo)
		if err != nil {
			return nil, nil, err
		}
		conv = e
	case t.cf.src == nil:
		k, err := kernels.NewTranscoder(p.Conversion, ko)
		if err != nil {
			return nil, nil, err
		}
		conv = k
	}
	return dec, conv, nil
}

// reopenDestination opens the destination from the metadata stored in
// it, which must be the plan's: the array's own metadata, or, while parts
// are still running, the plan marker's copy of it.
func (t *Job) reopenDestination(ctx context.Context) (*zarr.Array, error) {
	_, same, err := t.storedMetadata(ctx)
	if err != nil {
		return nil, err
	}
	var store storage.Store = t.dstIO
	if !same {
		stored, err := t.storedPlan(ctx)
		if err != nil {
			return nil, err
		}
		if stored == nil || t.doc.mismatch(stored) != "" {
			return nil, fmt.Errorf("%w: %s: the destination's metadata is missing or not the plan's", ErrVerify, storage.Name(t.dstStore))
		}
		store = &docStore{Store: t.dstIO, docs: stored.Destination}
	}
	a, err := zarr.Open(ctx, store)
	if err != nil {
		return nil, fmt.Errorf("%w: reopening the destination: %w", ErrVerify, err)
	}
	return a, nil
}

// docStore is a store whose metadata documents come from docs.
type docStore struct {
	storage.Store
	docs map[string]string
}

func (s *docStore) Get(ctx context.Context, key string) ([]byte, error) {
	if isMetadataKey(key) {
		if d, ok := s.docs[key]; ok {
			return []byte(d), nil
		}
		return nil, &fs.PathError{Op: "get", Path: key, Err: fs.ErrNotExist}
	}
	return s.Store.Get(ctx, key)
}

func (t *Job) verifyError(origin, chunk []int64, regionIdx, chunkIdx int, got, want []byte) error {
	arrayIndex, _, _ := t.geo.locate(origin, regionIdx, t.geo.dstChunk)
	key, _ := t.dst.ChunkKey(chunk)
	o := t.plan.DestinationOrder
	return &VerifyError{
		Array: storage.Name(t.dstStore), Key: key, Index: chunkIdx, ArrayIndex: arrayIndex,
		Got: int64(o.Uint64(got)), Want: int64(o.Uint64(want)),
	}
}
