// Package zarr reads and writes Zarr arrays of numpy.datetime64 and
// numpy.timedelta64 values, chunk by chunk, for the dt64 transcode engine
// and for analytics engines that decode time columns. Arrays of the
// numeric core types (bool, int8…uint64, float16…float64, complex64,
// complex128) open as well, as far as dt64 needs them: their metadata, and
// their chunks as bytes (Metadata.Numeric, NumericType.Bits); dt64's time
// semantics apply only to time arrays, native or CF (Array.CFTime gives
// the cf package's description of a CF-encoded one).
//
// # Formats
//
// Open detects the format: Zarr v3 (zarr.json, data types
// numpy.datetime64/numpy.timedelta64) or Zarr v2 (.zarray with a NumPy
// dtype such as "<M8[10us]" or ">m8[ns]", plus .zattrs). Both are described
// by one Metadata value; a v2 array's compressor appears as the equivalent
// v3 codec chain (bytes with the dtype's byte order, then zstd, zlib,
// gzip or blosc). Fields dt64 does not interpret — attributes, dimension names,
// .zattrs, v3 extensions marked "must_understand": false — are written back
// byte for byte. Any other unknown field, codec or storage transformer is
// an error naming the file and field (a *MetadataError); codecs that exist
// but are not implemented yet (lz4, bz2) wrap ErrUnsupported.
//
// # Codecs
//
// transpose (array→array); bytes and sharding_indexed (array→bytes; index
// at the start or end, nested sharding allowed); zstd, gzip, blosc, crc32c
// (bytes→bytes), and zlib for v2. blosc reads every c-blosc 1.x frame and
// writes lz4, lz4hc, zstd, zlib or snappy ones. zstd frames are written with their
// content size, which numcodecs before 0.13 requires, and read with or
// without it. No decoder produces more than the chunk can hold: a zstd or
// gzip bomb, a frame declaring a larger size, a stored chunk larger than
// any valid encoding (MaxEncodedSize), a shard index pointing outside its
// shard or at overlapping bytes are errors (wrapping ErrTooLarge,
// ErrCorrupt or ErrChecksum), never panics. Reading a chunk allocates at
// most (c + 1) × MaxEncodedSize + 256 KiB, c the number of codecs in its
// chain (those inside sharding counted).
//
// # Chunks
//
// A chunk is the unit of work. ReadChunk decodes one into caller-owned
// native int64 values (time arrays only); ReadChunkRaw leaves the
// elements (8 bytes for time types, ElementSize for any) in their stored
// byte order (returned), so a transcoding kernel can swap bytes in the
// same pass that converts units. ReadChunkFunc hands those bytes to a
// caller's pass in pieces instead, read from the stored value itself when
// the codecs only store them (no compressor, or zstd frames of raw
// blocks, which dt64 reads without klauspost's decoder), so that a
// conversion reads them once. Buffers inside the codecs come from
// pools, so a worker reading chunk after chunk allocates nothing
// proportional to the chunk size once warm. Chunks not in the store read
// as the fill value; WriteChunk does not store chunks that are entirely the
// fill value (SetWriteEmptyChunks changes that) and deletes a stored one,
// as zarr-python does. WriteChunkRaw takes a chunk already in the stored
// byte order, hands it to the codecs without copying it, pads it in place
// and reports whether it stored it. Edge chunks are stored at full size, the part
// outside the array set to the fill value. Failures are *ChunkError values
// naming the array and the chunk key. Grid (Array.Grid) is the chunk
// grid's geometry, the one place dt64 computes it: edge extents, the runs
// of a chunk inside the array, padding, rows of a block in a larger
// buffer, chunk indexes; KeyEncoding formats and parses chunk keys.
//
// Zarr v2 arrays with "fill_value": null have no fill value: zarr-python
// 2.13 returns uninitialized memory for their missing chunks. dt64 reads
// them as NaT (Metadata.FillNull records the null, which is written back).
//
// # Hierarchies
//
// A dataset is a group of arrays and subgroups: v3 zarr.json with
// "node_type": "group", or v2 .zgroup with .zattrs. Walk lists the store
// once (never once per node) and returns every node, the root first, then
// depth first by name ("", "lat", "sub", "sub/stamp"), each with its kind,
// format, metadata documents as stored, attributes and a few parsed fields
// (shape, chunk shape, data type name, dimension names), so a planner can
// pick its time arrays without opening the others. Walk does not go into
// arrays (chunk keys are not nodes). A zarr.json next to a .zarray or
// .zgroup, or a node of the other format than its hierarchy, is a
// *HierarchyError wrapping ErrConflict naming the node; a document that
// does not parse is a *MetadataError naming it. OpenGroup opens the root
// group alone; Sub(store, "sub/stamp") is the store seen from a node, so
// Open opens an array inside a hierarchy.
//
// Consolidated metadata lists every node's documents in one: v2 .zmetadata
// as zarr-python 2 and xarray write it, v3 "consolidated_metadata" (kind
// "inline") in the root zarr.json as zarr-python 3.1 writes it.
// ReadConsolidated reads either into the nodes Walk would return, without
// listing; documents are bounded at 64 MiB and member names that could
// leave the store are refused. ConsolidatedDocument builds the document
// byte for byte as zarr-python does for the same node documents, and
// WriteConsolidated walks the store and writes it: call it last, after
// every node's metadata, since readers trust it.
//
// # Stores
//
// An array or group lives in a storage.Store (package storage): a local
// directory (storage.NewDir), memory (storage.NewMemory), or an object
// store (module github.com/zarr-dt64/dt64/objstore). Metadata is written
// only by WriteMetadata, so an engine can write it last and readers never
// take a half-written array for a complete one.
package zarr
