// Package cputime reads the process's CPU time, for the benchmarks: they
// report figures per CPU second besides wall-clock ones because the
// machines they run on are shared, and CPU time does not count the waits
// for a core.
package cputime

import "time"

// Process returns the process's user plus system CPU time so far, all
// threads together, or 0 where the system does not say or the call fails.
func Process() time.Duration { return process() }

// Known reports whether Process measures anything on this system: where
// it does not, it is always 0, and a figure per CPU second means nothing.
const Known = known
