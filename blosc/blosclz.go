package blosc

import "fmt"

// BloscLZ is c-blosc's own LZ77 format, derived from FastLZ level 1. A
// stream is a sequence of instructions, each starting with a control byte
// (the first one has a marker in its top 3 bits, which are ignored):
//
//   - ctrl < 32: a literal run of ctrl+1 bytes follows.
//   - ctrl >= 32: a match. Its length is (ctrl>>5)+2, and when ctrl>>5 is 7
//     further bytes are added to it up to and including the first one
//     below 255. Then one byte d: the match starts (ctrl&31)<<8 + d + 1
//     bytes back. When d is 255 and ctrl&31 is 31, two more bytes (big
//     endian) give a far distance: the match starts that value + 8192
//     bytes back.
//
// Matches may overlap what they produce (a distance of 1 repeats a byte).
// The stream ends with the input.

const blosclzMaxDistance = 8191

// blosclzDecode decodes src into dst, which it must fill exactly: an
// instruction reaching before the start of dst or past its end, or a stream
// ending early, is an ErrCorrupt error.
func blosclzDecode(dst, src []byte) error {
	if len(src) == 0 {
		return fmt.Errorf("%w: empty blosclz stream", ErrCorrupt)
	}
	ip, op := 1, 0
	ctrl := int(src[0] & 31)
	for {
		if ctrl >= 32 {
			length := ctrl>>5 + 2
			if ctrl>>5 == 7 {
				for {
					if ip >= len(src) {
						return fmt.Errorf("%w: blosclz match length runs past the stream end", ErrCorrupt)
					}
					code := int(src[ip])
					ip++
					length += code
					if code != 255 {
						break
					}
					// A length this large can only overrun dst; stop
					// before the sum can overflow.
					if length > len(dst) {
						return fmt.Errorf("%w: blosclz match of %d+ bytes at output offset %d overruns the %d-byte block", ErrCorrupt, length, op, len(dst))
					}
				}
			}
			if ip >= len(src) {
				return fmt.Errorf("%w: blosclz match distance missing at stream end", ErrCorrupt)
			}
			code := int(src[ip])
			ip++
			dist := (ctrl&31)<<8 + code + 1
			if code == 255 && ctrl&31 == 31 {
				if ip+2 > len(src) {
					return fmt.Errorf("%w: blosclz far distance missing at stream end", ErrCorrupt)
				}
				dist = int(src[ip])<<8 | int(src[ip+1]) + blosclzMaxDistance + 1
				ip += 2
			}
			if dist > op {
				return fmt.Errorf("%w: blosclz match %d bytes back at output offset %d reaches before the block", ErrCorrupt, dist, op)
			}
			if length > len(dst)-op {
				return fmt.Errorf("%w: blosclz match of %d bytes at output offset %d overruns the %d-byte block", ErrCorrupt, length, op, len(dst))
			}
			from := op - dist
			if dist >= length {
				copy(dst[op:op+length], dst[from:])
			} else {
				// Overlapping: each byte may be one this match wrote.
				for k := range length {
					dst[op+k] = dst[from+k]
				}
			}
			op += length
		} else {
			n := ctrl + 1
			if n > len(src)-ip {
				return fmt.Errorf("%w: blosclz literal run of %d bytes at input offset %d is truncated", ErrCorrupt, n, ip)
			}
			if n > len(dst)-op {
				return fmt.Errorf("%w: blosclz literal run of %d bytes at output offset %d overruns the %d-byte block", ErrCorrupt, n, op, len(dst))
			}
			copy(dst[op:], src[ip:ip+n])
			ip += n
			op += n
		}
		if ip >= len(src) {
			break
		}
		ctrl = int(src[ip])
		ip++
	}
	if op != len(dst) {
		return fmt.Errorf("%w: blosclz stream decodes to %d bytes, block is %d", ErrCorrupt, op, len(dst))
	}
	return nil
}
