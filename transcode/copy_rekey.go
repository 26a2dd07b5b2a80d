package transcode

import (
	"context"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// A copied array whose destination names its chunks otherwise than the
// source (a v3 array with "default" keys, "c/0/1", written as v2, "0/1")
// gets its chunk bytes as they are, under the destination's names. The
// copy's destination view (copyJob.dst) renames the keys, so everything
// that reads or writes a chunk through it by its source key (the copy
// itself, verify) reaches the destination's key; dstKey and srcKey map
// keys for what looks at the destination's own listing (resume, the
// temporary files of a part).

// renamedChunks is a store under which the source's chunk keys of an
// array are the destination's: any other key (metadata, dt64's state, a
// destination chunk key) passes through unchanged.
type renamedChunks struct {
	storage.Store
	src, dst zarr.KeyEncoding
	ndim     int
}

// withRenamedChunks is dst, renaming the chunk keys of an ndim-dimensional
// array from src's encoding to dstEnc's; dst itself when they are the same.
func withRenamedChunks(dst storage.Store, src, dstEnc zarr.KeyEncoding, ndim int) storage.Store {
	if src == dstEnc {
		return dst
	}
	return &renamedChunks{Store: dst, src: src, dst: dstEnc, ndim: ndim}
}

// toDst is the destination key of k: k's own when it is no source chunk
// key.
func (r *renamedChunks) toDst(k string) string {
	if coords, ok := r.src.Parse(k, r.ndim); ok {
		return r.dst.Key(coords)
	}
	return k
}

// toSrc is the source key of destination chunk key k, or "" when k is none.
func (r *renamedChunks) toSrc(k string) string {
	if coords, ok := r.dst.Parse(k, r.ndim); ok {
		return r.src.Key(coords)
	}
	return ""
}

func (r *renamedChunks) Unwrap() storage.Store { return r.Store }

func (r *renamedChunks) String() string { return storage.Name(r.Store) }

func (r *renamedChunks) Get(ctx context.Context, key string) ([]byte, error) {
	return r.Store.Get(ctx, r.toDst(key))
}

// GetInto keeps pooled reads (embedding hides the method).
func (r *renamedChunks) GetInto(ctx context.Context, key string, buf []byte, limit int) ([]byte, error) {
	return storage.GetInto(ctx, r.Store, r.toDst(key), buf, limit)
}

func (r *renamedChunks) Set(ctx context.Context, key string, value []byte) error {
	return r.Store.Set(ctx, r.toDst(key), value)
}

func (r *renamedChunks) Delete(ctx context.Context, key string) error {
	return r.Store.Delete(ctx, r.toDst(key))
}
