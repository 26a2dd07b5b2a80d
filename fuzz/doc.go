// Package fuzz holds dt64's fuzz targets and its hostile-input suite; it has
// no code of its own, only tests.
//
// The targets (go test -fuzz, one per invocation; tools/fuzz.sh runs them
// all for a fixed budget each):
//
//   - kernels: every kernel entry point under every implementation
//     impl.Names("kernels") reports, compared with the generic one, plus the
//     Transcoder against an exact math/big reference for linear conversions;
//   - parsers: Zarr v2 and v3 metadata through zarr.Open, and NumPy dtype
//     strings through the Zarr JSON form (dtype's own targets cover each
//     parser alone);
//   - decoders: arbitrary stored bytes through every codec chain, with the
//     memory a read may allocate bounded by the chunk's size.
//
// Their seed corpora (f.Add plus testdata/fuzz/<Name>/) run in every go test.
// hostile_test.go is the hostile-input suite: ordinary tests that feed
// malicious stores and metadata to the library and check that each is refused
// with an error naming what and where, in bounded memory, without changing
// the store.
package fuzz
