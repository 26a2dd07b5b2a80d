package storage

import (
	"context"
	"os"

	"golang.org/x/sys/unix"
)

// syncTree makes everything written under r durable with one syncfs(2):
// every file's data and every rename, including those of other processes
// (an earlier, killed run whose chunks a resumed run keeps).
func syncTree(ctx context.Context, r *os.Root) error {
	f, err := r.Open(".")
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}

// syncData flushes a value's data and what is needed to read it back
// (fdatasync(2)): its timestamps can wait for the next syncfs.
func syncData(f *os.File) error { return unix.Fdatasync(int(f.Fd())) }

// syncBatch makes the data of files (written under r) durable before
// they are renamed: one syncfs for all of them.
func syncBatch(r *os.Root, files []*os.File) error { return syncTree(context.Background(), r) }
