//go:build !linux

package sysmem

func limit() uint64 { return 0 }
