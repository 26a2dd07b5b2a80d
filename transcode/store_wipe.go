package transcode

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// Overwrite of a hierarchy extends the single array's rule: it deletes
// only what is provably dt64's, and refuses before deleting anything when
// the destination holds any other key. Provably dt64's: the metadata of
// the groups and arrays of a hierarchy dt64 reads (and its consolidated
// metadata), the keys that are chunk keys of those arrays, the arrays a
// dt64 plan marker names, and dt64's own state. The intent (the arrays
// and groups being removed) is recorded and synced before the first
// deletion, so an overwrite killed midway is finished by the next run with
// Overwrite or Resume.

// storeWipeDoc is a hierarchy overwrite's intent.
type storeWipeDoc struct {
	Tool   string   `json:"tool"`
	Arrays []string `json:"arrays"`
	Groups []string `json:"groups"`
}

// ownership says which destination keys are dt64's to delete.
type ownership struct {
	arrays map[string]func(rest string) bool // array path: its chunk keys
	groups map[string]bool
	// formats holds the Zarr format of the nodes the destination's
	// hierarchy has: a node's metadata documents are those of its format
	// (a .zattrs in a v3 group is not dt64's). Nodes known only from a
	// plan marker or an overwrite's intent may have either.
	formats map[string]int
	// walkErr is why the destination's hierarchy does not read, if it
	// does not: then no node's keys are known to be dt64's.
	walkErr error
}

var metadataNames = []string{"zarr.json", ".zarray", ".zattrs", ".zgroup", ".zmetadata"}

// metadataName reports whether base is a metadata document of the node at
// p in o's hierarchy.
func (o *ownership) metadataName(p, base string) bool {
	switch o.formats[p] {
	case 3:
		return base == "zarr.json"
	case 2:
		switch base {
		case ".zattrs":
			return true
		case ".zgroup":
			return o.groups[p]
		case ".zmetadata":
			return o.groups[p] && p == ""
		case ".zarray":
			return !o.groups[p]
		}
		return false
	}
	return slices.Contains(metadataNames, base)
}

// owns reports whether key may be deleted by an overwrite.
func (o *ownership) owns(key string) bool {
	if isStateKey(key) {
		return true // the store's state, at the root
	}
	dir, base := path.Split(key)
	dir = strings.TrimSuffix(dir, "/")
	if o.groups[dir] && o.metadataName(dir, base) {
		return true
	}
	for p := key; p != "" && p != "."; p = path.Dir(p) {
		parent := path.Dir(p)
		if parent == "." {
			parent = ""
		}
		isChunk, ok := o.arrays[parent]
		if !ok {
			if parent == "" {
				break
			}
			continue
		}
		rest := strings.TrimPrefix(key, parent+"/")
		if parent == "" {
			rest = key
		}
		return !strings.Contains(rest, "/") && o.metadataName(parent, rest) || isStateKey(rest) || isChunk(rest)
	}
	return false
}

// ownedHere builds the ownership of the destination from what it holds:
// its hierarchy (when it has one), a stored plan marker, a recorded
// overwrite intent.
func (s *StoreJob) ownedHere(ctx context.Context, keys []string, extra *storeWipeDoc) *ownership {
	o := &ownership{arrays: map[string]func(string) bool{}, groups: map[string]bool{}, formats: map[string]int{}}
	nodes, err := zarr.Walk(ctx, s.dst)
	o.walkErr = err
	if err == nil {
		for _, n := range nodes {
			o.formats[n.Path] = n.Format
			if n.Kind == zarr.GroupNode {
				o.groups[n.Path] = true
				continue
			}
			var a *zarr.Array
			if n.Path != "" {
				if v, err := storage.Sub(s.dst, n.Path); err == nil {
					a, _ = zarr.Open(ctx, v)
				}
			}
			if test, err := chunkKeyTest(n, a); err == nil {
				o.arrays[n.Path] = test
			}
		}
	}
	add := func(arrays, groups []string) {
		for _, p := range arrays {
			if _, ok := o.arrays[p]; !ok && p != "" {
				o.arrays[p] = looksLikeChunkKey
			}
		}
		for _, g := range groups {
			o.groups[g] = true
		}
	}
	var stored storePlanDoc
	if found, err := s.readDoc(ctx, storePlanKey, &stored); err == nil && found {
		arrays := make([]string, 0, len(stored.Arrays))
		for p := range stored.Arrays {
			arrays = append(arrays, p)
		}
		add(arrays, stored.Groups)
	}
	if extra != nil {
		add(extra.Arrays, extra.Groups)
	}
	// An array a Job of a killed run began: its plan marker is there,
	// its metadata not yet.
	for _, k := range keys {
		if d, base := path.Split(k); base == planKey && d != "" {
			add([]string{strings.TrimSuffix(d, "/")}, nil)
		}
	}
	return o
}

// looksLikeChunkKey is a chunk key of some Zarr key encoding: decimal
// indices joined by "." or "/", after a "c" in v3's default encoding.
func looksLikeChunkKey(k string) bool {
	if k == "c" {
		return true
	}
	if rest, ok := strings.CutPrefix(k, "c/"); ok {
		k = rest
	} else if rest, ok := strings.CutPrefix(k, "c."); ok {
		k = rest
	}
	for _, p := range strings.FieldsFunc(k, func(r rune) bool { return r == '.' || r == '/' }) {
		if _, err := strconv.ParseUint(p, 10, 63); err != nil {
			return false
		}
	}
	return k != "" && !strings.Contains(k, "..") && !strings.Contains(k, "//")
}

func (o *ownership) foreign(keys []string) []string {
	var out []string
	for _, k := range keys {
		if !o.owns(k) {
			out = append(out, k)
		}
	}
	return out
}

// startOver deletes what the destination holds, if all of it is dt64's,
// and starts a fresh run.
func (s *StoreJob) startOver(ctx context.Context) (startMode, error) {
	if err := checkLive(ctx, s.dst, s.opts.leaseInterval(), ""); err != nil {
		return 0, err
	}
	keys, err := s.dst.List(ctx, "")
	if err != nil {
		return 0, err
	}
	o := s.ownedHere(ctx, keys, nil)
	if foreign := o.foreign(keys); len(foreign) > 0 {
		if o.walkErr != nil {
			// Name the cause, not the keys it hides the ownership of.
			return 0, s.destErr(ErrDestinationExists, fmt.Sprintf("a hierarchy that does not read (%v), so which of its %d keys are dt64's cannot be told; nothing was deleted", o.walkErr, len(keys)), false, false)
		}
		return 0, s.destErr(ErrDestinationExists, fmt.Sprintf("%s that are not dt64's to delete (%s); overwriting would delete what dt64 did not write, so nothing was deleted", nOf(len(foreign), "key"), listSome(foreign)), false, false)
	}
	w := storeWipeDoc{Tool: "dt64 transcode"}
	for p := range o.arrays {
		w.Arrays = append(w.Arrays, p)
	}
	for g := range o.groups {
		w.Groups = append(w.Groups, g)
	}
	slices.Sort(w.Arrays)
	slices.Sort(w.Groups)
	if err := s.writeDoc(ctx, storeWipeKey, &w); err != nil {
		return 0, err
	}
	if err := s.sync(ctx); err != nil {
		return 0, err
	}
	if err := s.wipe(ctx, keys); err != nil {
		return 0, err
	}
	return startFresh, s.writePlan(ctx)
}

// finishWipe completes an overwrite an earlier run left half done.
func (s *StoreJob) finishWipe(ctx context.Context) (bool, error) {
	var w storeWipeDoc
	found, err := s.readDoc(ctx, storeWipeKey, &w)
	if !found || err != nil {
		return false, err
	}
	if !s.opts.Overwrite && !s.opts.Resume {
		return false, s.destErr(ErrDestinationExists, "an overwrite that was interrupted", true, true)
	}
	keys, err := s.dst.List(ctx, "")
	if err != nil {
		return false, err
	}
	if foreign := s.ownedHere(ctx, keys, &w).foreign(keys); len(foreign) > 0 {
		return false, s.destErr(ErrDestinationExists, fmt.Sprintf("an interrupted overwrite and %s that are not dt64's (%s); nothing was deleted", nOf(len(foreign), "key"), listSome(foreign)), false, false)
	}
	return true, s.wipe(ctx, keys)
}

// wipe deletes keys: the root's metadata first (the destination stops
// looking like a hierarchy at once), the intent last, once the rest is
// durably gone.
func (s *StoreJob) wipe(ctx context.Context, keys []string) (err error) {
	defer func() { err = wipeFailed(ctx, err) }()
	for _, k := range metadataNames {
		if err := s.dst.Delete(ctx, k); err != nil {
			return err
		}
	}
	for _, k := range keys {
		if k == storeWipeKey || slices.Contains(metadataNames, k) {
			continue
		}
		if err := s.dst.Delete(ctx, k); err != nil {
			return err
		}
	}
	if ts, ok := storage.Find[storage.TempLister](s.dst); ok {
		temps, err := ts.Temps(ctx)
		if err != nil {
			return err
		}
		for p := range temps {
			if err := ts.RemoveTemp(p); err != nil {
				return err
			}
		}
	}
	if dir, ok := localDir(s.dst); ok {
		removeEmptyDirs(dir)
	}
	if err := s.sync(ctx); err != nil {
		return err
	}
	if err := s.dst.Delete(ctx, storeWipeKey); err != nil {
		return err
	}
	return s.sync(ctx)
}
