package transcode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// copyJob carries an array that is not a time array over to the
// destination value for value: its chunk files byte for byte, and its
// metadata as stored (action "copy") or translated to the other format
// (action "migrate": to v3 as zarr-python 3.1's migration does, chunk keys
// staying v2 keys; to v2 by zarr.MigrateV3Array, chunks renamed to v2 keys
// when needed, copy_rekey.go), so the bytes stay valid. Chunks are written atomically (Set), so
// on resume a chunk the destination holds is done; the metadata is
// written by the store's finalize, after every part synced its chunks.
type copyJob struct {
	path     string
	action   string
	node     zarr.Node
	src, dst storage.Store // views of the node
	// keys are the source's chunk keys, sorted, while the array is being
	// planned, copied or verified (partKeys lists them again, so that a
	// store of many arrays holds one array's keys at a time); count is
	// their number and [lo, hi) this part's share of them, first and last
	// its bounds.
	keys        []string
	listing     []string // the source's keys when it cannot be listed, else nil
	isChunk     func(string) bool
	count       int
	lo, hi      int
	first, last string
	docs        []keyDoc // destination metadata, keys relative to the node
	inFlight    int
	maxChunk    int64 // largest encoded chunk the codec allows, or 0: unknown
	part        Part
	sources     map[string]string // versions of this part's source chunks

	srcArr, dstArr *zarr.Array // a re-encode (recode.go); nil for a copy
	swapUnit       int         // a re-encode: the bytes of a unit of its elements' byte order

	srcIO, dstIO *ioStore // src and dst: counting bytes
	done         atomic.Int64
	note         string // what the translation changes that a reader would see
}

func newCopyJob(ctx context.Context, n zarr.Node, a *zarr.Array, src, dst storage.Store, format int, rootKeys []string, o Options, recode bool) (*copyJob, error) {
	c := &copyJob{path: n.Path, node: n, inFlight: max(o.InFlight, 1), part: o.Part,
		srcIO: &ioStore{Store: src}, dstIO: &ioStore{Store: dst}}
	c.src, c.dst = c.srcIO, c.dstIO
	switch {
	case n.Format == format:
		c.action = "copy"
		if n.Format == 2 {
			c.docs = append(c.docs, keyDoc{".zarray", n.Metadata})
			if n.AttrsDoc != nil {
				c.docs = append(c.docs, keyDoc{".zattrs", n.AttrsDoc})
			}
		} else {
			c.docs = append(c.docs, keyDoc{"zarr.json", n.Metadata})
		}
	case format == 3:
		c.action = "migrate"
		doc, err := zarr.MigrateV2Array(n)
		if err != nil {
			return nil, err
		}
		c.docs = append(c.docs, keyDoc{"zarr.json", doc})
		var v2 struct {
			Fill json.RawMessage `json:"fill_value"`
		}
		if json.Unmarshal(n.Metadata, &v2) == nil && (v2.Fill == nil || string(v2.Fill) == "null") {
			// xarray's integers and bools: taken back to v2, the fill is
			// a number, which xarray reads as a _FillValue to mask.
			c.note = "the v2 fill value null becomes 0 (v3 has none); back in v2 that fill would be xarray's _FillValue, and its zeros would read as missing"
		}
	case !recode: // v3 to v2; a re-encode writes its own v2 metadata (planRecode)
		c.action = "migrate"
		v2, err := zarr.MigrateV3Array(n)
		if err != nil {
			return nil, err
		}
		c.docs = append(c.docs, keyDoc{".zarray", v2.Zarray})
		if v2.Zattrs != nil {
			c.docs = append(c.docs, keyDoc{".zattrs", v2.Zattrs})
		}
		c.dst = withRenamedChunks(c.dstIO, v2.SourceKeys, v2.Keys, len(n.Shape))
	}
	if recode {
		if err := c.planRecode(ctx, a, format, o); err != nil {
			return nil, err
		}
	}
	isChunk, err := chunkKeyTest(n, a)
	if err != nil {
		return nil, err
	}
	c.isChunk = isChunk
	prefix := n.Path + "/"
	var keys []string
	for _, k := range rootKeys {
		if rest, ok := strings.CutPrefix(k, prefix); ok && isChunk(rest) {
			keys = append(keys, rest)
		}
	}
	slices.Sort(keys)
	lo, hi := o.Part.units(int64(len(keys)))
	c.count, c.lo, c.hi = len(keys), int(lo), int(hi)
	if c.lo < c.hi {
		c.first, c.last = keys[c.lo], keys[c.hi-1]
	}
	if a != nil && c.maxChunk == 0 {
		c.maxChunk = int64(a.MaxEncodedSize())
	}
	return c, nil
}

// chunkKeyTest tells the array's chunk keys from its other keys: by the
// array's own key encoding when dt64 opens it, else (a v2 array with
// filters, say) by the v2 form: its number of dimensions of decimal
// indices joined by its separator.
func chunkKeyTest(n zarr.Node, a *zarr.Array) (func(string) bool, error) {
	if a != nil {
		return func(k string) bool { _, ok := a.ChunkOf(k); return ok }, nil
	}
	if n.Format == 3 {
		// A v3 array dt64 does not open (numcodecs codecs, say) may still
		// migrate to v2: its keys are its key encoding's.
		enc, err := n.KeyEncoding()
		if err != nil {
			return nil, fmt.Errorf("%w: the array does not open (%s): %w", zarr.ErrUnsupported, n.DataType, err)
		}
		return func(k string) bool { _, ok := enc.Parse(k, len(n.Shape)); return ok }, nil
	}
	sep := "."
	if strings.Contains(string(n.Metadata), `"dimension_separator": "/"`) {
		sep = "/"
	}
	ndim := max(len(n.Shape), 1)
	return func(k string) bool {
		parts := strings.Split(k, sep)
		if len(parts) != ndim {
			return false
		}
		for _, p := range parts {
			if _, err := strconv.ParseUint(p, 10, 63); err != nil || p == "" {
				return false
			}
		}
		return true
	}, nil
}

// partKeys are this part's source chunk keys: those of the plan, or
// listed again. A listing that is not the plan's (a chunk added or
// removed since) is a changed source.
func (c *copyJob) partKeys(ctx context.Context) ([]string, error) {
	if c.keys == nil {
		listed := slices.Clone(c.listing)
		var err error
		if c.listing == nil {
			listed, err = c.src.List(ctx, "")
		}
		if err != nil {
			return nil, err
		}
		keys := listed[:0]
		for _, k := range listed {
			if c.isChunk(k) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		if len(keys) != c.count || c.lo < c.hi && (keys[c.lo] != c.first || keys[c.hi-1] != c.last) {
			return nil, &SourceChangedError{Source: storage.Name(c.src), Key: c.first,
				Was: fmt.Sprintf("%d chunks listed when planned", c.count), Now: fmt.Sprintf("%d listed", len(keys))}
		}
		c.keys = keys
	}
	return c.keys[c.lo:c.hi], nil
}

// release drops what the array's run kept per chunk: its keys and source
// versions.
func (c *copyJob) release() { c.keys, c.sources = nil, nil }

func (c *copyJob) memoryBound() int64 {
	if c.maxChunk > 0 {
		return int64(c.inFlight) * c.maxChunk
	}
	return 0
}

func (c *copyJob) progress() Progress {
	return Progress{Units: int64(c.hi - c.lo), UnitsDone: c.done.Load(), BytesRead: c.srcIO.read.Load(), BytesWritten: c.dstIO.written.Load()}
}

// run copies this part's chunks; present (nil on a fresh run) holds the
// destination's keys, from the store's root, on resume.
func (c *copyJob) run(ctx context.Context, present map[string]bool) (Summary, error) {
	start := time.Now()
	sum := Summary{Units: int64(c.hi - c.lo), Chunks: int64(c.hi - c.lo)}
	keys, err := c.partKeys(ctx)
	if err != nil {
		return sum, err
	}
	if err := c.recordSources(ctx, present != nil); err != nil {
		return sum, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	work := make(chan string)
	var wg sync.WaitGroup
	var resumed, stored atomic.Int64
	for range c.inFlight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			if c.srcArr != nil {
				buf = make([]byte, c.srcArr.ChunkBytes())
			}
			for k := range work {
				if present[path.Join(c.path, c.dstKey(k))] {
					resumed.Add(1)
					c.done.Add(1)
					continue
				}
				var err error
				if c.srcArr != nil {
					err = c.recodeChunk(ctx, k, buf)
				} else {
					var b []byte
					b, err = c.src.Get(ctx, k)
					if err == nil {
						err = c.checkSource(ctx, k)
					}
					if err == nil {
						err = c.dst.Set(ctx, k, b)
					}
				}
				if err != nil {
					cancel(err)
					return
				}
				stored.Add(1)
				c.done.Add(1)
			}
		}()
	}
feed:
	for _, k := range keys {
		select {
		case work <- k:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	sum.Resumed, sum.Stored = resumed.Load(), stored.Load()+resumed.Load()
	sum.BytesRead, sum.BytesWritten = c.srcIO.read.Load(), c.dstIO.written.Load()
	sum.Elapsed = time.Since(start)
	return sum, context.Cause(ctx)
}

// mine reports whether destination key (relative to the node) is a chunk
// of this part: the temporary files of only those are this part's to
// remove.
func (c *copyJob) mine(key string) bool {
	k := c.srcKey(key) // the keys of the share are those between its bounds
	return c.lo < c.hi && k != "" && c.isChunk(k) && c.first <= k && k <= c.last
}

// writeMetadata writes the destination's metadata documents (unchanged
// when already there, so a finalize killed midway is redone the same).
func (c *copyJob) writeMetadata(ctx context.Context) error {
	for _, d := range c.docs {
		b, err := c.dst.Get(ctx, d.key)
		if err == nil && bytes.Equal(b, d.doc) {
			continue
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		if err := c.dst.Set(ctx, d.key, d.doc); err != nil {
			return err
		}
	}
	return nil
}

// verify compares every chunk of this part and the metadata with the
// source's.
func (c *copyJob) verify(ctx context.Context) error {
	for _, d := range c.docs {
		b, err := c.dst.Get(ctx, d.key)
		if err != nil {
			return err
		}
		if !bytes.Equal(b, d.doc) {
			return fmt.Errorf("%w: %s/%s differs from the planned metadata", ErrVerify, c.path, d.key)
		}
	}
	keys, err := c.partKeys(ctx)
	if err != nil {
		return err
	}
	defer c.release()
	if c.srcArr != nil {
		a, b := make([]byte, c.srcArr.ChunkBytes()), make([]byte, c.srcArr.ChunkBytes())
		for _, k := range keys {
			if err := c.verifyRecoded(ctx, k, a, b); err != nil {
				return err
			}
		}
		return nil
	}
	for _, k := range keys {
		want, err := c.src.Get(ctx, k)
		if err != nil {
			return err
		}
		got, err := c.dst.Get(ctx, k)
		if err != nil {
			return fmt.Errorf("%w: chunk %s/%s: %w", ErrVerify, c.path, k, err)
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("%w: chunk %s/%s differs from the source's", ErrVerify, c.path, k)
		}
	}
	return nil
}

func removeEmptyDir(dir, name string) { _ = os.Remove(filepath.Join(dir, name)) }

// removeEmptyDirs removes the empty directories under dir (not dir),
// deepest first: what a wipe leaves of the arrays it deleted.
func removeEmptyDirs(dir string) {
	var dirs []string
	_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.IsDir() && p != dir {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		_ = os.Remove(dirs[i]) // fails, as it should, when not empty
	}
}
