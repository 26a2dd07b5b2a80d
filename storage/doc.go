// Package storage holds the key-value stores a Zarr hierarchy lives in, and
// the capabilities beyond get/set/delete/list that a store may have.
//
// Store is the small interface every store implements. Dir is a local
// directory accessed through os.Root (no key or symbolic link reaches
// outside it) with atomic writes (a temporary file, then a rename) and an
// fsync discipline the transcode engine relies on for durability; Memory
// is an in-memory store. Sub views one node of a store as a store of its
// own. Object stores (S3, HTTP) live in the separate module
// github.com/zarr-dt64/dt64/objstore, so that a program using only local
// stores does not depend on a cloud SDK.
//
// # Capabilities
//
// A store may offer more than Store: bounded reads into a caller's buffer
// (BufferGetter), byte ranges (RangeGetter, for shards), value versions
// (Versioner, VersionLister, ReadVersioner: the engine's check that a
// source did not change under it), durability (Syncer), conditional
// creation (ConditionalSetter: the engine's claim of a destination), and
// listings of what sits at each key (EntryLister, for checkers). Code asks
// for a capability with Find, never with a type assertion: Find follows
// Unwrapper, so a wrapper a user puts around a store (for logging, for
// metrics) keeps the capabilities of the store inside.
package storage
