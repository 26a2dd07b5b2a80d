package transcode_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

var (
	ns  = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}
	ctx = context.Background()
)

// flatIndex iterates the in-array elements of the chunk at coords: fn gets
// the element's index in the chunk and in the flat C-order array.
func forChunkElements(shape, chunk, coords []int64, fn func(inChunk, flat int)) {
	nd := len(shape)
	if nd == 0 {
		fn(0, 0)
		return
	}
	idx := make([]int64, nd)
	n := 1
	for _, c := range chunk {
		n *= int(c)
	}
	for i := 0; i < n; i++ {
		r := int64(i)
		for d := nd - 1; d >= 0; d-- {
			idx[d] = r % chunk[d]
			r /= chunk[d]
		}
		flat, inside := int64(0), true
		for d := range nd {
			a := coords[d]*chunk[d] + idx[d]
			if a >= shape[d] {
				inside = false
				break
			}
			flat = flat*shape[d] + a
		}
		if inside {
			fn(i, int(flat))
		}
	}
}

// writeArray creates an array in s with metadata m holding vals (flat, C
// order); chunks for which skip returns true are not written (missing).
func writeArray(t *testing.T, s storage.Store, m zarr.Metadata, vals []int64, skip func(c []int64) bool) *zarr.Array {
	t.Helper()
	a, err := zarr.Create(ctx, s, m)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]int64, a.ChunkLen())
	for _, c := range a.ChunkCoords() {
		if skip != nil && skip(c) {
			continue
		}
		for i := range buf {
			buf[i] = m.FillValue
		}
		forChunkElements(m.Shape, a.ChunkShape(), c, func(i, f int) { buf[i] = vals[f] })
		if err := a.WriteChunk(ctx, c, buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	return a
}

// readArray returns every element of the array in s, flat in C order.
func readArray(t *testing.T, s storage.Store) (*zarr.Array, []int64) {
	t.Helper()
	a, err := zarr.Open(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(1)
	for _, d := range a.Shape() {
		n *= d
	}
	out := make([]int64, n)
	buf := make([]int64, a.ChunkLen())
	for _, c := range a.ChunkCoords() {
		if err := a.ReadChunk(ctx, c, buf); err != nil {
			t.Fatal(err)
		}
		forChunkElements(a.Shape(), a.ChunkShape(), c, func(i, f int) { out[f] = buf[i] })
	}
	return a, out
}

func sampleValues(n int, seed uint64) []int64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	v := make([]int64, n)
	for i := range v {
		v[i] = 1_700_000_000_000_000_000 + rng.Int64N(1<<50) - 1<<49
		if rng.IntN(10) == 0 {
			v[i] = dtype.NaT
		}
	}
	return v
}

// v2Source writes a 2-D v2 ">M8[ns]" zstd array (7×9, chunks 3×4) with
// chunk (1, 1) missing and returns its values.
func v2Source(t *testing.T, s storage.Store) []int64 {
	vals := sampleValues(63, 1)
	// Chunk (1,1) covers rows 3..5, columns 4..7: missing, so NaT.
	for r := 3; r < 6; r++ {
		for c := 4; c < 8; c++ {
			vals[r*9+c] = dtype.NaT
		}
	}
	writeArray(t, s, zarr.Metadata{
		Format: 2, DataType: ns, Shape: []int64{7, 9}, ChunkShape: []int64{3, 4}, FillValue: dtype.NaT,
		Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.BigEndian}, zarr.ZstdCodec{Level: 1}},
	}, vals, func(c []int64) bool { return c[0] == 1 && c[1] == 1 })
	return vals
}

// treeHash hashes every file under dir (names and contents) and the
// names of its directories.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	files := treeFiles(t, dir)
	names := make([]string, 0, len(files))
	for k := range files {
		names = append(names, k)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, k := range names {
		h.Write([]byte(k + "\x00" + files[k] + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// treeFiles maps every file under dir (its path relative to dir) to a
// hash of its contents, and every directory below dir (its path and "/")
// to "dir", so that an empty directory left behind counts too.
func treeFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if p != dir {
				rel, _ := filepath.Rel(dir, p)
				files[rel+"/"] = "dir"
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(b)
		files[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sameTrees(t *testing.T, a, b string) {
	t.Helper()
	fa, fb := treeFiles(t, a), treeFiles(t, b)
	for k, v := range fa {
		if fb[k] != v {
			t.Errorf("%s: differs or missing in %s", k, b)
		}
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			t.Errorf("%s: only in %s", k, b)
		}
	}
}
