package zarr

import (
	"context"
	"errors"
	"math"
	"math/big"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
)

// TestCFTimeXarrayFixtures decodes every array xarray 2023.01 wrote in
// testdata/xarray to datetime64[ns] and compares with xarray's own
// decoding, element for element; the model calendar must be refused
// without a conversion.
func TestCFTimeXarrayFixtures(t *testing.T) {
	ns := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}
	paths, _ := filepath.Glob("../testdata/xarray/*.values.json")
	if len(paths) < 8 {
		t.Fatalf("%d fixtures", len(paths))
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".values.json")
		t.Run(name, func(t *testing.T) {
			var want struct {
				Calendar string   `json:"calendar"`
				Values   []*int64 `json:"values"`
				Error    string   `json:"error"`
			}
			readJSONFile(t, p, &want)
			a, err := Open(context.Background(), storage.NewDir(filepath.Join("../testdata/xarray", name+".zarr", "time")))
			if err != nil {
				t.Fatal(err)
			}
			ct, err := a.CFTime()
			if want.Error != "" {
				// A model calendar reads; decoding it without a
				// conversion is refused, naming it.
				var ae *cf.AttributeError
				if err == nil {
					_, err = cf.NewDecoder(ct, ns, dtype.OverflowError)
				}
				if !errors.As(err, &ae) || ae.Attribute != "calendar" || ae.Text != want.Calendar || !errors.Is(err, cf.ErrModelCalendar) {
					t.Fatalf("xarray refused (%s); dt64: %v, want an error naming calendar %q", want.Error, err, want.Calendar)
				}
				return
			}
			if err != nil || ct == nil {
				t.Fatalf("CFTime: %v, %v", ct, err)
			}
			// The exact rule, checked below against the exact floor
			// (transcode's TestCFFloatShortestXarray checks the default
			// rule against the instants xarray wrote).
			dec, err := cf.NewDecoderWith(ct, ns, cf.DecoderOptions{Float: cf.FloatExact})
			if err != nil {
				t.Fatal(err)
			}
			got := make([]int64, 0, len(want.Values))
			raw := make([]byte, a.ChunkBytes())
			out := make([]int64, a.ChunkLen())
			var stored []float64 // the stored values, for the exactness check
			for _, c := range a.ChunkCoords() {
				order, _, err := a.ReadChunkRaw(context.Background(), c, raw)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := dec.Decode(out, raw, order); err != nil {
					t.Fatal(err)
				}
				z := a.ElementSize()
				nt := a.Numeric()
				_ = a.Grid().ForEachInside(c, func(off, n int) error {
					got = append(got, out[off:off+n]...)
					for i := off; i < off+n; i++ {
						b := nt.Bits(raw[i*z:], order)
						switch nt.Kind {
						case Float:
							stored = append(stored, nt.Float64(b[0]))
						default:
							stored = append(stored, math.NaN()) // integers: xarray is exact
						}
					}
					return nil
				})
			}
			if len(got) != len(want.Values) {
				t.Fatalf("%d values, xarray %d", len(got), len(want.Values))
			}
			nsPer := map[dtype.Unit]int64{dtype.Day: 86400e9, dtype.Hour: 3600e9, dtype.Minute: 60e9, dtype.Second: 1e9}[ct.Units.Unit]
			refNs := new(big.Rat).Mul(ct.Units.Reference, big.NewRat(1e9, 1))
			inexact := 0
			for i, w := range want.Values {
				f := stored[i]
				if packed := ct.Packing.Scale != nil || ct.Packing.Offset != nil; packed && w != nil {
					// xarray applies scale_factor and add_offset in float64
					// (transcode's tests check these elements exactly).
					inexact++
					if d := got[i] - *w; d < -4096 || d > 4096 {
						t.Errorf("[%d] = %d, xarray %d: more than float64 rounding apart", i, got[i], *w)
					}
					continue
				}
				if w == nil || math.IsNaN(f) {
					if (w == nil) != (got[i] == dtype.NaT) || w != nil && got[i] != *w {
						t.Errorf("[%d] = %d, xarray %v", i, got[i], deref64(w))
					}
					continue
				}
				// A float: xarray computes f × ns-per-unit in float64, exact
				// when the product is an integer below 2^53; then dt64
				// must equal it. Otherwise dt64 gives the exact floor of
				// reference + f × unit, and xarray is off by its rounding.
				prod := new(big.Rat).Mul(new(big.Rat).SetFloat64(f), big.NewRat(nsPer, 1))
				exact := new(big.Rat).Add(prod, refNs)
				floor := new(big.Int).Div(exact.Num(), exact.Denom())
				if got[i] != floor.Int64() || !floor.IsInt64() {
					t.Errorf("[%d] = %d, exact floor %s", i, got[i], floor)
				}
				if prod.IsInt() && prod.Num().CmpAbs(big.NewInt(1<<53)) < 0 {
					if got[i] != *w {
						t.Errorf("[%d] = %d, xarray (exact here) %d", i, got[i], *w)
					}
					continue
				}
				inexact++
				// xarray's error: the float64 rounding of a product below
				// 2^64 is at most 2^11 ns, plus its truncation.
				if d := got[i] - *w; d < -4096 || d > 4096 {
					t.Errorf("[%d] = %d, xarray %d: more than float64 rounding apart", i, got[i], *w)
				}
			}
			t.Logf("%d of %d elements where xarray rounds through float64", inexact, len(want.Values))
		})
	}
}

func TestCFTimeNotTime(t *testing.T) {
	ctx := context.Background()
	for attrs, isTime := range map[string]bool{
		`{"units": "m/s"}`: false, `{}`: false, `{"units": "hour"}`: false, `{"units": "Hours"}`: false,
		`{"units": "hours since 2000-01-01"}`: true,
		`{"units": "hours"}`:                  true, // a CF duration, as xarray reads it
	} {
		a, err := Create(ctx, storage.NewMemory(), Metadata{Numeric: NumericType{Float, 4}, Shape: []int64{3}, ChunkShape: []int64{3},
			Attributes: []byte(attrs)})
		if err != nil {
			t.Fatal(err)
		}
		ct, err := a.CFTime()
		if err != nil || (ct != nil) != isTime {
			t.Errorf("%s: %v %v", attrs, ct, err)
		}
	}
	a, _ := Create(ctx, storage.NewMemory(), Metadata{Numeric: NumericType{Float, 2}, Shape: []int64{3}, ChunkShape: []int64{3},
		Attributes: []byte(`{"units": "days since 2000-01-01"}`)})
	var ae *cf.AttributeError
	if _, err := a.CFTime(); !errors.As(err, &ae) || !strings.Contains(err.Error(), "float16") {
		t.Errorf("float16 CF time: %v", err)
	}
	nat, _ := Create(ctx, storage.NewMemory(), Metadata{DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1},
		Shape: []int64{3}, ChunkShape: []int64{3}, Attributes: []byte(`{"units": "days since 2000-01-01"}`)})
	if ct, err := nat.CFTime(); ct != nil || err != nil {
		t.Errorf("native time array: %v %v", ct, err)
	}
}

func deref64(p *int64) any {
	if p == nil {
		return "NaT"
	}
	return *p
}
