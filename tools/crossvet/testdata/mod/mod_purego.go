//go:build purego

package mod

var puregoOnly int = "a type error only -tags purego sees"
