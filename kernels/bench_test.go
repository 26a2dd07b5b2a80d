package kernels

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/internal/impl"
)

// Benchmarks: Benchmark<Op>/impl=<name>/size=<bytes>, b.SetBytes = the
// source size. Compare every figure with BenchmarkCopy of the same size in
// the same run (the machine is shared; absolute numbers drift).
//
//	go test -run '^$' -bench . -count 5 ./kernels/

var benchSizes = []int{64 << 10, 8 << 20, 256 << 20}

// benchBuffers caches one source and one destination buffer per size; the
// destination is offset by 4 KiB + 64 bytes so that source and destination
// never sit an exact large power of two apart (which aliases in the caches).
var benchBuffers = map[int][2][]byte{}

func benchBufs(size int) (dst, src []byte) {
	if b, ok := benchBuffers[size]; ok {
		return b[0], b[1]
	}
	src = alignedBytes(size)
	d := alignedBytes(size + 8192)
	dst = d[4160 : 4160+size]
	benchBuffers[size] = [2][]byte{dst, src}
	return dst, src
}

func alignedBytes(n int) []byte {
	w := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), n)
}

// fillTimestamps writes realistic values: instants between 1900 and 2100 in
// unit u, 1% NaT, in byte order order.
func fillTimestamps(b []byte, u dtype.Unit, order binary.ByteOrder) {
	r := rand.New(rand.NewPCG(42, uint64(u)))
	const lo, hi = -2208988800, 4102444800 // 1900-01-01, 2100-01-01 in seconds
	for i := 0; i+8 <= len(b); i += 8 {
		s := lo + r.Int64N(hi-lo)
		var v int64
		switch u {
		case dtype.Month:
			v = s / (2629746)
		case dtype.Hour:
			v = s / 3600 / 25 // 25h units
		case dtype.Second:
			v = s
		case dtype.Nanosecond:
			v = s*1e9 + r.Int64N(1e9)
		}
		if r.IntN(100) == 0 {
			v = math.MinInt64
		}
		order.PutUint64(b[i:], uint64(v))
	}
}

func sizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("size=%dMiB", n>>20)
	}
	return fmt.Sprintf("size=%dKiB", n>>10)
}

func forEachBenchImpl(b *testing.B, f func(b *testing.B)) {
	for _, name := range impl.Names("kernels") {
		b.Run("impl="+name, func(b *testing.B) {
			impl.Select("kernels", name)
			defer impl.Reset("kernels")
			f(b)
		})
	}
}

func BenchmarkCopy(b *testing.B) {
	for _, size := range benchSizes {
		b.Run(sizeName(size), func(b *testing.B) {
			dst, src := benchBufs(size)
			fillTimestamps(src, dtype.Second, binary.NativeEndian)
			b.SetBytes(int64(size))
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}

func BenchmarkByteSwap(b *testing.B) {
	forEachBenchImpl(b, func(b *testing.B) {
		for _, size := range benchSizes {
			b.Run(sizeName(size), func(b *testing.B) {
				dst, src := benchBufs(size)
				fillTimestamps(src, dtype.Second, binary.NativeEndian)
				b.SetBytes(int64(size))
				for b.Loop() {
					ByteSwap(dst, src)
				}
			})
		}
	})
}

func BenchmarkValidity(b *testing.B) {
	forEachBenchImpl(b, func(b *testing.B) {
		for _, size := range benchSizes {
			b.Run(sizeName(size), func(b *testing.B) {
				_, src := benchBufs(size)
				fillTimestamps(src, dtype.Second, binary.NativeEndian)
				bm := make([]byte, size/64)
				b.SetBytes(int64(size))
				for b.Loop() {
					Validity(bm, src, nil)
				}
			})
		}
	})
}

func BenchmarkMinMax(b *testing.B) {
	forEachBenchImpl(b, func(b *testing.B) {
		for _, size := range benchSizes {
			b.Run(sizeName(size), func(b *testing.B) {
				_, src := benchBufs(size)
				fillTimestamps(src, dtype.Second, binary.NativeEndian)
				b.SetBytes(int64(size))
				for b.Loop() {
					MinMax(src, nil)
				}
			})
		}
	})
}

func benchTranscode(b *testing.B, from, to dtype.DataType, o Options, validity bool) {
	c, err := dtype.NewConversion(from, to)
	if err != nil {
		b.Fatal(err)
	}
	o.Overflow = dtype.OverflowNaT
	tr, err := NewTranscoder(c, o)
	if err != nil {
		b.Fatal(err)
	}
	in := o.From
	if in == nil {
		in = binary.NativeEndian
	}
	for _, size := range benchSizes {
		b.Run(sizeName(size), func(b *testing.B) {
			dst, src := benchBufs(size)
			fillTimestamps(src, from.Unit, in)
			var bm []byte
			if validity {
				bm = make([]byte, size/64)
			}
			b.SetBytes(int64(size))
			for b.Loop() {
				if _, err := tr.Run(dst, src, bm); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var (
	dtS   = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1}
	dtNS  = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}
	dtUS  = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Microsecond, Scale: 1}
	dt25h = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Hour, Scale: 25}
	dtD   = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Day, Scale: 1}
	dtM   = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Month, Scale: 1}
)

func BenchmarkMultiply(b *testing.B) {
	forEachBenchImpl(b, func(b *testing.B) { benchTranscode(b, dtS, dtNS, Options{}, false) })
}

func BenchmarkFloorDivide(b *testing.B) {
	forEachBenchImpl(b, func(b *testing.B) { benchTranscode(b, dtNS, dtS, Options{}, false) })
}

// BenchmarkFloorDivideValidity is an Arrow column's pass: ns to us with
// the validity bitmap (one pass on AVX-512: floorDivEst writes the bits).
func BenchmarkFloorDivideValidity(b *testing.B) {
	forEachBenchImpl(b, func(b *testing.B) { benchTranscode(b, dtNS, dtUS, Options{}, true) })
}

func BenchmarkMulDiv(b *testing.B) {
	forEachBenchImpl(b, func(b *testing.B) { benchTranscode(b, dt25h, dtD, Options{}, false) })
}

func BenchmarkCalendarToMonth(b *testing.B) {
	forEachBenchImpl(b, func(b *testing.B) { benchTranscode(b, dtNS, dtM, Options{}, false) })
}

func BenchmarkCalendarFromMonth(b *testing.B) {
	forEachBenchImpl(b, func(b *testing.B) { benchTranscode(b, dtM, dtD, Options{}, false) })
}

// BenchmarkFused is the transcode engine's pass: big-endian s in,
// little-endian ns out, validity bitmap and min/max.
func BenchmarkFused(b *testing.B) {
	forEachBenchImpl(b, func(b *testing.B) {
		benchTranscode(b, dtS, dtNS, Options{From: binary.BigEndian, To: binary.LittleEndian, Stats: true}, true)
	})
}

// BenchmarkCFDecode: CF numbers as xarray writes them to datetime64[ns]:
// int64 hours since 1900 (ERA5) and float64 days since 1800 with NaN
// (ERSST), quarter days; compare with BenchmarkMultiply and BenchmarkCopy.
func BenchmarkCFDecode(b *testing.B) {
	for _, c := range []struct {
		name, attrs string
		stored      cf.Stored
		fill        func(r *rand.Rand) uint64
	}{
		{"int64-hours", `{"units": "hours since 1900-01-01 00:00:00"}`, cf.Stored{Kind: cf.StoredInt, Size: 8},
			func(r *rand.Rand) uint64 { return uint64(r.Int64N(200 * 8766)) }},
		{"float64-days", `{"units": "days since 1800-01-01", "_FillValue": "NaN"}`, cf.Stored{Kind: cf.StoredFloat, Size: 8},
			func(r *rand.Rand) uint64 {
				if r.IntN(100) == 0 {
					return math.Float64bits(math.NaN())
				}
				return math.Float64bits(float64(r.Int64N(300*365*4)) / 4)
			}},
	} {
		b.Run(c.name, func(b *testing.B) {
			t, err := cf.ParseAttributes([]byte(c.attrs), c.stored)
			if err != nil {
				b.Fatal(err)
			}
			d, err := NewCFDecoder(t, dtNS, Options{Overflow: dtype.OverflowNaT})
			if err != nil {
				b.Fatal(err)
			}
			forEachBenchImpl(b, func(b *testing.B) {
				for _, size := range benchSizes {
					b.Run(sizeName(size), func(b *testing.B) {
						dst, src := benchBufs(size)
						r := rand.New(rand.NewPCG(42, 7))
						for i := 0; i+8 <= len(src); i += 8 {
							binary.NativeEndian.PutUint64(src[i:], c.fill(r))
						}
						b.SetBytes(int64(size))
						for b.Loop() {
							if _, err := d.Run(dst, src, nil); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			})
		})
	}
}

// BenchmarkCFDecodeBetweenGrids: float64 days with random fractions
// (observation times that fall on no grid): since 2000, 0 to 20 000
// days, to ns and to s; and since 0001-01-01 in the years 1000-1500,
// beyond ns's range, to s. No fast check decides them: each element
// takes the exact path (cf.Decoder's integer ladders, in ns or µs for
// the coarser unit), so this is the speed of the slow path, per
// implementation the same. The last two cases round half or 90 % of
// the values to whole hours, which the fast check decides: the mix of
// both paths.
func BenchmarkCFDecodeBetweenGrids(b *testing.B) {
	for _, c := range []struct {
		name, units string
		lo, span    float64
		to          dtype.DataType
		hourly      int // of 100 values, how many are whole hours (on a grid)
	}{
		{"2000s/to=ns", "days since 2000-01-01", 0, 20000, dtNS, 0},
		{"2000s/to=s", "days since 2000-01-01", 0, 20000, dtS, 0},
		{"1000s/to=s", "days since 0001-01-01", 365000, 180000, dtS, 0},
		// Values on and off the grid at random: the exact path's back-off
		// (slowRun) must not cost the ones the fast check decides.
		{"2000s-half-hourly/to=s", "days since 2000-01-01", 0, 20000, dtS, 50},
		{"2000s-90%-hourly/to=s", "days since 2000-01-01", 0, 20000, dtS, 90},
	} {
		b.Run(c.name, func(b *testing.B) {
			t, err := cf.ParseAttributes([]byte(`{"units": "`+c.units+`", "calendar": "proleptic_gregorian"}`), cf.Stored{Kind: cf.StoredFloat, Size: 8})
			if err != nil {
				b.Fatal(err)
			}
			d, err := NewCFDecoder(t, c.to, Options{Overflow: dtype.OverflowNaT})
			if err != nil {
				b.Fatal(err)
			}
			const size = 1 << 20
			dst, src := make([]byte, size), make([]byte, size)
			r := rand.New(rand.NewPCG(42, 8))
			for i := 0; i+8 <= size; i += 8 {
				f := c.lo + r.Float64()*c.span
				if r.IntN(100) < c.hourly {
					f = math.Round(f*24) / 24
				}
				binary.NativeEndian.PutUint64(src[i:], math.Float64bits(f))
			}
			b.SetBytes(size)
			for b.Loop() {
				if _, err := d.Run(dst, src, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCFEncode: datetime64[ns] to int64 hours since 1900 (the
// multiply-add kernel, then the floor divide by 3.6e12).
func BenchmarkCFEncode(b *testing.B) {
	u, err := cf.ParseUnits("hours since 1900-01-01", cf.ProlepticGregorian)
	if err != nil {
		b.Fatal(err)
	}
	e, err := NewCFEncoder(dtNS, u, Options{Overflow: dtype.OverflowNaT})
	if err != nil {
		b.Fatal(err)
	}
	forEachBenchImpl(b, func(b *testing.B) {
		for _, size := range benchSizes {
			b.Run(sizeName(size), func(b *testing.B) {
				dst, src := benchBufs(size)
				fillTimestamps(src, dtype.Nanosecond, binary.NativeEndian)
				b.SetBytes(int64(size))
				for b.Loop() {
					if _, err := e.Run(dst, src, nil); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}

// BenchmarkFloorDivideValidityVsCopy is an Arrow µs column's pass (ns to
// us with the validity bitmap, through a Transcoder) as a ratio to copy()
// of the same bytes timed in the same round (x-copy, the median over
// rounds): on data=minutes, instants a minute apart with up to a second
// of jitter and one NaT in 1000 (zarrow's BenchmarkColumn array), and on
// data=random, instants anywhere from 1900 to 2100, 1% NaT.
//
//	go test -run '^$' -bench FloorDivideValidityVsCopy -benchtime 9x ./kernels/
func BenchmarkFloorDivideValidityVsCopy(b *testing.B) {
	tr := func() *Transcoder {
		c, err := dtype.NewConversion(dtNS, dtUS)
		if err != nil {
			b.Fatal(err)
		}
		t, err := NewTranscoder(c, Options{Overflow: dtype.OverflowNaT})
		if err != nil {
			b.Fatal(err)
		}
		return t
	}()
	for _, data := range []string{"minutes", "random"} {
		for _, size := range benchSizes {
			dst, src := benchBufs(size)
			if data == "random" {
				fillTimestamps(src, dtype.Nanosecond, binary.NativeEndian)
			} else {
				r := rand.New(rand.NewPCG(1, 2))
				for i := 0; i+8 <= size; i += 8 {
					v := int64(1_600_000_000e9) + int64(i/8)*60e9 + r.Int64N(1e9)
					if r.IntN(1000) == 0 {
						v = math.MinInt64
					}
					binary.NativeEndian.PutUint64(src[i:], uint64(v))
				}
			}
			bm := make([]byte, size/64)
			b.Run("data="+data+"/"+sizeName(size), func(b *testing.B) {
				forEachBenchImpl(b, func(b *testing.B) {
					var ratios []float64
					for b.Loop() {
						t0 := time.Now()
						copy(dst, src)
						c := time.Since(t0)
						t0 = time.Now()
						if _, err := tr.Run(dst, src, bm); err != nil {
							b.Fatal(err)
						}
						ratios = append(ratios, float64(time.Since(t0))/float64(c))
					}
					slices.Sort(ratios)
					b.ReportMetric(ratios[len(ratios)/2], "x-copy")
				})
			})
		}
	}
}
