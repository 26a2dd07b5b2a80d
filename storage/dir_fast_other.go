//go:build !linux

package storage

import (
	"context"
	"os"
)

// Outside Linux there is no direct path (store_dir_fast_linux.go): every
// call goes through os.Root.

func openDirect(dir string) int { return -1 }
func closeDirect(fd int)        {}

func (d *Dir) getDirect(key string, buf []byte, limit int) ([]byte, bool, error) {
	return nil, false, nil
}
func (d *Dir) versionDirect(key string) (string, bool, error)      { return "", false, nil }
func (d *Dir) createDirect(r *os.Root, t *tempValue) (bool, error) { return false, nil }

// Never called: a tempValue has a directory descriptor only on the
// direct path.
func (t *tempValue) renameDirect() error        { return nil }
func (t *tempValue) removeDirect()              {}
func (t *tempValue) closeDir()                  {}
func (t *tempValue) existsDirect() bool         { return true }
func (t *tempValue) writeDirect(b []byte) error { return nil }
func (t *tempValue) syncDirect() error          { return nil }
func (t *tempValue) closeFileDirect() error     { return nil }

func (d *Dir) walkDirect(ctx context.Context, start string, f func(p string, e walkEntry) error) (bool, error) {
	return false, nil
}
func (e walkEntry) versionDirect() (string, bool, error) { return "", false, nil }
