//go:build !linux

package main

import "os"

// mapFile maps files only on Linux; elsewhere cast reads them.
func mapFile(*os.File) (source, bool) { return nil, false }

// preallocate reserves disk space only on Linux.
func preallocate(*os.File, int64) error { return nil }
