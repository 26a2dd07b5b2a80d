// Package objstore holds the zarr.Stores that are not a local directory:
// an S3 bucket (or any S3-compatible server) and a read-only HTTP(S)
// location. It is its own package so that the zarr package, and every
// program that only reads directories, never imports a cloud SDK.
//
// Both stores retry what a remote store may answer transiently (throttling,
// 5xx, a dropped connection, an attempt over its time limit) with
// exponential backoff and full jitter, give every attempt its own timeout,
// and name the store and the key in the error after the last attempt. No
// error or String ever holds a credential: S3 keys come from the SDK's
// standard chain and are never formatted, and URLs are printed with any
// user information redacted.
//
// Semantics the transcode engine relies on:
//
//   - one PUT per value: an object is replaced whole, atomically, so a
//     reader sees the old value or the new one, never a mix;
//   - Version is the object's ETag (a storage.Versioner);
//   - List is a prefix listing (S3 ListObjectsV2); an HTTP location
//     cannot list, and a missing key is found by its 404;
//   - SetIfAbsent is a conditional PUT (If-None-Match: *), which the
//     engine uses to let exactly one part claim the finalize.
package objstore
