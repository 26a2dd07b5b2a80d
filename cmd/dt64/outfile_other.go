//go:build !unix

package main

import "os"

// closeBeforeRename is true: some systems cannot rename an open file.
const closeBeforeRename = true

// lockTemp does nothing where there is no flock.
func lockTemp(*os.File) error { return nil }

// removeIfUnlocked cannot tell a killed write from a live one without
// flock, so it removes nothing.
func removeIfUnlocked(string) (bool, error) { return false, nil }
