package kernels

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
)

// Differential tests of the CF kernels: every implementation this CPU runs
// (and Options.Reference) against a model built element by element from
// cf.Decoder (math/big behind its 128-bit path) or, for the encoder,
// cf.Affine.Int, over lengths, byte offsets, byte orders, in place, every
// policy and exact mode, with the validity bitmap and min/max.

// cfCase is one compiled map and the element bits its tests draw from
// (Time.Missing's convention: integers sign-extended, floats as float64).
type cfCase struct {
	name   string
	attrs  string
	stored cf.Stored
	to     dtype.DataType
	// encoder: from is the datetime64 type, units the CF units
	encode bool
	from   dtype.DataType
	units  string
	// shortest decodes floats by cf.FloatShortest; the other float cases
	// test the exact floor (cf.FloatExact) and its SIMD kernels.
	shortest bool
}

var (
	i64    = cf.Stored{Kind: cf.StoredInt, Size: 8}
	i32    = cf.Stored{Kind: cf.StoredInt, Size: 4}
	i16    = cf.Stored{Kind: cf.StoredInt, Size: 2}
	i8     = cf.Stored{Kind: cf.StoredInt, Size: 1}
	u64    = cf.Stored{Kind: cf.StoredUint, Size: 8}
	u32    = cf.Stored{Kind: cf.StoredUint, Size: 4}
	u16    = cf.Stored{Kind: cf.StoredUint, Size: 2}
	u8     = cf.Stored{Kind: cf.StoredUint, Size: 1}
	f64    = cf.Stored{Kind: cf.StoredFloat, Size: 8}
	f32    = cf.Stored{Kind: cf.StoredFloat, Size: 4}
	ns     = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}
	us     = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Microsecond, Scale: 1}
	ms     = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Millisecond, Scale: 1}
	secs   = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1}
	days   = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Day, Scale: 1}
	tdNs   = dtype.DataType{Kind: dtype.Timedelta, Unit: dtype.Nanosecond, Scale: 1}
	tdSecs = dtype.DataType{Kind: dtype.Timedelta, Unit: dtype.Second, Scale: 1}
)

func cfCases() []cfCase {
	return []cfCase{
		{name: "int64 hours ns", attrs: `{"units": "hours since 1900-01-01 00:00:00", "calendar": "standard"}`, stored: i64, to: ns},
		{name: "int64 hours ns fill -1", attrs: `{"units": "hours since 1900-01-01", "_FillValue": -1}`, stored: i64, to: ns},
		// xarray's int64 NaT marker (-2^63, no _FillValue) where
		// -2^63 + B would be a valid instant, and beside two declared
		// missing values.
		{name: "int64 ns since 2000 ns", attrs: `{"units": "nanoseconds since 2000-01-01"}`, stored: i64, to: ns},
		{name: "int64 hours ns fill and missing", attrs: `{"units": "hours since 1900-01-01", "_FillValue": -1, "missing_value": 5}`, stored: i64, to: ns},
		{name: "int64 ns ns", attrs: `{"units": "nanoseconds since 2020-01-01 00:00:00.123456789", "_FillValue": -9223372036854775808}`, stored: i64, to: ns},
		{name: "int64 s ms half", attrs: `{"units": "seconds since 2000-01-01T00:00:00.5"}`, stored: i64, to: ms},
		{name: "int64 ns us fraction", attrs: `{"units": "nanoseconds since 2020-01-01 00:00:00.123456789"}`, stored: i64, to: us},
		{name: "int64 days D", attrs: `{"units": "days since 1970-01-01", "missing_value": [7, -3]}`, stored: i64, to: days},
		{name: "int64 s ns 2262", attrs: `{"units": "seconds since 2262-04-01"}`, stored: i64, to: ns},
		{name: "int64 packed", attrs: `{"units": "hours since 2000-01-01", "scale_factor": 0.5, "add_offset": 10}`, stored: i64, to: secs},
		{name: "int64 negative scale", attrs: `{"units": "minutes since 2000-01-01", "scale_factor": -1, "_FillValue": 5}`, stored: i64, to: ns},
		{name: "int32 days s", attrs: `{"units": "days since 1970-01-01", "missing_value": [-1, 99999]}`, stored: i32, to: secs},
		{name: "int16 minutes ns", attrs: `{"units": "minutes since 2000-01-01", "_FillValue": -32768}`, stored: i16, to: ns},
		{name: "int8 hours s", attrs: `{"units": "hours since 1582-10-01"}`, stored: i8, to: secs},
		{name: "uint8 days ns", attrs: `{"units": "days since 2000-01-01", "_FillValue": 255}`, stored: u8, to: ns},
		{name: "uint16 weeks ns", attrs: `{"units": "weeks since 2000-01-01"}`, stored: u16, to: ns},
		{name: "uint32 seconds ns", attrs: `{"units": "seconds since 1970-01-01", "_FillValue": 4294967295}`, stored: u32, to: ns},
		{name: "uint64 seconds ns", attrs: `{"units": "seconds since 1970-01-01"}`, stored: u64, to: ns},
		{name: "uint64 ns ns", attrs: `{"units": "ns since 1970-01-01", "_FillValue": 18446744073709551615}`, stored: u64, to: ns},
		{name: "float64 days ns", attrs: `{"units": "days since 1800-01-01", "_FillValue": "NaN"}`, stored: f64, to: ns},
		{name: "float64 ns ns", attrs: `{"units": "nanoseconds since 2020-01-01 00:00:00.123456789"}`, stored: f64, to: ns},
		{name: "float64 hours s fill", attrs: `{"units": "hours since 2000-01-01", "missing_value": -9999.0}`, stored: f64, to: secs},
		{name: "float64 seconds us zone", attrs: `{"units": "seconds since 2000-01-01 12:00:00+05:30"}`, stored: f64, to: us},
		{name: "float64 days D", attrs: `{"units": "days since 2000-01-01 06:00"}`, stored: f64, to: days},
		{name: "float32 hours s", attrs: `{"units": "hours since 2000-01-01", "_FillValue": 1e20}`, stored: f32, to: secs},
		{name: "float64 days ns shortest", attrs: `{"units": "days since 1800-01-01", "_FillValue": "NaN"}`, stored: f64, to: ns, shortest: true},
		{name: "float64 hours s fill shortest", attrs: `{"units": "hours since 2000-01-01", "missing_value": -9999.0}`, stored: f64, to: secs, shortest: true},
		{name: "float64 seconds us zone shortest", attrs: `{"units": "seconds since 2000-01-01 12:00:00+05:30"}`, stored: f64, to: us, shortest: true},
		{name: "float32 hours s shortest", attrs: `{"units": "hours since 2000-01-01", "_FillValue": 1e20}`, stored: f32, to: secs, shortest: true},
		{name: "float32 days ms shortest", attrs: `{"units": "days since 1970-01-01"}`, stored: f32, to: ms, shortest: true},
		{name: "encode ns hours", encode: true, from: ns, units: "hours since 1900-01-01 00:00:00"},
		{name: "encode s days", encode: true, from: secs, units: "days since 2000-01-01"},
		{name: "encode us seconds half", encode: true, from: us, units: "seconds since 2000-01-01T00:00:00.5"},
		{name: "encode ns ns", encode: true, from: ns, units: "nanoseconds since 1970-01-01"},
		{name: "encode s ns", encode: true, from: secs, units: "nanoseconds since 2000-01-01"},
		// CF durations (no reference, to and from timedelta64).
		{name: "duration int64 hours ns", attrs: `{"units": "hours", "_FillValue": -1}`, stored: i64, to: tdNs},
		{name: "duration int64 ns s", attrs: `{"units": "nanoseconds"}`, stored: i64, to: tdSecs},
		{name: "duration int16 minutes s", attrs: `{"units": "minutes", "_FillValue": -32768}`, stored: i16, to: tdSecs},
		{name: "duration float64 days ns shortest", attrs: `{"units": "days", "_FillValue": "NaN"}`, stored: f64, to: tdNs, shortest: true},
		{name: "duration float32 hours s shortest", attrs: `{"units": "hours"}`, stored: f32, to: tdSecs, shortest: true},
		{name: "duration encode ns hours", encode: true, from: tdNs, units: "hours"},
		{name: "duration encode s days", encode: true, from: tdSecs, units: "days"},
	}
}

// cfCompiled is a case compiled once per option set.
type cfCompiled struct {
	c   cfCase
	t   *cf.Time
	dec *cf.Decoder // the oracle (decoders)
	aff cf.Affine   // the oracle (encoders)
	u   cf.Units
	// kernels holds each option set's kernel once built. Building one
	// plans with math/big, and the tests run thousands of checks per
	// option set: rebuilding it for each took over half of the CF tests'
	// time (under qemu more). A kernel reads the implementation switches
	// when it runs, not when it is built, so one kernel serves every
	// implementation, and the production engine also runs one kernel
	// over many chunks.
	kernels map[Options]cfRunner
}

type cfRunner interface {
	Run(dst, src, validity []byte) (Stats, error)
	String() string
}

func compileCase(t *testing.T, c cfCase) *cfCompiled {
	t.Helper()
	cc := &cfCompiled{c: c}
	if c.encode {
		u, err := cf.ParseUnits(c.units, cf.ProlepticGregorian)
		if cf.IsDuration(c.units) {
			u, err = cf.ParseDuration(c.units)
		}
		if err != nil {
			t.Fatal(err)
		}
		cc.u = u
		if cc.aff, err = cf.NewEncoding(c.from, u); err != nil {
			t.Fatal(err)
		}
		cc.c.stored = i64
		return cc
	}
	tm, err := cf.ParseAttributes([]byte(c.attrs), c.stored)
	if err != nil || tm == nil {
		t.Fatalf("%s: %v %v", c.name, tm, err)
	}
	cc.t = tm
	if cc.dec, err = cf.NewDecoderWith(tm, c.to, cf.DecoderOptions{Overflow: dtype.OverflowClamp, Float: cc.rule(), Reference: true}); err != nil {
		t.Fatal(err)
	}
	return cc
}

func (cc *cfCompiled) kernel(t *testing.T, o Options) cfRunner {
	t.Helper()
	if k, ok := cc.kernels[o]; ok {
		return k
	}
	var k cfRunner
	if cc.c.encode {
		e, err := NewCFEncoder(cc.c.from, cc.u, o)
		if err != nil {
			t.Fatal(err)
		}
		k = e
	} else {
		od := o
		od.CFFloat = cc.rule()
		d, err := NewCFDecoder(cc.t, cc.c.to, od)
		if err != nil {
			t.Fatal(err)
		}
		k = d
	}
	if cc.kernels == nil {
		cc.kernels = map[Options]cfRunner{}
	}
	cc.kernels[o] = k
	return k
}

func (cc *cfCompiled) rule() cf.FloatRule {
	if cc.c.shortest {
		return cf.FloatShortest
	}
	return cf.FloatExact
}

// core returns the compiled parameters (for the bounds in the pool).
func (cc *cfCompiled) core(t *testing.T) *cfKernel {
	switch k := cc.kernel(t, Options{}).(type) {
	case *CFEncoder:
		return &k.k
	case *CFDecoder:
		return &k.k
	}
	return nil
}

// class is how the oracle sees one element.
type class uint8

const (
	clExact class = iota
	clLossy
	clOverflow
	clMissing
)

type oracleElement struct {
	cl  class
	q   int64 // the floor; for an overflow the clamped value
	neg bool
}

// oracle classifies each element of words (element bits) exactly.
func (cc *cfCompiled) oracle(t *testing.T, words []uint64) []oracleElement {
	out := make([]oracleElement, len(words))
	raw := make([]byte, 8)
	var one [1]int64
	for i, w := range words {
		if cc.c.encode {
			if w == natBits {
				out[i] = oracleElement{cl: clMissing, q: math.MinInt64}
				continue
			}
			q, res := cc.aff.Int(int64(w))
			e := oracleElement{cl: class(res), q: q}
			if res == cf.Overflow {
				// The sign of the exact value: A > 0 for every encoding.
				n := new(big.Int).Mul(big.NewInt(int64(w)), cc.aff.A)
				e.neg = n.Add(n, cc.aff.B).Sign() < 0
				e.q = maxValue
				if e.neg {
					e.q = minValue
				}
			}
			out[i] = e
			continue
		}
		z := cc.c.stored.Size
		putElement(raw, w, cc.c.stored, binary.LittleEndian)
		st, err := cc.dec.Decode(one[:], raw[:z], binary.LittleEndian)
		if err != nil {
			t.Fatal(err)
		}
		e := oracleElement{q: one[0]}
		switch {
		case st.Overflowed > 0:
			e.cl, e.neg = clOverflow, one[0] < 0
		case st.NaT > 0:
			e.cl = clMissing
		case st.Lossy > 0:
			e.cl = clLossy
		}
		out[i] = e
	}
	return out
}

// expect is what Run must produce for the elements under o: the output
// values, the stats and the failing element (-1 for none) with its reason.
func expect(model []oracleElement, o Options) (out []int64, st Stats, fail int, reason dtype.Reason) {
	out = make([]int64, len(model))
	st.Min, st.Max = math.MaxInt64, math.MinInt64
	for i, e := range model {
		v := e.q
		switch e.cl {
		case clMissing:
			st.NaT++
		case clLossy:
			if o.Exact {
				return out, finish(st, o), i, dtype.ReasonLoss
			}
			st.Lossy++
		case clOverflow:
			switch o.Overflow {
			case dtype.OverflowError:
				return out, finish(st, o), i, dtype.ReasonOverflow
			case dtype.OverflowNaT:
				v = math.MinInt64
				st.NaT++
			}
			st.Overflowed++
		}
		if v != math.MinInt64 {
			st.Min, st.Max = min(st.Min, v), max(st.Max, v)
		}
		out[i] = v
		st.Elements++
	}
	return out, finish(st, o), -1, 0
}

func finish(st Stats, o Options) Stats {
	st.Valid = st.Elements - st.NaT
	if !o.Stats {
		st.Min, st.Max = 0, 0
	}
	return st
}

func putElement(b []byte, w uint64, s cf.Stored, o binary.ByteOrder) {
	switch {
	case s.Size == 1:
		b[0] = byte(w)
	case s.Size == 2:
		o.PutUint16(b, uint16(w))
	case s.Kind == cf.StoredFloat && s.Size == 4:
		o.PutUint32(b, math.Float32bits(float32(math.Float64frombits(w))))
	case s.Size == 4:
		o.PutUint32(b, uint32(w))
	default:
		o.PutUint64(b, w)
	}
}

// pool returns the interesting element bits of a case: its missing values,
// the fast path's bounds ±1, the limits of the stored type, and for floats
// fractions, ±0, NaN, ±Inf, subnormals and huge values.
func (cc *cfCompiled) pool(t *testing.T) []uint64 {
	k := cc.core(t)
	var p []uint64
	s := cc.c.stored
	add := func(v int64) { p = append(p, uint64(v)) }
	if cc.t != nil {
		p = append(p, cc.t.Missing...)
	}
	if s.Kind == cf.StoredFloat {
		for _, f := range []float64{0, math.Copysign(0, -1), 0.5, -0.5, 1.25, -1.75, 0.1, 1e-300, 5e-324, -5e-324,
			math.SmallestNonzeroFloat64 * 3, math.Inf(1), math.Inf(-1), math.NaN(), 1e18, -1e18, 9.2e18, -9.2e18,
			1 << 53, 1<<53 + 2, -(1 << 62), 1 << 63, -(1 << 63), math.MaxFloat64, -math.MaxFloat64,
			1e5, 36524.25, 3e5, -3e5, 1e6, 1e7, 1e9, 1e12, 1e15, 86400.5, 3.0000000000000004, math.Nextafter(1e6, 0)} {
			if s.Size == 4 {
				f = float64(float32(f))
			}
			p = append(p, math.Float64bits(f))
		}
		// The largest and smallest values that do not overflow, and their
		// neighbours.
		if k.small && k.a > 0 {
			for _, lim := range []float64{(float64(math.MaxInt64) - float64(k.b)) / float64(k.a) * float64(k.c),
				(float64(math.MinInt64) - float64(k.b)) / float64(k.a) * float64(k.c)} {
				for _, f := range []float64{lim, math.Nextafter(lim, 0), math.Nextafter(lim, math.Inf(1)), math.Nextafter(lim, math.Inf(-1))} {
					if s.Size == 4 {
						f = float64(float32(f))
					}
					p = append(p, math.Float64bits(f))
				}
			}
		}
		return p
	}
	for _, v := range []int64{0, 1, -1, 2, -2, 7, -3, 100, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, math.MaxInt64 - 1} {
		add(v)
	}
	if k.loop == cfLoopMulAdd || k.loop == cfLoopMulAddDiv {
		for _, v := range []int64{k.lo - 1, k.lo, k.lo + 1, k.hi - 1, k.hi, k.hi + 1} {
			add(v)
		}
	}
	// The exact bounds from the affine map, for the other paths too.
	if k.small && k.a != 0 {
		hi := (maxValue - k.b) / k.a * int64(k.c)
		for _, v := range []int64{hi - 1, hi, hi + 1, -hi, -hi - 1} {
			add(v)
		}
	}
	return cc.fit(p)
}

// fit keeps integer element bits inside the stored type (truncating and
// extending as the stored bytes would).
func (cc *cfCompiled) fit(p []uint64) []uint64 {
	s := cc.c.stored
	if s.Kind == cf.StoredFloat || s.Size == 8 {
		return p
	}
	shift := 64 - 8*s.Size
	for i, w := range p {
		if s.Kind == cf.StoredInt {
			p[i] = uint64(int64(w<<shift) >> shift)
		} else {
			p[i] = w << shift >> shift
		}
	}
	return p
}

// random fills n element bits: mostly in the fast range, some from the
// pool, some anything. Floats off every grid take the slow path, whose
// exact search costs microseconds an element (per element: nothing a
// block boundary changes): a long vector holds about as many of them as a
// 512-element one, scattered over its blocks.
func (cc *cfCompiled) random(t *testing.T, r *rand.Rand, n int, pool []uint64) []uint64 {
	k := cc.core(t)
	w := make([]uint64, n)
	for i := range w {
		switch x := r.IntN(16); {
		case x < 3:
			w[i] = pool[r.IntN(len(pool))]
		case x < 4:
			w[i] = r.Uint64()
		case cc.c.stored.Kind == cf.StoredFloat:
			f := (r.Float64() - 0.5) * math.Pow(2, float64(r.IntN(60)))
			if x < 8 || n > 512 && r.IntN(n) >= 512 {
				f = math.Round(f)
			}
			if x == 8 {
				f = math.Round(f*4) / 4
			}
			w[i] = math.Float64bits(f)
		case k.loop == cfLoopMulAdd || k.loop == cfLoopMulAddDiv:
			span := uint64(k.hi) - uint64(k.lo)
			w[i] = uint64(k.lo) + r.Uint64N(span|1) // span|1: never 0
		default:
			w[i] = uint64(r.Int64N(1<<40) - 1<<39)
		}
	}
	return cc.fit(w)
}

var cfOptionSets = []Options{
	{Overflow: dtype.OverflowNaT, Stats: true},
	{Overflow: dtype.OverflowClamp},
	{Overflow: dtype.OverflowError, Stats: true},
	{Overflow: dtype.OverflowClamp, Exact: true, Stats: true},
	{Overflow: dtype.OverflowNaT, Exact: true},
}

// checkRun runs k over words encoded at byte offsets and compares with the
// model; inPlace decodes inside the source buffer.
func checkRun(t *testing.T, cc *cfCompiled, o Options, words []uint64, model []oracleElement, soff, doff int, inPlace bool) {
	t.Helper()
	k := cc.kernel(t, o)
	n, z := len(words), cc.c.stored.Size
	from, to := fusedOrder(o.From), fusedOrder(o.To)
	buf := make([]byte, 8*n+16)
	src := buf[soff : soff+z*n]
	for i, w := range words {
		putElement(src[z*i:], w, cc.c.stored, from)
	}
	dst := make([]byte, 8*n+16)[doff : doff+8*n]
	if inPlace {
		dst = buf[soff : soff+8*n]
	}
	for i := range dst {
		dst[i] = 0xA5
	}
	if inPlace {
		for i, w := range words { // the fill above overwrote the source
			putElement(src[z*i:], w, cc.c.stored, from)
		}
	}
	validity := make([]byte, (n+7)/8+1)
	for i := range validity {
		validity[i] = 0x5A
	}
	st, err := k.Run(dst, src, validity)
	want, wst, fail, reason := expect(model, o)
	where := fmt.Sprintf("%s %+v n=%d soff=%d doff=%d inPlace=%v", k, o, n, soff, doff, inPlace)
	if fail >= 0 {
		var ee *dtype.ElementError
		if !errors.As(err, &ee) || ee.Index != fail || ee.Reason != reason {
			t.Fatalf("%s: error %v, want %s at %d", where, err, reason, fail)
		}
		if ee.Error() == "" || ee.Source == "" && ee.From.Kind == 0 {
			t.Fatalf("%s: error %#v has no source", where, ee)
		}
		n = fail
		// Stats cover the elements before the failing one; their Min and
		// Max are unspecified when the run failed.
		st.Min, st.Max, wst.Min, wst.Max = 0, 0, 0, 0
	} else if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	if st != wst {
		t.Fatalf("%s: stats %+v, want %+v", where, st, wst)
	}
	for i := range n {
		got := int64(to.Uint64(dst[8*i:]))
		if got != want[i] {
			t.Fatalf("%s: element %d (%#x): got %d, want %d", where, i, words[i], got, want[i])
		}
		bit := validity[i/8]>>(i%8)&1 == 1
		if bit != (want[i] != math.MinInt64) && fail < 0 {
			t.Fatalf("%s: validity bit %d is %v", where, i, bit)
		}
	}
	if fail < 0 && n%8 != 0 && validity[n/8]>>(n%8) != 0 {
		t.Fatalf("%s: validity bits past the end are set: %#x", where, validity[n/8])
	}
}

// The lengths past 1000 (several 64 KiB blocks and 4 KiB staging
// buffers) run under longOptionSets of the five option sets, a different
// pair for each case and length, so that every set meets every length
// across the cases: these lengths hold 92 % of the elements, and every
// set runs at every short length, whose vectors and tails are the same
// code.
const longOptionSets = 2

func TestCFKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	lengths := []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 100, 511, 512, 513, 1000, 4096, 8193, 16385}
	if testing.Short() {
		lengths = []int{0, 1, 3, 8, 9, 17, 33, 65, 513, 1000}
	}
	forEachImpl(t, func(t *testing.T) {
		for ci, c := range cfCases() {
			cc := compileCase(t, c)
			pool := cc.pool(t)
			for li, n := range lengths {
				words := cc.random(t, r, n, pool)
				model := cc.oracle(t, words)
				for oi, base := range cfOptionSets {
					if n > 1000 && (oi+ci+li)%len(cfOptionSets) >= longOptionSets {
						continue
					}
					o := base
					ord := orders[(ci+li+oi)%len(orders)]
					o.From, o.To = ord.from, ord.to
					soff, doff := (li+oi)%8, (ci+oi*3)%8
					checkRun(t, cc, o, words, model, soff, doff, false)
					checkRun(t, cc, o, words, model, 0, 0, false)
					staged(func() { checkRun(t, cc, o, words, model, soff|1, 0, false) })
					checkRun(t, cc, o, words, model, soff, soff, true)
					o.Reference = true
					checkRun(t, cc, o, words, model, 0, doff, false)
				}
			}
		}
	})
}

// TestCFKernelsPoolAtEveryLane puts every pool value at every lane of a
// short vector among fast-path values, under every policy.
func TestCFKernelsPoolAtEveryLane(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	forEachImpl(t, func(t *testing.T) {
		for _, c := range cfCases() {
			cc := compileCase(t, c)
			pool := cc.pool(t)
			n := 37
			base := cc.random(t, r, n, pool[:1])
			if cc.c.stored.Kind == cf.StoredFloat { // fast-path values: whole units
				for i, w := range base {
					if f := math.Float64frombits(w); math.Abs(f) < 1<<52 {
						base[i] = math.Float64bits(math.Round(f))
					}
				}
				base = cc.fit(base)
			}
			for _, pv := range pool {
				for lane := range n {
					if testing.Short() && lane%5 != 0 {
						continue
					}
					words := append([]uint64(nil), base...)
					words[lane] = pv
					model := cc.oracle(t, words)
					for oi, o := range cfOptionSets {
						ord := orders[(lane+oi)%len(orders)]
						o.From, o.To = ord.from, ord.to
						checkRun(t, cc, o, words, model, 0, 0, false)
					}
				}
			}
		}
	})
}

func TestCFErrors(t *testing.T) {
	tm, err := cf.ParseAttributes([]byte(`{"units": "hours since 2000-01-01"}`), f64)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewCFDecoder(tm, ns, Options{})
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if _, err := d.Run(buf[:8], buf[:7], nil); !errors.Is(err, ErrLength) {
		t.Errorf("7 source bytes: %v", err)
	}
	if _, err := d.Run(buf[:16], buf[:24], nil); !errors.Is(err, ErrLength) {
		t.Errorf("short destination: %v", err)
	}
	if _, err := d.Run(buf[8:40], buf[:32], nil); !errors.Is(err, ErrOverlap) {
		t.Errorf("overlap: %v", err)
	}
	if _, err := d.Run(buf[:32], buf[:32], make([]byte, 0)); !errors.Is(err, ErrLength) {
		t.Errorf("short bitmap: %v", err)
	}
	binary.NativeEndian.PutUint64(buf, math.Float64bits(math.Inf(1)))
	_, err = d.Run(buf[8:16], buf[:8], nil)
	var ee *dtype.ElementError
	if !errors.As(err, &ee) || ee.Text != "+Inf" || ee.Reason != dtype.ReasonOverflow {
		t.Fatalf("+Inf: %v", err)
	}
	if want := "element 0: float64 hours since 2000-01-01 value +Inf overflows int64 when converted to datetime64[ns]"; ee.Error() != want { // the units as the attribute gives them
		t.Errorf("error text\n%s\nwant\n%s", ee.Error(), want)
	}
	tm.Stored = i16
	d16, err := NewCFDecoder(tm, ns, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d16.Run(buf[1:33], buf[:8], nil); !errors.Is(err, ErrOverlap) {
		t.Errorf("narrow overlap: %v", err)
	}
	if _, err := NewCFDecoder(tm, dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Month, Scale: 1}, Options{}); err == nil {
		t.Error("months: no error")
	}
	if _, err := NewCFDecoder(tm, ns, Options{Overflow: 9}); err == nil {
		t.Error("policy 9: no error")
	}
}

// TestCFKernelsLengths runs every length 0..4096 with a tail, the case,
// option set, byte orders, byte offsets 0..7 and in place rotating with
// the length (-short: every 7th length above 300).
func TestCFKernelsLengths(t *testing.T) {
	const maxLen = 4096
	r := rand.New(rand.NewPCG(13, 14))
	cases := cfCases()
	type prepared struct {
		cc    *cfCompiled
		words []uint64
		model []oracleElement
	}
	var ps []prepared
	for _, c := range cases {
		cc := compileCase(t, c)
		w := cc.random(t, r, maxLen, cc.pool(t))
		ps = append(ps, prepared{cc, w, cc.oracle(t, w)})
	}
	forEachImpl(t, func(t *testing.T) {
		for n := 0; n <= maxLen; n++ {
			if testing.Short() && n > 300 && n%7 != 0 {
				continue
			}
			p := ps[n%len(ps)]
			o := cfOptionSets[n/len(ps)%len(cfOptionSets)]
			ord := orders[n%len(orders)]
			o.From, o.To = ord.from, ord.to
			soff, doff := n%8, (n/8)%8
			// A window that starts anywhere, so each lane meets the pool.
			start := (n * 37) % (maxLen - n + 1)
			w, m := p.words[start:start+n], p.model[start:start+n]
			checkRun(t, p.cc, o, w, m, soff, doff, n%3 == 0)
		}
	})
}

// TestCFKernelsRandomMaps draws random affine maps: units, reference
// dates with fractions and zones, packing, stored types and destination
// units.
func TestCFKernelsRandomMaps(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	units := []string{"days", "hours", "minutes", "seconds", "milliseconds", "microseconds", "nanoseconds", "weeks"}
	stored := []cf.Stored{i64, i64, i64, f64, f64, f64, i32, i16, i8, u8, u16, u32, u64, f32}
	tos := []dtype.DataType{ns, us, ms, secs, days, {Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 10},
		{Kind: dtype.Datetime, Unit: dtype.Hour, Scale: 1}, {Kind: dtype.Datetime, Unit: dtype.Second, Scale: 7}}
	cases := 60
	if testing.Short() {
		cases = 25
	}
	var ccs []*cfCompiled
	for i := range cases {
		frac := ""
		if r.IntN(2) == 0 {
			frac = fmt.Sprintf(".%0*d", 1+r.IntN(9), r.IntN(1000))
		}
		zone := []string{"", "Z", "+05:30", "-0800", " UTC"}[r.IntN(5)]
		attrs := fmt.Sprintf(`"units": "%s since %04d-%02d-%02d %02d:%02d:%02d%s%s"`, units[r.IntN(len(units))],
			1+r.IntN(2500), 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), frac, zone)
		switch r.IntN(4) {
		case 0:
			attrs += fmt.Sprintf(`, "scale_factor": %d`, r.IntN(20)-10)
		case 1:
			attrs += fmt.Sprintf(`, "scale_factor": %g, "add_offset": %d`, float64(1+r.IntN(7))/4, r.IntN(2000)-1000)
		}
		if r.IntN(2) == 0 {
			attrs += fmt.Sprintf(`, "_FillValue": %d`, r.IntN(5))
		}
		c := cfCase{name: fmt.Sprintf("random %d", i), attrs: "{" + attrs + "}", stored: stored[r.IntN(len(stored))], to: tos[r.IntN(len(tos))]}
		if r.IntN(5) == 0 {
			c = cfCase{name: c.name, encode: true, from: tos[r.IntN(len(tos))],
				units: fmt.Sprintf("%s since %04d-01-01T00:00:00%s", units[r.IntN(len(units))], 1+r.IntN(2500), frac)}
		}
		tm, err := cf.ParseAttributes([]byte(c.attrs), c.stored)
		if !c.encode && (err != nil || tm == nil) {
			t.Fatalf("%s: %v", c.attrs, err)
		}
		if !c.encode && tm.Packing.Scale != nil && tm.Packing.Scale.Sign() == 0 {
			continue
		}
		ccs = append(ccs, compileCase(t, c))
	}
	forEachImpl(t, func(t *testing.T) {
		for i, cc := range ccs {
			pool := cc.pool(t)
			for _, n := range []int{0, 5, 64, 333} {
				words := cc.random(t, r, n, pool)
				model := cc.oracle(t, words)
				for oi, o := range cfOptionSets {
					ord := orders[(i+oi)%len(orders)]
					o.From, o.To = ord.from, ord.to
					checkRun(t, cc, o, words, model, (i+n)%8, oi%8, n%2 == 1)
				}
			}
		}
	})
}
