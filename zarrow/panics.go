package zarrow

import "github.com/zarr-dt64/dt64/internal/panics"

// A panic on a goroutine zarrow starts (a batch read ahead, a chunk
// converted, a row group encoded) would end the process there, before
// the caller could clean up after the failed read or export (dt64 export
// removes its temporary file): each of them recovers it and hands it on
// as the error of the read or the export (internal/panics). A panic is a
// bug; the error keeps the stack for its report.

// panicked is the error for the value r recovered from a panic; call it
// in the deferred function that recovered, so that the stack is the
// panicking goroutine's.
func panicked(r any) error { return panics.Recovered(r) }

// guard runs fn on the calling goroutine, returning a panic in it as an
// error.
func guard(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = panicked(r)
		}
	}()
	return fn()
}
