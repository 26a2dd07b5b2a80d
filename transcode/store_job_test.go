package transcode_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// transcodedArrays are the arrays a run converted as time arrays.
func transcodedArrays(s transcode.StoreSummary) []string {
	var out []string
	for _, a := range s.Arrays {
		if a.Action == "transcode" {
			out = append(out, a.Path)
		}
	}
	slices.Sort(out)
	return out
}

// underAny reports whether file path k lies in one of the arrays.
func underAny(k string, arrays []string) bool {
	for _, a := range arrays {
		if strings.HasPrefix(k, filepath.FromSlash(a)+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

func groupFixture(name string) string {
	return filepath.Join("..", "testdata", "zarr", "groups", name)
}

func runStore(t *testing.T, src, dst storage.Store, o transcode.StoreOptions) (transcode.StoreSummary, error) {
	t.Helper()
	j, err := transcode.NewStore(ctx, src, dst, o)
	if err != nil {
		return transcode.StoreSummary{}, err
	}
	return j.Run(ctx)
}

// runVerified runs a store job and verifies the destination, failing the
// test on any error.
func runVerified(t *testing.T, src, dst storage.Store, o transcode.StoreOptions) {
	t.Helper()
	j, err := transcode.NewStore(ctx, src, dst, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := j.Verify(ctx); err != nil {
		t.Fatal(err)
	}
}

// failingStore fails every Set after the first n, like a process killed
// there (Set is atomic on a directory store).
type failingStore struct {
	storage.Store
	left atomic.Int64
}

var errKilled = errors.New("killed")

func (s *failingStore) Unwrap() storage.Store { return s.Store }

func (s *failingStore) Set(c context.Context, k string, v []byte) error {
	if s.left.Add(-1) < 0 {
		return errKilled
	}
	return s.Store.Set(c, k, v)
}

func (s *failingStore) Delete(c context.Context, k string) error {
	if s.left.Add(-1) < 0 {
		return errKilled
	}
	return s.Store.Delete(c, k)
}

// TestStoreCopyV2 transcodes an xarray dataset: its CF time arrays
// ("time", "sub/stamp") are converted to native datetime64, every other
// file is copied byte for byte, and the .zmetadata is rewritten.
func TestStoreCopyV2(t *testing.T) {
	src := storage.NewDir(groupFixture("xarray_v2.zarr"))
	dir := filepath.Join(t.TempDir(), "out.zarr")
	sum, err := runStore(t, src, storage.NewDir(dir), transcode.StoreOptions{Options: transcode.Options{Unit: dtype.Microsecond}})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Complete || len(sum.Arrays) != 6 {
		t.Fatalf("summary %+v", sum)
	}
	converted := transcodedArrays(sum)
	if !slices.Equal(converted, []string{"sub/stamp", "time"}) {
		t.Fatalf("converted %v, want the CF time arrays", converted)
	}
	want, _ := zarr.Walk(ctx, src)
	if _, err := zarr.ReadConsolidated(ctx, storage.NewDir(dir)); err != nil {
		t.Fatal(err)
	}
	got, err := zarr.Walk(ctx, storage.NewDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	// The consolidated metadata made from the plan is what
	// zarr.WriteConsolidated makes from the finished store.
	key, doc, err := zarr.ConsolidatedDocument(got)
	if stored, _ := storage.NewDir(dir).Get(ctx, key); err != nil || string(stored) != string(doc) {
		t.Errorf("%s: not what WriteConsolidated writes (%v)", key, err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d nodes, want %d", len(got), len(want))
	}
	fs, fd := treeFiles(t, groupFixture("xarray_v2.zarr")), treeFiles(t, dir)
	for i, n := range want {
		if got[i].Path != n.Path || got[i].Kind != n.Kind {
			t.Fatalf("node %d: %q %v, want %q %v", i, got[i].Path, got[i].Kind, n.Path, n.Kind)
		}
		if slices.Contains(converted, n.Path) {
			if !strings.Contains(got[i].DataType, "M8") {
				t.Errorf("%s: %s, want datetime64", n.Path, got[i].DataType)
			}
			continue
		}
		if string(got[i].Metadata) != string(n.Metadata) || string(got[i].AttrsDoc) != string(n.AttrsDoc) {
			t.Errorf("%s: metadata changed", n.Path)
		}
	}
	for k, v := range fs {
		if underAny(k, converted) || k == ".zmetadata" {
			continue
		}
		if fd[k] != v {
			t.Errorf("%s: not copied byte for byte", k)
		}
	}
	for k := range fd {
		if strings.Contains(k, ".dt64-") {
			t.Errorf("state left behind: %s", k)
		}
	}
}

// TestStoreMigrateV3 migrates the v2 source of the zarr-python 3.1.3
// migration fixture and compares the result with it: the same nodes, the
// same metadata (dimension_names for _ARRAY_DIMENSIONS), the same chunk
// files; the time array is converted to native v3.
func TestStoreMigrateV3(t *testing.T) {
	srcDir := groupFixture("migrated_v3.source_v2.zarr")
	dir := filepath.Join(t.TempDir(), "out.zarr")
	sum, err := runStore(t, storage.NewDir(srcDir), storage.NewDir(dir), transcode.StoreOptions{Options: transcode.Options{Format: 3}})
	if err != nil {
		t.Fatal(err)
	}
	converted := transcodedArrays(sum)
	if !slices.Equal(converted, []string{"sub/stamp", "time"}) {
		t.Fatalf("converted %v, want the native and the CF time array", converted)
	}
	var tm struct {
		DataType struct {
			Name string `json:"name"`
		} `json:"data_type"`
		DimensionNames []string       `json:"dimension_names"`
		Attributes     map[string]any `json:"attributes"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "time", "zarr.json"))
	if err != nil || json.Unmarshal(b, &tm) != nil {
		t.Fatalf("time: %v %s", err, b)
	}
	if tm.DataType.Name != "numpy.datetime64" || !slices.Equal(tm.DimensionNames, []string{"time"}) || tm.Attributes["units"] != nil || tm.Attributes["long_name"] != "time" {
		t.Errorf("the CF time array in v3: %s", b)
	}
	fixture := groupFixture("migrated_v3.zarr")
	want, got := treeFiles(t, fixture), treeFiles(t, dir)
	for k, v := range want {
		if underAny(k, converted) {
			continue // converted to native datetime64 by their Jobs
		}
		if filepath.Base(k) == "zarr.json" {
			compareMigrated(t, filepath.Join(fixture, k), filepath.Join(dir, k))
			continue
		}
		if got[k] != v {
			t.Errorf("%s: differs from zarr-python's migration", k)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok && !underAny(k, converted) {
			t.Errorf("%s: not in zarr-python's migration", k)
		}
	}
}

func compareMigrated(t *testing.T, wantFile, gotFile string) {
	t.Helper()
	var w, g map[string]any
	for f, m := range map[string]*map[string]any{wantFile: &w, gotFile: &g} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, m); err != nil {
			t.Fatal(err)
		}
	}
	if attrs, ok := w["attributes"].(map[string]any); ok && attrs["_ARRAY_DIMENSIONS"] != nil {
		w["dimension_names"] = attrs["_ARRAY_DIMENSIONS"]
		delete(attrs, "_ARRAY_DIMENSIONS")
	}
	if !reflect.DeepEqual(w, g) {
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		t.Errorf("%s:\n got %s\nwant %s", gotFile, gb, wb)
	}
}

// TestStoreKilledAndResumed kills a run over a whole hierarchy after a
// random number of writes, up to three times, and resumes it: the result
// is byte for byte the uninterrupted run's.
func TestStoreKilledAndResumed(t *testing.T) {
	src := storage.NewDir(groupFixture("migrated_v3.source_v2.zarr"))
	zstd := transcode.Compression{Codec: zarr.ZstdCodec{Level: 2}}
	for i, o := range []transcode.StoreOptions{
		{Options: transcode.Options{Unit: dtype.Second, Format: 2, Workers: 2}, Consolidate: true},
		{Options: transcode.Options{Unit: dtype.Second, Format: 3, Workers: 2}, Consolidate: true},
		{Options: transcode.Options{Format: 3, Compression: &zstd, Workers: 2}, RecodeAll: true},
	} {
		format := i
		ref := filepath.Join(t.TempDir(), "ref.zarr")
		if _, err := runStore(t, src, storage.NewDir(ref), o); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(format), 7))
		for round := range 12 {
			dir := filepath.Join(t.TempDir(), "out.zarr")
			for kill := 0; kill < 3; kill++ {
				fs := &failingStore{Store: storage.NewDir(dir)}
				fs.left.Store(int64(rng.IntN(60)))
				ro := o
				ro.Resume = kill > 0
				_, err := runStore(t, src, fs, ro)
				if err == nil {
					break
				}
				if !errors.Is(err, errKilled) {
					t.Fatalf("format %d round %d: %v", format, round, err)
				}
			}
			ro := o
			ro.Resume = true
			if _, err := runStore(t, src, storage.NewDir(dir), ro); err != nil {
				t.Fatalf("format %d round %d resume: %v", format, round, err)
			}
			sameTrees(t, ref, dir)
		}
	}
}

func TestStoreParts(t *testing.T) {
	src := storage.NewDir(groupFixture("migrated_v3.source_v2.zarr"))
	o := transcode.StoreOptions{Options: transcode.Options{Unit: dtype.Second, Format: 3}}
	ref := filepath.Join(t.TempDir(), "ref.zarr")
	if _, err := runStore(t, src, storage.NewDir(ref), o); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out.zarr")
	for i := range 2 {
		po := o
		po.Part = transcode.Part{Index: 1 - i, Count: 2}
		sum, err := runStore(t, src, storage.NewDir(dir), po)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Complete != (i == 1) {
			t.Fatalf("part %d: complete %v", 1-i, sum.Complete)
		}
	}
	sameTrees(t, ref, dir)
}

// TestStoreOverwriteRefusal: a destination holding anything dt64 did not
// write is refused, and left exactly as it was; one that holds only a
// dt64 hierarchy is replaced.
func TestStoreOverwriteRefusal(t *testing.T) {
	src := storage.NewDir(groupFixture("migrated_v3.source_v2.zarr"))
	dir := filepath.Join(t.TempDir(), "out.zarr")
	if _, err := runStore(t, src, storage.NewDir(dir), transcode.StoreOptions{}); err != nil {
		t.Fatal(err)
	}
	o := transcode.StoreOptions{Options: transcode.Options{Format: 3, Overwrite: true}}
	if err := os.WriteFile(filepath.Join(dir, "sub", "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := treeHash(t, dir)
	_, err := runStore(t, src, storage.NewDir(dir), o)
	var de *transcode.DestinationError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("got %v, want a refusal naming notes.txt", err)
	}
	if treeHash(t, dir) != before {
		t.Fatal("a refused overwrite changed the destination")
	}
	if _, err := runStore(t, src, storage.NewDir(dir), transcode.StoreOptions{Options: transcode.Options{Format: 3}}); !errors.As(err, &de) {
		t.Fatalf("without overwrite: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "sub", "notes.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := runStore(t, src, storage.NewDir(dir), o); err != nil {
		t.Fatal(err)
	}
	ref := filepath.Join(t.TempDir(), "ref.zarr")
	if _, err := runStore(t, src, storage.NewDir(ref), transcode.StoreOptions{Options: transcode.Options{Format: 3}}); err != nil {
		t.Fatal(err)
	}
	sameTrees(t, ref, dir)
	if _, err := os.Stat(filepath.Join(dir, "sub", "stamp", ".zarray")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("old v2 metadata left: %v", err)
	}
}

// TestStoreOverwriteRefusesLookalikes: in a v3 hierarchy a v2 document
// (.zattrs, .zmetadata) is not dt64's, nor is a file named like its
// state; an overwrite refuses each, naming it, and deletes nothing.
func TestStoreOverwriteRefusesLookalikes(t *testing.T) {
	src := storage.NewDir(groupFixture("migrated_v3.source_v2.zarr"))
	o := transcode.StoreOptions{Options: transcode.Options{Format: 3}}
	for _, name := range []string{".zattrs", "lat/.zattrs", "sub/stamp/.zmetadata", ".dt64-notes.txt", "sub/stamp/.dt64-notes.txt", ".dt64-store-parts/README"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out.zarr")
			if _, err := runStore(t, src, storage.NewDir(dir), o); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, filepath.FromSlash(name)), "not JSON, mine")
			before := treeHash(t, dir)
			ow := o
			ow.Overwrite = true
			_, err := runStore(t, src, storage.NewDir(dir), ow)
			var de *transcode.DestinationError
			if !errors.As(err, &de) || !strings.Contains(err.Error(), name) {
				t.Fatalf("got %v, want a refusal naming %s", err, name)
			}
			if treeHash(t, dir) != before {
				t.Fatal("a refused overwrite changed the destination")
			}
		})
	}
}

// TestStoreOverwriteUnreadable: a destination whose hierarchy does not
// read (a stray v2 .zgroup beside a v3 group's zarr.json) is refused with
// the reason, not with a list of dt64's own chunks called foreign.
func TestStoreOverwriteUnreadable(t *testing.T) {
	src := storage.NewDir(groupFixture("migrated_v3.source_v2.zarr"))
	o := transcode.StoreOptions{Options: transcode.Options{Format: 3}}
	dir := filepath.Join(t.TempDir(), "out.zarr")
	if _, err := runStore(t, src, storage.NewDir(dir), o); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sub", ".zgroup"), `{"zarr_format": 2}`)
	before := treeHash(t, dir)
	for _, overwrite := range []bool{false, true} {
		ow := o
		ow.Overwrite, ow.Unit = overwrite, dtype.Second // another plan
		_, err := runStore(t, src, storage.NewDir(dir), ow)
		if err == nil || !strings.Contains(err.Error(), "conflicting metadata") || strings.Contains(err.Error(), "not dt64's") {
			t.Errorf("overwrite %v: %v; want the refusal to give the conflicting metadata as the reason", overwrite, err)
		}
	}
	if treeHash(t, dir) != before {
		t.Fatal("a refusal changed the destination")
	}
}

func TestStoreUntranslatable(t *testing.T) {
	src := storage.NewMemory()
	must := func(k, v string) {
		if err := src.Set(ctx, k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	must(".zgroup", `{"zarr_format": 2}`)
	must("names/.zarray", `{"chunks":[2],"compressor":null,"dtype":"|O","fill_value":0,"filters":[{"id":"vlen-utf8"}],"order":"C","shape":[2],"zarr_format":2}`)
	must("odd/.zarray", `{"chunks":[2],"compressor":null,"dtype":"<f8","fill_value":0,"filters":[{"id":"mystery"}],"order":"C","shape":[2],"zarr_format":2}`)
	dst := storage.NewMemory()
	_, err := transcode.NewStore(ctx, src, dst, transcode.StoreOptions{Options: transcode.Options{Format: 3}})
	if err == nil || !strings.Contains(err.Error(), "names") || !strings.Contains(err.Error(), "odd") {
		t.Fatalf("got %v, want an error naming both arrays", err)
	}
	if keys, _ := dst.List(ctx, ""); len(keys) != 0 {
		t.Fatalf("wrote %v", keys)
	}
}

// killedThenLatChanged copies the group fixture to srcDir, kills a run
// into dir after it copied lat, and rewrites lat's chunk 0 (the same bytes,
// a later modification time).
func killedThenLatChanged(t *testing.T) (srcDir, dir string) {
	t.Helper()
	srcDir = filepath.Join(t.TempDir(), "src.zarr")
	if err := os.CopyFS(srcDir, os.DirFS(groupFixture("migrated_v3.source_v2.zarr"))); err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), "out.zarr")
	fs := &failingStore{Store: storage.NewDir(dir)}
	fs.left.Store(8)
	if _, err := runStore(t, storage.NewDir(srcDir), fs, transcode.StoreOptions{}); !errors.Is(err, errKilled) {
		t.Fatalf("first run: %v", err)
	}
	chunk := filepath.Join(srcDir, "lat", "0") // lat was copied before the kill
	b, err := os.ReadFile(chunk)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	if err := os.WriteFile(chunk, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return srcDir, dir
}

// TestStoreSourceChanged: a chunk of a copied array rewritten between a
// kill and the resume stops the resume, naming the chunk.
func TestStoreSourceChanged(t *testing.T) {
	srcDir, dir := killedThenLatChanged(t)
	_, err := runStore(t, storage.NewDir(srcDir), storage.NewDir(dir), transcode.StoreOptions{Options: transcode.Options{Resume: true}})
	var sc *transcode.SourceChangedError
	if !errors.As(err, &sc) || sc.Key != "0" {
		t.Fatalf("resume after a source chunk changed: %v", err)
	}
}

// TestStoreSourceChangedOtherPartition: the same when the run is
// continued as parts: the copied chunks the killed plain run wrote are
// skipped as done, so their records are checked too.
func TestStoreSourceChangedOtherPartition(t *testing.T) {
	srcDir, dir := killedThenLatChanged(t)
	for i := range 2 {
		o := transcode.StoreOptions{Options: transcode.Options{Part: transcode.Part{Index: i, Count: 2}}}
		_, err := runStore(t, storage.NewDir(srcDir), storage.NewDir(dir), o)
		var sc *transcode.SourceChangedError
		if !errors.As(err, &sc) || sc.Key != "0" {
			t.Fatalf("part %d of 2 after a source chunk the plain run copied changed: %v", i, err)
		}
	}
}

// TestStorePartsConcurrent runs three parts at once, as three machines
// would: together they equal one run.
func TestStorePartsConcurrent(t *testing.T) {
	src := storage.NewDir(groupFixture("migrated_v3.source_v2.zarr"))
	o := transcode.StoreOptions{Options: transcode.Options{Unit: dtype.Second, Format: 3, Workers: 1}, Consolidate: true}
	ref := filepath.Join(t.TempDir(), "ref.zarr")
	if _, err := runStore(t, src, storage.NewDir(ref), o); err != nil {
		t.Fatal(err)
	}
	for round := range 5 {
		dir := filepath.Join(t.TempDir(), "out.zarr")
		errs := make(chan error, 3)
		for i := range 3 {
			go func() {
				po := o
				po.Part = transcode.Part{Index: i, Count: 3}
				j, err := transcode.NewStore(ctx, src, storage.NewDir(dir), po)
				if err == nil {
					_, err = j.Run(ctx)
				}
				errs <- err
			}()
		}
		for range 3 {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		// Whichever part finished last finalized; a --finalize-like run
		// completes any finalize that lost a race.
		fo := o
		fo.Part = transcode.Part{Index: 0, Count: 3}
		j, err := transcode.NewStore(ctx, src, storage.NewDir(dir), fo)
		if err != nil {
			t.Fatal(err)
		}
		if sum, err := j.Finalize(ctx); err != nil || !sum.Complete {
			t.Fatalf("round %d: finalize: %v %+v", round, err, sum)
		}
		sameTrees(t, ref, dir)
	}
}

// TestStoreV3ToV2Dimensions: time arrays of a v3 hierarchy written as v2
// get their dimension_names as xarray's _ARRAY_DIMENSIONS attribute (the
// other arrays are migrated: store_v2_test.go).
func TestStoreV3ToV2Dimensions(t *testing.T) {
	src := storage.NewDir(groupFixture("dataset_v3.zarr"))
	dst := filepath.Join(t.TempDir(), "out.zarr")
	o := transcode.StoreOptions{Options: transcode.Options{Format: 2}, Include: []string{"time", "sub/stamp"}}
	if _, err := runStore(t, src, storage.NewDir(dst), o); err != nil {
		t.Fatal(err)
	}
	var attrs map[string]any
	b, err := os.ReadFile(filepath.Join(dst, "sub", "stamp", ".zattrs"))
	if err != nil || json.Unmarshal(b, &attrs) != nil {
		t.Fatalf("%v %s", err, b)
	}
	if d, _ := attrs["_ARRAY_DIMENSIONS"].([]any); len(d) != 1 || d[0] != "event" {
		t.Fatalf("attributes %v", attrs)
	}
	if _, err := zarr.ReadConsolidated(ctx, storage.NewDir(dst)); err != nil {
		t.Fatalf("the source was consolidated: %v", err)
	}
}

// TestStoreOverwriteKilled: an overwrite killed after any number of its
// deletions is finished by the next overwrite.
func TestStoreOverwriteKilled(t *testing.T) {
	src := storage.NewDir(groupFixture("migrated_v3.source_v2.zarr"))
	o := transcode.StoreOptions{Options: transcode.Options{Format: 3, Unit: dtype.Second}}
	ref := filepath.Join(t.TempDir(), "ref.zarr")
	if _, err := runStore(t, src, storage.NewDir(ref), o); err != nil {
		t.Fatal(err)
	}
	o.Overwrite = true
	for n := int64(1); n < 60; n += 4 {
		dir := filepath.Join(t.TempDir(), "out.zarr")
		if _, err := runStore(t, src, storage.NewDir(dir), transcode.StoreOptions{}); err != nil {
			t.Fatal(err)
		}
		fs := &failingStore{Store: storage.NewDir(dir)}
		fs.left.Store(n)
		if _, err := runStore(t, src, fs, o); err != nil && !errors.Is(err, errKilled) {
			t.Fatalf("after %d calls: %v", n, err)
		}
		if _, err := runStore(t, src, storage.NewDir(dir), o); err != nil {
			t.Fatalf("overwrite after a kill at %d: %v", n, err)
		}
		sameTrees(t, ref, dir)
	}
}

// TestStoreResumeOtherPlan: a resume with another codec for the copied
// arrays is refused, not finished with chunks of two encodings.
func TestStoreResumeOtherPlan(t *testing.T) {
	src := storage.NewDir(groupFixture("migrated_v3.source_v2.zarr"))
	dir := filepath.Join(t.TempDir(), "out.zarr")
	zstd := transcode.Compression{Codec: zarr.ZstdCodec{Level: 2}}
	o := transcode.StoreOptions{Options: transcode.Options{Compression: &zstd}, RecodeAll: true}
	fs := &failingStore{Store: storage.NewDir(dir)}
	fs.left.Store(10)
	if _, err := runStore(t, src, fs, o); !errors.Is(err, errKilled) {
		t.Fatalf("first run: %v", err)
	}
	gzip := transcode.Compression{Codec: zarr.GzipCodec{Level: 2}}
	o.Compression, o.Resume = &gzip, true
	_, err := runStore(t, src, storage.NewDir(dir), o)
	if !errors.Is(err, transcode.ErrPlanMismatch) || !strings.Contains(err.Error(), "its destination metadata differs") {
		t.Fatalf("resume with another codec: %v, want ErrPlanMismatch naming the arrays", err)
	}
	// Another unit: the arrays named with what was done to them.
	o.Compression, o.Unit = &zstd, dtype.Millisecond
	_, err = runStore(t, src, storage.NewDir(dir), o)
	if !errors.Is(err, transcode.ErrPlanMismatch) || !strings.Contains(err.Error(), ", now transcode ") {
		t.Fatalf("resume with another unit: %v, want ErrPlanMismatch naming the conversions", err)
	}
}

// TestStoreCFRefusedCopied: a CF time array dt64 does not convert (the
// noleap calendar, which datetime64 cannot hold) fails the plan unless
// skipped; skipped, it is carried over as its numbers and attributes,
// byte for byte, and the plan says why, so the user is never left to
// guess why it is not datetime64.
func TestStoreCFRefusedCopied(t *testing.T) {
	srcDir := filepath.Join("..", "testdata", "xarray", "noleap.zarr")
	src := storage.NewDir(srcDir)
	dir := filepath.Join(t.TempDir(), "out.zarr")
	if _, err := transcode.NewStore(ctx, src, storage.NewDir(dir), transcode.StoreOptions{}); err == nil || !strings.Contains(err.Error(), `calendar "noleap"`) {
		t.Fatalf("a noleap array, not skipped: %v", err)
	}
	j, err := transcode.NewStore(ctx, src, storage.NewDir(dir), transcode.StoreOptions{SkipUnconvertible: true})
	if err != nil {
		t.Fatal(err)
	}
	p := j.Plan()
	if len(p.Arrays) != 1 || p.Arrays[0].Action != "copy" || !strings.Contains(p.Arrays[0].Note, `calendar "noleap"`) ||
		!strings.Contains(p.Arrays[0].Note, "not converted") {
		t.Fatalf("plan %+v: want a copy with a note naming the calendar", p.Arrays)
	}
	if _, err := j.Run(ctx); err != nil {
		t.Fatal(err)
	}
	want, got := treeFiles(t, srcDir), treeFiles(t, dir)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: not carried over byte for byte", k)
		}
	}
}

// TestStoreCopiesLinkedChunks: a chunk file that is a symbolic link to a
// file inside the source (a store deduplicated with links) is a value
// like any other: copied as the bytes it leads to, never left out (which
// would make the destination read it as the fill value).
func TestStoreCopiesLinkedChunks(t *testing.T) {
	srcDir := filepath.Join(t.TempDir(), "src.zarr")
	if err := os.CopyFS(srcDir, os.DirFS(groupFixture("xarray_v2.zarr"))); err != nil {
		t.Fatal(err)
	}
	// lat's only chunk moves to a shared place and is linked back.
	chunk := filepath.Join(srcDir, "lat", "0")
	want, err := os.ReadFile(chunk)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(chunk, filepath.Join(srcDir, "shared-lat-0")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "shared-lat-0"), chunk); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out.zarr")
	sum, err := runStore(t, storage.NewDir(srcDir), storage.NewDir(dir), transcode.StoreOptions{Options: transcode.Options{Unit: dtype.Microsecond}, Include: []string{"lat"}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Chunks != 1 || sum.Stored != 1 {
		t.Errorf("summary %+v: want the linked chunk copied", sum.Summary)
	}
	got, err := os.ReadFile(filepath.Join(dir, "lat", "0"))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("lat/0 in the destination: %v; want the linked chunk's bytes", err)
	}
}

// TestStoreChunkAddedAfterPlan: the copy lists an array's chunks again
// when it starts it (a store holds one array's keys at a time); a chunk
// that appeared since the plan is a changed source, not silently left out
// of the destination.
func TestStoreChunkAddedAfterPlan(t *testing.T) {
	srcDir := filepath.Join(t.TempDir(), "src.zarr")
	if err := os.CopyFS(srcDir, os.DirFS(groupFixture("migrated_v3.source_v2.zarr"))); err != nil {
		t.Fatal(err)
	}
	chunk := filepath.Join(srcDir, "temp", "2.1")
	b, err := os.ReadFile(chunk)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(chunk); err != nil { // missing when planned
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out.zarr")
	j, err := transcode.NewStore(ctx, storage.NewDir(srcDir), storage.NewDir(dir), transcode.StoreOptions{Include: []string{"temp"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(chunk, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = j.Run(ctx)
	var sc *transcode.SourceChangedError
	if !errors.As(err, &sc) || !strings.Contains(err.Error(), "5 chunks listed when planned") {
		t.Fatalf("run after a chunk was added: %v", err)
	}
}

// TestStoreRecodeEndian: re-encoding to the other byte order reverses each
// element's bytes, each half of a complex number on its own, and leaves
// one-byte types alone; the values read back are the source's.
func TestStoreRecodeEndian(t *testing.T) {
	src := storage.NewMemory()
	if err := src.Set(ctx, ".zgroup", []byte(`{"zarr_format": 2}`)); err != nil {
		t.Fatal(err)
	}
	types := map[string]zarr.NumericType{
		"c16": {Kind: zarr.Complex, Size: 16}, "c8": {Kind: zarr.Complex, Size: 8}, "f2": {Kind: zarr.Float, Size: 2},
		"i4": {Kind: zarr.Int, Size: 4}, "u1": {Kind: zarr.Uint, Size: 1},
	}
	raws := map[string][]byte{}
	for name, nt := range types {
		m := zarr.Metadata{Format: 2, Shape: []int64{6}, ChunkShape: []int64{3}, Numeric: nt,
			Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}}}
		a, err := zarr.Create(ctx, mustSub(t, src, name), m)
		if err != nil {
			t.Fatal(err)
		}
		raw := make([]byte, 6*nt.Size)
		for i := range raw {
			raw[i] = byte(i*7 + 1)
		}
		raws[name] = slices.Clone(raw)
		for c := range int64(2) {
			if _, err := a.WriteChunkRaw(ctx, []int64{c}, slices.Clone(raw[c*3*int64(nt.Size):(c+1)*3*int64(nt.Size)])); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.WriteMetadata(ctx); err != nil {
			t.Fatal(err)
		}
	}
	dst := storage.NewMemory()
	zstd := transcode.Compression{Codec: zarr.ZstdCodec{Level: 1}}
	runVerified(t, src, dst, transcode.StoreOptions{Options: transcode.Options{Compression: &zstd, Endian: binary.BigEndian}, RecodeAll: true})
	for name, nt := range types {
		a, err := zarr.Open(ctx, mustSub(t, dst, name))
		if err != nil {
			t.Fatal(err)
		}
		unit := nt.Size
		if nt.Kind == zarr.Complex {
			unit /= 2
		}
		if want := map[bool]binary.ByteOrder{true: binary.BigEndian, false: a.ByteOrder()}[nt.Size > 1]; a.ByteOrder() != want {
			t.Errorf("%s: byte order %v", name, a.ByteOrder())
		}
		got := make([]byte, 0, len(raws[name]))
		buf := make([]byte, a.ChunkBytes())
		for c := range int64(2) {
			if _, _, err := a.ReadChunkRaw(ctx, []int64{c}, buf); err != nil {
				t.Fatal(err)
			}
			got = append(got, buf...)
		}
		want := raws[name]
		for i := 0; i < len(want); i += unit { // little-endian source units, reversed
			for k := range unit {
				if unit > 1 && got[i+k] != want[i+unit-1-k] || unit == 1 && got[i] != want[i] {
					t.Fatalf("%s: stored bytes %x, want the source's %x with each %d-byte unit reversed", name, got, want, unit)
				}
			}
		}
	}
}
