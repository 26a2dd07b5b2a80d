package transcode

import (
	"bytes"
	"context"
	"fmt"

	"github.com/zarr-dt64/dt64/zarr"
)

// Re-encoding (StoreOptions.RecodeAll): an array that is not a time array
// gets the time arrays' compressor too. Its chunks are decoded and encoded
// again, byte order and values unchanged, one destination chunk for each
// source chunk (empty ones too), so that on resume a chunk the
// destination holds is done, as for a copy.

// planRecode makes c re-encode a, the source array, with o's compressor.
func (c *copyJob) planRecode(ctx context.Context, a *zarr.Array, format int, o Options) error {
	if a == nil {
		return fmt.Errorf("%w: the array does not open, so it cannot be re-encoded", zarr.ErrUnsupported)
	}
	if o.Compression == nil {
		return planErr("re-encoding every array needs a compressor to re-encode them with")
	}
	sm := a.Metadata()
	m := sm.Clone()
	m.Format = format
	m.Codecs = []zarr.Codec{zarr.BytesCodec{Endian: a.ByteOrder()}}
	if o.Compression.Codec != nil {
		m.Codecs = append(m.Codecs, o.Compression.Codec)
	}
	if o.CRC32C && format == 3 {
		m.Codecs = append(m.Codecs, zarr.CRC32CCodec{})
	}
	if format == 3 && m.FillNull {
		// xarray's null fill for integers and bools: dt64 reads missing
		// chunks as zero bits, and v3 has no null fill.
		m.FillNull = false
	}
	if format != sm.Format {
		m.KeyEncoding = zarr.KeyEncoding{}
		m.Extensions = nil
		translateDimensions(&m, sm.Format, format)
		if format == 3 && len(m.Attributes) == 0 {
			m.Attributes = nil
		}
	}
	dst, err := zarr.Create(ctx, c.dst, m)
	if err != nil {
		return fmt.Errorf("%w: destination metadata: %w", ErrPlan, err)
	}
	dst.SetWriteEmptyChunks(true)
	docs, err := metadataDocs(ctx, dst.Metadata())
	if err != nil {
		return err
	}
	c.docs = c.docs[:0]
	for _, k := range metadataKeys {
		if d, ok := docs[k]; ok {
			c.docs = append(c.docs, keyDoc{k, []byte(d)})
		}
	}
	src, err := zarr.Open(ctx, c.src) // through the counting view
	if err != nil {
		return err
	}
	c.action, c.srcArr, c.dstArr = "recode", src, dst
	c.maxChunk = int64(a.ChunkBytes()) + int64(a.MaxEncodedSize()) + int64(dst.MaxEncodedSize())
	return nil
}

// dstKey is the destination key of source chunk key k.
func (c *copyJob) dstKey(k string) string {
	if r, ok := c.dst.(*renamedChunks); ok {
		return r.toDst(k)
	}
	if c.dstArr == nil {
		return k
	}
	coords, _ := c.srcArr.ChunkOf(k)
	dk, _ := c.dstArr.ChunkKey(coords)
	return dk
}

// srcKey is the source key of destination chunk key k ("" when k is no
// chunk key of the destination).
func (c *copyJob) srcKey(k string) string {
	if r, ok := c.dst.(*renamedChunks); ok {
		return r.toSrc(k)
	}
	if c.dstArr == nil {
		return k
	}
	coords, ok := c.dstArr.ChunkOf(k)
	if !ok {
		return ""
	}
	sk, _ := c.srcArr.ChunkKey(coords)
	return sk
}

// recodeChunk decodes source chunk k into buf and writes it encoded anew.
func (c *copyJob) recodeChunk(ctx context.Context, k string, buf []byte) error {
	coords, _ := c.srcArr.ChunkOf(k)
	if _, _, err := c.srcArr.ReadChunkRaw(ctx, coords, buf); err != nil {
		return err
	}
	if err := c.checkSource(ctx, k); err != nil {
		return err
	}
	_, err := c.dstArr.WriteChunkRaw(ctx, coords, buf)
	return err
}

// verifyRecoded compares the decoded destination chunk of k with the
// decoded source chunk.
func (c *copyJob) verifyRecoded(ctx context.Context, k string, a, b []byte) error {
	coords, _ := c.srcArr.ChunkOf(k)
	if _, _, err := c.srcArr.ReadChunkRaw(ctx, coords, a); err != nil {
		return err
	}
	if _, _, err := c.dstArr.ReadChunkRaw(ctx, coords, b); err != nil {
		return fmt.Errorf("%w: chunk %s/%s: %w", ErrVerify, c.path, c.dstKey(k), err)
	}
	if !bytes.Equal(a, b) {
		return fmt.Errorf("%w: chunk %s/%s does not decode to the source's values", ErrVerify, c.path, c.dstKey(k))
	}
	return nil
}
