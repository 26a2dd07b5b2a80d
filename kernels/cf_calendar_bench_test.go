package kernels

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
)

// BenchmarkCFCalendar decodes int64 hours in a model calendar to ns,
// converted by date: an hourly time coordinate (sorted) and random hours
// (every element finds its month anew).
func BenchmarkCFCalendar(b *testing.B) {
	for _, c := range []struct {
		name, calendar string
		conv           cf.CalendarConversion
		sorted         bool
	}{
		{"noleap-date-sorted", "noleap", cf.ConvertDate, true},
		{"360_day-year-sorted", "360_day", cf.ConvertYear, true},
		{"noleap-date-random", "noleap", cf.ConvertDate, false},
		{"julian-date-random", "julian", cf.ConvertDate, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			tm, err := cf.ParseAttributes([]byte(`{"units": "hours since 1900-01-01", "calendar": "`+c.calendar+`"}`), cf.Stored{Kind: cf.StoredInt, Size: 8})
			if err != nil {
				b.Fatal(err)
			}
			k, err := NewCFDecoder(tm, dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1},
				Options{Overflow: dtype.OverflowNaT, Calendar: cf.CalendarOptions{Convert: c.conv, Missing: cf.MissingNaT}})
			if err != nil {
				b.Fatal(err)
			}
			const n = 1 << 17
			src, dst := make([]byte, 8*n), make([]byte, 8*n)
			r := rand.New(rand.NewPCG(1, 2))
			for i := range n {
				v := int64(i)
				if !c.sorted {
					v = r.Int64N(200 * 8760)
				}
				binary.LittleEndian.PutUint64(src[8*i:], uint64(v))
			}
			b.SetBytes(8 * n)
			for b.Loop() {
				if _, err := k.Run(dst, src, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
