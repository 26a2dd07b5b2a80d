package transcode_test

import (
	"context"
	"encoding/binary"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

func run(t *testing.T, src, dst storage.Store, o transcode.Options) (transcode.Summary, error) {
	t.Helper()
	tr, err := transcode.New(ctx, src, dst, o)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Run(ctx)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// stateLeft lists the run state files left in dir.
func stateLeft(t *testing.T, dir string) []string {
	var left []string
	for k := range treeFiles(t, dir) {
		if strings.HasPrefix(filepath.ToSlash(k), ".dt64-") || strings.Contains(k, ".dt64-tmp-") {
			left = append(left, k)
		}
	}
	return left
}

// Overwrite refuses, deleting nothing, a destination holding anything
// that is not provably dt64's own; the error names what is there.
func TestOverwriteRefusesForeign(t *testing.T) {
	srcDir := t.TempDir()
	v2Source(t, storage.NewDir(srcDir))
	us := dtype.Microsecond
	ours := func(t *testing.T, dir string) {
		if _, err := run(t, storage.NewDir(srcDir), storage.NewDir(dir), transcode.Options{Unit: us, Format: 3}); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, says string
		make       func(t *testing.T, dir string)
	}{
		{"v3 group", "Zarr group", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "zarr.json"), `{"zarr_format": 3, "node_type": "group", "attributes": {}}`)
			ours(t, filepath.Join(dir, "child"))
			writeFile(t, filepath.Join(dir, "README.txt"), "keep me")
		}},
		{"v2 group", "v2 group", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, ".zgroup"), `{"zarr_format": 2}`)
			ours(t, filepath.Join(dir, "times"))
		}},
		{"unparseable zarr.json", "not valid JSON", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "zarr.json"), `{"zarr_format": 3, "node_type": "arr`)
			writeFile(t, filepath.Join(dir, "c", "0", "0"), "data")
		}},
		{"array of another data type", "does not read as an array", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "zarr.json"), `{"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "float64",
				"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
				"chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
				"fill_value": 0.0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}`)
			writeFile(t, filepath.Join(dir, "c", "0"), "0123456789abcdef")
		}},
		{"array with another program's file", "README.txt", func(t *testing.T, dir string) {
			ours(t, dir)
			writeFile(t, filepath.Join(dir, "README.txt"), "keep me")
		}},
		{"array with a key outside its grid", "c/9/9", func(t *testing.T, dir string) {
			ours(t, dir)
			writeFile(t, filepath.Join(dir, "c", "9", "9"), "stray")
		}},
		{"array with a nested array", "sub/", func(t *testing.T, dir string) {
			ours(t, dir)
			ours(t, filepath.Join(dir, "sub"))
		}},
		// Only dt64's own state names are its: another file that starts
		// with ".dt64-", or a file beside its records, is not.
		{"array with a file named like dt64's state", ".dt64-notes.txt", func(t *testing.T, dir string) {
			ours(t, dir)
			writeFile(t, filepath.Join(dir, ".dt64-notes.txt"), "keep me")
		}},
		{"array with a file among dt64's records", ".dt64-parts/README", func(t *testing.T, dir string) {
			ours(t, dir)
			writeFile(t, filepath.Join(dir, ".dt64-parts", "README"), "keep me")
		}},
		{"array with a file named like a temporary file", ".dt64-tmp-notes", func(t *testing.T, dir string) {
			ours(t, dir)
			writeFile(t, filepath.Join(dir, "c", ".dt64-tmp-notes"), "keep me")
		}},
		{"plain files", "neither a Zarr array", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "notes.txt"), "mine")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "d")
			c.make(t, dir)
			before := treeHash(t, dir)
			for _, o := range []transcode.Options{{Unit: us, Overwrite: true}, {Unit: us, Resume: true}, {Unit: us}} {
				_, err := run(t, storage.NewDir(srcDir), storage.NewDir(dir), o)
				var de *transcode.DestinationError
				if !errors.Is(err, transcode.ErrDestinationExists) || !errors.As(err, &de) || de.Overwrite || !strings.Contains(err.Error(), c.says) {
					t.Errorf("%+v: %v; want a DestinationError saying %q, offering no overwrite", o, err, c.says)
				}
				if treeHash(t, dir) != before {
					t.Fatalf("%+v: the destination changed", o)
				}
			}
		})
	}
}

// Overwrite replaces what dt64 wrote: an array, an interrupted run's
// state and temporary files.
func TestOverwriteReplacesOwn(t *testing.T) {
	srcDir := t.TempDir()
	v2Source(t, storage.NewDir(srcDir))
	us, ms := dtype.Microsecond, dtype.Millisecond
	ref := filepath.Join(t.TempDir(), "ref")
	if _, err := run(t, storage.NewDir(srcDir), storage.NewDir(ref), transcode.Options{Unit: ms}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "d")
	if _, err := run(t, storage.NewDir(srcDir), storage.NewDir(dir), transcode.Options{Unit: us, Format: 3}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "c", "0", ".dt64-tmp-0123456789abcdef-1"), "torn")
	writeFile(t, filepath.Join(dir, ".dt64-parts", "0-of-2.json"), "{}")
	if _, err := run(t, storage.NewDir(srcDir), storage.NewDir(dir), transcode.Options{Unit: ms, Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	sameTrees(t, ref, dir)
}

// killStore fails every call once kill says so, as a process killed at
// that moment would stop calling. kill runs under a lock: the engine's
// workers call the store concurrently.
type killStore struct {
	*storage.Dir
	deletes, sets atomic.Int64
	kill          func(s *killStore, op, key string) bool
	mu            sync.Mutex
	dead          bool
}

func (s *killStore) check(op, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead || s.kill(s, op, key) {
		s.dead = true
		return errors.New("killed (test)")
	}
	return nil
}

func (s *killStore) Set(ctx context.Context, key string, v []byte) error {
	if err := s.check("set", key); err != nil {
		return err
	}
	s.sets.Add(1)
	return s.Dir.Set(ctx, key, v)
}

func (s *killStore) Delete(ctx context.Context, key string) error {
	if err := s.check("delete", key); err != nil {
		return err
	}
	s.deletes.Add(1)
	return s.Dir.Delete(ctx, key)
}

func (s *killStore) Unwrap() storage.Store { return s.Dir }

// An overwrite killed after any number of its deletions: a plain run
// refuses (offering Resume and Overwrite), and either finishes the job.
func TestWipeKilledMidway(t *testing.T) {
	srcDir := t.TempDir()
	v2Source(t, storage.NewDir(srcDir))
	us, ms := dtype.Microsecond, dtype.Millisecond
	ref := filepath.Join(t.TempDir(), "ref")
	if _, err := run(t, storage.NewDir(srcDir), storage.NewDir(ref), transcode.Options{Unit: ms, Format: 3}); err != nil {
		t.Fatal(err)
	}
	for k := int64(0); ; k++ {
		dir := filepath.Join(t.TempDir(), "d")
		if _, err := run(t, storage.NewDir(srcDir), storage.NewDir(dir), transcode.Options{Unit: us, Format: 3, CRC32C: true}); err != nil {
			t.Fatal(err)
		}
		wiping, wiped := false, false
		ks := &killStore{Dir: storage.NewDir(dir), kill: func(s *killStore, op, key string) bool {
			switch {
			case !wiping || wiped:
				wiping = wiping || op == "set" && key == ".dt64-wipe.json"
				return false
			case op == "delete" && s.deletes.Load() == k:
				return true
			}
			wiped = op == "delete" && key == ".dt64-wipe.json"
			return false
		}}
		o := transcode.Options{Unit: ms, Format: 3, Overwrite: true}
		if _, err := run(t, storage.NewDir(srcDir), ks, o); err == nil {
			if k == 0 {
				t.Fatal("the kill never happened")
			}
			break // k is past the last deletion
		}
		var de *transcode.DestinationError
		if _, err := run(t, storage.NewDir(srcDir), storage.NewDir(dir), transcode.Options{Unit: ms, Format: 3}); !errors.As(err, &de) || !de.Resume || !de.Overwrite {
			t.Errorf("killed after %d deletions: a plain run: %v; want a refusal offering Resume and Overwrite", k, err)
		}
		finish := o
		if k%2 == 1 {
			finish.Overwrite, finish.Resume = false, true
		}
		if s, err := run(t, storage.NewDir(srcDir), storage.NewDir(dir), finish); err != nil || !s.Complete {
			t.Fatalf("killed after %d deletions: finishing with %+v: %+v, %v", k, finish, s, err)
		}
		sameTrees(t, ref, dir)
	}
}

// A finalize killed at any of its steps after the metadata: any later
// part, a Resume or a Finalize completes the cleanup and succeeds.
func TestFinalizeKilledMidway(t *testing.T) {
	srcDir := t.TempDir()
	vals := sampleValues(1000, 9)
	writeArray(t, storage.NewDir(srcDir), zarr.Metadata{Format: 2, DataType: ns, Shape: []int64{1000}, ChunkShape: []int64{64}, FillValue: dtype.NaT,
		Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.BigEndian}, zarr.GzipCodec{Level: 1}}}, vals, nil)
	us := dtype.Microsecond
	o := transcode.Options{Unit: us, Format: 3}
	ref := filepath.Join(t.TempDir(), "ref")
	if _, err := run(t, storage.NewDir(srcDir), storage.NewDir(ref), o); err != nil {
		t.Fatal(err)
	}
	for k := int64(0); ; k++ {
		dir := filepath.Join(t.TempDir(), "d")
		for i := range 2 {
			p := o
			p.Part = transcode.Part{Index: i, Count: 3}
			if _, err := run(t, storage.NewDir(srcDir), storage.NewDir(dir), p); err != nil {
				t.Fatal(err)
			}
		}
		meta := false
		ks := &killStore{Dir: storage.NewDir(dir), kill: func(s *killStore, op, key string) bool {
			if op == "set" && key == "zarr.json" {
				meta = true
				s.deletes.Store(0)
			}
			return meta && op == "delete" && s.deletes.Load() == k
		}}
		last := o
		last.Part = transcode.Part{Index: 2, Count: 3}
		if _, err := run(t, storage.NewDir(srcDir), ks, last); err == nil {
			if k == 0 {
				t.Fatal("the kill never happened")
			}
			break
		}
		if _, err := os.Stat(filepath.Join(dir, "zarr.json")); err != nil {
			t.Fatalf("killed after %d deletions: no metadata: %v", k, err)
		}
		var s transcode.Summary
		var err error
		switch k % 3 {
		case 0: // the last part again
			s, err = run(t, storage.NewDir(srcDir), storage.NewDir(dir), last)
		case 1:
			r := o
			r.Resume = true
			s, err = run(t, storage.NewDir(srcDir), storage.NewDir(dir), r)
		case 2:
			tr, _ := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(dir), o)
			s, err = tr.Finalize(ctx)
		}
		if err != nil || !s.Complete {
			t.Fatalf("killed after %d deletions: retry %d: %+v, %v", k, k%3, s, err)
		}
		if left := stateLeft(t, dir); len(left) > 0 {
			t.Fatalf("killed after %d deletions: retry %d left %v", k, k%3, left)
		}
		sameTrees(t, ref, dir)
	}
}

// rewriteChunk stores new values in chunk c of the source in srcDir,
// with a modification time a second later than before.
func rewriteChunk(t *testing.T, srcDir string, c []int64, v int64) string {
	t.Helper()
	a, err := zarr.Open(ctx, storage.NewDir(srcDir))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]int64, a.ChunkLen())
	for i := range buf {
		buf[i] = v
	}
	if err := a.WriteChunk(ctx, c, buf); err != nil {
		t.Fatal(err)
	}
	key, _ := a.ChunkKey(c)
	later := time.Now().Add(time.Second)
	if err := os.Chtimes(filepath.Join(srcDir, filepath.FromSlash(key)), later, later); err != nil {
		t.Fatal(err)
	}
	return key
}

// A source chunk rewritten between a kill and the resume (or between
// parts) stops the run with an error naming it: the destination would
// otherwise mix old and new values and be reported complete.
func TestSourceChangedBetweenRuns(t *testing.T) {
	us := dtype.Microsecond
	o := transcode.Options{Unit: us, Format: 3, Workers: 1}
	for _, c := range []struct {
		name  string
		chunk []int64 // (1, 1) is missing in the source: rewriting it adds it
	}{{"converted chunk", []int64{0, 0}}, {"chunk not yet read", []int64{2, 2}}, {"missing chunk written", []int64{1, 1}}} {
		t.Run(c.name, func(t *testing.T) {
			srcDir := t.TempDir()
			v2Source(t, storage.NewDir(srcDir))
			dir := filepath.Join(t.TempDir(), "d")
			if _, err := run(t, storage.NewDir(srcDir), &failStore{Store: storage.NewDir(dir), after: 4}, o); err == nil {
				t.Fatal("no failure")
			}
			key := rewriteChunk(t, srcDir, c.chunk, 1_700_000_000_000_000_000)
			r := o
			r.Resume = true
			_, err := run(t, storage.NewDir(srcDir), storage.NewDir(dir), r)
			var sc *transcode.SourceChangedError
			if !errors.Is(err, transcode.ErrSourceChanged) || !errors.As(err, &sc) || sc.Key != key {
				t.Fatalf("resume after %s changed: %v; want a SourceChangedError naming it", key, err)
			}
			if _, err := os.Stat(filepath.Join(dir, "zarr.json")); err == nil {
				t.Fatal("the destination looks complete")
			}
			// Starting over gives the new source's conversion.
			r.Resume, r.Overwrite = false, true
			if _, err := run(t, storage.NewDir(srcDir), storage.NewDir(dir), r); err != nil {
				t.Fatal(err)
			}
			ref := filepath.Join(t.TempDir(), "ref")
			if _, err := run(t, storage.NewDir(srcDir), storage.NewDir(ref), o); err != nil {
				t.Fatal(err)
			}
			sameTrees(t, ref, dir)
		})
	}
	t.Run("between parts", func(t *testing.T) {
		srcDir := t.TempDir()
		v2Source(t, storage.NewDir(srcDir))
		dir := filepath.Join(t.TempDir(), "d")
		p := o
		p.Part = transcode.Part{Index: 0, Count: 2}
		if _, err := run(t, storage.NewDir(srcDir), storage.NewDir(dir), p); err != nil {
			t.Fatal(err)
		}
		key := rewriteChunk(t, srcDir, []int64{0, 1}, 5)
		p.Part.Index = 1
		_, err := run(t, storage.NewDir(srcDir), storage.NewDir(dir), p)
		var sc *transcode.SourceChangedError
		if !errors.As(err, &sc) || sc.Key != key {
			t.Fatalf("last part after part 0's chunk %s changed: %v", key, err)
		}
		tr, _ := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(dir), o)
		if _, err := tr.Finalize(ctx); !errors.As(err, &sc) || sc.Key != key {
			t.Fatalf("finalize: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "zarr.json")); err == nil {
			t.Fatal("the destination looks complete")
		}
	})
}

// A run that continues another partition's work (a plain run after parts,
// parts after a plain run, parts of another count) skips the chunks that
// partition wrote as done: a source chunk rewritten since it read them
// stops the run too, naming the chunk, and the destination is not
// completed with the old values.
func TestSourceChangedAcrossPartitions(t *testing.T) {
	us := dtype.Microsecond
	o := transcode.Options{Unit: us, Format: 3, Workers: 1}
	part := func(i, n int) transcode.Options {
		p := o
		p.Part = transcode.Part{Index: i, Count: n}
		return p
	}
	resume := o
	resume.Resume = true
	// The 3×3 chunks are the units, in C order: part 1 of 2 is units
	// 4..8, part 0 of 2 units 0..3.
	for _, c := range []struct {
		name  string
		first func(t *testing.T, src, dst string) // the earlier partition's work
		chunk []int64                             // rewritten after it
		then  []transcode.Options                 // the runs that must refuse
	}{
		{"parts of 3 after part 1 of 2", func(t *testing.T, src, dst string) {
			if _, err := run(t, storage.NewDir(src), storage.NewDir(dst), part(1, 2)); err != nil {
				t.Fatal(err)
			}
		}, []int64{1, 2}, []transcode.Options{part(0, 3), part(1, 3), part(2, 3)}},
		{"parts of 2 after a killed plain run", func(t *testing.T, src, dst string) {
			if _, err := run(t, storage.NewDir(src), &failStore{Store: storage.NewDir(dst), after: 4}, o); err == nil {
				t.Fatal("no failure")
			}
		}, []int64{0, 0}, []transcode.Options{part(0, 2), part(1, 2)}},
		{"a plain resume after part 0 of 2", func(t *testing.T, src, dst string) {
			if _, err := run(t, storage.NewDir(src), storage.NewDir(dst), part(0, 2)); err != nil {
				t.Fatal(err)
			}
		}, []int64{0, 1}, []transcode.Options{resume}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srcDir := t.TempDir()
			v2Source(t, storage.NewDir(srcDir))
			dir := filepath.Join(t.TempDir(), "d")
			c.first(t, srcDir, dir)
			key := rewriteChunk(t, srcDir, c.chunk, 1_700_000_000_000_000_000)
			for _, r := range c.then {
				_, err := run(t, storage.NewDir(srcDir), storage.NewDir(dir), r)
				var sc *transcode.SourceChangedError
				if !errors.As(err, &sc) || sc.Key != key {
					t.Fatalf("part %+v after chunk %s changed: %v; want a SourceChangedError naming it", r.Part, key, err)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "zarr.json")); err == nil {
				t.Fatal("the destination looks complete")
			}
		})
	}
}

// rewritingStore rewrites a source chunk just before the run reads it,
// as another writer would.
type rewritingStore struct {
	*storage.Dir
	dir  string
	once atomic.Bool
	t    *testing.T
}

func (s *rewritingStore) GetInto(ctx context.Context, key string, buf []byte, limit int) ([]byte, error) {
	if key == "1.2" && !s.once.Swap(true) {
		rewriteChunk(s.t, s.dir, []int64{1, 2}, 7)
	}
	return s.Dir.GetInto(ctx, key, buf, limit)
}

func TestSourceChangedDuringRun(t *testing.T) {
	srcDir := t.TempDir()
	v2Source(t, storage.NewDir(srcDir))
	us := dtype.Microsecond
	dir := filepath.Join(t.TempDir(), "d")
	_, err := run(t, &rewritingStore{Dir: storage.NewDir(srcDir), dir: srcDir, t: t}, storage.NewDir(dir), transcode.Options{Unit: us})
	var sc *transcode.SourceChangedError
	if !errors.As(err, &sc) || sc.Key != "1.2" {
		t.Fatalf("chunk 1.2 rewritten during the run: %v", err)
	}
}

// Verify catches a damaged chunk and damaged metadata, reading the
// destination afresh; it verifies a part before the others are done.
func TestVerifyCatchesDamage(t *testing.T) {
	srcDir := t.TempDir()
	v2Source(t, storage.NewDir(srcDir))
	us := dtype.Microsecond
	o := transcode.Options{Unit: us, Format: 3}
	dir := filepath.Join(t.TempDir(), "d")
	tr, _ := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(dir), o)
	if _, err := tr.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tr.Verify(ctx); err != nil {
		t.Fatalf("intact: %v", err)
	}
	// One element changed, through zarr: the chunk decodes, the value is wrong.
	a, _ := zarr.Open(ctx, storage.NewDir(dir))
	buf := make([]int64, a.ChunkLen())
	if err := a.ReadChunk(ctx, []int64{2, 1}, buf); err != nil {
		t.Fatal(err)
	}
	buf[1]++ // row 6, column 5: inside the 7×9 array
	if err := a.WriteChunk(ctx, []int64{2, 1}, buf); err != nil {
		t.Fatal(err)
	}
	var ve *transcode.VerifyError
	if err := tr.Verify(ctx); !errors.As(err, &ve) || ve.Key != "c/2/1" || ve.Index != 1 || ve.Got != ve.Want+1 {
		t.Fatalf("damaged chunk: %v", err)
	}
	// Metadata that is not the plan's.
	meta := filepath.Join(dir, "zarr.json")
	b, _ := os.ReadFile(meta)
	writeFile(t, meta, strings.Replace(string(b), `"unit": "us"`, `"unit": "ms"`, 1))
	if !strings.Contains(string(b), `"unit": "us"`) {
		t.Fatal("test setup: no unit to change in zarr.json")
	}
	if err := tr.Verify(ctx); !errors.Is(err, transcode.ErrVerify) {
		t.Fatalf("damaged metadata: %v", err)
	}

	// A part, before the others: verified against the plan marker's metadata.
	pdir := filepath.Join(t.TempDir(), "p")
	p := o
	p.Part = transcode.Part{Index: 0, Count: 2}
	ptr, _ := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(pdir), p)
	if _, err := ptr.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ptr.Verify(ctx); err != nil {
		t.Fatalf("part 0 before part 1: %v", err)
	}
}

// TestCompleteRemovesEmptyStateDirs: a cleanup killed after deleting the
// last of the state leaves its directories empty; the next run, finding
// the array complete (--resume), removes them.
func TestCompleteRemovesEmptyStateDirs(t *testing.T) {
	srcDir := t.TempDir()
	v2Source(t, storage.NewDir(srcDir))
	dir := filepath.Join(t.TempDir(), "d")
	o := transcode.Options{Unit: dtype.Millisecond}
	if _, err := run(t, storage.NewDir(srcDir), storage.NewDir(dir), o); err != nil {
		t.Fatal(err)
	}
	want := treeFiles(t, dir)
	for _, d := range []string{".dt64-parts", ".dt64-sources", ".dt64-live"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	o.Resume = true
	sum, err := run(t, storage.NewDir(srcDir), storage.NewDir(dir), o)
	if err != nil || !sum.AlreadyComplete {
		t.Fatalf("second run: %+v, %v; want it already complete", sum, err)
	}
	if got := treeFiles(t, dir); !maps.Equal(got, want) {
		t.Errorf("after the second run: %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
}
