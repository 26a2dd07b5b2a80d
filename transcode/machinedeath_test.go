package transcode_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// Machine death: the destination is a disk with a page cache. A write
// (Set, Delete) is visible at once but durable only after a Sync; when the
// machine dies, everything not yet durable may be lost. These tests kill
// the machine at every store operation of a run, bring it back with what
// the disk kept, run again with Resume, and require the result to be the
// uninterrupted run's, byte for byte, or a clear refusal; never a
// destination reported complete that lacks data.

var errDead = errors.New("the machine died (test)")

// op is a write not yet durable.
type op struct {
	key   string
	value []byte // nil: a delete
}

// crashDisk is the state the destination's disk holds: what is durable.
type crashDisk struct {
	durable map[string][]byte
}

// crashStore is the destination as a running machine sees it: the disk
// plus the writes in the page cache. With nosync its Sync does nothing,
// as a DirStore with NoSync.
type crashStore struct {
	mu       sync.Mutex
	durable  map[string][]byte
	volatile []op
	ops      int // store calls so far
	dieAt    int // the call at which the machine dies; -1: never
	dead     bool
	nosync   bool
	syncs    int
}

func newCrashStore(d crashDisk, dieAt int, nosync bool) *crashStore {
	return &crashStore{durable: maps.Clone(d.durable), dieAt: dieAt, nosync: nosync}
}

func (s *crashStore) String() string { return "crashdisk" }

// tick counts a call and kills the machine at dieAt.
func (s *crashStore) tick() error {
	if s.dead {
		return errDead
	}
	if s.ops == s.dieAt {
		s.dead = true
		return errDead
	}
	s.ops++
	return nil
}

func (s *crashStore) view() map[string][]byte {
	m := maps.Clone(s.durable)
	if m == nil {
		m = map[string][]byte{}
	}
	for _, o := range s.volatile {
		if o.value == nil {
			delete(m, o.key)
		} else {
			m[o.key] = o.value
		}
	}
	return m
}

func (s *crashStore) Get(ctx context.Context, key string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.tick(); err != nil {
		return nil, err
	}
	v, ok := s.view()[key]
	if !ok {
		return nil, &fs.PathError{Op: "get", Path: key, Err: fs.ErrNotExist}
	}
	return bytes.Clone(v), nil
}

func (s *crashStore) Set(ctx context.Context, key string, value []byte) error {
	if err := storage.ValidKey(key); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.tick(); err != nil {
		return err
	}
	s.volatile = append(s.volatile, op{key, bytes.Clone(value)})
	return nil
}

func (s *crashStore) Delete(ctx context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.tick(); err != nil {
		return err
	}
	s.volatile = append(s.volatile, op{key: key})
	return nil
}

func (s *crashStore) List(ctx context.Context, prefix string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.tick(); err != nil {
		return nil, err
	}
	var keys []string
	for k := range s.view() {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys, nil
}

func (s *crashStore) Sync(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.tick(); err != nil {
		return err
	}
	if s.nosync {
		return nil
	}
	s.syncs++
	s.durable = s.view()
	s.volatile = nil
	return nil
}

// reboot returns what the disk holds after the machine died: the durable
// state and, with keep, a random subset of the writes not yet durable (a
// file system may have written any of them back, in any order; with
// nosync a kept value may also be cut short, as a file whose rename
// reached the disk before its data).
func (s *crashStore) reboot(rng *rand.Rand, keep bool) crashDisk {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := maps.Clone(s.durable)
	if m == nil {
		m = map[string][]byte{}
	}
	if keep {
		for _, o := range s.volatile {
			if rng.IntN(2) == 0 {
				continue
			}
			switch {
			case o.value == nil:
				delete(m, o.key)
			case s.nosync && rng.IntN(2) == 0:
				m[o.key] = o.value[:rng.IntN(len(o.value)+1)]
			default:
				m[o.key] = o.value
			}
		}
	}
	return crashDisk{durable: m}
}

// crashPlan is one job to kill: a source, the options, and what the
// destination holds before it (nil: nothing).
type crashPlan struct {
	name   string
	opts   transcode.Options
	before func(t *testing.T, src storage.Store) crashDisk
	parts  int // > 1: run as parts 0..parts-1, the machine dying in the last
}

func crashPlans() []crashPlan {
	us, s := dtype.Microsecond, dtype.Second
	blosc := &transcode.Compression{Codec: zarr.BloscCodec{CName: "lz4", CLevel: 5, Shuffle: "shuffle"}}
	oldArray := func(t *testing.T, src storage.Store) crashDisk {
		// A complete earlier transcode (another unit) to overwrite.
		d := newCrashStore(crashDisk{}, -1, false)
		tr, err := transcode.New(ctx, src, d, transcode.Options{Unit: s})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Run(ctx); err != nil {
			t.Fatal(err)
		}
		return crashDisk{durable: d.view()}
	}
	return []crashPlan{
		{name: "v3-sharded-crc32c", opts: transcode.Options{Unit: us, Format: 3, CRC32C: true, Workers: 2,
			Compression: &transcode.Compression{Codec: zarr.ZstdCodec{Level: 1}},
			Sharding:    transcode.Sharding{Mode: transcode.ShardAdd, Chunks: []int64{2, 2}}}},
		{name: "v2-blosc", opts: transcode.Options{Unit: us, Format: 2, Workers: 3, Compression: blosc}},
		{name: "overwrite", opts: transcode.Options{Unit: us, Format: 3, Workers: 2, Overwrite: true}, before: oldArray},
		{name: "parts", opts: transcode.Options{Unit: us, Format: 3, Workers: 2}, parts: 3},
	}
}

// crashSource is the 40×50 fault-test array in a memory store.
func crashSource(t *testing.T) *storage.Memory {
	src := storage.NewMemory()
	vals := sampleValues(40*50, 11)
	writeArray(t, src, zarr.Metadata{
		Format: 2, DataType: ns, Shape: []int64{40, 50}, ChunkShape: []int64{8, 10}, FillValue: dtype.NaT,
		Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.BigEndian}, zarr.ZstdCodec{Level: 1}},
	}, vals, func(c []int64) bool { return (c[0]+2*c[1])%9 == 4 })
	return src
}

// runJob runs plan p against the destination d (all parts but the last,
// which dieAt may kill), returning the last run's summary and error.
func runJob(t *testing.T, src storage.Store, d *crashStore, p crashPlan, o transcode.Options) (transcode.Summary, error) {
	t.Helper()
	if p.parts > 1 && o.Part.Count == 0 {
		o.Part = transcode.Part{Index: p.parts - 1, Count: p.parts}
	}
	tr, err := transcode.New(ctx, src, d, o)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Run(ctx)
}

// earlierParts runs parts 0..parts-2 of p, uninterrupted, on disk.
func earlierParts(t *testing.T, src storage.Store, disk crashDisk, p crashPlan) crashDisk {
	for i := range p.parts - 1 {
		o := p.opts
		o.Part = transcode.Part{Index: i, Count: p.parts}
		d := newCrashStore(disk, -1, false)
		if _, err := runJob(t, src, d, p, o); err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
		disk = crashDisk{durable: d.view()}
	}
	return disk
}

func TestMachineDeath(t *testing.T) {
	src := crashSource(t)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, p := range crashPlans() {
		t.Run(p.name, func(t *testing.T) {
			start := crashDisk{durable: map[string][]byte{}}
			if p.before != nil {
				start = p.before(t, src)
			}
			start = earlierParts(t, src, start, p)
			// The uninterrupted run, counting its store calls.
			ref := newCrashStore(start, -1, false)
			if s, err := runJob(t, src, ref, p, p.opts); err != nil || !s.Complete {
				t.Fatalf("uninterrupted: %+v, %v", s, err)
			}
			want := ref.view()
			if ref.syncs == 0 {
				t.Fatal("the engine never synced the destination")
			}
			points := ref.ops
			if testing.Short() {
				points = min(points, 40)
			}
			deaths := 0
			for i := range points {
				dieAt := i
				if testing.Short() {
					dieAt = rng.IntN(ref.ops)
				}
				for _, keep := range []bool{false, true} {
					d := newCrashStore(start, dieAt, false)
					if _, err := runJob(t, src, d, p, p.opts); !errors.Is(err, errDead) {
						t.Fatalf("death at call %d: the run did not notice: %v", dieAt, err)
					}
					deaths++
					disk := d.reboot(rng, keep)
					// Up to two more deaths while resuming, then a resume
					// that runs to the end.
					for again := rng.IntN(3); ; again-- {
						dieAgain := -1
						if again > 0 {
							dieAgain = rng.IntN(points + 1)
						}
						r := newCrashStore(disk, dieAgain, false)
						o := p.opts
						if !o.Overwrite {
							o.Resume = true
						}
						sum, err := runJob(t, src, r, p, o)
						if errors.Is(err, errDead) {
							deaths++
							disk = r.reboot(rng, rng.IntN(2) == 0)
							continue
						}
						if err != nil {
							t.Fatalf("death at call %d (kept writes %v): resume: %v", dieAt, keep, err)
						}
						if !sum.Complete {
							t.Fatalf("death at call %d (kept writes %v): resume did not complete: %+v", dieAt, keep, sum)
						}
						if diff := storeDiff(want, r.view()); diff != "" {
							t.Fatalf("death at call %d (kept writes %v): resumed destination differs from an uninterrupted run: %s", dieAt, keep, diff)
						}
						break
					}
				}
			}
			t.Logf("%d store calls in an uninterrupted run, %d machine deaths survived", ref.ops, deaths)
		})
	}
}

// TestMachineDeathNoSync proves TestMachineDeath can fail: without
// syncing, some death leaves a destination that reports complete but is
// not the uninterrupted run's (what the README says --no-sync risks).
func TestMachineDeathNoSync(t *testing.T) {
	src := crashSource(t)
	rng := rand.New(rand.NewPCG(7, 8))
	p := crashPlans()[0]
	ref := newCrashStore(crashDisk{durable: map[string][]byte{}}, -1, true)
	if _, err := runJob(t, src, ref, p, p.opts); err != nil {
		t.Fatal(err)
	}
	want := ref.view()
	for i := range ref.ops {
		d := newCrashStore(crashDisk{durable: map[string][]byte{}}, i, true)
		_, _ = runJob(t, src, d, p, p.opts)
		disk := d.reboot(rng, true)
		r := newCrashStore(disk, -1, true)
		o := p.opts
		o.Resume = true
		sum, err := runJob(t, src, r, p, o)
		if err == nil && sum.Complete && storeDiff(want, r.view()) != "" {
			t.Logf("death at call %d of %d: without sync, a resume reported complete a destination that differs (%s)", i, ref.ops, storeDiff(want, r.view()))
			return
		}
	}
	t.Fatal("no death without sync produced a wrong destination: the machine-death model has no teeth")
}

// storeDiff describes how two store contents differ ("" when equal).
func storeDiff(want, got map[string][]byte) string {
	var diffs []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[k]
		switch {
		case !ok:
			diffs = append(diffs, k+" missing")
		case !bytes.Equal(g, want[k]):
			diffs = append(diffs, k+" differs")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, k+" extra")
		}
	}
	if len(diffs) > 6 {
		diffs = append(diffs[:6], fmt.Sprintf("... (%d in all)", len(diffs)))
	}
	return strings.Join(diffs, ", ")
}
