package kernels

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/internal/impl"
)

// The calendar conversion pass against cf.Decoder, the element-by-element
// reference with its own date arithmetic: every calendar and conversion,
// units from days to picoseconds, sorted time series (the segment cache's
// case), random counts over the whole int64 range (its 128-bit edges),
// NaT and missing values, both byte orders, every missing-date and
// overflow policy.

type calCase struct {
	calendar string
	conv     cf.CalendarConversion
}

func calCases() []calCase {
	var cs []calCase
	for _, c := range []string{"noleap", "all_leap", "360_day", "julian", "standard", "proleptic_gregorian"} {
		cs = append(cs, calCase{c, cf.ConvertDate})
		if c == "360_day" || c == "noleap" {
			cs = append(cs, calCase{c, cf.ConvertYear})
		}
	}
	return cs
}

// calWords draws stored int64 counts: sorted runs at several steps
// around typical dates, counts anywhere, and the extremes.
func calWords(r *rand.Rand, n int, perUnit int64) []uint64 {
	w := make([]uint64, 0, n)
	for len(w) < n {
		switch r.IntN(4) {
		case 0, 1: // a sorted run
			start := r.Int64N(2000*366) - 1000*366
			step := []int64{1, 6, 24, 24 * 30}[r.IntN(4)]
			for range r.IntN(200) {
				w = append(w, uint64(start*perUnit))
				start += step
			}
		case 2:
			w = append(w, r.Uint64())
		default:
			w = append(w, []uint64{1 << 63, 1<<63 + 1, 1<<63 - 1, 0, uint64(math.MaxInt64 / 2), 7}[r.IntN(6)])
		}
	}
	return w[:n]
}

func TestCFCalendarKernel(t *testing.T) { forEachImpl(t, testCFCalendarKernel) }

func testCFCalendarKernel(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 2))
	units := []struct {
		to   dtype.DataType
		unit string
	}{
		{days, "days"},
		{dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Hour, Scale: 6}, "hours"},
		{secs, "hours"},
		{ns, "hours"},
		{dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Picosecond, Scale: 1}, "seconds"},
	}
	for _, c := range calCases() {
		for _, u := range units {
			attrs := fmt.Sprintf(`{"units": "%s since 2000-01-01", "calendar": %q, "_FillValue": 7}`, u.unit, c.calendar)
			tm, err := cf.ParseAttributes([]byte(attrs), i64)
			if err != nil {
				t.Fatal(err)
			}
			for _, missing := range []cf.MissingDate{cf.MissingError, cf.MissingNaT} {
				for _, pol := range []dtype.OverflowPolicy{dtype.OverflowError, dtype.OverflowNaT, dtype.OverflowClamp} {
					name := fmt.Sprintf("%s/%s/%s/%s/%s", c.calendar, c.conv, u.to, missing, pol)
					co := cf.CalendarOptions{Convert: c.conv, Missing: missing}
					ref, err := cf.NewDecoderWith(tm, u.to, cf.DecoderOptions{Overflow: pol, Calendar: co})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					per := int64(1)
					if u.unit == "hours" {
						per = 1
					}
					words := calWords(r, 3000, per)
					for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
						for _, reference := range []bool{false, true} {
							checkCalendarRun(t, name, tm, u.to, ref, words, order, Options{From: order, To: order, Overflow: pol,
								Calendar: co, Reference: reference})
						}
					}
				}
			}
		}
	}
}

func checkCalendarRun(t *testing.T, name string, tm *cf.Time, to dtype.DataType, ref *cf.Decoder, words []uint64, order binary.ByteOrder, o Options) {
	t.Helper()
	src := make([]byte, 8*len(words))
	for i, w := range words {
		order.PutUint64(src[8*i:], w)
	}
	want := make([]int64, len(words))
	wst, werr := ref.Decode(want, src, order)
	k, err := NewCFDecoder(tm, to, o)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	dst := make([]byte, len(src))
	st, err := k.Run(dst, src, nil)
	var we, ge *dtype.ElementError
	switch {
	case werr != nil:
		if !errors.As(werr, &we) || !errors.As(err, &ge) || we.Index != ge.Index || we.Reason != ge.Reason {
			t.Fatalf("%s %s ref=%v: error %v, want %v", name, order, o.Reference, err, werr)
		}
		return
	case err != nil:
		t.Fatalf("%s %s ref=%v: %v, want no error", name, order, o.Reference, err)
	}
	for i := range want {
		if got := int64(order.Uint64(dst[8*i:])); got != want[i] {
			t.Fatalf("%s %s ref=%v: element %d (stored %d): %d, want %d", name, order, o.Reference, i, int64(words[i]), got, want[i])
		}
	}
	if st.NaT != wst.NaT || st.Overflowed != wst.Overflowed || st.NoDate != wst.NoDate || st.Lossy != wst.Lossy {
		t.Fatalf("%s %s ref=%v: stats %+v, want %+v", name, order, o.Reference, st, wst)
	}
}

// calendarShiftLanes is how finely each implementation's calendarShiftSIMD
// stops: its n is the leading run rounded down to a multiple of this (the
// vector on amd64, a pair on arm64); an implementation not listed has no
// kernel and must return 0.
var calendarShiftLanes = map[string]int{"avx512": 8, "avx2": 4, "neon": 2}

// calendarShiftRun is runCalendar's test, element by element: how many
// leading elements of dst are in the run [lo, lo+width), wrapping.
func calendarShiftRun(dst []uint64, lo int64, width uint64) int {
	for i, w := range dst {
		if uint64(int64(w))-uint64(lo) >= width {
			return i
		}
	}
	return len(dst)
}

// The calendar shift kernels (calshift_amd64.s, calshift_arm64.s) against
// the Go loop: shift added to the leading whole vectors while every element
// is in the run, nothing stored of the first vector that is not and nothing
// outside dst, at every length to 70, every start offset in a buffer to 3,
// with the first element outside the run at every lane. Elements in the
// run include its ends lo and lo+width-1, those outside are the words next
// to it (lo-1, lo+width), NaT and lo+2^63; the runs include ones at the
// int64 ends, one that wraps from MaxInt64 to NaT and beyond, an empty one
// and widths of 2^63 and more (which a signed compare would get wrong).
func TestCalendarShiftKernels(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		lanes := calendarShiftLanes[impl.Active("kernels")]
		r := rand.New(rand.NewPCG(25, 9))
		const guard = 9 // words after dst that must stay as they are
		for _, run := range []struct {
			lo    int64
			width uint64
			shift int64
		}{
			{-5, 10, 3},
			{math.MinInt64 + 1, 100, 7},
			{math.MaxInt64 - 9, 10, -9},
			{1 << 40, 1 << 20, -(1 << 33)},
			{math.MaxInt64 - 4, 10, 1}, // MaxInt64, NaT, MinInt64+1.. are in it; MaxInt64+1 wraps to NaT
			{7, 0, 5},                  // empty
			{-1 << 62, 1<<63 + 3, 11},
			{0, math.MaxUint64, -1}, // all but -1
		} {
			in := func() uint64 {
				switch r.IntN(4) {
				case 0:
					return uint64(run.lo)
				case 1:
					return uint64(run.lo) + run.width - 1
				}
				if run.width == 0 {
					return r.Uint64()
				}
				return uint64(run.lo) + r.Uint64N(run.width)
			}
			var outside []uint64
			for _, w := range []uint64{uint64(run.lo) - 1, uint64(run.lo) + run.width, 1 << 63, uint64(run.lo) + 1<<63} {
				if w-uint64(run.lo) >= run.width {
					outside = append(outside, w)
				}
			}
			for n := 0; n <= 70; n++ {
				for out := 0; out <= n; out++ { // the first element outside the run (none when n)
					for off := 0; off <= 3; off++ {
						buf := make([]uint64, off+n+guard)
						for i := range buf {
							buf[i] = in()
							if i == off+out && out < n {
								buf[i] = outside[r.IntN(len(outside))]
							}
						}
						orig := append([]uint64(nil), buf...)
						dst := buf[off : off+n]
						got := calendarShiftSIMD(dst, run.lo, run.width, run.shift)
						want := 0
						if lanes > 0 {
							want = calendarShiftRun(orig[off:off+n], run.lo, run.width) / lanes * lanes
						}
						if got != want {
							t.Fatalf("run %+v, n %d, offset %d, first outside %d: %d done, want %d", run, n, off, out, got, want)
						}
						for i := range buf {
							w := orig[i]
							if i >= off && i < off+got {
								w = uint64(int64(orig[i]) + run.shift)
							}
							if buf[i] != w {
								t.Fatalf("run %+v, n %d, offset %d: word %d (dst[%d]) is %d, want %d", run, n, off, i, i-off, int64(buf[i]), int64(w))
							}
						}
					}
				}
			}
		}
	})
}

// A model calendar without a conversion is refused, naming it; a unit
// that does not divide a day cannot convert.
func TestCFCalendarRefused(t *testing.T) {
	tm, err := cf.ParseAttributes([]byte(`{"units": "days since 2000-01-01", "calendar": "360_day"}`), i64)
	if err != nil {
		t.Fatal(err)
	}
	_, err = NewCFDecoder(tm, ns, Options{})
	if !errors.Is(err, cf.ErrModelCalendar) || !contains(err.Error(), `calendar "360_day"`) {
		t.Errorf("360_day without a conversion: %v", err)
	}
	week := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Week, Scale: 1}
	if _, err := NewCFDecoder(tm, week, Options{Calendar: cf.CalendarOptions{Convert: cf.ConvertDate}}); err == nil || !contains(err.Error(), "divides a day") {
		t.Errorf("360_day to weeks: %v", err)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
