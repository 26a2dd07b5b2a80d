// Package sysmem tells how much memory this machine gives the process:
// enough to refuse, with an error, a buffer that could never be
// allocated, instead of the runtime's fatal "out of memory".
package sysmem

import "sync"

var total = sync.OnceValue(limit)

// Total is the memory this process can have at most, in bytes: the
// machine's physical memory, or its cgroup's limit when lower (Linux);
// 0 when unknown (other systems).
func Total() uint64 { return total() }
