package transcode_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// The arrays of testdata/zarr/groups/dataset_v3.zarr that are not time
// arrays, and so are migrated to v2: their chunks keep their bytes and
// move from "c/0/1" keys to "0/1".
var v3Migrated = []string{"lat", "obs_count", "qc_flag", "sub/pressure", "temp"}

// migratedChunks maps each chunk file of the migrated arrays in the v3
// fixture to the file it becomes in v2.
func migratedChunks(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, h := range treeFiles(t, groupFixture("dataset_v3.zarr")) {
		if h == "dir" {
			continue
		}
		for _, a := range v3Migrated {
			if rest, ok := strings.CutPrefix(filepath.ToSlash(k), a+"/c/"); ok {
				out[k] = filepath.FromSlash(path.Join(a, rest))
			}
		}
	}
	if len(out) != 16 {
		t.Fatalf("%d chunk files in the fixture's migrated arrays", len(out))
	}
	return out
}

// TestStoreV3ToV2 writes zarr-python 3.1.3's v3 dataset as v2: the
// arrays that are not time arrays are migrated (chunk files byte for byte
// under v2 keys, the metadata zarr.MigrateV3Array's), the time arrays
// transcoded; --verify passes, and fails on a changed or missing chunk.
func TestStoreV3ToV2(t *testing.T) {
	src := storage.NewDir(groupFixture("dataset_v3.zarr"))
	dir := filepath.Join(t.TempDir(), "out.zarr")
	j, err := transcode.NewStore(ctx, src, storage.NewDir(dir), transcode.StoreOptions{Options: transcode.Options{Format: 2}})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := j.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var migrated []string
	for _, a := range sum.Arrays {
		if a.Action == "migrate" {
			migrated = append(migrated, a.Path)
		}
	}
	if !slices.Equal(migrated, v3Migrated) || !slices.Equal(transcodedArrays(sum), []string{"sub/obs_time", "sub/stamp", "time"}) {
		t.Fatalf("summary %+v", sum.Arrays)
	}
	want, got := treeFiles(t, groupFixture("dataset_v3.zarr")), treeFiles(t, dir)
	chunks := migratedChunks(t)
	for from, to := range chunks {
		if got[to] != want[from] {
			t.Errorf("%s: not %s byte for byte", to, from)
		}
	}
	nodes, err := zarr.Walk(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if !slices.Contains(v3Migrated, n.Path) {
			continue
		}
		v2, err := zarr.MigrateV3Array(n)
		if err != nil {
			t.Fatal(err)
		}
		for name, doc := range map[string][]byte{".zarray": v2.Zarray, ".zattrs": v2.Zattrs} {
			if b, err := os.ReadFile(filepath.Join(dir, n.Path, name)); err != nil || string(b) != string(doc) {
				t.Errorf("%s/%s: %v\n%s\nwant\n%s", n.Path, name, err, b, doc)
			}
		}
	}
	for k, h := range got {
		a := filepath.ToSlash(filepath.Dir(k))
		if base := filepath.Base(k); !strings.HasPrefix(base, ".") && underAny(k, v3Migrated) && h != "dir" && !slices.Contains(slices.Collect(mapValues(chunks)), k) {
			t.Errorf("%s: a file of %s that is no migrated chunk", k, a)
		}
		if strings.Contains(k, ".dt64-") {
			t.Errorf("state left behind: %s", k)
		}
	}
	if cons, err := zarr.ReadConsolidated(ctx, storage.NewDir(dir)); err != nil || len(cons) != len(nodes) {
		t.Fatalf("consolidated: %d nodes, %v", len(cons), err)
	}
	if err := j.Verify(ctx); err != nil {
		t.Fatalf("verify: %v", err)
	}
	chunk := filepath.Join(dir, "temp", "1", "0")
	b, _ := os.ReadFile(chunk)
	if err := os.WriteFile(chunk, append(b, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := j.Verify(ctx); !errors.Is(err, transcode.ErrVerify) || !strings.Contains(err.Error(), "temp") {
		t.Fatalf("verify of a changed chunk: %v", err)
	}
	if err := os.Remove(chunk); err != nil {
		t.Fatal(err)
	}
	if err := j.Verify(ctx); !errors.Is(err, transcode.ErrVerify) {
		t.Fatalf("verify of a missing chunk: %v", err)
	}
}

func mapValues(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

// TestStoreV3ToV2Resume kills a v3 -> v2 run after every few writes and
// resumes it, a temporary file of a renamed chunk left behind as a dying
// process leaves it: the result is the uninterrupted run's byte for byte,
// the temporary file removed, and every migrated chunk the killed run
// stored counted as already done (found under its v2 key), not copied
// again.
func TestStoreV3ToV2Resume(t *testing.T) {
	src := storage.NewDir(groupFixture("dataset_v3.zarr"))
	o := transcode.StoreOptions{Options: transcode.Options{Format: 2, Workers: 1}}
	ref := filepath.Join(t.TempDir(), "ref.zarr")
	if _, err := runStore(t, src, storage.NewDir(ref), o); err != nil {
		t.Fatal(err)
	}
	chunks := migratedChunks(t)
	sawResumed := false
	for n := int64(1); n < 40; n += 3 {
		dir := filepath.Join(t.TempDir(), "out.zarr")
		fs := &failingStore{Store: storage.NewDir(dir)}
		fs.left.Store(n)
		if _, err := runStore(t, src, fs, o); !errors.Is(err, errKilled) {
			t.Fatalf("kill after %d writes: %v", n, err)
		}
		stored := int64(0)
		for _, to := range chunks {
			if _, err := os.Stat(filepath.Join(dir, to)); err == nil {
				stored++
			}
		}
		temp := filepath.Join(dir, "temp", "2", ".dt64-tmp-0123456789abcdef-1")
		if err := os.MkdirAll(filepath.Dir(temp), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(temp, []byte("torn"), 0o644); err != nil {
			t.Fatal(err)
		}
		ro := o
		ro.Resume = true
		sum, err := runStore(t, src, storage.NewDir(dir), ro)
		if err != nil {
			t.Fatalf("resume after %d writes: %v", n, err)
		}
		resumed := int64(0)
		for _, a := range sum.Arrays {
			if a.Action == "migrate" {
				resumed += a.Resumed
			}
		}
		if resumed != stored {
			t.Errorf("after %d writes: %d migrated chunks were stored, the resume found %d", n, stored, resumed)
		}
		sawResumed = sawResumed || stored > 0
		sameTrees(t, ref, dir)
	}
	if !sawResumed {
		t.Fatal("no kill left a migrated chunk to resume")
	}
}

// writeV3Group writes a v3 group holding a float32 array for each codec
// chain, chunks filled with distinct values, dimension names set.
func writeV3Group(t *testing.T, dir string, chains map[string][]zarr.Codec) {
	t.Helper()
	root := storage.NewDir(dir)
	if err := root.Set(ctx, "zarr.json", []byte(`{"zarr_format": 3, "node_type": "group", "attributes": {"title": "codecs"}}`)); err != nil {
		t.Fatal(err)
	}
	for name, codecs := range chains {
		a, err := zarr.Create(ctx, mustSub(t, root, name), zarr.Metadata{Format: 3,
			Numeric: zarr.NumericType{Kind: zarr.Float, Size: 4}, Shape: []int64{8, 6}, ChunkShape: []int64{4, 6},
			Codecs: codecs, DimensionNames: json.RawMessage(`["y", "x"]`)})
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range a.ChunkCoords() {
			raw := make([]byte, a.ChunkBytes())
			for e := range a.ChunkBytes() / 4 {
				binary.LittleEndian.PutUint32(raw[4*e:], uint32(0x3f800000+int(i)*1000+e))
			}
			if _, err := a.WriteChunkRaw(ctx, c, raw); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.WriteMetadata(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// TestStoreV3ToV2Recode: a sharded array and one with crc32c have no v2
// form: the plan names both and writes nothing; with RecodeAll they are
// re-encoded as v2 arrays with the same values and dimension names.
func TestStoreV3ToV2Recode(t *testing.T) {
	srcDir := filepath.Join(t.TempDir(), "src.zarr")
	le := zarr.BytesCodec{Endian: binary.LittleEndian}
	writeV3Group(t, srcDir, map[string][]zarr.Codec{
		"sharded": {zarr.ShardingCodec{ChunkShape: []int64{2, 3}, Codecs: []zarr.Codec{le, zarr.ZstdCodec{Level: 1}}, IndexCodecs: []zarr.Codec{le, zarr.CRC32CCodec{}}}},
		"checked": {le, zarr.ZstdCodec{Level: 1}, zarr.CRC32CCodec{}},
		"plain":   {le, zarr.GzipCodec{Level: 1}},
	})
	src := storage.NewDir(srcDir)
	dir := filepath.Join(t.TempDir(), "out.zarr")
	_, err := transcode.NewStore(ctx, src, storage.NewDir(dir), transcode.StoreOptions{Options: transcode.Options{Format: 2}})
	if !errors.Is(err, transcode.ErrPlan) || !errors.Is(err, zarr.ErrUntranslatable) {
		t.Fatalf("plan: %v", err)
	}
	for _, s := range []string{`"sharded"`, "sharding_indexed", `"checked"`, "crc32c", "2 of the hierarchy's nodes"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the plan's error does not name %s: %v", s, err)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the refused plan wrote: %v", err)
	}

	zstd := transcode.Compression{Codec: zarr.ZstdCodec{Level: 3}}
	runVerified(t, src, storage.NewDir(dir), transcode.StoreOptions{Options: transcode.Options{Format: 2, Compression: &zstd}, RecodeAll: true})
	for _, name := range []string{"sharded", "checked", "plain"} {
		sa, err := zarr.Open(ctx, mustSub(t, src, name))
		if err != nil {
			t.Fatal(err)
		}
		da, err := zarr.Open(ctx, mustSub(t, storage.NewDir(dir), name))
		if err != nil {
			t.Fatal(err)
		}
		m := da.Metadata()
		if m.Format != 2 || !slices.Equal(m.ChunkShape, []int64{4, 6}) || !strings.Contains(string(m.Attributes), `"_ARRAY_DIMENSIONS":["y","x"]`) {
			t.Errorf("%s: format %d, chunks %v, attributes %s", name, m.Format, m.ChunkShape, m.Attributes)
		}
		for _, c := range sa.ChunkCoords() {
			want, got := make([]byte, sa.ChunkBytes()), make([]byte, da.ChunkBytes())
			if _, _, err := sa.ReadChunkRaw(ctx, c, want); err != nil {
				t.Fatal(err)
			}
			if _, _, err := da.ReadChunkRaw(ctx, c, got); err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("%s chunk %v: values differ", name, c)
			}
		}
	}
}

// TestStoreV3ToV2PartTemps: a resumed part removes the temporary files of
// its own migrated chunks, found by their v2 keys, and leaves those of
// another part's (which may be writing them right now).
func TestStoreV3ToV2PartTemps(t *testing.T) {
	src := storage.NewDir(groupFixture("dataset_v3.zarr"))
	dir := filepath.Join(t.TempDir(), "out.zarr")
	o := transcode.StoreOptions{Options: transcode.Options{Format: 2, Workers: 1, Part: transcode.Part{Index: 0, Count: 2}}}
	fs := &failingStore{Store: storage.NewDir(dir)}
	fs.left.Store(12)
	if _, err := runStore(t, src, fs, o); !errors.Is(err, errKilled) {
		t.Fatalf("first run: %v", err)
	}
	// temp's chunks, sorted by their v3 keys: c/0/0, c/0/1, c/1/0 are part
	// 0's; c/3/0, the last, is part 1's.
	mineTemp := filepath.Join(dir, "temp", "0", ".dt64-tmp-0123456789abcdef-1")
	theirs := filepath.Join(dir, "temp", "3", ".dt64-tmp-0123456789abcdef-0")
	for _, p := range []string{mineTemp, theirs} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("torn"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o.Resume = true
	if _, err := runStore(t, src, storage.NewDir(dir), o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mineTemp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the part's own temporary file of temp/0/1 is left: %v", err)
	}
	if _, err := os.Stat(theirs); err != nil {
		t.Errorf("the other part's temporary file of temp/3/0 was removed: %v", err)
	}
}
