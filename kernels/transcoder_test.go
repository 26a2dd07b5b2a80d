package kernels

import (
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
)

func dt(k dtype.Kind, u dtype.Unit, s int64) dtype.DataType {
	return dtype.DataType{Kind: k, Unit: u, Scale: s}
}

func mustConv(t testing.TB, from, to dtype.DataType) dtype.Conversion {
	t.Helper()
	c, err := dtype.NewConversion(from, to)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustTr(t testing.TB, c dtype.Conversion, o Options) *Transcoder {
	t.Helper()
	tr, err := NewTranscoder(c, o)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// edgeValues are the inputs around every bound a compiled op uses.
func edgeValues(tr *Transcoder) []int64 {
	vs := []int64{0, 1, -1, 2, -2, math.MaxInt64, math.MinInt64 + 1, math.MinInt64 + 2, math.MaxInt64 - 1, math.MinInt64}
	add := func(b int64) {
		for d := int64(-2); d <= 2; d++ {
			if x := b + d; (d >= 0 || x < b) && (d <= 0 || x > b) { // no wrap
				vs = append(vs, x, -x)
			}
		}
	}
	p, c := &tr.lin, &tr.cal
	add(p.lo)
	add(p.hi)
	if p.div.d != 0 {
		add(int64(p.div.d))
		add(p.qlo * int64(p.div.d))
		add(p.qhi * int64(p.div.d))
	}
	add(c.vlim)
	if c.s1 != 0 && c.srcMPU != 0 {
		add(c.dayLim / 28 / c.s1)
		add(c.dayLim / 31 / c.s1)
	}
	return vs
}

// TestRandomAgainstReference compares every path (fast loops, exact
// fallbacks, calendar) with the math/big reference on random conversions
// and on the bounds of each compiled op.
func TestRandomAgainstReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	scales := []int64{1, 1, 1, 2, 3, 7, 10, 24, 25, 1000, 86400, 146097, 2147483647, 2147483646}
	forEachImpl(t, func(t *testing.T) {
		for iter := 0; iter < 1500; iter++ {
			kind := dtype.Datetime
			if r.IntN(3) == 0 {
				kind = dtype.Timedelta
			}
			from := dt(kind, dtype.Year+dtype.Unit(r.IntN(13)), scales[r.IntN(len(scales))])
			to := dt(kind, dtype.Year+dtype.Unit(r.IntN(13)), scales[r.IntN(len(scales))])
			if iter%3 == 0 && kind == dtype.Datetime { // favour calendar pairs
				to.Unit = dtype.Year + dtype.Unit(r.IntN(2))
				if iter%2 == 0 {
					from, to = to, from
				}
			}
			c := mustConv(t, from, to)
			tr := mustTr(t, c, Options{Overflow: dtype.OverflowClamp})
			vs := edgeValues(tr)
			for range 200 {
				switch r.IntN(4) {
				case 0:
					vs = append(vs, int64(r.Uint64()))
				case 1:
					vs = append(vs, int64(r.Uint64())>>r.IntN(64))
				case 2: // within ±10000 years in source units, roughly
					span := int64(10000*366*86400) / from.Scale
					vs = append(vs, r.Int64N(2*span+1)-span)
				default:
					vs = append(vs, int64(r.IntN(2000)-1000))
				}
			}
			out := make([]int64, len(vs))
			st, err := tr.RunInt64(out, vs, nil)
			if err != nil {
				t.Fatalf("%s: %v", tr, err)
			}
			lossy, over := 0, 0
			for i, v := range vs {
				if v == math.MinInt64 {
					if out[i] != math.MinInt64 {
						t.Fatalf("%s: NaT became %d", tr, out[i])
					}
					continue
				}
				want, o, l := refClamp(from, to, v)
				over, lossy = over+b2i(o), lossy+b2i(l)
				if out[i] != want {
					ref, _ := refExact(from, to, v)
					t.Fatalf("%s: %d -> %d, want %d (exact %s)", tr, v, out[i], want, ref)
				}
			}
			if st.Lossy != lossy || st.Overflowed != over || st.Elements != len(vs) {
				t.Fatalf("%s: stats %+v, want lossy %d overflowed %d", tr, st, lossy, over)
			}
		}
	})
}

func TestPolicies(t *testing.T) {
	c := mustConv(t, dt(dtype.Datetime, dtype.Second, 1), dt(dtype.Datetime, dtype.Nanosecond, 1))
	in := []int64{1, math.MaxInt64, 3, math.MinInt64, -math.MaxInt64, 4}
	for _, tc := range []struct {
		pol  dtype.OverflowPolicy
		want []int64
	}{
		{dtype.OverflowNaT, []int64{1e9, math.MinInt64, 3e9, math.MinInt64, math.MinInt64, 4e9}},
		{dtype.OverflowClamp, []int64{1e9, math.MaxInt64, 3e9, math.MinInt64, math.MinInt64 + 1, 4e9}},
	} {
		tr := mustTr(t, c, Options{Overflow: tc.pol, Stats: true})
		out := make([]int64, len(in))
		bm := make([]byte, 1)
		st, err := tr.RunInt64(out, in, bm)
		if err != nil {
			t.Fatal(err)
		}
		for i := range out {
			if out[i] != tc.want[i] {
				t.Fatalf("%s: %v, want %v", tc.pol, out, tc.want)
			}
		}
		wantNaT := 1
		if tc.pol == dtype.OverflowNaT {
			wantNaT = 3
		}
		if st.Overflowed != 2 || st.NaT != wantNaT || st.Valid != 6-wantNaT || st.Elements != 6 {
			t.Fatalf("%s: stats %+v", tc.pol, st)
		}
		wantMax := int64(4e9)
		if tc.pol == dtype.OverflowClamp {
			wantMax = math.MaxInt64
		}
		if st.Max != wantMax || st.Min != tc.want[0] && tc.pol == dtype.OverflowNaT {
			t.Fatalf("%s: min/max %d %d", tc.pol, st.Min, st.Max)
		}
		for i, v := range out {
			if (bm[0]>>i&1 == 1) != (v != math.MinInt64) {
				t.Fatalf("%s: validity %08b for %v", tc.pol, bm[0], out)
			}
		}
	}
	tr := mustTr(t, c, Options{})
	out := make([]int64, len(in))
	st, err := tr.RunInt64(out, in, nil)
	var oe *dtype.ElementError
	if !errors.As(err, &oe) || oe.Reason != dtype.ReasonOverflow || oe.Index != 1 || oe.Value != math.MaxInt64 || st.Elements != 1 || out[0] != 1e9 {
		t.Fatalf("error policy: %v, %+v", err, st)
	}
	if got := err.Error(); got != "element 1: datetime64[s] value 9223372036854775807 overflows int64 when converted to datetime64[ns]" {
		t.Fatalf("message %q", got)
	}
	for _, s := range []string{"error", "NaT", " clamp "} {
		if p, err := dtype.ParseOverflowPolicy(s); err != nil || !(p.String() == s || p.String() == "nat" || p.String() == "clamp") {
			t.Fatalf("dtype.ParseOverflowPolicy(%q) = %v, %v", s, p, err)
		}
	}
	if _, err := dtype.ParseOverflowPolicy("wrap"); err == nil {
		t.Fatal("dtype.ParseOverflowPolicy(wrap) accepted")
	}
	if _, err := NewTranscoder(c, Options{Overflow: 9}); err == nil {
		t.Fatal("invalid policy accepted")
	}
}

func TestExactMode(t *testing.T) {
	c := mustConv(t, dt(dtype.Timedelta, dtype.Nanosecond, 1), dt(dtype.Timedelta, dtype.Second, 1))
	tr := mustTr(t, c, Options{Exact: true})
	for _, inPlace := range []bool{false, true} {
		in := make([]int64, 20000)
		for i := range in {
			in[i] = int64(i-100) * 1e9
		}
		in[12345] = 5
		out := make([]int64, len(in))
		if inPlace {
			out = in
		}
		_, err := tr.RunInt64(out, in, nil)
		var le *dtype.ElementError
		if !errors.As(err, &le) || le.Reason != dtype.ReasonLoss || le.Index != 12345 || le.Value != 5 {
			t.Fatalf("in place %v: %v", inPlace, err)
		}
	}
	// Lossless data passes and counts nothing.
	in := []int64{-2e9, 0, 3e9, math.MinInt64}
	st, err := tr.RunInt64(make([]int64, 4), in, nil)
	if err != nil || st.Lossy != 0 || st.NaT != 1 {
		t.Fatalf("%+v %v", st, err)
	}
	// Calendar: ns -> M is lossy unless the instant is a month start.
	cal := mustTr(t, mustConv(t, dt(dtype.Datetime, dtype.Nanosecond, 1), dt(dtype.Datetime, dtype.Month, 1)), Options{Exact: true})
	if v, err := cal.Convert(31 * 86400 * 1e9); err != nil || v != 1 {
		t.Fatalf("Feb 1970: %d %v", v, err)
	}
	if _, err := cal.Convert(31*86400*1e9 + 1); !isLoss(err) {
		t.Fatalf("want a loss *dtype.ElementError, got %v", err)
	}
}

func isLoss(err error) bool {
	var e *dtype.ElementError
	return errors.As(err, &e) && e.Reason == dtype.ReasonLoss
}

func TestInPlaceAndOrders(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	convs := []dtype.Conversion{
		mustConv(t, dt(dtype.Datetime, dtype.Second, 1), dt(dtype.Datetime, dtype.Nanosecond, 1)),
		mustConv(t, dt(dtype.Datetime, dtype.Nanosecond, 1), dt(dtype.Datetime, dtype.Second, 1)),
		mustConv(t, dt(dtype.Datetime, dtype.Hour, 25), dt(dtype.Datetime, dtype.Day, 1)),
		mustConv(t, dt(dtype.Datetime, dtype.Nanosecond, 1), dt(dtype.Datetime, dtype.Month, 1)),
		mustConv(t, dt(dtype.Datetime, dtype.Month, 1), dt(dtype.Datetime, dtype.Day, 1)),
		mustConv(t, dt(dtype.Datetime, dtype.Second, 1), dt(dtype.Datetime, dtype.Second, 1)),
	}
	forEachImpl(t, func(t *testing.T) {
		for _, c := range convs {
			for _, n := range []int{0, 1, 7, 8, 9, 513, 8191, 8193, 20001} {
				vals := make([]int64, n)
				for i := range vals {
					vals[i] = r.Int64N(1e12) - 5e11
					if r.IntN(50) == 0 {
						vals[i] = math.MinInt64
					}
				}
				ref := mustTr(t, c, Options{Overflow: dtype.OverflowNaT})
				want := make([]int64, n)
				wantSt, _ := ref.RunInt64(want, vals, nil)
				for _, o := range orders {
					tr := mustTr(t, c, Options{From: o.from, To: o.to, Overflow: dtype.OverflowNaT})
					for off := 0; off < 8; off++ {
						src := encode(o.from, vals, off)
						for _, inPlace := range []bool{false, true} {
							s := append(make([]byte, 0, len(src)), src...)
							if off%8 != 0 { // keep the offset
								s = append(make([]byte, off, off+len(src)), src...)[off:]
							}
							d := s
							if !inPlace {
								d = make([]byte, len(s)+8)[(off*3)%8:][:len(s)]
							}
							bm := make([]byte, (n+7)/8)
							st, err := tr.Run(d, s, bm)
							if err != nil || st != wantSt {
								t.Fatalf("%s %s off %d in place %v: %+v %v, want %+v", tr, o.name, off, inPlace, st, err, wantSt)
							}
							got := decode(o.to, d)
							for i := range got {
								if got[i] != want[i] {
									t.Fatalf("%s %s off %d in place %v: element %d = %d, want %d", tr, o.name, off, inPlace, i, got[i], want[i])
								}
							}
						}
					}
				}
			}
		}
	})
}

func TestLengthErrors(t *testing.T) {
	tr := mustTr(t, mustConv(t, dt(dtype.Datetime, dtype.Second, 1), dt(dtype.Datetime, dtype.Millisecond, 1)), Options{})
	buf := make([]byte, 64)
	cases := []struct {
		name string
		err  error
	}{
		{"odd source", func() error { _, e := tr.Run(buf[:7], buf[:7], nil); return e }()},
		{"dst shorter", func() error { _, e := tr.Run(make([]byte, 8), buf[:16], nil); return e }()},
		{"short bitmap", func() error { _, e := tr.Run(make([]byte, 72), make([]byte, 72), make([]byte, 1)); return e }()},
		{"int64 dst shorter", func() error { _, e := tr.RunInt64(make([]int64, 1), make([]int64, 2), nil); return e }()},
		{"byteswap", ByteSwap(buf[:8], buf[:16])},
		{"countnat", func() error { _, e := CountNaT(buf[:9], nil); return e }()},
		{"validity", func() error { _, e := Validity(nil, buf[:8], nil); return e }()},
		{"apply", func() error { _, e := ApplyValidity(buf[:16], nil, nil); return e }()},
		{"minmax", func() error { _, _, _, e := MinMax(buf[:3], binary.BigEndian); return e }()},
	}
	for _, c := range cases {
		if !errors.Is(c.err, ErrLength) {
			t.Errorf("%s: error %v, want ErrLength", c.name, c.err)
		}
	}
	if _, err := tr.Run(buf[8:40], buf[0:32], nil); !errors.Is(err, ErrOverlap) {
		t.Errorf("partial overlap: %v", err)
	}
	if err := ByteSwap(buf[8:40], buf[0:32]); !errors.Is(err, ErrOverlap) {
		t.Errorf("ByteSwap partial overlap: %v", err)
	}
	// Empty input is fine everywhere.
	if st, err := tr.Run(nil, nil, nil); err != nil || st.Elements != 0 {
		t.Errorf("empty Run: %+v %v", st, err)
	}
	if _, _, v, err := MinMax(nil, nil); err != nil || v != 0 {
		t.Errorf("empty MinMax: %v", err)
	}
}

// TestHugeFactors covers the factors beyond uint64 and the 128-bit paths.
func TestHugeFactors(t *testing.T) {
	cases := []struct{ from, to dtype.DataType }{
		{dt(dtype.Timedelta, dtype.Year, 1), dt(dtype.Timedelta, dtype.Attosecond, 2147483647)},
		{dt(dtype.Timedelta, dtype.Attosecond, 2147483647), dt(dtype.Timedelta, dtype.Year, 1)},
		{dt(dtype.Timedelta, dtype.Attosecond, 1), dt(dtype.Timedelta, dtype.Year, 2147483647)},
		{dt(dtype.Timedelta, dtype.Week, 2147483647), dt(dtype.Timedelta, dtype.Attosecond, 2147483646)},
		{dt(dtype.Datetime, dtype.Attosecond, 2147483647), dt(dtype.Datetime, dtype.Year, 2147483647)},
		{dt(dtype.Datetime, dtype.Year, 2147483647), dt(dtype.Datetime, dtype.Attosecond, 1)},
		{dt(dtype.Datetime, dtype.Femtosecond, 3), dt(dtype.Datetime, dtype.Month, 7)},
		{dt(dtype.Datetime, dtype.Week, 2147483647), dt(dtype.Datetime, dtype.Year, 2147483647)},
	}
	vs := []int64{0, 1, -1, 2, -2, 1e9, -1e9, 1 << 40, -(1 << 40), math.MaxInt64, -math.MaxInt64, 123456789012345678}
	for _, c := range cases {
		tr := mustTr(t, mustConv(t, c.from, c.to), Options{Overflow: dtype.OverflowClamp})
		out := make([]int64, len(vs))
		if _, err := tr.RunInt64(out, vs, nil); err != nil {
			t.Fatal(err)
		}
		for i, v := range vs {
			ref, _ := refExact(c.from, c.to, v)
			want := ref
			if ref.Cmp(bigMin) <= 0 {
				want = big.NewInt(math.MinInt64 + 1)
			} else if ref.Cmp(bigMax) > 0 {
				want = bigMax
			}
			if out[i] != want.Int64() {
				t.Fatalf("%s: %d -> %d, want %s (exact %s)", tr, v, out[i], want, ref)
			}
		}
	}
}

// TestExactStatsCountNaT: in exact mode a lossy element stops the run, and
// the Stats of the elements before it count their NaT.
func TestExactStatsCountNaT(t *testing.T) {
	tr := mustTr(t, mustConv(t, dt(dtype.Datetime, dtype.Nanosecond, 1), dt(dtype.Datetime, dtype.Second, 1)), Options{Exact: true})
	forEachImpl(t, func(t *testing.T) {
		vals := make([]int64, 100)
		for i := range vals {
			vals[i] = int64(i) * 1e9
			if i%10 == 3 {
				vals[i] = math.MinInt64
			}
		}
		vals[57] = 1 // lossy
		src := encode(binary.NativeEndian, vals, 0)
		st, err := tr.Run(make([]byte, len(src)), src, nil)
		var ee *dtype.ElementError
		if !errors.As(err, &ee) || ee.Index != 57 || ee.Reason != dtype.ReasonLoss {
			t.Fatalf("error %v, want loss at 57", err)
		}
		if st.Elements != 57 || st.NaT != 6 || st.Valid != 51 {
			t.Fatalf("stats %+v, want 57 elements, 6 NaT, 51 valid", st)
		}
	})
}
