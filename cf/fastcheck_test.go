package cf

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
)

// fastCheckValues are stored floats that probe the fast check: values on
// the grids it decides (whole seconds, minutes, hours, days) written as
// the nearest stored float, their neighbours one to three floats away
// (just outside or inside the interval), powers of two, zero, random
// values, values far from the reference and at the edges of Max, and
// the specials.
func fastCheckValues(r *rand.Rand, tm *Time, c FastCheck, ok bool) []float64 {
	size := tm.Stored.Size
	us := secondsPer[tm.Units.Unit]
	var out []float64
	add := func(f float64) {
		out = append(out, f)
		for d := 1; d <= 3; d++ {
			out = append(out, nextStored(f, d, size), nextStored(f, -d, size))
		}
	}
	for i := range 600 {
		// An instant in seconds from the reference: whole seconds over
		// decades, hours over centuries, sub-second values.
		var sec *big.Rat
		switch i % 6 {
		case 0:
			sec = big.NewRat(r.Int64N(2e9)-1e9, 1)
		case 1:
			sec = big.NewRat(3600*(r.Int64N(2e7)-1e7), 1)
		case 2:
			sec = big.NewRat(60*(r.Int64N(2e8)-1e8), 1)
		case 3:
			sec = big.NewRat(r.Int64N(2e12)-1e12, 1000)
		case 4:
			sec = big.NewRat(86400*(r.Int64N(4e6)-2e6), 1)
		default:
			sec = big.NewRat(r.Int64N(1<<40)-1<<39, 1)
		}
		add(nearestStored(new(big.Rat).Quo(sec, us), size))
	}
	for e := -60; e <= 60; e++ {
		add(math.Ldexp(1, e))
		add(-math.Ldexp(1, e))
	}
	for range 200 {
		add((r.Float64() - 0.5) * math.Ldexp(1, r.IntN(60)-20))
	}
	if ok {
		add(nearestStored(new(big.Rat).SetFloat64(c.Max), size))
		add(nearestStored(new(big.Rat).SetFloat64(c.Max/2), size))
		add(nearestStored(new(big.Rat).SetFloat64(-c.Max/3), size))
	}
	out = append(out, 0, math.Copysign(0, -1), math.SmallestNonzeroFloat64, 1e-300, math.Inf(1), math.Inf(-1), 1e300, -1e300)
	return out
}

// nextStored is the stored float d floats above f (below for d < 0).
func nextStored(f float64, d, size int) float64 {
	for range max(d, -d) {
		to := math.Inf(1)
		if d < 0 {
			to = math.Inf(-1)
		}
		if size == 4 {
			f = float64(math.Nextafter32(float32(f), float32(to)))
		} else {
			f = math.Nextafter(f, to)
		}
	}
	return f
}

// TestFastCheckMatchesReference: wherever the fast check decides, its
// answer is the exact rule's (Exact, never lossy), over many units,
// references, destinations and both stored types; and it decides most
// values on its grid where it has one.
func TestFastCheckMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 2))
	units := []string{"days since 1850-01-01", "hours since 1900-01-01 12:00", "seconds since 1970-01-01",
		"minutes since 1600-01-01 00:00:00 -05:30", "milliseconds since 2000-01-01", "microseconds since 1999-12-31 23:59:59",
		"days since 2019-12-31T23:59:59.5", "weeks since 2000-01-01", "days since 0001-01-01"}
	tos := []dtype.DataType{dtNs, dtUs, dtMs, dtS, dtH, dtUs10, dtAs}
	decided, planned := 0, 0
	for _, u := range units {
		for _, size := range []int{8, 4} {
			tm := mustTime(t, `{"units": "`+u+`", "calendar": "proleptic_gregorian"}`, Stored{StoredFloat, size})
			for _, to := range tos {
				d, err := NewDecoder(tm, to, dtype.OverflowError)
				if err != nil {
					t.Fatal(err)
				}
				ref, _ := NewDecoderWith(tm, to, DecoderOptions{Reference: true})
				c, ok := d.FastCheck()
				if ok {
					planned++
				}
				for _, f := range fastCheckValues(r, tm, c, ok) {
					q, yes := c.Decide(f)
					if !ok || !yes {
						continue
					}
					decided++
					q2, r2, _ := ref.DecodeFloat(f)
					if r2 != Exact || q != q2 {
						t.Fatalf("%s %s %v -> %s: fast check %d, rule %d (%v); check %+v", u, tm.Stored, f, to, q, q2, r2, c)
					}
				}
			}
		}
	}
	if planned < 40 || decided < 10000 {
		t.Errorf("the fast check was planned %d times and decided %d values: too few to test it", planned, decided)
	}
	t.Logf("planned %d times, decided %d values", planned, decided)
}

// TestFastCheckPlan: the grid each decoding gets, and the decodings that
// get none.
func TestFastCheckPlan(t *testing.T) {
	for _, c := range []struct {
		units string
		size  int
		to    dtype.DataType
		step  int64 // 0: no fast check
		n1    float64
	}{
		{"days since 1850-01-01", 8, dtNs, 1e9, 86400},
		{"days since 1850-01-01", 4, dtNs, 3600e9, 24},      // float32: whole hours
		{"hours since 1850-01-01", 4, dtS, 3600, 1},         // float32 hours: one per step
		{"milliseconds since 1970-01-01", 8, dtNs, 1e9, 1},  // 1000 stored units per step
		{"seconds since 1970-01-01", 8, dtH, 1, 1},          // only whole hours are whole destination units
		{"days since 2019-12-31T23:59:59.5", 8, dtNs, 0, 0}, // the reference is on no grid
		{"days since 2019-12-31T23:59:59.5", 8, dtMs, 0, 0}, // not even of seconds
		{"days since 1850-01-01 00:00:00.25", 8, dtS, 0, 0}, // nor a whole destination unit
		{"minutes since 1600-01-01 00:00:00 -05:30", 8, dtUs, 1e6, 60},
	} {
		tm := mustTime(t, `{"units": "`+c.units+`"}`, Stored{StoredFloat, c.size})
		d, err := NewDecoder(tm, c.to, dtype.OverflowError)
		if err != nil {
			t.Fatal(err)
		}
		fc, ok := d.FastCheck()
		if ok != (c.step != 0) || ok && (fc.Step != c.step || fc.N1 != c.n1) {
			t.Errorf("%s %s -> %s: check %+v (%v), want step %d, N1 %v", c.units, tm.Stored, c.to, fc, ok, c.step, c.n1)
		}
		exact, _ := NewDecoderWith(tm, c.to, DecoderOptions{Float: FloatExact})
		if _, ok := exact.FastCheck(); ok {
			t.Errorf("%s -> %s: a fast check under FloatExact", c.units, c.to)
		}
	}
}
