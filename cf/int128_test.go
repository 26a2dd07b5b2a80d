package cf

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestDiv128 checks floorDiv128 and roundDiv128 against math/big on
// random dividends of every magnitude below 2^127, divisors from 1 to
// 2^64-1, and the edges: quotients at MaxInt64 and MinInt64+1 and one
// past them, halves, and a quotient of 2^64-1 that rounding would wrap.
func TestDiv128(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 8))
	minQ, maxQ := big.NewInt(math.MinInt64+1), big.NewInt(math.MaxInt64)
	check := func(x *big.Int, d uint64) {
		t.Helper()
		if x.BitLen() > 127 {
			return
		}
		xi := int128{hi: new(big.Int).Rsh(x, 64).Uint64(), lo: x.Uint64()}
		if x.Sign() < 0 {
			m := new(big.Int).Neg(x)
			xi = int128{hi: new(big.Int).Rsh(m, 64).Uint64(), lo: m.Uint64()}.neg()
		}
		bd := new(big.Int).SetUint64(d)
		fl, rem := new(big.Int).DivMod(x, bd, new(big.Int)) // floor: rem >= 0
		rd := new(big.Int).Set(fl)
		switch c := new(big.Int).Lsh(rem, 1).Cmp(bd); {
		case c > 0, c == 0 && fl.Bit(0) == 1:
			rd.Add(rd, big.NewInt(1))
		}
		for _, c := range []struct {
			name string
			fn   func(int128, uint64) (int64, bool, bool, bool)
			want *big.Int
		}{{"floorDiv128", floorDiv128, fl}, {"roundDiv128", roundDiv128, rd}} {
			q, lossy, ok, neg := c.fn(xi, d)
			inRange := c.want.Cmp(minQ) >= 0 && c.want.Cmp(maxQ) <= 0
			switch {
			case ok != inRange:
				t.Fatalf("%s(%v, %d): ok %v, want %v (quotient %v)", c.name, x, d, ok, inRange, c.want)
			case ok && (q != c.want.Int64() || lossy != (rem.Sign() != 0)):
				t.Fatalf("%s(%v, %d) = %d, lossy %v; want %v, %v", c.name, x, d, q, lossy, c.want, rem.Sign() != 0)
			case neg != (x.Sign() < 0):
				t.Fatalf("%s(%v, %d): negative %v", c.name, x, d, neg)
			}
		}
	}
	divisors := []uint64{1, 2, 3, 10, 1 << 32, 1<<63 - 1, 1 << 63, math.MaxUint64}
	n := 50_000
	if testing.Short() {
		n = 5000 // the edges are in every round; under emulation this is seconds
	}
	for i := range n {
		d := divisors[i%len(divisors)]
		if i%2 == 1 {
			d = r.Uint64() >> r.IntN(64)
			if d == 0 {
				d = 1
			}
		}
		x := new(big.Int).Lsh(new(big.Int).SetUint64(r.Uint64()), 64)
		x.Add(x, new(big.Int).SetUint64(r.Uint64()))
		x.Rsh(x, uint(r.IntN(128)))
		if r.IntN(2) == 0 {
			x.Neg(x)
		}
		check(x, d)
		// The edges: q × d plus a remainder of 0, 1, half and one less
		// than d, for q at and next to the ends of the range.
		bd := new(big.Int).SetUint64(d)
		for _, q := range []int64{math.MaxInt64, math.MaxInt64 - 1, math.MinInt64 + 1, math.MinInt64 + 2, math.MinInt64, 0, -1} {
			base := new(big.Int).Mul(big.NewInt(q), bd)
			for _, rem := range []uint64{0, 1, d / 2, d - d/2, d - 1} {
				check(new(big.Int).Add(base, new(big.Int).SetUint64(rem)), d)
			}
		}
		if i < 1000 { // a quotient of 2^64-1 with a remainder: rounding up must not wrap to 0
			big64 := new(big.Int).Mul(new(big.Int).SetUint64(math.MaxUint64), bd)
			check(new(big.Int).Add(big64, new(big.Int).SetUint64(d-1)), d)
		}
	}
}

// TestSarRound checks sarRound against math/big: the floor of x / 2^k
// and which quarter of [0, 1) the remainder is in, for x of every
// magnitude below 2^127 (and 0, ±1, halves) and k from 1 to 200.
func TestSarRound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 14))
	for i := range 20_000 {
		k := uint(1 + i%200)
		x := new(big.Int).Lsh(new(big.Int).SetUint64(r.Uint64()), 64)
		x.Or(x, new(big.Int).SetUint64(r.Uint64())).Rsh(x, uint(1+r.IntN(128)))
		switch i % 7 {
		case 0:
			x.SetInt64(int64(i%3) - 1) // -1, 0, 1
		case 1:
			if k < 127 {
				x.Lsh(big.NewInt(int64(r.IntN(5))+1), k-1) // whole and half multiples of 2^k
			}
		}
		if r.IntN(2) == 0 {
			x.Neg(x)
		}
		if x.BitLen() > 126 {
			continue
		}
		m := new(big.Int).Abs(x)
		xi := int128{hi: new(big.Int).Rsh(m, 64).Uint64(), lo: m.Uint64()}
		if x.Sign() < 0 {
			xi = xi.neg()
		}
		q, g := xi.sarRound(k)
		pow := new(big.Int).Lsh(big.NewInt(1), k)
		wantQ, rem := new(big.Int).DivMod(x, pow, new(big.Int)) // floor, rem >= 0
		var wantG uint64
		switch c := new(big.Int).Lsh(rem, 1).Cmp(pow); {
		case rem.Sign() == 0:
		case c < 0:
			wantG = 1
		case c == 0:
			wantG = 2
		default:
			wantG = 3
		}
		gotQ := new(big.Int).Lsh(new(big.Int).SetInt64(int64(q.hi)), 64)
		gotQ.Add(gotQ, new(big.Int).SetUint64(q.lo))
		if gotQ.Cmp(wantQ) != 0 || g != wantG {
			t.Fatalf("sarRound(%v, %d) = %v, %d; want %v, %d", x, k, gotQ, g, wantQ, wantG)
		}
	}
}
