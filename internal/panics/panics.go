// Package panics turns a panic recovered on a worker goroutine into an
// error that keeps the panicking goroutine's stack. A panic there (a bug,
// in a codec say) would otherwise end the process before the caller could
// clean up after the failed operation (dt64 export removes its temporary
// file); returned as an error, the command reports it with its stack and
// exits 1.
package panics

import (
	"fmt"
	"runtime/debug"
)

// Error is a recovered panic.
type Error struct {
	Value any
	stack []byte
}

func (e *Error) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// PanicStack is the stack of the goroutine that panicked, as
// runtime/debug.Stack gives it.
func (e *Error) PanicStack() []byte { return e.stack }

// Recovered is the error for the value r recovered from a panic; call it
// in the deferred function that recovered, so that the stack is the
// panicking goroutine's.
func Recovered(r any) error { return &Error{Value: r, stack: debug.Stack()} }
