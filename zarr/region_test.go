package zarr

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
)

// countingStore counts the chunk bytes read from a storage.Memory, whole or
// by range, and can hide GetRange (plain) to force whole-chunk reads.
type countingStore struct {
	*storage.Memory
	mu    sync.Mutex
	bytes int64
	gets  map[string]int
}

func (s *countingStore) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := s.Memory.Get(ctx, key)
	s.count(key, len(b))
	return b, err
}

func (s *countingStore) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	b, err := s.Memory.GetRange(ctx, key, off, n)
	s.count(key, len(b))
	return b, err
}

func (s *countingStore) count(key string, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gets == nil {
		s.gets = map[string]int{}
	}
	s.gets[key]++
	s.bytes += int64(n)
}

// noRanges is a Store without GetRange.
type noRanges struct{ s *countingStore }

func (p noRanges) Get(ctx context.Context, k string) ([]byte, error) { return p.s.Get(ctx, k) }
func (p noRanges) Set(ctx context.Context, k string, v []byte) error { return p.s.Set(ctx, k, v) }
func (p noRanges) Delete(ctx context.Context, k string) error        { return p.s.Delete(ctx, k) }
func (p noRanges) List(ctx context.Context, pre string) ([]string, error) {
	return p.s.List(ctx, pre)
}

// prefixed is a store whose keys live under "grp/t/" of s: the array
// seen as a node of a hierarchy.
type prefixed struct{ s storage.Store }

func (p prefixed) strip(k string) string { return strings.TrimPrefix(k, "grp/t/") }
func (p prefixed) Get(ctx context.Context, k string) ([]byte, error) {
	return p.s.Get(ctx, p.strip(k))
}
func (p prefixed) GetRange(ctx context.Context, k string, off, n int64) ([]byte, error) {
	if rg, ok := p.s.(storage.RangeGetter); ok {
		return rg.GetRange(ctx, p.strip(k), off, n)
	}
	return nil, storage.ErrNoRanges
}
func (p prefixed) Set(ctx context.Context, k string, v []byte) error {
	return p.s.Set(ctx, p.strip(k), v)
}
func (p prefixed) Delete(ctx context.Context, k string) error { return p.s.Delete(ctx, p.strip(k)) }
func (p prefixed) List(ctx context.Context, pre string) ([]string, error) {
	return nil, errors.New("not listed")
}

// regionTruth returns the box [start, start+shape) of truth (an array of
// shape full, C order).
func regionTruth(truth []int64, full, start, shape []int64) []int64 {
	var out []int64
	n := int64(1)
	for _, s := range shape {
		n *= s
	}
	idx := make([]int64, len(shape))
	for range n {
		flat := int64(0)
		for d := range full {
			flat = flat*full[d] + start[d] + idx[d]
		}
		out = append(out, truth[flat])
		for d := len(shape) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}

// Every region of arrays with edge chunks, missing chunks, shards (by
// range and whole) and transposition equals the same box of the values
// written, read one chunk at a time or in parallel.
func TestReadRegion(t *testing.T) {
	ctx := context.Background()
	chains := map[string][]Codec{
		"plain":      {le()},
		"zstd-be":    {be(), ZstdCodec{Level: 1}},
		"transpose":  {TransposeCodec{Order: []int{1, 0}}, le(), GzipCodec{Level: 1}},
		"shard-end":  {ShardingCodec{ChunkShape: []int64{2, 3}, Codecs: []Codec{le(), ZstdCodec{}}, IndexCodecs: []Codec{le(), CRC32CCodec{}}}},
		"shard-head": {ShardingCodec{ChunkShape: []int64{1, 2}, IndexLocation: IndexStart, Codecs: []Codec{be()}, IndexCodecs: []Codec{be()}}},
		"shard-zstd": {ShardingCodec{ChunkShape: []int64{2, 2}, Codecs: []Codec{le()}, IndexCodecs: []Codec{le()}}, ZstdCodec{}},
	}
	shape := []int64{9, 13}
	for name, codecs := range chains {
		t.Run(name, func(t *testing.T) {
			mem := &countingStore{Memory: storage.NewMemory()}
			m := Metadata{Format: 3, DataType: ns, Shape: shape, ChunkShape: []int64{4, 6}, FillValue: -7, KeyEncoding: KeyEncoding{"default", "/"}, Codecs: codecs}
			a, err := Create(ctx, mem, m)
			if err != nil {
				t.Fatal(err)
			}
			truth := truthValues(9*13, 3)
			writeAll(t, a, truth)
			if err := a.WriteMetadata(ctx); err != nil {
				t.Fatal(err)
			}
			// Drop a chunk: its elements read as the fill value.
			key, _ := a.ChunkKey([]int64{1, 1})
			if err := mem.Delete(ctx, key); err != nil {
				t.Fatal(err)
			}
			for i := range truth {
				if r, c := i/13, i%13; r >= 4 && r < 8 && c >= 6 && c < 12 {
					truth[i] = -7
				}
			}
			r := rand.New(rand.NewPCG(7, 8))
			boxes := [][2][]int64{
				{{0, 0}, {9, 13}}, {{0, 0}, {0, 5}}, {{8, 12}, {1, 1}}, {{4, 6}, {4, 6}},
				{{3, 5}, {2, 2}}, {{0, 12}, {9, 1}}, {{5, 0}, {1, 13}},
			}
			for range 40 {
				var st, sh [2]int64
				for d := range 2 {
					st[d] = r.Int64N(shape[d] + 1)
					sh[d] = r.Int64N(shape[d] - st[d] + 1)
				}
				boxes = append(boxes, [2][]int64{st[:], sh[:]})
			}
			for _, b := range boxes {
				want := regionTruth(truth, shape, b[0], b[1])
				for _, store := range []storage.Store{mem, noRanges{mem}} {
					for _, par := range []int{1, 3} {
						a, err := Open(ctx, store)
						if err != nil {
							t.Fatal(err)
						}
						got := make([]int64, len(want))
						if err := a.ReadRegion(ctx, b[0], b[1], got, RegionOptions{Parallel: par}); err != nil {
							t.Fatalf("%v+%v: %v", b[0], b[1], err)
						}
						if !slices.Equal(got, want) {
							t.Fatalf("%v+%v (%T, %d at once): got %v, want %v", b[0], b[1], store, par, got, want)
						}
					}
				}
			}
		})
	}
}

// A 1-D range read decodes only the chunks the range touches, and from a
// sharded array in a range store reads only the index and the inner
// chunks it needs.
func TestReadRegionReadsOnlyWhatItNeeds(t *testing.T) {
	ctx := context.Background()
	for _, sharded := range []bool{false, true} {
		t.Run(fmt.Sprint("sharded=", sharded), func(t *testing.T) {
			mem := &countingStore{Memory: storage.NewMemory()}
			codecs := []Codec{le()}
			if sharded {
				codecs = []Codec{ShardingCodec{ChunkShape: []int64{10}, Codecs: []Codec{le()}, IndexCodecs: []Codec{le()}}}
			}
			a, err := Create(ctx, mem, Metadata{Format: 3, DataType: ns, Shape: []int64{1000}, ChunkShape: []int64{100}, FillValue: dtype.NaT, KeyEncoding: KeyEncoding{"default", "/"}, Codecs: codecs})
			if err != nil {
				t.Fatal(err)
			}
			truth := truthValues(1000, 5)
			writeAll(t, a, truth)
			if err := a.WriteMetadata(ctx); err != nil {
				t.Fatal(err)
			}
			mem.gets, mem.bytes = nil, 0
			got := make([]int64, 15)
			if err := a.ReadRegion(ctx, []int64{195}, []int64{15}, got, RegionOptions{}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, truth[195:210]) {
				t.Fatalf("got %v, want %v", got, truth[195:210])
			}
			if len(mem.gets) != 2 || mem.gets["c/1"] == 0 || mem.gets["c/2"] == 0 {
				t.Fatalf("read %v, want exactly chunks c/1 and c/2", mem.gets)
			}
			// Unsharded: two whole chunks. Sharded: two indexes (10 pairs
			// each) and the inner chunks 9 of c/1 and 0 of c/2.
			want := int64(2 * 800)
			if sharded {
				want = 2*160 + 2*80
			}
			if mem.bytes != want {
				t.Fatalf("read %d bytes, want %d", mem.bytes, want)
			}
			// The same through a Sub view of a hierarchy (ranges pass
			// through), and through one over a store without ranges
			// (whole shards).
			for _, inner := range []storage.Store{mem, noRanges{mem}} {
				sub, err := storage.Sub(prefixed{inner}, "grp/t")
				if err != nil {
					t.Fatal(err)
				}
				b, err := Open(ctx, sub)
				if err != nil {
					t.Fatal(err)
				}
				mem.gets, mem.bytes = nil, 0
				if err := b.ReadRegion(ctx, []int64{195}, []int64{15}, got, RegionOptions{}); err != nil || !slices.Equal(got, truth[195:210]) {
					t.Fatalf("through %T: %v, %v", inner, got, err)
				}
				w := want
				if _, ok := inner.(noRanges); ok && sharded {
					w = 2 * (160 + 800)
				}
				if mem.bytes != w {
					t.Fatalf("through a storage.Sub of %T: read %d bytes, want %d", inner, mem.bytes, w)
				}
			}
		})
	}
}

// Bad regions and buffers are refused naming the array; a store error
// names the chunk; a cancelled context is reported, not a partial read.
func TestReadRegionErrors(t *testing.T) {
	ctx := context.Background()
	mem := &countingStore{Memory: storage.NewMemory()}
	a, err := Create(ctx, mem, Metadata{Format: 3, DataType: ns, Shape: []int64{10, 10}, ChunkShape: []int64{5, 5}, FillValue: 0, KeyEncoding: KeyEncoding{"default", "/"}, Codecs: []Codec{le()}})
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, a, truthValues(100, 1))
	for _, b := range [][2][]int64{{{0}, {1}}, {{-1, 0}, {1, 1}}, {{9, 0}, {2, 1}}, {{0, 0}, {11, 1}}, {{0, 0}, {-1, 1}}} {
		if err := a.ReadRegion(ctx, b[0], b[1], make([]int64, 1), RegionOptions{}); err == nil {
			t.Errorf("region %v+%v accepted", b[0], b[1])
		}
	}
	if err := a.ReadRegion(ctx, []int64{0, 0}, []int64{2, 2}, make([]int64, 3), RegionOptions{}); err == nil {
		t.Error("a 3-element buffer for 4 elements accepted")
	}
	if err := mem.Set(ctx, "c/1/0", []byte("short")); err != nil {
		t.Fatal(err)
	}
	err = a.ReadRegion(ctx, []int64{4, 0}, []int64{2, 2}, make([]int64, 4), RegionOptions{Parallel: 2})
	var ce *ChunkError
	if !errors.As(err, &ce) || ce.Key != "c/1/0" {
		t.Errorf("a corrupt chunk: %v, want a ChunkError naming c/1/0", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := a.ReadRegion(cancelled, []int64{0, 0}, []int64{10, 10}, make([]int64, 100), RegionOptions{Parallel: 2}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// GetRange reads ranges and suffixes, and refuses ranges past the end.
func TestGetRange(t *testing.T) {
	ctx := context.Background()
	d := storage.NewDir(t.TempDir())
	for _, s := range []interface {
		storage.Store
		storage.RangeGetter
	}{storage.NewMemory(), d} {
		if err := s.Set(ctx, "k", []byte("0123456789")); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			off, n int64
			want   string
		}{{0, 3, "012"}, {7, 3, "789"}, {-1, 4, "6789"}, {10, 0, ""}, {-1, 10, "0123456789"}} {
			got, err := s.GetRange(ctx, "k", c.off, c.n)
			if err != nil || string(got) != c.want {
				t.Errorf("%T GetRange(%d, %d) = %q, %v; want %q", s, c.off, c.n, got, err, c.want)
			}
		}
		for _, c := range [][2]int64{{8, 3}, {-1, 11}, {11, 0}, {0, -1}} {
			if _, err := s.GetRange(ctx, "k", c[0], c[1]); err == nil {
				t.Errorf("%T GetRange(%d, %d) accepted", s, c[0], c[1])
			} else if c[1] > 0 && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("%T GetRange(%d, %d): %v, want io.ErrUnexpectedEOF", s, c[0], c[1], err)
			}
		}
		if _, err := s.GetRange(ctx, "missing", 0, 1); err == nil {
			t.Errorf("%T: a missing key read", s)
		}
	}
}

// loggingStore is what a user writes to log a store's calls: the four
// calls of Store and Unwrap, no capability forwarded.
type loggingStore struct {
	storage.Store
	calls []string
}

func (l *loggingStore) Get(ctx context.Context, k string) ([]byte, error) {
	l.calls = append(l.calls, "get "+k)
	return l.Store.Get(ctx, k)
}
func (l *loggingStore) Unwrap() storage.Store { return l.Store }

// A wrapper that only implements Unwrap keeps the range reads (and every
// other capability) of the store beneath: a region of a sharded array is
// read by ranges through it, not as whole shards.
func TestWrapperKeepsRangeReads(t *testing.T) {
	ctx := context.Background()
	mem := &countingStore{Memory: storage.NewMemory()}
	m := Metadata{Format: 3, DataType: ns, Shape: []int64{64}, ChunkShape: []int64{64}, FillValue: 0,
		KeyEncoding: KeyEncoding{"default", "/"}, Codecs: []Codec{ShardingCodec{ChunkShape: []int64{8}, Codecs: []Codec{le()}, IndexCodecs: []Codec{le()}}}}
	a, err := Create(ctx, mem, m)
	if err != nil {
		t.Fatal(err)
	}
	writeAll(t, a, truthValues(64, 1))
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		store  storage.Store
		ranges bool
	}{{"Unwrap", &loggingStore{Store: mem}, true}, {"no Unwrap", noRanges{mem}, false}} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Open(ctx, c.store)
			if err != nil {
				t.Fatal(err)
			}
			mem.bytes = 0
			dst := make([]int64, 8)
			if err := r.ReadRegion(ctx, []int64{16}, []int64{8}, dst, RegionOptions{}); err != nil {
				t.Fatal(err)
			}
			if want := regionTruth(truthValues(64, 1), []int64{64}, []int64{16}, []int64{8}); !slices.Equal(dst, want) {
				t.Fatalf("region %v, want %v", dst, want)
			}
			// By range: one inner chunk (64 bytes) and the index (8 × 16
			// bytes); whole: the shard's 512 bytes and its index.
			if byRange := mem.bytes < 512; byRange != c.ranges {
				t.Errorf("read %d bytes of the shard; by range: %v, want %v", mem.bytes, byRange, c.ranges)
			}
		})
	}
}

// TestRegionMissing: RegionOptions.Missing names every chunk a box
// touches that is not stored, and no other, on each read path (whole
// chunks straight into the box, part chunks through scratch, several at
// once).
func TestRegionMissing(t *testing.T) {
	ctx := context.Background()
	s := storage.NewMemory()
	m := Metadata{Format: 2, Shape: []int64{10, 9}, ChunkShape: []int64{4, 3}, FillNull: true,
		Numeric: NumericType{Kind: Int, Size: 8}, Codecs: []Codec{BytesCodec{Endian: binary.LittleEndian}}}
	a, err := Create(ctx, s, m)
	if err != nil {
		t.Fatal(err)
	}
	stored := func(c []int64) bool { return (c[0]+c[1])%2 == 0 }
	for _, c := range a.ChunkCoords() {
		if stored(c) {
			b := make([]byte, a.ChunkBytes())
			b[0] = 1 // not all fill, so stored
			if ok, err := a.WriteChunkRaw(ctx, c, b); err != nil || !ok {
				t.Fatal(ok, err)
			}
		}
	}
	for _, box := range [][4]int64{{0, 0, 10, 9}, {0, 0, 4, 9}, {1, 2, 6, 5}, {4, 3, 4, 3}} {
		for _, par := range []int{1, 3} {
			var mu sync.Mutex
			var got [][]int64
			o := RegionOptions{Parallel: par, Missing: func(c []int64) {
				mu.Lock()
				got = append(got, slices.Clone(c))
				mu.Unlock()
			}}
			start, shape := []int64{box[0], box[1]}, []int64{box[2], box[3]}
			if _, err := a.ReadRegionRaw(ctx, start, shape, make([]byte, 8*shape[0]*shape[1]), o); err != nil {
				t.Fatal(err)
			}
			var want [][]int64
			for _, c := range a.ChunkCoords() {
				in := c[0]*4 < start[0]+shape[0] && (c[0]+1)*4 > start[0] && c[1]*3 < start[1]+shape[1] && (c[1]+1)*3 > start[1]
				if in && !stored(c) {
					want = append(want, c)
				}
			}
			slices.SortFunc(got, slices.Compare)
			slices.SortFunc(want, slices.Compare)
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("box %v, %d at once: missing %v, want %v", box, par, got, want)
			}
		}
	}
}
