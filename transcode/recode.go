package transcode

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/zarr"
)

// Re-encoding (StoreOptions.RecodeAll): an array that is not a time array
// gets the time arrays' compressor too, and their byte order when Endian
// asks for one. Its chunks are decoded and encoded again, values
// unchanged, one destination chunk for each
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
	order := a.ByteOrder()
	if o.Endian != nil && a.Numeric().Size > 1 {
		order = o.Endian // a byte order of one-byte elements is no order
	}
	m.Codecs = []zarr.Codec{zarr.BytesCodec{Endian: order}}
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
	c.swapUnit = a.Numeric().Size
	if a.Numeric().Kind == zarr.Complex {
		c.swapUnit /= 2 // the real and imaginary parts, each in its own order
	}
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
	order, _, err := c.srcArr.ReadChunkRaw(ctx, coords, buf)
	if err != nil {
		return err
	}
	if err := c.checkSource(ctx, k); err != nil {
		return err
	}
	c.toDestinationOrder(buf, order)
	_, err = c.dstArr.WriteChunkRaw(ctx, coords, buf)
	return err
}

// toDestinationOrder puts the elements of raw, in order, into the
// destination's byte order.
func (c *copyJob) toDestinationOrder(raw []byte, order binary.ByteOrder) {
	if c.swapUnit > 1 && order != c.dstArr.ByteOrder() {
		swapEach(raw, c.swapUnit)
	}
}

// swapEach reverses the bytes of each unit-byte element of b (0: none);
// 8-byte elements by the kernels' byte swap.
func swapEach(b []byte, unit int) {
	switch unit {
	case 2:
		for i := 0; i+2 <= len(b); i += 2 {
			binary.LittleEndian.PutUint16(b[i:], bits.ReverseBytes16(binary.LittleEndian.Uint16(b[i:])))
		}
	case 4:
		for i := 0; i+4 <= len(b); i += 4 {
			binary.LittleEndian.PutUint32(b[i:], bits.ReverseBytes32(binary.LittleEndian.Uint32(b[i:])))
		}
	case 8:
		kernels.ByteSwap(b, b) // a chunk is whole elements: no length error
	}
}

// verifyRecoded compares the decoded destination chunk of k with the
// decoded source chunk.
func (c *copyJob) verifyRecoded(ctx context.Context, k string, a, b []byte) error {
	coords, _ := c.srcArr.ChunkOf(k)
	order, _, err := c.srcArr.ReadChunkRaw(ctx, coords, a)
	if err != nil {
		return err
	}
	if _, _, err := c.dstArr.ReadChunkRaw(ctx, coords, b); err != nil {
		return fmt.Errorf("%w: chunk %s/%s: %w", ErrVerify, c.path, c.dstKey(k), err)
	}
	c.toDestinationOrder(a, order) // the source's values as the destination orders them
	if !bytes.Equal(a, b) {
		return fmt.Errorf("%w: chunk %s/%s does not decode to the source's values", ErrVerify, c.path, c.dstKey(k))
	}
	return nil
}
