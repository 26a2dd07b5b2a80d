// Package transcode is dt64's engine: it re-encodes a whole Zarr array of
// datetime64/timedelta64 values into another (unit and scale, byte order,
// codecs, sharding, Zarr format v2 or v3) without losing a value.
//
// # Plan
//
// New reads the source metadata and derives the destination's: the data
// type from Options.Unit and Scale, the byte order, the compressor (zstd,
// gzip, blosc or none, optionally followed by crc32c), sharding added (the source
// chunk becomes the inner chunk of a shard of Sharding.Chunks inner chunks
// per dimension), kept or removed (the inner chunks become the chunks), and
// the format. The fill value is the source's converted (NaT stays NaT); one
// that overflows, or is inexact in exact mode, is a plan error (ErrPlan).
//
// The unit of work is a region both chunk grids tile: one chunk when the
// grids are equal, a destination shard built from source chunks, or a
// source shard cut into destination chunks. Each unit goes store → decode
// → one fused kernel pass over the decoded buffer, in place
// (kernels.Transcoder.Run: source byte order, rescale, destination byte
// order, NaT and loss counts as by-products) → encode → store.
//
// # CF time
//
// A source that is a CF time array (xarray's encoding: numbers with units
// "<unit> since <date>", zarr.Array.CFTime) is decoded exactly
// (kernels.CFDecoder) as its chunks are read, widened in place to 8 bytes
// an element in the region buffer; the destination is a datetime64 array
// of Options.Unit or cf.Time.DefaultType, fill value NaT, without the CF
// attributes. Options.CF writes the destination CF-encoded instead
// (kernels.CFEncoder): int64 counts of Options.CFUnits, by default of the
// destination unit since 1970-01-01, with NaT as _FillValue;
// Plan.XarrayRounding says when xarray's float64 masking would round what
// was written. Plan.CF describes both. A CF duration (units "hours", …,
// without "since": cf.Units.Duration) is read and written the same way,
// to and from timedelta64.
//
// # Nothing lost
//
// Destination chunks are written by the store atomically (storage.Dir
// writes a temporary file, fsyncs it and renames it). The destination's
// metadata is written last, after every chunk, so a reader never takes a
// half-done destination for an array. While a run is in progress the
// destination holds its state (state.go): a plan marker
// (.dt64-transcode.json: source, the fingerprint of its metadata, the
// destination metadata, the overflow policy), the versions of the source
// chunks each part reads (.dt64-sources/), a marker per finished part
// (.dt64-parts/), a lease per running process (.dt64-live/, live.go)
// and, while it finalizes, the summed summary
// (.dt64-finalize.json). On a store that is a storage.Syncer every marker is
// written only after what it vouches for is durable, so the same holds
// after a machine crash (see Run).
//
// Run refuses an existing destination unless Options.Resume (the same
// plan only: ErrPlanMismatch otherwise) or Options.Overwrite is set; the
// *DestinationError says what is there and which would go on. Overwrite
// deletes only what is provably dt64's (wipe.go): an array dt64 reads, its
// chunk keys and a run's state; a group, another program's files or
// metadata that does not parse are refused before anything is deleted,
// and the deletion records its intent first, so a run killed midway is
// finished by the next. Nor does it start over while another run renews
// its lease there (ErrRunning); a run that finds its destination taken
// over all the same stops with ErrTakenOver (live.go). A finalize killed midway is finished by any later
// part, Resume or Finalize. A run killed at any moment and run again with
// Resume ends with a destination identical byte for byte to an
// uninterrupted run's: chunks are encoded deterministically, units whose
// chunks are all stored and decode are skipped, the others redone, stray
// temporary files removed. A source chunk rewritten since the run first
// read the source stops it with a *SourceChangedError (sources.go). The
// summary of a resumed run still counts the whole array: where the
// overflowed or lossy counts cannot be zero, a skipped unit's source is
// converted again (not written) to count them. The source is only read.
//
// An overflow under the error policy, a loss in exact mode (*ElementError:
// the source chunk key, the element's index in the chunk and in the array,
// the value) or an unreadable source chunk (a *zarr.ChunkError naming it)
// stops the run before the metadata is written.
//
// # Partitioned runs
//
// Options.Part = {I, N} takes units [I·U/N, (I+1)·U/N) of the U units in C
// order, so N processes on N machines share one array without talking to
// each other. Each finished part stores .dt64-parts/I-of-N.json with its
// statistics; the part that finds all N markers (or Finalize, if it died)
// writes the metadata and removes the markers and the plan. On a store
// with conditional writes (a ConditionalSetter: S3's If-None-Match) that
// part first claims the finalize, so of parts finishing at once exactly
// one writes the metadata (claim.go).
//
// # Whole stores
//
// NewStore plans a hierarchy (a group: an xarray dataset) as one run
// (store_job.go): a Job per time array, seeing its node through an
// arrayView (storage.Sub plus the root's temporary files, sync and versions
// under the node); every other array carried over by a copy (copy.go:
// chunk bytes as they are, metadata as stored or migrated to v3 as
// zarr-python 3.1 does; recode.go with StoreOptions.RecodeAll). The
// store's own state is a plan marker and part markers at the root; the
// last part writes the copies', the groups' (the root last) and the
// consolidated metadata, each synced before the next, then removes the
// state. Overwrite extends the rule above to the hierarchy
// (store_wipe.go).
//
// # Memory and concurrency
//
// Options.Workers (default runtime.NumCPU()) CPU tokens are shared by
// Options.InFlight goroutines, each working on one unit. A goroutine gives
// its token up while it waits for the store (a wrapper around the stores
// releases it around every Get and Set), so a slow store does not leave
// CPUs idle while other units have their bytes. That pays only when the
// store makes the goroutine wait: InFlight defaults to 2 × Workers, but to
// Workers when both stores are local (a directory or memory), whose I/O is
// the kernel copying to or from the page cache, CPU work that extra units
// would only compete for. An InFlight below Workers is honoured: then only
// InFlight units convert at once. Buffers come from a pool of InFlight sets and are
// reused from unit to unit, so memory is bounded: at most
//
//	InFlight × (unit buffer + one source chunk + two destination chunks
//	            + largest encoded source chunk + largest encoded destination chunk)
//
// bytes, Plan.MemoryBound (the staging buffers exist only when chunks are
// not contiguous in the unit, or for resume checks and Verify). For 8 MiB
// chunks on 2 CPUs that is about 2 × 48 MiB between directories, 4 × 48 MiB
// with a remote store.
//
// Verify re-reads every destination chunk, with the metadata reopened
// from the store, and compares it with a conversion of the source on the
// kernels' exact reference path, independent of the one that wrote it.
//
// Each unit is decoded whole and then converted in place, a second pass
// over the unit's memory. Converting each decoded Blosc block while it is
// still in cache instead was built and measured at 0.99–1.04 × the
// two-pass time (the pass is bound by arithmetic, not memory), and removed.
package transcode
