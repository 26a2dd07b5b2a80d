package zarrow

import (
	"fmt"
	"runtime/debug"
)

// A panic on a goroutine zarrow starts (a batch read ahead, a chunk
// converted, a row group encoded) would end the process there, before
// the caller could clean up after the failed read or export (dt64 export
// removes its temporary file): each of them recovers it and hands it on
// as the error of the read or the export, a panicError. A panic is a bug;
// the error keeps the stack for its report.

// panicError is a panic recovered on one of zarrow's goroutines.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v", e.value) }

// PanicStack is the stack of the goroutine that panicked, as
// runtime/debug.Stack gives it.
func (e *panicError) PanicStack() []byte { return e.stack }

// panicked is the error for the value r recovered from a panic; call it
// in the deferred function that recovered, so that the stack is the
// panicking goroutine's.
func panicked(r any) error { return &panicError{value: r, stack: debug.Stack()} }

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
