//go:build !linux

package main

import "os"

// mapFile maps files only on Linux; elsewhere cast reads them.
func mapFile(*os.File) (source, bool) { return nil, false }
