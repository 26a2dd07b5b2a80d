// Package mod is crossvet's test input: each file below is chosen by one
// target and holds one problem only that target sees.
package mod
