package cf

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
)

var (
	dtUs = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Microsecond, Scale: 1}
	dtMs = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Millisecond, Scale: 1}
	dtH  = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Hour, Scale: 1}
)

// nearestStored is the stored float nearest x (round half to even), as
// a float64 value.
func nearestStored(x *big.Rat, size int) float64 {
	if size == 4 {
		f, _ := x.Float32()
		return float64(f)
	}
	f, _ := x.Float64()
	return f
}

// instantOf is the instant q counts of to stand for, in seconds.
func instantOf(t *testing.T, q int64, to dtype.DataType) *big.Rat {
	ds, err := unitSeconds(to)
	if err != nil {
		t.Fatal(err)
	}
	return new(big.Rat).Mul(new(big.Rat).SetInt64(q), ds)
}

// storedFor is the stored number nearest instant (seconds) in tm's units.
func storedFor(tm *Time, instant *big.Rat) float64 {
	x := new(big.Rat).Sub(instant, tm.Units.Reference)
	x.Quo(x, secondsPer[tm.Units.Unit])
	return nearestStored(x, tm.Stored.Size)
}

// TestShortestGenerated: instants on generated grids (hourly, 15-minute,
// minute, second, 100 ms; near the reference and far from it), written
// as the nearest float64 or float32 in several units, decode to the
// written instant at every destination unit on that grid whenever the
// float's interval is narrower than the coarsest grid of the rule's
// ladder the instant is on (it is then the only point of that grid, or a
// coarser one, inside), and always to an instant whose nearest float is
// the stored one (a round trip gives the same bits).
func TestShortestGenerated(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 25))
	checked, unique := 0, 0
	for _, units := range []string{"days since 2000-01-01", "hours since 1970-01-01 00:00:00", "seconds since 1900-01-01", "days since 1850-01-01 12:00", "minutes since 2020-06-01T00:00:00.5", "days", "hours"} {
		for _, size := range []int{8, 4} {
			tm := mustTime(t, `{"units": "`+units+`"}`, Stored{StoredFloat, size})
			for _, step := range []*big.Rat{big.NewRat(3600, 1), big.NewRat(900, 1), big.NewRat(60, 1), big.NewRat(1, 1), big.NewRat(1, 10)} {
				for _, to := range []dtype.DataType{dtNs, dtUs, dtMs, dtS, dtH} {
					to.Kind = tm.Units.Kind()
					toSec, _ := unitSeconds(to)
					if new(big.Rat).Quo(step, toSec).IsInt() == false {
						continue // the grid is finer than the destination
					}
					d, err := NewDecoder(tm, to, dtype.OverflowError)
					if err != nil {
						t.Fatal(err)
					}
					ref := new(big.Rat).Set(tm.Units.Reference)
					for _, far := range []int64{1, 365 * 150, -365 * 60} {
						start := new(big.Rat).Add(ref, big.NewRat(far*86400, 1))
						// to the grid
						n := new(big.Rat).Quo(start, step)
						start = new(big.Rat).Mul(new(big.Rat).SetInt(new(big.Int).Quo(n.Num(), n.Denom())), step)
						for range 40 {
							inst := new(big.Rat).Add(start, new(big.Rat).Mul(big.NewRat(r.Int64N(100000), 1), step))
							f := storedFor(tm, inst)
							q, res, _ := d.DecodeFloat(f)
							if res == Overflow {
								t.Fatalf("%s %s %v -> %s: overflow", units, tm.Stored, f, to)
							}
							got := instantOf(t, q, to)
							checked++
							width := new(big.Rat).Mul(ulpOf(f, size), secondsPer[tm.Units.Unit])
							if width.Cmp(secondGrids[coarsest(inst)]) < 0 {
								unique++
								if got.Cmp(inst) != 0 || res != Exact {
									t.Errorf("%s %s %v -> %s: %s (%v), want the written %s", units, tm.Stored, f, to, FormatInstant(got), res, FormatInstant(inst))
								}
							}
							if res == Exact && math.Float64bits(storedFor(tm, got)) != math.Float64bits(f) {
								t.Errorf("%s %s %v -> %s: %s does not round-trip (%v)", units, tm.Stored, f, to, FormatInstant(got), storedFor(tm, got))
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d values, %d with one grid point", checked, unique)
}

// coarsest is the index in secondGrids of the coarsest grid instant
// (seconds) is on, len(secondGrids) if none.
func coarsest(instant *big.Rat) int {
	for i, g := range secondGrids {
		if new(big.Rat).Quo(instant, g).IsInt() {
			return i
		}
	}
	return len(secondGrids)
}

// ulpOf is the spacing of the stored floats at f.
func ulpOf(f float64, size int) *big.Rat {
	var next float64
	if size == 4 {
		next = float64(math.Nextafter32(float32(math.Abs(f)), float32(math.Inf(1))))
	} else {
		next = math.Nextafter(math.Abs(f), math.Inf(1))
	}
	return new(big.Rat).Sub(new(big.Rat).SetFloat64(next), new(big.Rat).SetFloat64(math.Abs(f)))
}

// TestShortestFastMatchesReference: the integer ladder (and its
// whole-second check), the ladder in ns for coarser units (planFine) and
// the rounding where no grid has a point inside (roundExact) give the
// exact search's answer wherever they decide, over values on grids and
// random ones, float64 and float32, near and far from the reference,
// with fractions of a second and narrower than a nanosecond; each path
// must decide some.
func TestShortestFastMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 1))
	fast, rounded, roundedTiny := 0, 0, 0
	fine := map[dtype.Unit]int{} // decided by the ladder in that unit
	perCombination := 900        // values per units, float type and destination
	if testing.Short() {
		perCombination = 270 // every value class 30 times
	}
	for _, units := range []string{"days since 2000-01-01", "hours since 1900-01-01 12:00", "seconds since 1970-01-01", "days since 2019-12-31T23:59:59.5", "minutes since 1600-01-01 00:00:00 -05:30", "nanoseconds since 2000-01-01", "microseconds since 1970-01-01 00:00:00.5"} {
		for _, size := range []int{8, 4} {
			tm := mustTime(t, `{"units": "`+units+`", "calendar": "proleptic_gregorian"}`, Stored{StoredFloat, size})
			for _, to := range []dtype.DataType{dtNs, dtUs, dtMs, dtS, dtH, {Kind: dtype.Datetime, Unit: dtype.Microsecond, Scale: 10}, {Kind: dtype.Datetime, Unit: dtype.Day, Scale: 1}, {Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 100}, {Kind: dtype.Datetime, Unit: dtype.Picosecond, Scale: 1}} {
				d, _ := NewDecoder(tm, to, dtype.OverflowError)
				ref, _ := NewDecoderWith(tm, to, DecoderOptions{Reference: true})
				for i := range perCombination {
					var f float64
					switch i % 10 {
					case 9:
						// Whole numbers beyond 2^52 (float32: 2^23), e >= 0:
						// xarray's float64 "nanoseconds since" more than 52
						// days from the reference.
						f = float64(int64(1)<<52+r.Int64N(1<<62)) * float64(1-2*r.IntN(2)) / float64(int64(1)<<r.IntN(30))
					case 0:
						f = float64(r.Int64N(1e6)) / 24 // hourly in days
					case 1:
						f = float64(r.Int64N(1e9)-5e8) / 1440
					case 2:
						f = (r.Float64() - 0.5) * 1e6
					case 3:
						f = float64(r.Int64N(1e5)) + 0.5
					case 4:
						f = (r.Float64() - 0.5) * 6e4 // fractions of a second, within ns's range
					case 5:
						f = (r.Float64() - 0.5) * 200 // intervals narrower than 1 ns in float64
					case 6:
						f = (r.Float64() - 0.5) * math.Ldexp(1, 20+r.IntN(12)) // beyond ns's range, and µs's
					case 7:
						f = r.Float64() * math.Ldexp(1, -r.IntN(40))
					default:
						// Far below 1 (2^-12 to 2^-1000): m × 2^e with
						// e <= -64, which roundExact shifts down.
						f = (r.Float64() - 0.5) * math.Ldexp(1, -12-r.IntN(988))
					}
					f = nearestStored(new(big.Rat).SetFloat64(f), size)
					q1, r1, n1 := d.DecodeFloat(f)
					q2, r2, n2 := ref.DecodeFloat(f)
					if q1 != q2 || r1 != r2 || n1 != n2 {
						t.Errorf("%s %s %v -> %s: fast %d %v %v, reference %d %v %v", units, tm.Stored, f, to, q1, r1, n1, q2, r2, n2)
					}
					_, ok, none := d.ladder(f)
					if ok {
						fast++
					}
					for _, fd := range d.fines {
						_, ok, none = fd.d.ladder(f)
						if ok {
							fine[fd.d.to.Unit]++
							break
						}
						if none {
							break
						}
					}
					if none {
						if _, _, _, ok := d.roundExact(f); ok {
							rounded++
							if _, _, e := splitOdd(f); e <= -64 {
								roundedTiny++
							}
						}
					}
				}
			}
		}
	}
	ns, us, ms := fine[dtype.Nanosecond], fine[dtype.Microsecond], fine[dtype.Millisecond]
	if fast == 0 || ns == 0 || us == 0 || ms == 0 || rounded == 0 || roundedTiny == 0 {
		t.Errorf("a path never decided: the ladder %d values, the ladders in ns, µs and ms %d, %d and %d, the rounding %d (%d of them 2^-64 or finer)", fast, ns, us, ms, rounded, roundedTiny)
	}
	t.Logf("the integer ladder decided %d values, the ladders in ns, µs and ms %d, %d and %d, the rounding %d (%d of them 2^-64 or finer)", fast, ns, us, ms, rounded, roundedTiny)
}

// TestShortestExamples: the examples, and the exact rule's
// answers for them.
func TestShortestExamples(t *testing.T) {
	for _, c := range []struct {
		units string
		size  int
		v     float64
		to    dtype.DataType
		want  string
		exact string // under FloatExact
	}{
		{"days since 2000-01-01", 8, 1.0 / 24, dtNs, "2000-01-01T01:00:00", "2000-01-01T00:59:59.999999999"},
		{"days since 2000-01-01", 8, 1.0 / 24, dtS, "2000-01-01T01:00:00", "2000-01-01T00:59:59"},
		{"days since 2000-01-01", 4, float64(float32(19.0 / 24)), dtUs, "2000-01-01T19:00:00", "2000-01-01T19:00:00.001716"}, // cftime: .001717, rounded
		{"days since 2000-01-01", 8, 1.0 / 3, dtNs, "2000-01-01T08:00:00", "2000-01-01T07:59:59.999999999"},
		{"seconds since 2000-01-01", 8, 0.1, dtNs, "2000-01-01T00:00:00.1", "2000-01-01T00:00:00.1"},
		{"seconds since 2000-01-01", 8, 1.5, dtS, "2000-01-01T00:00:02", "2000-01-01T00:00:01"}, // half to even
		{"seconds since 2000-01-01", 8, 2.5, dtS, "2000-01-01T00:00:02", "2000-01-01T00:00:02"},
		{"days since 2000-01-01", 8, 0, dtNs, "2000-01-01T00:00:00", "2000-01-01T00:00:00"},
		{"days since 2000-01-01", 8, -1.0 / 24, dtNs, "1999-12-31T23:00:00", "1999-12-31T23:00:00"},
		// No grid has a point inside these intervals (narrower than 1 ns
		// around a half): the exact value rounded, a half to the even ns.
		{"nanoseconds since 2000-01-01", 8, 2.5, dtNs, "2000-01-01T00:00:00.000000002", "2000-01-01T00:00:00.000000002"},
		{"nanoseconds since 2000-01-01", 8, 3.5, dtNs, "2000-01-01T00:00:00.000000004", "2000-01-01T00:00:00.000000003"},
		{"nanoseconds since 2000-01-01", 8, -2.5, dtNs, "1999-12-31T23:59:59.999999998", "1999-12-31T23:59:59.999999997"},
		// A float with a fraction of a second decoded to seconds: its
		// grid point in ns (0.25 s, on the 10 ms grid), rounded to the
		// second.
		{"days since 2000-01-01", 8, 1.25 / 86400, dtS, "2000-01-01T00:00:01", "2000-01-01T00:00:01"},
	} {
		tm := mustTime(t, `{"units": "`+c.units+`"}`, Stored{StoredFloat, c.size})
		for _, rule := range []FloatRule{FloatShortest, FloatExact} {
			d, err := NewDecoderWith(tm, c.to, DecoderOptions{Float: rule})
			if err != nil {
				t.Fatal(err)
			}
			q, _, _ := d.DecodeFloat(c.v)
			got, want := FormatInstant(instantOf(t, q, c.to)), c.want
			if rule == FloatExact {
				want = c.exact
			}
			if got != want {
				t.Errorf("%s %v %s -> %s (%s): %s, want %s", c.units, c.v, Stored{StoredFloat, c.size}, c.to, rule, got, want)
			}
		}
	}
}

// TestShortestAgainstCftime: cftime.num2date (the exact value rounded to
// microseconds) agrees with FloatShortest at µs wherever its answer is
// not float noise, that is, on a grid as coarse as dt64's; where it is
// finer (float32 keeps its noise: 19:00:00.001717), dt64's instant is
// coarser and still inside the float's interval (it round-trips).
func TestShortestAgainstCftime(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	type sample struct {
		units string
		size  int
		v     float64
	}
	var samples []sample
	for _, units := range []string{"days since 2000-01-01", "hours since 1900-01-01 00:00:00", "days since 1970-01-01", "minutes since 2010-01-01 06:00"} {
		for _, size := range []int{8, 4} {
			for i := range 60 {
				var x float64
				switch i % 3 {
				case 0:
					x = float64(r.Int64N(24*20000)) / 24 // hourly, in days
				case 1:
					x = float64(r.Int64N(96*300)) / 96 // 15 minutes
				default:
					x = float64(r.Int64N(1440*50)) / 1440 // minutes
				}
				if strings.HasPrefix(units, "hours") {
					x *= 24
				} else if strings.HasPrefix(units, "minutes") {
					x *= 1440
				}
				samples = append(samples, sample{units, size, nearestStored(new(big.Rat).SetFloat64(x), size)})
			}
		}
	}
	var in strings.Builder
	for _, s := range samples {
		fmt.Fprintf(&in, "%s|%s\n", s.units, strconv.FormatFloat(s.v, 'g', -1, 64))
	}
	script := `
import sys, cftime, datetime
for line in sys.stdin:
    u, v = line.rstrip("\n").split("|")
    d = cftime.num2date(float(v), u, "proleptic_gregorian", only_use_cftime_datetimes=False)
    e = d - datetime.datetime(1970, 1, 1)
    print((e.days * 86400 + e.seconds) * 1000000 + e.microseconds)
`
	cmd := exec.Command("/usr/bin/python3", "-c", script)
	cmd.Stdin = strings.NewReader(in.String())
	out, err := cmd.CombinedOutput()
	if err != nil {
		if testing.Short() {
			t.Skipf("cftime (python3-cftime): %v", err)
		}
		t.Fatalf("cftime (python3-cftime): %v\n%s", err, out)
	}
	lines := strings.Fields(string(out))
	if len(lines) != len(samples) {
		t.Fatalf("%d answers for %d samples:\n%s", len(lines), len(samples), out)
	}
	same, noise := 0, 0
	for i, s := range samples {
		want, _ := strconv.ParseInt(lines[i], 10, 64)
		tm := mustTime(t, `{"units": "`+s.units+`", "calendar": "proleptic_gregorian"}`, Stored{StoredFloat, s.size})
		d, _ := NewDecoder(tm, dtUs, dtype.OverflowError)
		got, res, _ := d.DecodeFloat(s.v)
		gi, wi := coarsest(big.NewRat(got, 1e6)), coarsest(big.NewRat(want, 1e6))
		if res == Exact && math.Float64bits(storedFor(tm, big.NewRat(got, 1e6))) != math.Float64bits(s.v) {
			t.Errorf("%s %s %v: dt64's %d µs does not round-trip", s.units, tm.Stored, s.v, got)
		}
		switch {
		case wi <= gi:
			same++
			if got != want {
				t.Errorf("%s %s %v: dt64 %d µs, cftime %d", s.units, tm.Stored, s.v, got, want)
			}
		default:
			noise++
		}
	}
	if same == 0 || noise == 0 {
		t.Errorf("%d equal, %d noise: both kinds must be checked", same, noise)
	}
	t.Logf("%d samples: %d equal to cftime, %d where cftime keeps float noise", len(samples), same, noise)
}
