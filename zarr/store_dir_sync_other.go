//go:build !linux

package zarr

import (
	"context"
	"os"
)

// syncTree makes the renames under r durable by an fsync of every
// directory. The values themselves were fsynced before their rename.
func syncTree(ctx context.Context, r *os.Root) error { return syncEveryDir(ctx, r) }

func syncData(f *os.File) error { return f.Sync() }
