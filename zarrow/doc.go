// Package zarrow bridges Zarr and Apache Arrow: it reads Zarr time arrays
// as Arrow columns and writes Arrow time columns as Zarr arrays, for
// analytics engines. It is named after what it bridges, as arrow-go's
// pqarrow is, so it imports beside arrow-go's own arrow package without
// an alias.
//
// It lives in a module of its own (github.com/zarr-dt64/dt64/zarrow), so
// that the core dt64 library does not depend on arrow-go.
//
// A numpy.datetime64 array becomes an arrow.Timestamp column (no time
// zone: NumPy's datetimes are naive), a numpy.timedelta64 array an
// arrow.Duration column, in seconds, milliseconds, microseconds or
// nanoseconds. The values are converted by dt64's kernels in the same
// pass that writes the validity bitmap: NaT becomes null. CF-encoded time
// arrays (xarray's "hours since 1900-01-01") are decoded exactly as
// package cf defines, NaT and missing values becoming null too.
//
// # Floor, not truncation
//
// A conversion to a coarser unit floors, as NumPy does: -1 ms is
// -0.001 s, which floors to -1 s. Arrow's own cast (compute.CastToType,
// and the engines that follow Arrow's rules) truncates toward zero and
// gives 0 s. Both agree on every value at or after the epoch and on
// every value that is whole in the coarser unit; they differ by one unit
// on the pre-1970 values that are not. dt64 floors, so its columns equal
// what NumPy computes from the same array.
//
// # Memory
//
// Columns are allocated with Options.Allocator (arrow-go's Go allocator
// by default). A reader that reads batch after batch, such as an export,
// does better with a Recycler shared by the reader and the writer: the
// first write to fresh memory faults each page in, which on some virtual
// machines costs more than decoding the chunk, and a Recycler hands a
// released batch's buffers to the next batch instead.
package zarrow
