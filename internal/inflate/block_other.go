//go:build purego || !amd64

package inflate

// No assembly on this platform or build: huffFast does all.

var useBMI2, availableBMI2 = false, false

func huffFastBMI2(dst, in []byte, t *tables, lk uint, pos, op int) (posOut, opOut, dist, exit int) {
	return huffFast(dst, in, t, lk, pos, op)
}
