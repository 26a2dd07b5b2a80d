module github.com/zarr-dt64/dt64

go 1.26

require (
	github.com/klauspost/compress v1.20.4
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/pierrec/lz4/v4 v4.1.33
	golang.org/x/sys v0.46.0
)
