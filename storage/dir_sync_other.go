//go:build !linux

package storage

import (
	"context"
	"os"
)

// syncTree makes the renames under r durable by an fsync of every
// directory. The values themselves were fsynced before their rename.
func syncTree(ctx context.Context, r *os.Root) error { return syncEveryDir(ctx, r) }

func syncData(f *os.File) error { return f.Sync() }

// syncBatch makes the data of files durable before they are renamed: an
// fsync of each.
func syncBatch(r *os.Root, files []*os.File) error {
	for _, f := range files {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	return nil
}
