package transcode_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/zarr-dt64/dt64/blosc"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// The fused decode (each source block converted as soon as it is decoded)
// must give what the two-pass path gives: the same destination bytes, the
// same summary, the same error naming the same element. Every test here
// runs both, switched by DT64_FUSED=1, on the same source.

// jittered returns n ns timestamps at a 1 s cadence with ±5 ms jitter and
// 1% NaT; every element whose index is in big is set to a value that
// overflows when multiplied by 1000 or more.
func jittered(n int, seed uint64, big ...int) []int64 {
	r := rand.New(rand.NewPCG(seed, 11))
	v := make([]int64, n)
	for i := range v {
		v[i] = 1704067200e9 + int64(i)*1e9 + r.Int64N(10_000_001) - 5_000_000
		if r.IntN(100) == 0 {
			v[i] = dtype.NaT
		}
	}
	for k, i := range big {
		v[i] = math.MaxInt64/100 - int64(k)
		if k%2 == 1 {
			v[i] = -v[i]
		}
	}
	return v
}

type fusedSource struct {
	name   string
	meta   zarr.Metadata
	vals   []int64
	skip   func(c []int64) bool // chunks not written
	junk   bool                 // store edge chunks with junk (overflowing) padding
	damage []int64              // a chunk whose last Blosc block is made corrupt
}

func bloscCodec(cname, shuffle string, level, typesize, blocksize int) zarr.BloscCodec {
	return zarr.BloscCodec{CName: cname, CLevel: level, Shuffle: shuffle, TypeSize: typesize, BlockSize: blocksize}
}

func fusedSources() []fusedSource {
	le := zarr.BytesCodec{Endian: binary.LittleEndian}
	be := zarr.BytesCodec{Endian: binary.BigEndian}
	sec := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1}
	n1 := 100_000 // 1-D: chunks of 24000 (192 KB), an edge chunk of 4000
	m1 := func(codecs ...zarr.Codec) zarr.Metadata {
		return zarr.Metadata{Format: 3, DataType: ns, Shape: []int64{int64(n1)}, ChunkShape: []int64{24000}, FillValue: dtype.NaT, Codecs: codecs}
	}
	m2 := func(dt dtype.DataType, codecs ...zarr.Codec) zarr.Metadata { // 2-D, edges in both dimensions
		return zarr.Metadata{Format: 3, DataType: dt, Shape: []int64{250, 390}, ChunkShape: []int64{96, 128}, FillValue: dtype.NaT, Codecs: codecs}
	}
	missing := func(c []int64) bool { return c[0] == 2 }
	return []fusedSource{
		{name: "lz4-shuffle-16k", meta: m1(le, bloscCodec("lz4", "shuffle", 5, 8, 16<<10)), vals: jittered(n1, 1), skip: missing},
		{name: "zstd-shuffle-be", meta: m1(be, bloscCodec("zstd", "shuffle", 3, 8, 0)), vals: jittered(n1, 2)},
		{name: "lz4-bitshuffle", meta: m1(le, bloscCodec("lz4", "bitshuffle", 5, 8, 64<<10)), vals: jittered(n1, 3)},
		{name: "lz4-noshuffle", meta: m1(le, bloscCodec("lz4", "noshuffle", 5, 8, 40<<10)), vals: jittered(n1, 4)},
		{name: "memcpyed", meta: m1(le, bloscCodec("lz4", "shuffle", 0, 8, 0)), vals: jittered(n1, 5)},
		{name: "typesize3", meta: m1(le, bloscCodec("zstd", "shuffle", 1, 3, 30001)), vals: jittered(n1, 6)},
		{name: "blosc-crc32c", meta: m1(le, bloscCodec("lz4", "shuffle", 5, 8, 16<<10), zarr.CRC32CCodec{}), vals: jittered(n1, 7)},
		{name: "zstd", meta: m1(le, zarr.ZstdCodec{Level: 1}), vals: jittered(n1, 8), skip: missing},
		{name: "2d-lz4", meta: m2(ns, le, bloscCodec("lz4", "shuffle", 5, 8, 16<<10)), vals: jittered(250*390, 9), skip: func(c []int64) bool { return c[0] == 1 && c[1] == 2 }},
		{name: "2d-junk-padding", meta: m2(ns, le, bloscCodec("lz4", "shuffle", 5, 8, 16<<10)), vals: jittered(250*390, 10), junk: true},
		// Seconds with values that overflow in nanoseconds, in several
		// blocks and chunks; junk padding must not count.
		{name: "2d-sec-overflow", meta: m2(sec, be, bloscCodec("zstd", "shuffle", 1, 8, 16<<10)), vals: secondsWithOverflow(250*390, 11, 45250, 45251, 60000, 97000), junk: true},
		{name: "1d-sec-overflow-damaged", meta: zarr.Metadata{Format: 3, DataType: sec, Shape: []int64{100_000}, ChunkShape: []int64{50_000}, FillValue: dtype.NaT,
			Codecs: []zarr.Codec{le, bloscCodec("lz4", "shuffle", 5, 8, 64<<10)}}, vals: secondsWithOverflow(100_000, 12, 20000, 70000), damage: []int64{0}},
	}
}

func secondsWithOverflow(n int, seed uint64, big ...int) []int64 {
	v := jittered(n, seed)
	for i := range v {
		if v[i] != dtype.NaT {
			v[i] /= 1e9
		}
	}
	for k, i := range big {
		v[i] = math.MaxInt64/100 - int64(k)
		if k%2 == 1 {
			v[i] = -v[i]
		}
	}
	return v
}

// write stores src in a new memory store.
func (src fusedSource) write(t *testing.T) *zarr.MemoryStore {
	t.Helper()
	s := zarr.NewMemory()
	a := writeArray(t, s, src.meta, src.vals, src.skip)
	if src.junk {
		writeJunkPadding(t, s, a, src.vals)
	}
	if src.damage != nil {
		key, _ := a.ChunkKey(src.damage)
		enc, err := s.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		h, err := blosc.ParseHeader(enc)
		if err != nil {
			t.Fatal(err)
		}
		nb := (h.NBytes + h.BlockSize - 1) / h.BlockSize
		last := binary.LittleEndian.Uint32(enc[blosc.HeaderSize+4*(nb-1):])
		binary.LittleEndian.PutUint32(enc[last:], 0x7fffffff)
		if err := s.Set(ctx, key, enc); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// writeJunkPadding re-stores every edge chunk of a blosc array with
// padding a writer might leave: values that overflow any multiplication.
func writeJunkPadding(t *testing.T, s zarr.Store, a *zarr.Array, vals []int64) {
	t.Helper()
	m := a.Metadata()
	var bc zarr.BloscCodec
	for _, c := range m.Codecs {
		if b, ok := c.(zarr.BloscCodec); ok {
			bc = b
		}
	}
	order := a.ByteOrder()
	raw := make([]byte, 8*a.ChunkLen())
	for _, c := range a.ChunkCoords() {
		edge := false
		for d := range c {
			edge = edge || (c[d]+1)*m.ChunkShape[d] > m.Shape[d]
		}
		if !edge {
			continue
		}
		for i := 0; i < a.ChunkLen(); i++ {
			order.PutUint64(raw[8*i:], uint64(math.MaxInt64-int64(i)))
		}
		forChunkElements(m.Shape, m.ChunkShape, c, func(i, f int) { order.PutUint64(raw[8*i:], uint64(vals[f])) })
		frame, err := blosc.Encode(nil, raw, blosc.Options{Compressor: bc.CName, Level: bc.CLevel, Shuffle: blosc.ByteShuffle, TypeSize: 8, BlockSize: bc.BlockSize})
		if err != nil {
			t.Fatal(err)
		}
		key, _ := a.ChunkKey(c)
		if err := s.Set(ctx, key, frame); err != nil {
			t.Fatal(err)
		}
	}
}

type runResult struct {
	sum   transcode.Summary
	err   error
	store *zarr.MemoryStore
}

// runWith transcodes src with fusion on or off, one unit at a time, so
// that a failed run's summary and destination are deterministic too.
func runWith(t *testing.T, src zarr.Store, o transcode.Options, fused bool) runResult {
	t.Helper()
	if fused {
		t.Setenv("DT64_FUSED", "1")
	} else {
		t.Setenv("DT64_FUSED", "")
	}
	o.Workers, o.InFlight = 1, 1
	dst := zarr.NewMemory()
	tr, err := transcode.New(ctx, src, dst, o)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := tr.Run(ctx)
	sum.Elapsed = 0
	return runResult{sum, err, dst}
}

func sameRuns(t *testing.T, name string, a, b runResult) {
	t.Helper()
	if (a.err == nil) != (b.err == nil) || (a.err != nil && a.err.Error() != b.err.Error()) {
		t.Fatalf("%s: error fused %v, two-pass %v", name, a.err, b.err)
	}
	if a.err != nil {
		var ea, eb *transcode.ElementError
		if errors.As(a.err, &ea) != errors.As(b.err, &eb) || (ea != nil && (ea.Key != eb.Key || ea.Index != eb.Index || !reflect.DeepEqual(ea.ArrayIndex, eb.ArrayIndex) || ea.Value != eb.Value)) {
			t.Fatalf("%s: element errors differ: %+v vs %+v", name, ea, eb)
		}
	}
	if a.sum != b.sum {
		t.Errorf("%s: summary fused %+v, two-pass %+v", name, a.sum, b.sum)
	}
	ka, err := a.store.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := b.store.List(ctx, "")
	if !reflect.DeepEqual(ka, kb) {
		t.Fatalf("%s: destination keys differ:\n%v\n%v", name, ka, kb)
	}
	for _, k := range ka {
		va, _ := a.store.Get(ctx, k)
		vb, _ := b.store.Get(ctx, k)
		if string(va) != string(vb) {
			t.Errorf("%s: %s differs", name, k)
		}
	}
}

func TestFusedMatchesTwoPass(t *testing.T) {
	us, day, month := unit(dtype.Microsecond), unit(dtype.Day), unit(dtype.Month)
	lz4 := &transcode.Compression{Name: "blosc", Level: 5, CName: "lz4", Shuffle: "shuffle"}
	zstd := &transcode.Compression{Name: "zstd", Level: 1}
	opts := []struct {
		name string
		o    transcode.Options
	}{
		{"ns->us", transcode.Options{Unit: us, Compression: zstd}},       // floor divide, lossy
		{"ns->us exact", transcode.Options{Unit: us, Exact: true}},       // first lossy element
		{"copy big-endian", transcode.Options{Endian: binary.BigEndian}}, // byte order only
		{"ns->ns little-endian", transcode.Options{Endian: binary.LittleEndian, Compression: lz4}},
		{"->D", transcode.Options{Unit: day}},
		{"->M", transcode.Options{Unit: month}}, // calendar
		{"->ns error", transcode.Options{Unit: unit(dtype.Nanosecond)}},
		{"->ns nat", transcode.Options{Unit: unit(dtype.Nanosecond), Overflow: kernels.OverflowNaT}},
		{"->ns clamp", transcode.Options{Unit: unit(dtype.Nanosecond), Overflow: kernels.OverflowClamp}},
		{"->ps error", transcode.Options{Unit: unit(dtype.Picosecond)}}, // ns sources overflow too
		{"->ps nat", transcode.Options{Unit: unit(dtype.Picosecond), Overflow: kernels.OverflowNaT}},
		// Destination shards of source chunks: regions of several chunks,
		// contiguous along the first dimension, and not.
		{"shard 2,1", transcode.Options{Unit: us, Sharding: transcode.Sharding{Mode: transcode.ShardAdd, Chunks: []int64{2, 1}}}},
		{"shard 1,2", transcode.Options{Unit: us, Sharding: transcode.Sharding{Mode: transcode.ShardAdd, Chunks: []int64{1, 2}}}},
		{"shard 3", transcode.Options{Unit: us, Sharding: transcode.Sharding{Mode: transcode.ShardAdd, Chunks: []int64{3}}}},
	}
	failures := 0
	for _, src := range fusedSources() {
		store := src.write(t)
		nd := len(src.meta.Shape)
		for _, oc := range opts {
			if oc.o.Sharding.Mode == transcode.ShardAdd && len(oc.o.Sharding.Chunks) != nd {
				continue
			}
			name := src.name + "/" + oc.name
			fused := runWith(t, store, oc.o, true)
			plain := runWith(t, store, oc.o, false)
			sameRuns(t, name, fused, plain)
			if fused.err != nil {
				failures++
			}
		}
	}
	if failures < 8 {
		t.Errorf("only %d runs failed: the error paths are not exercised", failures)
	}
}

// The element an overflow error names, checked against the source itself:
// the first overflowing element in array order, in a block past the first.
func TestFusedOverflowNamesElement(t *testing.T) {
	for _, src := range fusedSources() {
		if src.meta.DataType.Unit != dtype.Second || src.damage != nil {
			continue
		}
		store := src.write(t)
		r := runWith(t, store, transcode.Options{Unit: unit(dtype.Nanosecond)}, true)
		var ee *transcode.ElementError
		var oe *kernels.ElementError
		if !errors.As(r.err, &ee) || !errors.As(r.err, &oe) || oe.Reason != kernels.ReasonOverflow {
			t.Fatalf("%s: %v, want an ElementError wrapping a kernels overflow", src.name, r.err)
		}
		// The first chunk in C order holding an overflowing element, and
		// the first such element in it (units are single chunks here).
		a, _ := zarr.Open(ctx, store)
		found := false
		for _, c := range a.ChunkCoords() {
			first := -1
			forChunkElements(src.meta.Shape, src.meta.ChunkShape, c, func(i, f int) {
				v := src.vals[f]
				if first < 0 && v != dtype.NaT && (v > math.MaxInt64/1_000_000_000 || v < math.MinInt64/1_000_000_000) {
					first = i
				}
			})
			if first >= 0 {
				key, _ := a.ChunkKey(c)
				if ee.Key != key || ee.Index != first || oe.Index != first {
					t.Errorf("%s: error names %s element %d (kernel %d), want %s element %d", src.name, ee.Key, ee.Index, oe.Index, key, first)
				}
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("%s: no overflowing element in the source", src.name)
		}
		if ee.Index*8 < 16<<10 {
			t.Errorf("%s: the failing element %d is in the first block: pick one further in", src.name, ee.Index)
		}
	}
}

// A damaged source chunk is reported, not a conversion error in a block
// before the damage: as when the chunk is decoded before converting.
func TestFusedDamageWinsOverOverflow(t *testing.T) {
	for _, src := range fusedSources() {
		if src.damage == nil {
			continue
		}
		store := src.write(t)
		r := runWith(t, store, transcode.Options{Unit: unit(dtype.Nanosecond)}, true)
		var ce *zarr.ChunkError
		if !errors.As(r.err, &ce) || !errors.Is(r.err, zarr.ErrCorrupt) {
			t.Fatalf("%s: %v, want the corrupt chunk's error", src.name, r.err)
		}
		if want := fmt.Sprint(src.damage[0]); ce.Key != "c/"+want {
			t.Errorf("%s: error names chunk %q, want c/%s", src.name, ce.Key, want)
		}
	}
}
