//go:build race

package fuzz

// raceEnabled: the race detector makes sync.Pool drop items at random, so
// allocation figures measured under it say nothing about the code.
const raceEnabled = true
