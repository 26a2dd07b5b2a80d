package fuzz

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
)

// FuzzCFCalendar converts arbitrary int64 CF counts of every calendar,
// unit, conversion and policy: the kernel (its month cache and 128-bit
// edges) equals cf.Decoder element for element, with the same counts and
// the same first error; and by date, a converted value's Gregorian date
// (Go's time package) is the source's date in its own calendar.
func FuzzCFCalendar(f *testing.F) {
	f.Add(uint8(0), uint8(0), uint8(0), int64(0), int64(24), int64(-1))
	f.Add(uint8(2), uint8(1), uint8(3), int64(59*24), int64(math.MaxInt64), int64(math.MinInt64))
	f.Add(uint8(3), uint8(2), uint8(5), int64(-1<<40), int64(1<<50), int64(7))
	calendars := []string{"noleap", "all_leap", "360_day", "julian", "standard"}
	units := []struct {
		word string
		to   dtype.Unit
	}{{"days", dtype.Day}, {"hours", dtype.Hour}, {"hours", dtype.Nanosecond}, {"seconds", dtype.Second}, {"minutes", dtype.Microsecond}, {"days", dtype.Picosecond}}
	f.Fuzz(func(t *testing.T, cal, unit, policy uint8, v0, v1, v2 int64) {
		c := calendars[int(cal)%len(calendars)]
		u := units[int(unit)%len(units)]
		tm, err := cf.ParseAttributes([]byte(fmt.Sprintf(`{"units": "%s since 1999-03-01 06:00", "calendar": %q}`, u.word, c)), cf.Stored{Kind: cf.StoredInt, Size: 8})
		if err != nil {
			t.Fatal(err)
		}
		to := dtype.DataType{Kind: dtype.Datetime, Unit: u.to, Scale: 1}
		co := cf.CalendarOptions{Convert: cf.ConvertDate + cf.CalendarConversion(policy%2), Missing: cf.MissingDate(policy / 2 % 2)}
		pol := dtype.OverflowPolicy(policy / 4 % 3)
		ref, err := cf.NewDecoderWith(tm, to, cf.DecoderOptions{Overflow: pol, Calendar: co})
		if err != nil {
			t.Fatal(err)
		}
		k, err := kernels.NewCFDecoder(tm, to, kernels.Options{Overflow: pol, Calendar: co,
			From: binary.LittleEndian, To: binary.LittleEndian})
		if err != nil {
			t.Fatal(err)
		}
		vals := []int64{v0, v1, v2, v0 + 1, v1 - 1}
		src := make([]byte, 8*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint64(src[8*i:], uint64(v))
		}
		want := make([]int64, len(vals))
		wst, werr := ref.Decode(want, src, binary.LittleEndian)
		dst := make([]byte, len(src))
		st, err := k.Run(dst, src, nil)
		var we, ge *dtype.ElementError
		if werr != nil || err != nil {
			if !errors.As(werr, &we) || !errors.As(err, &ge) || we.Index != ge.Index || we.Reason != ge.Reason {
				t.Fatalf("%s %s %+v: kernel %v, reference %v", c, to, co, err, werr)
			}
			return
		}
		if st.NaT != wst.NaT || st.NoDate != wst.NoDate || st.Overflowed != wst.Overflowed {
			t.Fatalf("%s %s %+v: stats %+v, reference %+v", c, to, co, st, wst)
		}
		own, err := cf.NewDecoderWith(tm, to, cf.DecoderOptions{Overflow: dtype.OverflowNaT, Calendar: cf.CalendarOptions{ModelTime: true}})
		if err != nil {
			t.Fatal(err)
		}
		model := make([]int64, len(vals))
		if _, err := own.Decode(model, src, binary.LittleEndian); err != nil {
			t.Fatal(err)
		}
		for i := range vals {
			got := int64(binary.LittleEndian.Uint64(dst[8*i:]))
			if got != want[i] {
				t.Fatalf("%s %s %+v: element %d (%d): %d, reference %d", c, to, co, i, vals[i], got, want[i])
			}
			if co.Convert.Effective(tm.Calendar) != cf.ConvertDate || got == dtype.NaT || model[i] == dtype.NaT || got == math.MaxInt64 || got == math.MinInt64+1 {
				continue
			}
			// The date kept: Go's proleptic Gregorian date of the result
			// is the model's date (to the day; days from 1970 within
			// what time.Unix holds).
			perDay := map[dtype.Unit]int64{dtype.Day: 1, dtype.Hour: 24, dtype.Nanosecond: 86400e9, dtype.Second: 86400, dtype.Microsecond: 86400e6, dtype.Picosecond: 86400e12}[u.to]
			day := floorDiv(got, perDay)
			if day > 1<<36 || day < -(1<<36) {
				continue
			}
			gy, gm, gd := time.Unix(day*86400, 0).UTC().Date()
			ref := tm.Calendar.FormatCount(model[i], to)
			if gs := fmt.Sprintf("%04d-%02d-%02d", gy, int(gm), gd); gs != ref[:len(ref)-len("T00:00:00")] && gs != ref[:10] {
				t.Fatalf("%s %s: element %d: converted to %s, its date in %s is %s", c, to, i, gs, c, ref)
			}
		}
	})
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
