package inflate

import "encoding/binary"

const (
	adlerMod = 65521
	// adlerNMax is the most bytes summed before b may overflow 32 bits
	// (zlib's NMAX): 255n(n+1)/2 + (n+1)(mod-1) ≤ 2^32-1.
	adlerNMax = 5552
)

// adler32 is the Adler-32 of p (RFC 1950 8.2), as hash/adler32 computes
// it but faster: 16 bytes per step with the modulo deferred to every
// adlerNMax bytes. Over 16 bytes p0..p15 starting from (a, b):
//
//	b' = b + 16a + 16p0 + 15p1 + ... + 1p15,  a' = a + p0 + ... + p15
//
// so each step adds 16a to b once, and the byte-weighted sum is built from
// two 8-byte words.
func adler32(p []byte) uint32 {
	a, b := uint32(1), uint32(0)
	for len(p) > 0 {
		chunk := p
		if len(chunk) > adlerNMax/16*16 {
			chunk = chunk[:adlerNMax/16*16]
		}
		p = p[len(chunk):]
		for len(chunk) >= 16 {
			// b gains 16 times a before the block; within the block,
			// byte i (0-based) is counted 16-i times.
			b += a << 4
			w0 := binary.LittleEndian.Uint64(chunk)
			w1 := binary.LittleEndian.Uint64(chunk[8:])
			s, ws := sumWeighted(w0)
			t, wt := sumWeighted(w1)
			// Bytes of w0 carry weights 16..9: 8 more than the 8..1
			// sumWeighted applies.
			b += ws + 8*s + wt
			a += s + t
			chunk = chunk[16:]
		}
		for _, c := range chunk {
			a += uint32(c)
			b += a
		}
		a %= adlerMod
		b %= adlerMod
	}
	return b<<16 | a
}

// sumWeighted returns the sum of the 8 bytes of w (little endian: byte 0
// first) and their sum weighted 8, 7, ..., 1 from byte 0 on.
func sumWeighted(w uint64) (sum, weighted uint32) {
	// Pairwise sums in 16-bit lanes, then 32 and 64: the byte sum.
	const m8 = 0x00ff00ff00ff00ff
	even := w & m8
	odd := (w >> 8) & m8
	s16 := even + odd // 4 lanes of byte pairs, each ≤ 510
	s := (s16 * 0x0001000100010001) >> 48
	// Weighted: byte 2k has weight 8-2k, byte 2k+1 weight 7-2k. Sum
	// over pairs: (7-2k)*(even_k+odd_k) + even_k, i.e. lane weights
	// 7, 5, 3, 1 on s16 plus the plain sum of the even bytes.
	l0 := s16 & 0xffff
	l1 := (s16 >> 16) & 0xffff
	l2 := (s16 >> 32) & 0xffff
	l3 := s16 >> 48
	e := (even * 0x0001000100010001) >> 48
	weighted = uint32(7*l0+5*l1+3*l2+l3) + uint32(e)
	return uint32(s), weighted
}
