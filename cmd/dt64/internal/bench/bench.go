// Package bench measures dt64's kernels as a ratio to copy() of the same
// bytes, which is what `dt64 bench` reports. The machine is usually shared,
// so each round times copy() and every kernel back to back and the ratio is
// the median over rounds of (kernel time / copy time in the same round):
// load that comes and goes hits both sides of a ratio alike.
package bench

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
	"unsafe"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/internal/impl"
	"github.com/zarr-dt64/dt64/kernels"
)

// Case is one kernel run over a source buffer into a destination buffer.
type Case struct {
	Name string
	Impl string                      // kernels implementation to select ("generic", "avx2", ...)
	Unit dtype.Unit                  // unit of the source data (Second, Nanosecond, Month or Hour)
	BE   bool                        // source stored big-endian
	Run  func(dst, src []byte) error // the kernel
	// Data, when set, fills the source instead of Fill (CF time numbers).
	Data func(b []byte, order binary.ByteOrder)
}

// Result is a case's median ratio to copy() and its median throughput.
type Result struct {
	Name, Impl string
	Size       int
	Ratio      float64 // median of kernel time / copy time; < 1 is faster than copy
	GBps       float64 // median kernel throughput (source bytes)
	CopyGBps   float64
}

func transcoder(from, to dtype.DataType, o kernels.Options) *kernels.Transcoder {
	c, err := dtype.NewConversion(from, to)
	if err != nil {
		panic(err)
	}
	o.Overflow = dtype.OverflowNaT
	t, err := kernels.NewTranscoder(c, o)
	if err != nil {
		panic(err)
	}
	return t
}

func dtOf(u dtype.Unit, scale int64) dtype.DataType {
	return dtype.DataType{Kind: dtype.Datetime, Unit: u, Scale: scale}
}

// Standard returns the cases `dt64 bench` runs: every primitive for every
// available implementation, and the rescale paths.
func Standard() []Case {
	var cs []Case
	for _, name := range impl.Names("kernels") {
		cs = append(cs,
			Case{Name: "ByteSwap", Impl: name, Unit: dtype.Second, Run: kernels.ByteSwap},
			Case{Name: "Shuffle8", Impl: name, Unit: dtype.Nanosecond, Run: kernels.Shuffle8},
			Case{Name: "Unshuffle8", Impl: name, Unit: dtype.Nanosecond, Run: kernels.Unshuffle8},
			Case{Name: "Validity", Impl: name, Unit: dtype.Second, Run: func() func(dst, src []byte) error {
				var bm []byte
				return func(dst, src []byte) error {
					if len(bm) < len(src)/64+1 {
						bm = make([]byte, len(src)/64+1)
					}
					_, err := kernels.Validity(bm, src, nil)
					return err
				}
			}()},
			Case{Name: "MinMax", Impl: name, Unit: dtype.Second, Run: func(dst, src []byte) error {
				_, _, _, err := kernels.MinMax(src, nil)
				return err
			}},
			runCase("Multiply(s->ns)", name, dtype.Second, false, transcoder(dtOf(dtype.Second, 1), dtOf(dtype.Nanosecond, 1), kernels.Options{}), false),
			runCase("FloorDivide(ns->s)", name, dtype.Nanosecond, false, transcoder(dtOf(dtype.Nanosecond, 1), dtOf(dtype.Second, 1), kernels.Options{}), false),
			runCase("MulDiv(25h->D)", name, dtype.Hour, false, transcoder(dtOf(dtype.Hour, 25), dtOf(dtype.Day, 1), kernels.Options{}), false),
			runCase("Fused(BE s->LE ns+validity+minmax)", name, dtype.Second, true,
				transcoder(dtOf(dtype.Second, 1), dtOf(dtype.Nanosecond, 1),
					kernels.Options{From: binary.BigEndian, To: binary.LittleEndian, Stats: true}), true),
			runCase("Calendar(ns->M)", name, dtype.Nanosecond, false, transcoder(dtOf(dtype.Nanosecond, 1), dtOf(dtype.Month, 1), kernels.Options{}), false),
			runCase("Calendar(M->D)", name, dtype.Month, false, transcoder(dtOf(dtype.Month, 1), dtOf(dtype.Day, 1), kernels.Options{}), false),
		)
		// CF time as xarray writes it, next to the plain multiply by the
		// same factor: hourly int64 (ERA5) and float64 days (ERSST).
		cs = append(cs,
			runCase("Multiply(h->ns)", name, dtype.Hour, false, transcoder(dtOf(dtype.Hour, 1), dtOf(dtype.Nanosecond, 1), kernels.Options{}), false),
			cfCase("CF(int64 hours->ns)", name, `{"units": "hours since 1900-01-01 00:00:00"}`, cf.Stored{Kind: cf.StoredInt, Size: 8}, fillCFHours),
			cfCase("CF(float64 days->ns)", name, `{"units": "days since 1800-01-01", "_FillValue": "NaN"}`, cf.Stored{Kind: cf.StoredFloat, Size: 8}, fillCFDays),
			cfCase("CF(float32 days->ns)", name, `{"units": "days since 1850-01-01", "_FillValue": "NaN"}`, cf.Stored{Kind: cf.StoredFloat, Size: 4}, fillCFDays32),
		)
		// An Arrow µs column's pass over a ns array (zarrow.Read): the
		// floor divide with the validity bitmap, on instants a minute
		// apart as a time coordinate holds them.
		col := runCase("Column(ns->us+validity)", name, dtype.Nanosecond, false, transcoder(dtOf(dtype.Nanosecond, 1), dtOf(dtype.Microsecond, 1), kernels.Options{}), true)
		col.Data = fillMinutes
		cs = append(cs, col)
		// Model calendars converted (cf.CalendarOptions), on an hourly
		// time coordinate (sorted, as coordinates are), next to the same
		// data in the standard calendar; and on random hours, the
		// conversion's worst case (every element finds its month anew).
		date := kernels.Options{Overflow: dtype.OverflowNaT, Calendar: cf.CalendarOptions{Convert: cf.ConvertDate, Missing: cf.MissingNaT}}
		year := kernels.Options{Overflow: dtype.OverflowNaT, Calendar: cf.CalendarOptions{Convert: cf.ConvertYear}}
		cs = append(cs,
			cfCaseWith("CF(int64 hours->ns, sorted)", name, `{"units": "hours since 1900-01-01"}`, kernels.Options{Overflow: dtype.OverflowNaT}, fillSortedHours),
			cfCaseWith("CF(int64 hours noleap->ns, date)", name, `{"units": "hours since 1900-01-01", "calendar": "noleap"}`, date, fillSortedHours),
			cfCaseWith("CF(int64 hours 360_day->ns, date)", name, `{"units": "hours since 1900-01-01", "calendar": "360_day"}`, date, fillSortedHours),
			cfCaseWith("CF(int64 hours 360_day->ns, year)", name, `{"units": "hours since 1900-01-01", "calendar": "360_day"}`, year, fillSortedHours),
			cfCaseWith("CF(int64 hours noleap->ns, date, random)", name, `{"units": "hours since 1900-01-01", "calendar": "noleap"}`, date, fillCFHours),
		)
		// In place, as the engine converts inside the decompression
		// buffer. Repeated runs floor-divide already divided values; the
		// loop is branch-free, so its time does not depend on them.
		c := runCase("InPlace(ns->s)", name, dtype.Nanosecond, false, transcoder(dtOf(dtype.Nanosecond, 1), dtOf(dtype.Second, 1), kernels.Options{}), false)
		c.Run = inPlace(c.Run)
		cs = append(cs, c)
	}
	return cs
}

func runCase(name, implName string, u dtype.Unit, be bool, t *kernels.Transcoder, validity bool) Case {
	var bm []byte
	return Case{Name: name, Impl: implName, Unit: u, BE: be, Run: func(dst, src []byte) error {
		if validity && len(bm) < len(src)/64+1 {
			bm = make([]byte, len(src)/64+1)
		}
		var v []byte
		if validity {
			v = bm
		}
		_, err := t.Run(dst, src, v)
		return err
	}}
}

// cfCase decodes CF numbers with attributes attrs to datetime64[ns].
func cfCase(name, implName, attrs string, stored cf.Stored, data func(b []byte, order binary.ByteOrder)) Case {
	return cfCaseWith(name, implName, attrs, kernels.Options{Overflow: dtype.OverflowNaT}, data, stored)
}

// cfCaseWith is cfCase with the kernel's options (int64 numbers unless
// stored says otherwise).
func cfCaseWith(name, implName, attrs string, o kernels.Options, data func(b []byte, order binary.ByteOrder), stored ...cf.Stored) Case {
	st := cf.Stored{Kind: cf.StoredInt, Size: 8}
	if len(stored) > 0 {
		st = stored[0]
	}
	t, err := cf.ParseAttributes([]byte(attrs), st)
	if err != nil {
		panic(err)
	}
	d, err := kernels.NewCFDecoder(t, dtOf(dtype.Nanosecond, 1), o)
	if err != nil {
		panic(err)
	}
	return Case{Name: name, Impl: implName, Data: data, Run: func(dst, src []byte) error {
		// Narrow stored numbers fill the front of src: as many as dst holds.
		_, err := d.Run(dst, src[:len(dst)/8*st.Size], nil)
		return err
	}}
}

// fillCFHours writes int64 hours since 1900 (1900 to 2100).
func fillCFHours(b []byte, order binary.ByteOrder) {
	r := rand.New(rand.NewPCG(43, 1))
	for i := 0; i+8 <= len(b); i += 8 {
		order.PutUint64(b[i:], uint64(r.Int64N(200*8766)))
	}
}

// fillSortedHours writes an hourly time coordinate: int64 hours since
// 1900, counting up from 0 (wrapping after 200 years).
func fillSortedHours(b []byte, order binary.ByteOrder) {
	for i := 0; i+8 <= len(b); i += 8 {
		order.PutUint64(b[i:], uint64(i/8%(200*8760)))
	}
}

// fillCFDays writes float64 days since 1800 (to 2100) in quarter days,
// 1% NaN.
func fillCFDays(b []byte, order binary.ByteOrder) {
	r := rand.New(rand.NewPCG(43, 2))
	for i := 0; i+8 <= len(b); i += 8 {
		f := float64(r.Int64N(300*365*4)) / 4
		if r.IntN(100) == 0 {
			f = math.NaN()
		}
		order.PutUint64(b[i:], math.Float64bits(f))
	}
}

// fillMinutes writes ns instants a minute apart from 2020-09-13, each
// with up to a second of jitter, one NaT in 1000.
func fillMinutes(b []byte, order binary.ByteOrder) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i+8 <= len(b); i += 8 {
		v := int64(1_600_000_000e9) + int64(i/8)*60e9 + r.Int64N(1e9)
		if r.IntN(1000) == 0 {
			v = math.MinInt64
		}
		order.PutUint64(b[i:], uint64(v))
	}
}

// fillCFDays32 writes float32 days since 1850 (to 2100), hourly, 1% NaN:
// model output as CMIP writes it, whole hours within float32's precision.
func fillCFDays32(b []byte, order binary.ByteOrder) {
	r := rand.New(rand.NewPCG(43, 3))
	for i := 0; i+4 <= len(b); i += 4 {
		f := float32(float64(r.Int64N(250*8766)) / 24)
		if r.IntN(100) == 0 {
			f = float32(math.NaN())
		}
		order.PutUint32(b[i:], math.Float32bits(f))
	}
}

// inPlace converts dst in place, ignoring src.
func inPlace(run func(dst, src []byte) error) func(dst, src []byte) error {
	return func(dst, src []byte) error { return run(dst, dst) }
}

// Fill writes realistic timestamps: instants between 1900 and 2100 in unit
// u (Hour means 25-hour units), 1% NaT.
func Fill(b []byte, u dtype.Unit, order binary.ByteOrder) {
	r := rand.New(rand.NewPCG(42, uint64(u)))
	const lo, hi = -2208988800, 4102444800
	for i := 0; i+8 <= len(b); i += 8 {
		s := lo + r.Int64N(hi-lo)
		var v int64
		switch u {
		case dtype.Month:
			v = s / 2629746
		case dtype.Hour:
			v = s / 3600 / 25
		case dtype.Nanosecond:
			v = s*1e9 + r.Int64N(1e9)
		default:
			v = s
		}
		if r.IntN(100) == 0 {
			v = math.MinInt64
		}
		order.PutUint64(b[i:], uint64(v))
	}
}

// Aligned returns an 8-byte aligned, zeroed (and so touched) buffer.
func Aligned(n int) []byte {
	w := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), n)
}

// Measure runs each case rounds times at one size, interleaved with copy().
// Small sizes repeat each timing until it takes at least 200 µs.
func Measure(size, rounds int, cases []Case) ([]Result, error) {
	src := Aligned(size)
	d := Aligned(size + 8192)
	dst := d[4160 : 4160+size] // never an exact power of two away from src
	copy(dst, src)
	reps := 1
	for {
		t0 := time.Now()
		for range reps {
			copy(dst, src)
		}
		if time.Since(t0) > 200*time.Microsecond {
			break
		}
		reps *= 2
	}
	ratios := make([][]float64, len(cases))
	times := make([][]float64, len(cases))
	var copies []float64
	for range rounds {
		Fill(src, dtype.Second, binary.NativeEndian)
		t0 := time.Now()
		for range reps {
			copy(dst, src)
		}
		ct := time.Since(t0).Seconds()
		copies = append(copies, ct)
		for i, c := range cases {
			order := binary.ByteOrder(binary.NativeEndian)
			if c.BE {
				order = binary.BigEndian
			}
			if c.Data != nil {
				c.Data(src, order)
			} else {
				Fill(src, c.Unit, order)
			}
			impl.Select("kernels", c.Impl)
			t0 := time.Now()
			for range reps {
				if err := c.Run(dst, src); err != nil {
					impl.Reset("kernels")
					return nil, fmt.Errorf("%s (impl=%s, size=%d): %w", c.Name, c.Impl, size, err)
				}
			}
			kt := time.Since(t0).Seconds()
			impl.Reset("kernels")
			ratios[i] = append(ratios[i], kt/ct)
			times[i] = append(times[i], kt)
		}
	}
	gb := float64(size) * float64(reps) / 1e9
	out := make([]Result, len(cases))
	for i, c := range cases {
		out[i] = Result{Name: c.Name, Impl: c.Impl, Size: size, Ratio: median(ratios[i]),
			GBps: gb / median(times[i]), CopyGBps: gb / median(copies)}
	}
	return out, nil
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s) == 0 {
		return math.NaN()
	}
	return s[len(s)/2]
}
