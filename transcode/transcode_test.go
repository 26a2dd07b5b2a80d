package transcode_test

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// expected converts vals independently of the kernels: floor(v*num/den)
// with big integers, NaT kept, overflow per policy.
func expected(t *testing.T, from, to dtype.DataType, vals []int64, pol dtype.OverflowPolicy) []int64 {
	t.Helper()
	conv, err := dtype.NewConversion(from, to)
	if err != nil {
		t.Fatal(err)
	}
	num, den := conv.Factor()
	out := make([]int64, len(vals))
	for i, v := range vals {
		if v == dtype.NaT {
			out[i] = v
			continue
		}
		q := new(big.Int).Mul(big.NewInt(v), num)
		q.Div(q, den) // Euclidean; den > 0, so floor
		switch {
		case q.IsInt64() && q.Int64() != math.MinInt64:
			out[i] = q.Int64()
		case pol == dtype.OverflowNaT:
			out[i] = dtype.NaT
		case q.Sign() > 0:
			out[i] = math.MaxInt64
		default:
			out[i] = math.MinInt64 + 1
		}
	}
	return out
}

func TestOptions(t *testing.T) {
	sharded := func(t *testing.T, s storage.Store) []int64 {
		vals := sampleValues(40, 3)
		writeArray(t, s, zarr.Metadata{
			Format: 3, DataType: ns, Shape: []int64{40}, ChunkShape: []int64{16}, FillValue: dtype.NaT,
			Codecs: []zarr.Codec{zarr.ShardingCodec{ChunkShape: []int64{4},
				Codecs:      []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}, zarr.ZstdCodec{Level: 1}},
				IndexCodecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}, zarr.CRC32CCodec{}}}},
		}, vals, nil)
		return vals
	}
	cases := []struct {
		name   string
		source func(*testing.T, storage.Store) []int64
		opts   transcode.Options
		check  func(t *testing.T, m zarr.Metadata)
	}{
		{"copy", v2Source, transcode.Options{}, func(t *testing.T, m zarr.Metadata) {
			if m.Format != 2 || m.ByteOrder() != binary.BigEndian || m.DataType != ns {
				t.Errorf("metadata changed: %+v", m)
			}
		}},
		{"unit us", v2Source, transcode.Options{Unit: dtype.Microsecond}, func(t *testing.T, m zarr.Metadata) {
			if m.DataType.Unit != dtype.Microsecond || m.DataType.Scale != 1 {
				t.Errorf("data type %s", m.DataType)
			}
		}},
		{"unit s scale 10", v2Source, transcode.Options{Unit: dtype.Second, Scale: 10}, func(t *testing.T, m zarr.Metadata) {
			if m.DataType.String() != "datetime64[10s]" {
				t.Errorf("data type %s", m.DataType)
			}
		}},
		{"scale only", v2Source, transcode.Options{Scale: 1000}, func(t *testing.T, m zarr.Metadata) {
			if m.DataType.String() != "datetime64[1000ns]" {
				t.Errorf("data type %s", m.DataType)
			}
		}},
		{"little endian", v2Source, transcode.Options{Endian: binary.LittleEndian}, func(t *testing.T, m zarr.Metadata) {
			if m.ByteOrder() != binary.LittleEndian {
				t.Errorf("byte order %v", m.ByteOrder())
			}
		}},
		{"gzip", v2Source, transcode.Options{Compression: &transcode.Compression{Codec: zarr.GzipCodec{Level: 6}}}, func(t *testing.T, m zarr.Metadata) {
			if g, ok := m.Codecs[1].(zarr.GzipCodec); !ok || g.Level != 6 {
				t.Errorf("codecs %v", m.Codecs)
			}
		}},
		{"blosc", v2Source, transcode.Options{Compression: &transcode.Compression{Codec: zarr.BloscCodec{CName: "lz4", CLevel: 7, Shuffle: "bitshuffle"}}}, func(t *testing.T, m zarr.Metadata) {
			if b, ok := m.Codecs[1].(zarr.BloscCodec); !ok || b.CName != "lz4" || b.CLevel != 7 || b.Shuffle != "bitshuffle" || (b.TypeSize != 8 && b.TypeSize != 0) {
				t.Errorf("codecs %v", m.Codecs)
			}
		}},
		{"none", v2Source, transcode.Options{Compression: &transcode.Compression{}}, func(t *testing.T, m zarr.Metadata) {
			if len(m.Codecs) != 1 {
				t.Errorf("codecs %v", m.Codecs)
			}
		}},
		{"v3 zstd crc32c", v2Source, transcode.Options{Format: 3, Compression: &transcode.Compression{Codec: zarr.ZstdCodec{Level: 5}}, CRC32C: true}, func(t *testing.T, m zarr.Metadata) {
			if m.Format != 3 || len(m.Codecs) != 3 || m.Codecs[2].Name() != "crc32c" || m.KeyEncoding.Name != "default" {
				t.Errorf("metadata %+v", m)
			}
		}},
		{"add sharding", v2Source, transcode.Options{Format: 3, Sharding: transcode.Sharding{Mode: transcode.ShardAdd, Chunks: []int64{2, 3}}}, func(t *testing.T, m zarr.Metadata) {
			sc, ok := m.Codecs[0].(zarr.ShardingCodec)
			if !ok || m.ChunkShape[0] != 6 || m.ChunkShape[1] != 12 || sc.ChunkShape[0] != 3 || sc.ChunkShape[1] != 4 {
				t.Errorf("metadata %+v", m)
			}
		}},
		{"remove sharding", sharded, transcode.Options{Sharding: transcode.Sharding{Mode: transcode.ShardRemove}}, func(t *testing.T, m zarr.Metadata) {
			if len(m.Codecs) != 2 || m.ChunkShape[0] != 4 {
				t.Errorf("metadata %+v", m)
			}
		}},
		{"keep sharding, new unit", sharded, transcode.Options{Unit: dtype.Millisecond}, func(t *testing.T, m zarr.Metadata) {
			if _, ok := m.Codecs[0].(zarr.ShardingCodec); !ok || m.ChunkShape[0] != 16 {
				t.Errorf("metadata %+v", m)
			}
		}},
		{"sharded v3 to v2", sharded, transcode.Options{Format: 2, Endian: binary.BigEndian}, func(t *testing.T, m zarr.Metadata) {
			if m.Format != 2 || m.ChunkShape[0] != 4 || m.ByteOrder() != binary.BigEndian {
				t.Errorf("metadata %+v", m)
			}
		}},
		{"one worker, one in flight", v2Source, transcode.Options{Unit: dtype.Millisecond, Workers: 1, InFlight: 1}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srcDir, dstDir := t.TempDir(), filepath.Join(t.TempDir(), "dst")
			vals := c.source(t, storage.NewDir(srcDir))
			before := treeHash(t, srcDir)
			tr, err := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(dstDir), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			sum, err := tr.Run(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !sum.Complete || sum.Elements != int64(len(vals)) {
				t.Errorf("summary %+v", sum)
			}
			if err := tr.Verify(ctx); err != nil {
				t.Errorf("verify: %v", err)
			}
			a, got := readArray(t, storage.NewDir(dstDir))
			want := expected(t, ns, a.DataType(), vals, dtype.OverflowError)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("element %d: got %d, want %d (source %d)", i, got[i], want[i], vals[i])
				}
			}
			var nat int64
			for _, v := range want {
				if v == dtype.NaT {
					nat++
				}
			}
			if sum.NaT != nat {
				t.Errorf("NaT %d, want %d", sum.NaT, nat)
			}
			if c.check != nil {
				c.check(t, a.Metadata())
			}
			if after := treeHash(t, srcDir); after != before {
				t.Error("the source changed")
			}
			// No run state is left behind.
			for k := range treeFiles(t, dstDir) {
				if strings.HasPrefix(filepath.Base(k), ".dt64") {
					t.Errorf("left behind: %s", k)
				}
			}
		})
	}
}

func TestPlanErrors(t *testing.T) {
	src := storage.NewMemory()
	v2Source(t, src)
	for name, o := range map[string]transcode.Options{
		"crc32c in v2":         {CRC32C: true},
		"sharding in v2":       {Sharding: transcode.Sharding{Mode: transcode.ShardAdd, Chunks: []int64{2, 2}}},
		"shard dims":           {Format: 3, Sharding: transcode.Sharding{Mode: transcode.ShardAdd, Chunks: []int64{2}}},
		"resume and overwrite": {Resume: true, Overwrite: true},
		"overwrite a part":     {Overwrite: true, Part: transcode.Part{Index: 0, Count: 2}},
		"format 4":             {Format: 4},
	} {
		if _, err := transcode.New(ctx, src, storage.NewMemory(), o); !errors.Is(err, transcode.ErrPlan) {
			t.Errorf("%s: got %v, want ErrPlan", name, err)
		}
	}
	// A fill value that overflows the destination unit.
	s2 := storage.NewMemory()
	writeArray(t, s2, zarr.Metadata{Format: 3, DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1},
		Shape: []int64{4}, ChunkShape: []int64{4}, FillValue: math.MaxInt64 / 10}, []int64{1, 2, 3, 4}, nil)
	if _, err := transcode.New(ctx, s2, storage.NewMemory(), transcode.Options{Unit: dtype.Nanosecond}); !errors.Is(err, transcode.ErrPlan) || !strings.Contains(err.Error(), "fill value") {
		t.Errorf("overflowing fill: %v", err)
	}
	// Kinds never mix: not expressible through Options, but a timedelta
	// to a unit converts within its kind.
	for _, bad := range []string{"lz4", "zstd:23", "gzip:x", "none:1", "blosc:blosclz", "blosc:lz5", "blosc:zstd:10", "blosc:zstd:5:byteshuffle", "blosc:zstd:5:shuffle:8"} {
		if c, err := transcode.ParseCompression(bad); err == nil {
			t.Errorf("ParseCompression(%q) accepted: %v", bad, c)
		}
	}
	for in, want := range map[string]string{
		"zstd": "zstd:3", "gzip:1": "gzip:1", "none": "none",
		"blosc": "blosc:zstd:5:shuffle", "blosc:lz4": "blosc:lz4:5:shuffle", "BLOSC:zstd:1:bitshuffle": "blosc:zstd:1:bitshuffle",
	} {
		if c, err := transcode.ParseCompression(in); err != nil || c.String() != want {
			t.Errorf("ParseCompression(%q) = %v, %v; want %s", in, c, err, want)
		}
	}
	if _, err := transcode.ParsePart("2/2"); err == nil {
		t.Error("part 2/2 accepted")
	}
	if p, err := transcode.ParsePart("1/3"); err != nil || p.Index != 1 || p.Count != 3 {
		t.Errorf("ParsePart(1/3) = %v, %v", p, err)
	}
	if s, err := transcode.ParseSharding("2,8"); err != nil || s.Mode != transcode.ShardAdd || len(s.Chunks) != 2 {
		t.Errorf("ParseSharding = %v, %v", s, err)
	}
}

// overflowSource writes datetime64[s] values, one of which does not fit in
// nanoseconds, in chunks of 5 (the big one is element 7: chunk 1, index 2).
func overflowSource(t *testing.T, s storage.Store) []int64 {
	vals := []int64{0, 1, 2, dtype.NaT, 4, 5, 6, math.MaxInt64 / 100, 8, 9, -math.MaxInt64 / 100, 11}
	writeArray(t, s, zarr.Metadata{Format: 3, DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1},
		Shape: []int64{12}, ChunkShape: []int64{5}, FillValue: dtype.NaT}, vals, nil)
	return vals
}

func TestOverflowPolicies(t *testing.T) {
	srcDir := t.TempDir()
	vals := overflowSource(t, storage.NewDir(srcDir))
	sec := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1}

	dst := filepath.Join(t.TempDir(), "d")
	tr, err := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(dst), transcode.Options{Unit: dtype.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.Run(ctx)
	var ee *zarr.ElementError
	var oe *dtype.ElementError
	if !errors.As(err, &ee) || !errors.As(err, &oe) || oe.Reason != dtype.ReasonOverflow {
		t.Fatalf("got %v, want an ElementError wrapping a kernels overflow", err)
	}
	if ee.Key != "c/1" || ee.Index != 2 || len(ee.ArrayIndex) != 1 || ee.ArrayIndex[0] != 7 || ee.Value != vals[7] || oe.Index != 2 {
		t.Errorf("error %+v (%v)", ee, err)
	}
	for _, want := range []string{`"c/1"`, "element 2", "[7]", "92233720368547758"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	if _, err := zarr.Open(ctx, storage.NewDir(dst)); err == nil {
		t.Error("metadata written after an overflow")
	}

	for _, pol := range []dtype.OverflowPolicy{dtype.OverflowNaT, dtype.OverflowClamp} {
		dst := filepath.Join(t.TempDir(), "d")
		tr, err := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(dst), transcode.Options{Unit: dtype.Nanosecond, Overflow: pol})
		if err != nil {
			t.Fatal(err)
		}
		sum, err := tr.Run(ctx)
		if err != nil {
			t.Fatal(pol, err)
		}
		if sum.Overflowed != 2 {
			t.Errorf("%s: overflowed %d, want 2", pol, sum.Overflowed)
		}
		_, got := readArray(t, storage.NewDir(dst))
		want := expected(t, sec, dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}, vals, pol)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: element %d = %d, want %d", pol, i, got[i], want[i])
			}
		}
		if err := tr.Verify(ctx); err != nil {
			t.Errorf("%s: verify: %v", pol, err)
		}
	}
}

func TestExact(t *testing.T) {
	src := storage.NewMemory()
	writeArray(t, src, zarr.Metadata{Format: 3, DataType: ns, Shape: []int64{6}, ChunkShape: []int64{3}, FillValue: 0},
		[]int64{1000, 2000, 3000, 4000, 5001, 6000}, nil)
	tr, err := transcode.New(ctx, src, storage.NewMemory(), transcode.Options{Unit: dtype.Microsecond, Exact: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.Run(ctx)
	var le *dtype.ElementError
	var ee *zarr.ElementError
	if !errors.As(err, &le) || le.Reason != dtype.ReasonLoss || !errors.As(err, &ee) || ee.Key != "c/1" || ee.Index != 1 || ee.Value != 5001 {
		t.Fatalf("got %v", err)
	}
}

func TestCorruptSourceChunk(t *testing.T) {
	srcDir := t.TempDir()
	v2Source(t, storage.NewDir(srcDir))
	if err := os.WriteFile(filepath.Join(srcDir, "2.1"), []byte("not zstd at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := treeHash(t, srcDir)
	dst := filepath.Join(t.TempDir(), "d")
	tr, err := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(dst), transcode.Options{Format: 3})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.Run(ctx)
	var ce *zarr.ChunkError
	if !errors.As(err, &ce) || ce.Key != "2.1" || !strings.Contains(err.Error(), `"2.1"`) {
		t.Fatalf("got %v, want a ChunkError naming 2.1", err)
	}
	if _, err := os.Stat(filepath.Join(dst, "zarr.json")); err == nil {
		t.Error("metadata written despite a corrupt source chunk")
	}
	if treeHash(t, srcDir) != before {
		t.Error("source changed")
	}
}

func TestExistingDestination(t *testing.T) {
	srcDir := t.TempDir()
	v2Source(t, storage.NewDir(srcDir))
	run := func(dst string, o transcode.Options) (transcode.Summary, error) {
		tr, err := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(dst), o)
		if err != nil {
			return transcode.Summary{}, err
		}
		return tr.Run(ctx)
	}
	dst := filepath.Join(t.TempDir(), "d")
	us := transcode.Options{Unit: dtype.Microsecond}
	if _, err := run(dst, us); err != nil {
		t.Fatal(err)
	}
	if _, err := run(dst, us); !errors.Is(err, transcode.ErrDestinationExists) {
		t.Errorf("second run: %v, want ErrDestinationExists", err)
	}
	resume := us
	resume.Resume = true
	if s, err := run(dst, resume); err != nil || !s.AlreadyComplete {
		t.Errorf("resume of a complete run: %+v, %v", s, err)
	}
	ms := transcode.Options{Unit: dtype.Millisecond, Resume: true}
	if _, err := run(dst, ms); !errors.Is(err, transcode.ErrDestinationExists) {
		t.Errorf("resume into another array: %v", err)
	}
	ms.Resume, ms.Overwrite = false, true
	if _, err := run(dst, ms); err != nil {
		t.Errorf("overwrite: %v", err)
	}
	if a, _ := readArray(t, storage.NewDir(dst)); a.DataType().Unit != dtype.Millisecond {
		t.Errorf("overwrite left %s", a.DataType())
	}

	// An interrupted run of another plan: resume refuses, naming why.
	dst2 := filepath.Join(t.TempDir(), "d")
	failing := &failStore{Store: storage.NewDir(dst2), after: 2}
	tr, err := transcode.New(ctx, storage.NewDir(srcDir), failing, us)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(ctx); err == nil {
		t.Fatal("the failing store did not fail")
	}
	if _, err := run(dst2, ms); err != nil {
		t.Errorf("overwrite of an interrupted run of another plan: %v", err)
	}
	dst3 := filepath.Join(t.TempDir(), "d")
	failing = &failStore{Store: storage.NewDir(dst3), after: 2}
	tr, _ = transcode.New(ctx, storage.NewDir(srcDir), failing, us)
	_, _ = tr.Run(ctx)
	other := transcode.Options{Unit: dtype.Second, Resume: true}
	if _, err := run(dst3, other); !errors.Is(err, transcode.ErrPlanMismatch) || !strings.Contains(err.Error(), "destination metadata") {
		t.Errorf("resume with another plan: %v, want ErrPlanMismatch", err)
	}
	var de *transcode.DestinationError
	if _, err := run(dst3, us); !errors.Is(err, transcode.ErrDestinationExists) || !errors.As(err, &de) || !de.Resume || !de.Overwrite {
		t.Errorf("rerun without Resume: %v, want a DestinationError offering Resume and Overwrite", err)
	}

	// A directory that is not an array is never touched.
	junk := t.TempDir()
	if err := os.WriteFile(filepath.Join(junk, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, o := range []transcode.Options{us, {Overwrite: true}, {Resume: true}} {
		if _, err := run(junk, o); !errors.Is(err, transcode.ErrDestinationExists) {
			t.Errorf("junk dir with %+v: %v", o, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(junk, "notes.txt")); err != nil || string(b) != "mine" {
		t.Error("junk dir touched")
	}
	// Source and destination must not overlap.
	if _, err := run(filepath.Join(srcDir, "sub"), us); !errors.Is(err, transcode.ErrPlan) {
		t.Errorf("destination inside the source: %v", err)
	}
}

// failStore fails every Set after the first `after` ones.
type failStore struct {
	storage.Store
	after int64
	n     atomic.Int64
}

func (s *failStore) Set(ctx context.Context, key string, v []byte) error {
	if s.n.Add(1) > s.after {
		return errors.New("disk full (test)")
	}
	return s.Store.Set(ctx, key, v)
}

func (s *failStore) String() string { return s.Store.(*storage.Dir).String() }

func TestResumeAfterFailure(t *testing.T) {
	srcDir := t.TempDir()
	v2Source(t, storage.NewDir(srcDir))
	o := transcode.Options{Unit: dtype.Microsecond, Format: 3, Workers: 2}
	ref := filepath.Join(t.TempDir(), "ref")
	tr, _ := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(ref), o)
	if _, err := tr.Run(ctx); err != nil {
		t.Fatal(err)
	}
	for _, after := range []int64{0, 1, 3, 6, 9} {
		dst := filepath.Join(t.TempDir(), "d")
		tr, _ := transcode.New(ctx, storage.NewDir(srcDir), &failStore{Store: storage.NewDir(dst), after: after}, o)
		if _, err := tr.Run(ctx); err == nil {
			t.Fatalf("after %d: no failure", after)
		}
		if _, err := os.Stat(filepath.Join(dst, "zarr.json")); err == nil {
			t.Fatalf("after %d: metadata written by a failed run", after)
		}
		r := o
		r.Resume = true
		tr, _ = transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(dst), r)
		sum, err := tr.Run(ctx)
		if err != nil || !sum.Complete {
			t.Fatalf("after %d: resume: %+v, %v", after, sum, err)
		}
		sameTrees(t, ref, dst)
	}
}

func TestParts(t *testing.T) {
	srcDir := t.TempDir()
	vals := sampleValues(1000, 9)
	writeArray(t, storage.NewDir(srcDir), zarr.Metadata{Format: 2, DataType: ns, Shape: []int64{1000}, ChunkShape: []int64{64}, FillValue: dtype.NaT,
		Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.BigEndian}, zarr.GzipCodec{Level: 1}}}, vals,
		func(c []int64) bool { return c[0] == 3 })
	o := transcode.Options{Unit: dtype.Microsecond, Format: 3, Sharding: transcode.Sharding{Mode: transcode.ShardAdd, Chunks: []int64{3}}}
	ref := filepath.Join(t.TempDir(), "ref")
	tr, _ := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(ref), o)
	full, err := tr.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}

	dst := filepath.Join(t.TempDir(), "d")
	var total transcode.Summary
	for i, idx := range []int{1, 0} {
		p := o
		p.Part = transcode.Part{Index: idx, Count: 2}
		tr, err := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(dst), p)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			// Before the last part: finalize refuses.
			if _, err := tr.Finalize(ctx); !errors.Is(err, transcode.ErrIncomplete) {
				t.Errorf("finalize with a part missing: %v", err)
			}
		}
		s, err := tr.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.Complete != (i == 1) {
			t.Errorf("part %d: complete %v", idx, s.Complete)
		}
		if _, err := os.Stat(filepath.Join(dst, "zarr.json")); (err == nil) != (i == 1) {
			t.Errorf("part %d: metadata present %v", idx, err == nil)
		}
		total.Elements += s.Elements
		total.NaT += s.NaT
	}
	if total.Elements != full.Elements || total.NaT != full.NaT {
		t.Errorf("parts %+v, full %+v", total, full)
	}
	sameTrees(t, ref, dst)

	// Parts whose last one died after its marker: --finalize completes.
	dst = filepath.Join(t.TempDir(), "d")
	for idx := range 3 {
		p := o
		p.Part = transcode.Part{Index: idx, Count: 3}
		tr, _ := transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(dst), p)
		if _, err := tr.Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
	tr, _ = transcode.New(ctx, storage.NewDir(srcDir), storage.NewDir(dst), o)
	if s, err := tr.Finalize(ctx); err != nil || !s.Complete {
		t.Errorf("finalize of a finished run: %+v %v", s, err)
	}
	sameTrees(t, ref, dst)
}

// slowStore delays every Get, as a remote store would.
type slowStore struct {
	storage.Store
	delay func()
}

func (s *slowStore) Get(ctx context.Context, key string) ([]byte, error) {
	s.delay()
	return s.Store.Get(ctx, key)
}

func TestCancel(t *testing.T) {
	srcDir := t.TempDir()
	v2Source(t, storage.NewDir(srcDir))
	c, cancel := context.WithCancel(ctx)
	tr, err := transcode.New(ctx, &slowStore{Store: storage.NewDir(srcDir), delay: cancel}, storage.NewDir(filepath.Join(t.TempDir(), "d")), transcode.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(c); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// TestFillOverflowPolicy: a fill value that overflows the destination
// unit converts under the overflow policy, as the values do (the
// elements of missing chunks are the fill value): refused with the
// kernel's element error by default, NaT or saturated on request, counted
// as overflowed and named in a note.
func TestFillOverflowPolicy(t *testing.T) {
	sec := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1}
	ns := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}
	const fill = math.MaxInt64 / 10 // a sentinel, far beyond ns's range
	// Three chunks of 4 (the last one an edge chunk of 2): the first
	// stored, the second missing, the third stored with fill padding.
	vals := []int64{1, 2, fill, 4, fill, fill, fill, fill, 9, fill}
	src := storage.NewMemory()
	writeArray(t, src, zarr.Metadata{Format: 3, DataType: sec, Shape: []int64{10}, ChunkShape: []int64{4}, FillValue: fill},
		vals, func(c []int64) bool { return c[0] == 1 })

	_, err := transcode.New(ctx, src, storage.NewMemory(), transcode.Options{Unit: dtype.Nanosecond})
	var oe *dtype.ElementError
	if !errors.Is(err, transcode.ErrPlan) || !errors.As(err, &oe) || oe.Reason != dtype.ReasonOverflow || !strings.Contains(err.Error(), "fill value 922337203685477580") {
		t.Fatalf("default policy: got %v, want ErrPlan wrapping an overflow of the fill value", err)
	}

	for pol, wantFill := range map[dtype.OverflowPolicy]int64{dtype.OverflowNaT: dtype.NaT, dtype.OverflowClamp: math.MaxInt64} {
		dst := storage.NewMemory()
		job, err := transcode.New(ctx, src, dst, transcode.Options{Unit: dtype.Nanosecond, Overflow: pol})
		if err != nil {
			t.Fatalf("%s: %v", pol, err)
		}
		note := false
		for _, n := range job.Plan().Notes {
			note = note || strings.Contains(n, "fill value 922337203685477580") && strings.Contains(n, pol.String())
		}
		if !note {
			t.Errorf("%s: no note on the fill value in %q", pol, job.Plan().Notes)
		}
		sum, err := job.Run(ctx)
		if err != nil {
			t.Fatalf("%s: %v", pol, err)
		}
		// 6 elements are the fill value: 1 stored in chunk 0, 4 of the
		// missing chunk, 1 stored in the edge chunk; the padding is not
		// counted.
		if sum.Elements != 10 || sum.Overflowed != 6 {
			t.Errorf("%s: %d elements, %d overflowed; want 10 and 6", pol, sum.Elements, sum.Overflowed)
		}
		if wantNaT := map[dtype.OverflowPolicy]int64{dtype.OverflowNaT: 6}[pol]; sum.NaT != wantNaT {
			t.Errorf("%s: NaT %d, want %d", pol, sum.NaT, wantNaT)
		}
		a, got := readArray(t, dst)
		if a.Metadata().FillValue != wantFill {
			t.Errorf("%s: destination fill %d, want %d", pol, a.Metadata().FillValue, wantFill)
		}
		want := expected(t, sec, ns, vals, pol)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s: element %d = %d, want %d", pol, i, got[i], want[i])
			}
		}
		if err := job.Verify(ctx); err != nil {
			t.Errorf("%s: verify: %v", pol, err)
		}
		// A run that continues a part's work recounts the units the part
		// wrote (here the first chunk) and counts the rest.
		dst2 := storage.NewMemory()
		for _, o := range []transcode.Options{
			{Unit: dtype.Nanosecond, Overflow: pol, Part: transcode.Part{Index: 0, Count: 3}},
			{Unit: dtype.Nanosecond, Overflow: pol, Resume: true},
		} {
			job, err := transcode.New(ctx, src, dst2, o)
			if err != nil {
				t.Fatalf("%s: %+v: %v", pol, o, err)
			}
			sum, err = job.Run(ctx)
			if err != nil {
				t.Fatalf("%s: %+v: %v", pol, o, err)
			}
		}
		if sum.Resumed != 1 || sum.Overflowed != 6 {
			t.Errorf("%s: resumed run: %d units resumed, %d overflowed; want 1 and 6", pol, sum.Resumed, sum.Overflowed)
		}
	}
}

// cancelAtChunk cancels a run at its first read of a source chunk (a key
// that is not metadata), after its plan is written.
type cancelAtChunk struct {
	storage.Store
	cancel func()
}

func (s *cancelAtChunk) Get(ctx context.Context, key string) ([]byte, error) {
	switch path.Base(key) {
	case ".zarray", ".zattrs", ".zgroup", ".zmetadata", "zarr.json":
	default:
		s.cancel()
	}
	return s.Store.Get(ctx, key)
}

// TestFinalizeWithoutParts: --finalize on a run without --part that was
// interrupted says that such a run is continued with --resume, for an
// array and for a hierarchy, not "0 of 1 parts done".
func TestFinalizeWithoutParts(t *testing.T) {
	want := "no part of a partitioned run (--part I/N) has finished; --finalize"
	t.Run("array", func(t *testing.T) {
		srcDir := t.TempDir()
		v2Source(t, storage.NewDir(srcDir))
		dst := storage.NewDir(filepath.Join(t.TempDir(), "d"))
		c, cancel := context.WithCancel(ctx)
		src := &cancelAtChunk{Store: storage.NewDir(srcDir), cancel: cancel}
		tr, err := transcode.New(ctx, src, dst, transcode.Options{Unit: dtype.Microsecond})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Run(c); !errors.Is(err, context.Canceled) {
			t.Fatalf("run: %v, want context.Canceled", err)
		}
		if u, err := transcode.FindUnfinished(ctx, dst); err != nil || u == nil {
			t.Fatalf("the run left no state to finalize (%v, %v): cancel later", u, err)
		}
		tr, err = transcode.New(ctx, storage.NewDir(srcDir), dst, transcode.Options{Unit: dtype.Microsecond})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Finalize(ctx); !errors.Is(err, transcode.ErrIncomplete) || !strings.Contains(err.Error(), want) {
			t.Errorf("finalize: %v, want ErrIncomplete saying %q", err, want)
		}
	})
	t.Run("hierarchy", func(t *testing.T) {
		srcDir := groupFixture("migrated_v3.source_v2.zarr")
		dst := storage.NewDir(filepath.Join(t.TempDir(), "d"))
		o := transcode.StoreOptions{Options: transcode.Options{Unit: dtype.Second, Format: 3}}
		c, cancel := context.WithCancel(ctx)
		src := &cancelAtChunk{Store: storage.NewDir(srcDir), cancel: cancel}
		j, err := transcode.NewStore(ctx, src, dst, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Run(c); !errors.Is(err, context.Canceled) {
			t.Fatalf("run: %v, want context.Canceled", err)
		}
		if u, err := transcode.FindUnfinished(ctx, dst); err != nil || u == nil || !u.Hierarchy {
			t.Fatalf("the run left no hierarchy state to finalize (%+v, %v): cancel later", u, err)
		}
		j, err = transcode.NewStore(ctx, storage.NewDir(srcDir), dst, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Finalize(ctx); !errors.Is(err, transcode.ErrIncomplete) || !strings.Contains(err.Error(), want) {
			t.Errorf("finalize: %v, want ErrIncomplete saying %q", err, want)
		}
	})
}

// TestUnfinishedPartCounts: parts of runs in different numbers of parts
// (a run re-partitioned) are counted as a finalize counts them, per
// number of parts, not added up ("4 of 4 parts done" for 2 of 3 and 2
// of 4 before).
func TestUnfinishedPartCounts(t *testing.T) {
	srcDir := t.TempDir()
	v2Source(t, storage.NewDir(srcDir))
	dst := storage.NewDir(filepath.Join(t.TempDir(), "d"))
	for _, p := range []transcode.Part{{Index: 0, Count: 3}, {Index: 2, Count: 4}, {Index: 3, Count: 4}, {Index: 2, Count: 3}} {
		if _, err := run(t, storage.NewDir(srcDir), dst, transcode.Options{Unit: dtype.Microsecond, Part: p}); err != nil {
			t.Fatal(err)
		}
	}
	u, err := transcode.FindUnfinished(ctx, dst)
	if err != nil || u == nil || u.Parts != 3 || u.PartsDone != 2 {
		t.Fatalf("FindUnfinished: %+v, %v; want 2 of 3 parts done", u, err)
	}
}

// TestUnfinishedWiping: an interrupted overwrite is found as such, an
// array's or a hierarchy's (inspect said "an array's" for both).
func TestUnfinishedWiping(t *testing.T) {
	for key, hierarchy := range map[string]bool{".dt64-wipe.json": false, ".dt64-store-wipe.json": true} {
		st := storage.NewMemory()
		if err := st.Set(ctx, key, []byte(`{"tool": "dt64 transcode"}`)); err != nil {
			t.Fatal(err)
		}
		u, err := transcode.FindUnfinished(ctx, st)
		if err != nil || u == nil || !u.Wiping || u.Hierarchy != hierarchy {
			t.Errorf("%s: %+v, %v; want wiping, hierarchy %v", key, u, err, hierarchy)
		}
	}
}

// deleteFailStore fails every Delete after the first after.
type deleteFailStore struct {
	storage.Store
	after int64
	n     atomic.Int64
}

func (s *deleteFailStore) Delete(ctx context.Context, key string) error {
	if s.n.Add(1) > s.after {
		return errors.New("connection reset (test)")
	}
	return s.Store.Delete(ctx, key)
}

func (s *deleteFailStore) String() string { return s.Store.(*storage.Dir).String() }

// TestOverwriteFailedSaysRerun: an overwrite whose deletions fail says to
// run the same command again, and that finishes it.
func TestOverwriteFailedSaysRerun(t *testing.T) {
	srcDir := t.TempDir()
	v2Source(t, storage.NewDir(srcDir))
	dir := filepath.Join(t.TempDir(), "d")
	if _, err := run(t, storage.NewDir(srcDir), storage.NewDir(dir), transcode.Options{Unit: dtype.Millisecond}); err != nil {
		t.Fatal(err)
	}
	o := transcode.Options{Unit: dtype.Microsecond, Overwrite: true}
	_, err := run(t, storage.NewDir(srcDir), &deleteFailStore{Store: storage.NewDir(dir), after: 3}, o)
	if err == nil || !strings.Contains(err.Error(), "run the same command again to finish it") {
		t.Fatalf("an overwrite whose deletions fail: %v", err)
	}
	if sum, err := run(t, storage.NewDir(srcDir), storage.NewDir(dir), o); err != nil || !sum.Complete {
		t.Fatalf("the overwrite again: %+v, %v", sum, err)
	}
}

// TestGenericUnitV2Note: a Format 2 destination with the generic unit
// (<M8) is written, and the plan says that zarr-python 2 refuses it
// (checked with zarr 2.13: "datetime64 and timedelta64 dtypes with
// generic units are not supported, please specify units").
func TestGenericUnitV2Note(t *testing.T) {
	src := storage.NewMemory()
	generic := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Generic, Scale: 1}
	writeArray(t, src, zarr.Metadata{Format: 3, DataType: generic, Shape: []int64{4}, ChunkShape: []int64{4}, FillValue: dtype.NaT}, []int64{1, 2, dtype.NaT, 4}, nil)
	for format, want := range map[int]bool{2: true, 3: false} {
		j, err := transcode.New(ctx, src, storage.NewMemory(), transcode.Options{Format: format})
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Contains(strings.Join(j.Plan().Notes, "\n"), "zarr-python 2 refuses to open")
		if got != want {
			t.Errorf("format %d: notes %q", format, j.Plan().Notes)
		}
	}
}
