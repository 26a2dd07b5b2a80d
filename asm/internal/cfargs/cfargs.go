// Package cfargs holds the layout the CF fast-check kernels read their
// constants from: the word offsets, in their c argument, of the fields of
// kernels.cfCheckArgs (kernels/cf_shortest.go's cc* indices, which must
// stay in this order). Both generators (asm/rescale for amd64, asm/neon
// for arm64) load by these offsets.
package cfargs

const (
	Mul     = iota // steps per stored unit, rounded
	N1             // r = f×N1 − k×N2
	N2             //
	HalfN1         // N1/2
	GapBits        // bits(|f|) − GapBits: the next stored float toward 0
	Max            // |f| < Max
	KLo            // KLo <= k <= KHi
	KHi            //
	Step           // out = k×Step + Base
	Base           //
	Miss           // the one missing value (NaN: none)
	Count
)
