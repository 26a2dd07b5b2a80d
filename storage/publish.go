package storage

import "context"

// publishCheckKey is the context key of WithPublishCheck.
type publishCheckKey struct{}

// WithPublishCheck returns ctx carrying check, which a store that makes a
// value visible in a step of its own calls right before it: Dir, which
// writes a value to a temporary file and renames it to its key, asks it
// before the rename, which with FlushAhead comes after Set has returned.
// When check fails the value is not published (its temporary file is
// removed) and the error is Set's, or with FlushAhead the next Sync's,
// Close's or Set's. A writer whose right to write can lapse while its
// values are in flight (a transcode whose destination was taken over
// while it was stopped) gates them so. Stores whose Set is one step (an
// object store's PUT) ignore it: their Set is the check's caller's.
//
// check reads the store only with the context it is given: the flusher of
// a FlushAhead Dir calls it with one under which reads do not wait for
// values in flight (the flusher's own), where any other would wait for
// ever.
func WithPublishCheck(ctx context.Context, check func(context.Context) error) context.Context {
	return context.WithValue(ctx, publishCheckKey{}, check)
}

func publishCheckOf(ctx context.Context) func(context.Context) error {
	check, _ := ctx.Value(publishCheckKey{}).(func(context.Context) error)
	return check
}

type setNowKey struct{}

// WithSetNow returns a context under which a Dir's Set puts the value in
// place before it returns, also where FlushAhead would hand it to the
// flusher: for a value whose presence others judge at once, such as a
// run's lease. A lease left waiting in the flusher's batch while its
// process was stopped (SIGSTOP) would be renamed into place after it
// continued, bringing back a lease another run had judged stale and
// deleted; and a check that reads it would wait for the flusher, which
// may itself be waiting on that check.
func WithSetNow(ctx context.Context) context.Context {
	return context.WithValue(ctx, setNowKey{}, true)
}
