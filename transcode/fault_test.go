package transcode_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// The fault tests: the destination disk filling up at every point of a
// run, with what a failed write leaves behind, and a resume afterwards.
// The process-level faults (a file-size limit hit mid-chunk, SIGKILL at
// random moments) are in cmd/dt64's tests, where a real process runs.

// torn says what a write that runs out of space leaves in the store.
type torn int

const (
	// tornNothing: DirStore removed its temporary file (what Set does
	// when a write fails).
	tornNothing torn = iota
	// tornTemp: the bytes that fit stay in a temporary file, as when
	// the process dies before it can remove it.
	tornTemp
	// tornInPlace: the bytes that fit land under the chunk's own key, as
	// on a store without atomic writes. Only chunks tear this way; the
	// engine's own state and metadata are written to DirStores here.
	tornInPlace
)

func (m torn) String() string {
	return [...]string{"nothing left", "temp file left", "torn chunk left"}[m]
}

// diskStore is a DirStore on a disk with free bytes left. Every Set
// uses len(value) bytes of it, deletes give none back (a disk that other
// writers fill as fast as we free it), and a Set that does not fit fails
// with ENOSPC after leaving what mode says.
type diskStore struct {
	*storage.Dir
	mode torn

	mu   sync.Mutex
	free int64
	used int64
}

// Unwrap lets the engine find the directory store beneath (storage.Unwrapper).
func (s *diskStore) Unwrap() storage.Store { return s.Dir }

func newDisk(dir string, free int64, mode torn) *diskStore {
	return &diskStore{Dir: storage.NewDir(dir), free: free, mode: mode}
}

func (s *diskStore) Set(ctx context.Context, key string, v []byte) error {
	s.mu.Lock()
	fits := int64(len(v)) <= s.free
	part := min(s.free, int64(len(v)))
	if fits {
		s.free -= int64(len(v))
		s.used += int64(len(v))
	} else {
		s.free = 0
	}
	s.mu.Unlock()
	if fits {
		return s.Dir.Set(ctx, key, v)
	}
	switch {
	case s.mode == tornTemp:
		dir, base := path.Split(key)
		p := filepath.Join(s.String(), filepath.FromSlash(dir), fmt.Sprintf(".dt64-tmp-%016x-%s", rand.Uint64(), base))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, v[:part], 0o644); err != nil {
			return err
		}
	case s.mode == tornInPlace && !strings.HasPrefix(key, ".dt64-") && !strings.HasPrefix(path.Base(key), ".") && !isMetadataKey(key):
		if err := s.Dir.Set(ctx, key, v[:part]); err != nil {
			return err
		}
	}
	return fmt.Errorf("writing %s/%s: %w", s.String(), key, syscall.ENOSPC)
}

func isMetadataKey(key string) bool {
	switch path.Base(key) {
	case "zarr.json", ".zarray", ".zattrs", ".zgroup":
		return true
	}
	return false
}

// faultSource writes a 2-D v2 big-endian ns zstd array of 40×50 in 8×10
// chunks (25 chunks, 3 missing), with NaT sprinkled in.
func faultSource(t *testing.T, dir string) {
	t.Helper()
	vals := sampleValues(40*50, 11)
	writeArray(t, storage.NewDir(dir), zarr.Metadata{
		Format: 2, DataType: ns, Shape: []int64{40, 50}, ChunkShape: []int64{8, 10}, FillValue: dtype.NaT,
		Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.BigEndian}, zarr.ZstdCodec{Level: 1}},
	}, vals, func(c []int64) bool { return (c[0]+2*c[1])%9 == 4 })
}

// looksComplete reports whether dst opens as a Zarr array.
func looksComplete(dst string) bool {
	_, err := zarr.Open(ctx, storage.NewDir(dst))
	return err == nil
}

type faultCase struct {
	name string
	opts transcode.Options
}

func faultCases() []faultCase {
	us, ms := dtype.Microsecond, dtype.Millisecond
	return []faultCase{
		{"v2-to-v3-sharded-crc32c", transcode.Options{Unit: us, Format: 3, CRC32C: true, Workers: 2,
			Compression: &transcode.Compression{Codec: zarr.ZstdCodec{Level: 1}},
			Sharding:    transcode.Sharding{Mode: transcode.ShardAdd, Chunks: []int64{2, 2}}}},
		{"v2-to-v2-gzip-little", transcode.Options{Unit: ms, Workers: 3, Endian: binary.LittleEndian,
			Compression: &transcode.Compression{Codec: zarr.GzipCodec{Level: 1}}}},
		{"v2-to-v3-blosc", transcode.Options{Unit: us, Format: 3, Workers: 2,
			Compression: &transcode.Compression{Codec: zarr.BloscCodec{CName: "lz4", CLevel: 5, Shuffle: "shuffle"}}}},
	}
}

// budgets returns the disk sizes to try for a run that writes total
// bytes: nothing, every 1/24th of the way, the last byte short, random
// points, about enough, and more than enough.
func budgets(total int64, rng *rand.Rand, short bool) []int64 {
	steps := int64(24)
	if short {
		steps = 6
	}
	out := []int64{0, 1}
	for i := int64(1); i < steps; i++ {
		out = append(out, total*i/steps)
	}
	for range steps / 3 {
		out = append(out, rng.Int64N(total))
	}
	return append(out, total-1, total, total+64)
}

// TestDiskFull fills the destination disk at points spread over a whole
// run, for each thing a failed write can leave behind: the run fails with
// ENOSPC and leaves nothing that opens as an array; a second run on the
// still-full disk fails the same way; a resume on a disk with room then
// gives the bytes of an uninterrupted run.
func TestDiskFull(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range faultCases() {
		t.Run(c.name, func(t *testing.T) {
			srcDir := t.TempDir()
			faultSource(t, srcDir)
			before := treeHash(t, srcDir)
			ref := filepath.Join(t.TempDir(), "ref")
			counted := newDisk(ref, 1<<62, tornNothing)
			tr, err := transcode.New(ctx, storage.NewDir(srcDir), counted, c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tr.Run(ctx); err != nil {
				t.Fatal(err)
			}
			total := counted.used
			for _, mode := range []torn{tornNothing, tornTemp, tornInPlace} {
				for _, free := range budgets(total, rng, testing.Short()) {
					dst := filepath.Join(t.TempDir(), "d")
					tr, err := transcode.New(ctx, storage.NewDir(srcDir), newDisk(dst, free, mode), c.opts)
					if err != nil {
						t.Fatal(err)
					}
					// The run's state files hold its elapsed time, so the
					// bytes a run writes vary by a few from run to run.
					const slack = 32
					_, err = tr.Run(ctx)
					switch {
					case err == nil && free < total-slack:
						t.Fatalf("%s, %d of %d bytes free: the run did not fail", mode, free, total)
					case err != nil && free >= total+slack:
						t.Fatalf("%s, %d of %d bytes free: %v", mode, free, total, err)
					case err != nil && !errors.Is(err, syscall.ENOSPC):
						t.Fatalf("%s, %d of %d bytes free: want ENOSPC, got %v", mode, free, total, err)
					case err != nil && looksComplete(dst):
						t.Fatalf("%s, %d of %d bytes free: the failed run left an array that opens", mode, free, total)
					}
					if err != nil {
						// Still full: the resume fails too, and safely.
						r := c.opts
						r.Resume = true
						tr, _ = transcode.New(ctx, storage.NewDir(srcDir), newDisk(dst, 0, mode), r)
						if _, err := tr.Run(ctx); !errors.Is(err, syscall.ENOSPC) {
							t.Fatalf("%s, %d bytes free: resume on a full disk: want ENOSPC, got %v", mode, free, err)
						}
						if looksComplete(dst) {
							t.Fatalf("%s, %d bytes free: array opens after a failed resume", mode, free)
						}
						tr, _ = transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(dst), r)
						sum, err := tr.Run(ctx)
						if err != nil || !sum.Complete {
							t.Fatalf("%s, %d of %d bytes free: resume with room: %+v, %v", mode, free, total, sum, err)
						}
					}
					sameTrees(t, ref, dst)
					if t.Failed() {
						t.Fatalf("%s, %d of %d bytes free: the result differs from an uninterrupted run", mode, free, total)
					}
				}
			}
			if treeHash(t, srcDir) != before {
				t.Error("the source changed")
			}
		})
	}
}

// TestDiskFullParts fills the disk under one part of a partitioned run:
// the other parts finish, nothing looks complete, and resuming the failed
// part completes the array with the bytes of a single run.
func TestDiskFullParts(t *testing.T) {
	us := dtype.Microsecond
	o := transcode.Options{Unit: us, Format: 3, Workers: 2, Compression: &transcode.Compression{Codec: zarr.ZstdCodec{Level: 1}}}
	srcDir := t.TempDir()
	faultSource(t, srcDir)
	ref := filepath.Join(t.TempDir(), "ref")
	tr, _ := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(ref), o)
	if _, err := tr.Run(ctx); err != nil {
		t.Fatal(err)
	}
	const parts = 3
	for failing := range parts {
		for _, free := range []int64{0, 700, 2500} {
			dst := filepath.Join(t.TempDir(), "d")
			for i := range parts {
				p := o
				p.Part = transcode.Part{Index: i, Count: parts}
				var store storage.Store = storage.NewDir(dst)
				if i == failing {
					store = newDisk(dst, free, tornTemp)
				}
				tr, err := transcode.New(ctx, storage.NewDir(srcDir), store, p)
				if err != nil {
					t.Fatal(err)
				}
				_, err = tr.Run(ctx)
				if i == failing && !errors.Is(err, syscall.ENOSPC) {
					t.Fatalf("part %d with %d bytes free: want ENOSPC, got %v", i, free, err)
				}
				if i != failing && err != nil {
					t.Fatalf("part %d: %v", i, err)
				}
			}
			if looksComplete(dst) {
				t.Fatalf("part %d failed with %d bytes free, yet the array opens", failing, free)
			}
			p := o
			p.Part = transcode.Part{Index: failing, Count: parts}
			tr, _ := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(dst), p)
			sum, err := tr.Run(ctx)
			if err != nil || !sum.Complete {
				t.Fatalf("part %d rerun: %+v, %v", failing, sum, err)
			}
			sameTrees(t, ref, dst)
		}
	}
}

// TestResumeCounts checks that a resumed run's summary counts what the
// interrupted run converted: the destination holds only results, so the
// engine converts finished units again to count their overflowed and
// lossy elements.
func TestResumeCounts(t *testing.T) {
	ms := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Millisecond, Scale: 1}
	vals := sampleValues(40*50, 21)
	for i := range vals {
		switch {
		case vals[i] == dtype.NaT:
		case i%97 == 5:
			vals[i] = 1<<62 + int64(i) // overflows in 7 µs units
		default:
			vals[i] /= 1_000_000 // ms around 2023
		}
	}
	srcDir := t.TempDir()
	writeArray(t, storage.NewDir(srcDir), zarr.Metadata{
		Format: 2, DataType: ms, Shape: []int64{40, 50}, ChunkShape: []int64{8, 10}, FillValue: dtype.NaT,
		Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}, zarr.ZstdCodec{Level: 1}},
	}, vals, func(c []int64) bool { return c[0] == 2 && c[1] == 3 })
	us := dtype.Microsecond
	for _, pol := range []string{"nat", "clamp"} {
		policy, err := dtype.ParseOverflowPolicy(pol)
		if err != nil {
			t.Fatal(err)
		}
		o := transcode.Options{Unit: us, Scale: 7, Workers: 2, Overflow: policy}
		ref := filepath.Join(t.TempDir(), "ref")
		tr, _ := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(ref), o)
		want, err := tr.Run(ctx)
		if err != nil || want.Overflowed == 0 || want.Lossy == 0 {
			t.Fatalf("%s: uninterrupted run: %+v, %v (want overflowed and lossy elements)", pol, want, err)
		}
		for _, after := range []int64{4, 9, 17} { // after the plan, the lease and the sources: 1 chunk or more
			dst := filepath.Join(t.TempDir(), "d")
			tr, _ := transcode.New(ctx, storage.NewDir(srcDir), &failStore{Store: storage.NewDir(dst), after: after}, o)
			if _, err := tr.Run(ctx); err == nil {
				t.Fatalf("%s, after %d: no failure", pol, after)
			}
			r := o
			r.Resume = true
			tr, _ = transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(dst), r)
			got, err := tr.Run(ctx)
			if err != nil || got.Resumed == 0 {
				t.Fatalf("%s, after %d: resume: %+v, %v", pol, after, got, err)
			}
			if got.Elements != want.Elements || got.NaT != want.NaT || got.Overflowed != want.Overflowed ||
				got.Lossy != want.Lossy || got.Chunks != want.Chunks || got.Stored != want.Stored {
				t.Errorf("%s, after %d: resumed summary %+v, uninterrupted %+v", pol, after, got, want)
			}
			sameTrees(t, ref, dst)
		}
	}
}
