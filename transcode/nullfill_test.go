package transcode_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// nullFillDir is the dataset tools/xarray/null_fill.py writes: CF time
// arrays (int64 hours, "fill_value": null) some of whose chunks are not
// stored.
const nullFillDir = "../testdata/xarray-null-fill/null_fill.zarr"

type nullFillArray struct {
	Name    string
	Missing []int    `json:"missing_chunks"`
	Values  []*int64 `json:"values"` // ns since the epoch; nil where the chunk is missing
}

func nullFillArrays(t *testing.T) []nullFillArray {
	t.Helper()
	b, err := os.ReadFile("../testdata/xarray-null-fill/null_fill.values.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]nullFillArray
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var out []nullFillArray
	for _, name := range []string{"time", "valid_time"} {
		a := doc[name]
		a.Name = name
		if len(a.Missing) == 0 {
			t.Fatalf("%s: the fixture misses no chunk", name)
		}
		out = append(out, a)
	}
	return out
}

// want is the array's values in ns, NaT where its chunks are missing, and
// how many those are.
func (a nullFillArray) want() (vals []int64, unfilled int64) {
	for _, v := range a.Values {
		if v == nil {
			vals = append(vals, dtype.NaT)
			unfilled++
			continue
		}
		vals = append(vals, *v)
	}
	return vals, unfilled
}

func (a nullFillArray) source() storage.Store {
	return storage.NewDir(filepath.Join(nullFillDir, a.Name))
}

// checkNullFillDestination reads the datetime64 destination in dst and
// compares it, in ns, with want; its fill value must be NaT.
func checkNullFillDestination(t *testing.T, what string, dst storage.Store, want []int64) {
	t.Helper()
	a, got := readArray(t, dst)
	if a.FillValue() != dtype.NaT || a.Metadata().FillNull {
		t.Errorf("%s: destination fill value %d (null %v), want NaT", what, a.FillValue(), a.Metadata().FillNull)
	}
	sameValues(t, what, toNanoseconds(t, a.DataType(), got), want)
}

// TestCFNullFillMissingChunks: a CF time array whose fill value is null
// has no values in the chunks it does not store. They become NaT, counted
// as Unfilled, never the reference instant that zero bits decode to; an
// exact run refuses the source, naming the chunks, before writing
// anything.
func TestCFNullFillMissingChunks(t *testing.T) {
	for _, arr := range nullFillArrays(t) {
		want, unfilled := arr.want()
		for _, o := range []transcode.Options{
			{Workers: 2},                         // datetime64[h]
			{Unit: dtype.Nanosecond, Workers: 2}, // through a region of several source chunks below
			{Unit: dtype.Second, Format: 2, Workers: 1},
		} {
			dst := storage.NewDir(filepath.Join(t.TempDir(), "d"))
			job, err := transcode.New(ctx, arr.source(), dst, o)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(job.Plan().Notes, func(n string) bool { return strings.Contains(n, "fill value is null") }) {
				t.Errorf("%s %+v: no plan note on the null fill: %q", arr.Name, o, job.Plan().Notes)
			}
			sum, err := job.Run(ctx)
			if err != nil {
				t.Fatalf("%s %+v: %v", arr.Name, o, err)
			}
			if sum.Unfilled != unfilled || sum.NaT != unfilled || sum.Elements != int64(len(want)) {
				t.Errorf("%s %+v: summary %+v, want %d unfilled and NaT of %d", arr.Name, o, sum, unfilled, len(want))
			}
			checkNullFillDestination(t, arr.Name, dst, want)
			if err := job.Verify(ctx); err != nil {
				t.Errorf("%s %+v: verify: %v", arr.Name, o, err)
			}
		}

		// Shards of two source chunks, one of them missing: a region
		// converted partly from stored chunks.
		dst := storage.NewDir(filepath.Join(t.TempDir(), "d"))
		shards := transcode.Sharding{Mode: transcode.ShardAdd, Chunks: []int64{2}}
		job, err := transcode.New(ctx, arr.source(), dst, transcode.Options{Format: 3, Sharding: shards, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if sum, err := job.Run(ctx); err != nil || sum.Unfilled != unfilled {
			t.Fatalf("%s, shards of two: %+v, %v", arr.Name, sum, err)
		}
		checkNullFillDestination(t, arr.Name+", shards of two", dst, want)

		// A CF destination: NaT is its _FillValue.
		dst = storage.NewDir(filepath.Join(t.TempDir(), "cf"))
		job, err = transcode.New(ctx, arr.source(), dst, transcode.Options{CF: true, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		if sum, err := job.Run(ctx); err != nil || sum.Unfilled != unfilled {
			t.Fatalf("%s, CF destination: %+v, %v", arr.Name, sum, err)
		}
		a, err := zarr.Open(ctx, dst)
		if err != nil {
			t.Fatal(err)
		}
		raw := make([]byte, 8*len(want))
		order, err := a.ReadRegionRaw(ctx, []int64{0}, []int64{int64(len(want))}, raw, zarr.RegionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			v, w := int64(order.Uint64(raw[8*i:])), want[i]
			if w != dtype.NaT {
				w /= 3600e9 // hours since the epoch
			}
			if v != w {
				t.Fatalf("%s, CF destination: element %d = %d, want %d (array fill %v)", arr.Name, i, v, w, a.Metadata().NumericFill)
			}
		}

		// Exact: refused before anything is written.
		dir := filepath.Join(t.TempDir(), "exact")
		_, err = transcode.New(ctx, arr.source(), storage.NewDir(dir), transcode.Options{Exact: true})
		var me *transcode.MissingChunksError
		if !errors.As(err, &me) || !errors.Is(err, transcode.ErrPlan) || me.Missing != int64(len(arr.Missing)) {
			t.Fatalf("%s, exact: %v, want a MissingChunksError for %d chunks", arr.Name, err, len(arr.Missing))
		}
		for i, c := range arr.Missing {
			if me.Keys[i] != strconv.Itoa(c) || !strings.Contains(err.Error(), "null") {
				t.Errorf("%s, exact: %v does not name chunk %d", arr.Name, err, c)
			}
		}
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s, exact: the refused plan wrote %s (%v)", arr.Name, dir, err)
		}
	}

	// Exact with every chunk stored: nothing to refuse.
	dst := storage.NewDir(filepath.Join(t.TempDir(), "d"))
	job, err := transcode.New(ctx, storage.NewDir("../testdata/xarray/hourly_int.zarr/time"), dst, transcode.Options{Exact: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := job.Run(ctx); err != nil || sum.Unfilled != 0 || sum.NaT != 0 {
		t.Fatalf("hourly_int, exact: %+v, %v", sum, err)
	}
}

// TestCFNullFillPartsAndResume: partitioned runs and a resumed one count
// the unfilled elements once and write the same NaT.
func TestCFNullFillPartsAndResume(t *testing.T) {
	arr := nullFillArrays(t)[1] // valid_time: 5 chunks, 2 missing
	want, unfilled := arr.want()
	dir := filepath.Join(t.TempDir(), "parts")
	var total int64
	for i := range 3 {
		job, err := transcode.New(ctx, arr.source(), storage.NewDir(dir), transcode.Options{Part: transcode.Part{Index: i, Count: 3}, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := job.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		total += sum.Unfilled
	}
	if total != unfilled {
		t.Errorf("parts: %d unfilled in all, want %d", total, unfilled)
	}
	checkNullFillDestination(t, "parts", storage.NewDir(dir), want)

	for _, o := range []transcode.Options{{Workers: 1}, {Unit: dtype.Millisecond, Overflow: dtype.OverflowNaT, Workers: 1}} {
		resumed := false
		for after := int64(1); after < 8; after++ {
			d := filepath.Join(t.TempDir(), "d")
			job, _ := transcode.New(ctx, arr.source(), &failStore{Store: storage.NewDir(d), after: after}, o)
			if _, err := job.Run(ctx); err == nil {
				t.Fatalf("after %d: no failure", after)
			}
			r := o
			r.Resume = true
			job, err := transcode.New(ctx, arr.source(), storage.NewDir(d), r)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := job.Run(ctx)
			if err != nil {
				t.Fatalf("after %d, resumed: %v", after, err)
			}
			resumed = resumed || sum.Resumed > 0
			if sum.Unfilled != unfilled || sum.NaT != unfilled {
				t.Errorf("after %d, resumed %+v: want %d unfilled", after, sum, unfilled)
			}
			checkNullFillDestination(t, "resumed", storage.NewDir(d), want)
		}
		if !resumed {
			t.Errorf("%+v: no run resumed a unit", o)
		}
	}
}

// TestCFNullFillStore: a hierarchy run counts each array's unfilled
// elements in its own summary.
func TestCFNullFillStore(t *testing.T) {
	arrays := nullFillArrays(t)
	dst := filepath.Join(t.TempDir(), "d")
	job, err := transcode.NewStore(ctx, storage.NewDir(nullFillDir), storage.NewDir(dst), transcode.StoreOptions{Options: transcode.Options{Workers: 2}})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := job.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var all int64
	for _, arr := range arrays {
		want, unfilled := arr.want()
		all += unfilled
		i := slices.IndexFunc(sum.Arrays, func(a transcode.ArraySummary) bool { return a.Path == arr.Name })
		if i < 0 || sum.Arrays[i].Unfilled != unfilled {
			t.Errorf("%s: array summaries %+v, want %d unfilled", arr.Name, sum.Arrays, unfilled)
		}
		checkNullFillDestination(t, arr.Name, storage.NewDir(filepath.Join(dst, arr.Name)), want)
	}
	if sum.Unfilled != all {
		t.Errorf("store summary: %d unfilled, want %d", sum.Unfilled, all)
	}
}

// TestNativeMissingChunksStayNaT: a datetime64 source whose fill value is
// NaT (v3) reads its missing chunks as NaT, and they stay NaT in every
// destination unit, counted as NaT but not as unfilled (the fill value
// is defined).
func TestNativeMissingChunksStayNaT(t *testing.T) {
	ms := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Millisecond, Scale: 1}
	vals := make([]int64, 100)
	for i := range vals {
		vals[i] = 1_577_836_800_000 + int64(i)*3_600_000
	}
	missing := func(c []int64) bool { return c[0] == 1 || c[0] == 4 }
	src := storage.NewMemory()
	writeArray(t, src, zarr.Metadata{Format: 3, DataType: ms, Shape: []int64{100}, ChunkShape: []int64{16}, FillValue: dtype.NaT,
		Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}}}, vals, missing)
	want := make([]int64, len(vals))
	for i, v := range vals {
		want[i] = v * 1e6
		if missing([]int64{int64(i) / 16}) {
			want[i] = dtype.NaT
		}
	}
	for _, o := range []transcode.Options{
		{Unit: dtype.Nanosecond, Workers: 2},
		{Unit: dtype.Second, Format: 2, Workers: 2},
		{Unit: dtype.Microsecond, Sharding: transcode.Sharding{Mode: transcode.ShardAdd, Chunks: []int64{2}}, Workers: 2},
	} {
		dst := storage.NewMemory()
		job, err := transcode.New(ctx, src, dst, o)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := job.Run(ctx)
		if err != nil || sum.NaT != 32 || sum.Unfilled != 0 {
			t.Fatalf("%+v: %+v, %v (want 32 NaT, none unfilled)", o, sum, err)
		}
		w := slices.Clone(want)
		if o.Unit == dtype.Second {
			for i := range w {
				if w[i] != dtype.NaT {
					w[i] = w[i] / 1e9 * 1e9
				}
			}
		}
		checkNullFillDestination(t, "native", dst, w)
	}
}
