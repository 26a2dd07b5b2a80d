//go:build unix

package main

import (
	"os"
	"syscall"
)

// closeBeforeRename is false: a temporary file is renamed while open and
// locked.
const closeBeforeRename = false

// lockTemp takes the exclusive lock that marks a temporary file as being
// written; the kernel releases it when the writer exits, however it dies.
func lockTemp(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// removeIfUnlocked removes the temporary file p if no process holds its
// lock (its writer was killed), holding the lock itself while it does.
func removeIfUnlocked(p string) (bool, error) {
	f, err := os.Open(p)
	if err != nil {
		return false, nil // gone already
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false, nil // a live write holds it
	}
	held, err1 := f.Stat()
	named, err2 := os.Lstat(p)
	if err1 != nil || err2 != nil || !os.SameFile(held, named) {
		return false, nil // renamed or replaced since we opened it
	}
	return true, os.Remove(p)
}
