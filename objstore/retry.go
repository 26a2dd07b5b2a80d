package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"syscall"
	"time"
)

// Retry is how a store retries a request.
type Retry struct {
	// Attempts is how many times a request is tried before its error is
	// returned; 0 means 6.
	Attempts int
	// Timeout bounds each attempt, the whole response body included;
	// 0 means 60 seconds.
	Timeout time.Duration
	// Base and Max bound the backoff between attempts: attempt n waits a
	// random duration in [0, min(Max, Base·2^(n-1))) (full jitter); 0
	// means 200 ms and 10 s.
	Base, Max time.Duration
}

func (r Retry) attempts() int {
	if r.Attempts > 0 {
		return r.Attempts
	}
	return 6
}

func (r Retry) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return 60 * time.Second
}

func (r Retry) backoff(attempt int) time.Duration {
	base, ceil := r.Base, r.Max
	if base <= 0 {
		base = 200 * time.Millisecond
	}
	if ceil <= 0 {
		ceil = 10 * time.Second
	}
	d := ceil
	if attempt < 30 && base<<(attempt-1) < ceil {
		d = base << (attempt - 1)
	}
	return rand.N(d) + 1
}

// Error is a request that failed: after its last attempt, or at once for
// an answer that no retry changes (access denied, a bad request).
type Error struct {
	Store    string // the store's URL, credentials never included
	Op       string // "get", "put", "head", "delete", "list"
	Key      string // the key within the store ("" for a listing of the whole store)
	Attempts int
	Err      error
}

func (e *Error) Error() string {
	what := e.Op
	if e.Key != "" {
		what += " " + e.Key
	}
	tries := ""
	if e.Attempts > 1 {
		tries = fmt.Sprintf(" (after %d attempts)", e.Attempts)
	}
	return fmt.Sprintf("%s: %s%s: %v", e.Store, what, tries, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// errStatus is an HTTP answer that is an error; transient says a retry
// may succeed.
type errStatus struct {
	code   int
	detail string
}

func (e *errStatus) Error() string {
	if e.detail != "" {
		return fmt.Sprintf("HTTP %d: %s", e.code, e.detail)
	}
	return fmt.Sprintf("HTTP %d", e.code)
}

// transientStatus reports whether an HTTP status is worth retrying:
// throttling (429, and S3's 503 SlowDown), a timeout (408) and 5xx other
// than 501 Not Implemented.
func transientStatus(code int) bool {
	return code == 408 || code == 429 || (code >= 500 && code != 501)
}

// do runs f until it succeeds, fails for good, or runs out of attempts.
// Each attempt gets its own deadline. permanent says an error is not worth
// retrying (the store's protocol knows); every other error is: a dropped
// connection, a reset, an attempt over its time limit.
func (r Retry) do(ctx context.Context, store, op, key string, permanent func(error) bool, f func(ctx context.Context) error) error {
	n := r.attempts()
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, r.timeout())
		err := f(actx)
		timedOut := actx.Err() != nil
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return context.Cause(ctx) // the caller gave up: not the store's failure
		}
		if timedOut && !errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("attempt timed out after %v: %w", r.timeout(), err)
		}
		if permanent(err) && !timedOut {
			return &Error{Store: store, Op: op, Key: key, Attempts: attempt, Err: err}
		}
		if attempt >= n {
			return &Error{Store: store, Op: op, Key: key, Attempts: attempt, Err: err}
		}
		t := time.NewTimer(r.backoff(attempt))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		}
	}
}

// transportError reports whether err is a failure to talk to the server
// at all (refused, reset, cut short), as opposed to an answer.
func transportError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, context.DeadlineExceeded)
}
