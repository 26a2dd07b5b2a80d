package transcode_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
)

// eraGroup is the hierarchy of the F1 reproduction, as xarray writes it:
// a CF time coordinate time [40], a 2-D CF coordinate valid_time [40 4]
// (chunks of 10 rows) and a float32 variable, which is no time.
func eraGroup(t *testing.T) storage.Store {
	t.Helper()
	s := storage.NewMemory()
	set := func(k string, v []byte) {
		if err := s.Set(ctx, k, v); err != nil {
			t.Fatal(err)
		}
	}
	set(".zgroup", []byte(`{"zarr_format": 2}`))
	arr := func(name, dtypeText, shape, chunks, attrs string) {
		set(name+"/.zarray", []byte(`{"zarr_format": 2, "shape": `+shape+`, "chunks": `+chunks+`, "dtype": "`+dtypeText+
			`", "compressor": null, "fill_value": null, "filters": null, "order": "C"}`))
		set(name+"/.zattrs", []byte(attrs))
	}
	arr("time", "<i8", "[40]", "[10]", `{"units": "hours since 2022-01-01 00:00:00", "calendar": "proleptic_gregorian", "_ARRAY_DIMENSIONS": ["time"]}`)
	arr("valid_time", "<i8", "[40, 4]", "[10, 4]", `{"units": "hours since 2022-01-01 00:00:00", "calendar": "proleptic_gregorian", "_ARRAY_DIMENSIONS": ["time", "step"]}`)
	arr("t2m", "<f4", "[40, 4]", "[10, 4]", `{"_ARRAY_DIMENSIONS": ["time", "step"]}`)
	for c := range 4 {
		tc, vc := make([]byte, 80), make([]byte, 320)
		for i := range 10 {
			h := uint64(6 * (10*c + i))
			binary.LittleEndian.PutUint64(tc[8*i:], h)
			for s := range 4 {
				binary.LittleEndian.PutUint64(vc[8*(4*i+s):], h+3*uint64(s))
			}
		}
		set(fmt.Sprintf("time/%d", c), tc)
		set(fmt.Sprintf("valid_time/%d.0", c), vc)
		set(fmt.Sprintf("t2m/%d.0", c), make([]byte, 160))
	}
	return s
}

// TestStoreUnconvertibleFails: a time array of a hierarchy (native or CF)
// whose plan fails under the options makes the whole plan fail, naming
// the array and the reason (an *UnconvertibleError), as the array alone
// does; with SkipUnconvertible it is carried over as it is, byte for
// byte, and the plan and the summary say so. One case per flag of the F1
// reproduction, plus a scale and a model calendar.
func TestStoreUnconvertibleFails(t *testing.T) {
	shard := func(c ...int64) transcode.Sharding { return transcode.Sharding{Mode: transcode.ShardAdd, Chunks: c} }
	noleap := storage.NewDir(filepath.Join("..", "testdata", "xarray", "noleap.zarr"))
	// A CF time array with a compressor dt64 does not decode: it does not
	// even open, and used to be copied as numbers without a word.
	bz2 := eraGroup(t)
	if err := bz2.Set(ctx, "time/.zarray", []byte(`{"zarr_format": 2, "shape": [40], "chunks": [10], "dtype": "<i8", "compressor": {"id": "bz2", "level": 1}, "fill_value": null, "filters": null, "order": "C"}`)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		src     storage.Store
		o       transcode.Options
		refused []string // the arrays that cannot be converted
		says    string
	}{
		{"shard 4", eraGroup(t), transcode.Options{Format: 3, Sharding: shard(4)}, []string{"valid_time"}, "dimensions"},
		{"shard 4,1", eraGroup(t), transcode.Options{Format: 3, Sharding: shard(4, 1)}, []string{"time"}, "dimensions"},
		{"unit M", eraGroup(t), transcode.Options{Unit: dtype.Month}, []string{"time", "valid_time"}, "datetime64[M]"},
		{"unit Y", eraGroup(t), transcode.Options{Unit: dtype.Year}, []string{"time", "valid_time"}, "datetime64[Y]"},
		{"scale 7", eraGroup(t), transcode.Options{Scale: 7}, []string{"time", "valid_time"}, "scale"},
		{"noleap", noleap, transcode.Options{}, []string{"time"}, `calendar "noleap"`},
		{"codec bz2", bz2, transcode.Options{Unit: dtype.Millisecond}, []string{"time"}, `compressor "bz2"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := transcode.NewStore(ctx, c.src, storage.NewMemory(), transcode.StoreOptions{Options: c.o})
			var ue *transcode.UnconvertibleError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("plan: %v; want an UnconvertibleError saying %q", err, c.says)
			}
			for _, p := range c.refused {
				if !strings.Contains(err.Error(), p+": ") {
					t.Errorf("the error does not name %s: %v", p, err)
				}
			}
			dst := storage.NewMemory()
			j, err := transcode.NewStore(ctx, c.src, dst, transcode.StoreOptions{Options: c.o, SkipUnconvertible: true})
			if err != nil {
				t.Fatalf("skip: %v", err)
			}
			notes := map[string]string{}
			for _, a := range j.Plan().Arrays {
				if a.Note != "" {
					notes[a.Path] = a.Note
				}
			}
			sum, err := j.Run(ctx)
			if err != nil {
				t.Fatalf("skip: %v", err)
			}
			for _, p := range c.refused {
				if !strings.Contains(notes[p], "not converted") || !strings.Contains(notes[p], c.says) {
					t.Errorf("%s: plan note %q", p, notes[p])
				}
				found := false
				for _, a := range sum.Arrays {
					found = found || a.Path == p && a.Note == notes[p] && a.Note != ""
				}
				if !found {
					t.Errorf("%s: not listed with its note in the summary %+v", p, sum.Arrays)
				}
				keys, _ := c.src.List(ctx, p+"/")
				for _, k := range keys {
					if c.o.Format == 3 && strings.Contains(k, "/.z") {
						continue // migrated: the chunks stay, the metadata is v3's
					}
					want, _ := c.src.Get(ctx, k)
					got, err := dst.Get(ctx, k)
					if err != nil || string(got) != string(want) {
						t.Errorf("%s: not carried over as it is (%v)", k, err)
					}
				}
			}
			skipped := 0 // the other notes say what a migration changes
			for _, n := range notes {
				if strings.HasPrefix(n, "not converted") {
					skipped++
				}
			}
			if skipped != len(c.refused) {
				t.Errorf("notes %v, want one for each of %v", notes, c.refused)
			}
		})
	}
}
