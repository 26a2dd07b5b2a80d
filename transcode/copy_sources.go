package transcode

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/zarr-dt64/dt64/storage"
)

// The versions of a copied array's source chunks, recorded as a Job
// records its own (sources.go): before this part's first chunk is copied,
// durably; checked for every chunk copied and, on resume, for every chunk
// of the part, so a chunk rewritten since the run read it stops the run.

const copySourcesPrefix = ".dt64-copy-sources/"

type copySourcesDoc struct {
	Part     int               `json:"part"`
	Parts    int               `json:"parts"`
	Versions map[string]string `json:"versions"`
}

func (c *copyJob) sourcesKey() string { return copySourcesPrefix + partName(c.part) }

// recordSources records (fresh) or checks (resume) the versions of this
// part's source chunks and keeps them for the per-chunk checks.
func (c *copyJob) recordSources(ctx context.Context, resume bool) error {
	v, ok := storage.Find[storage.Versioner](c.src)
	if !ok {
		return nil
	}
	st := Job{dstStore: c.dstIO.Store} // state is not chunk traffic: not counted
	now, err := c.versions(ctx, v)
	if err != nil {
		return err
	}
	if resume {
		// Chunks copied by another partition (a plain run, or parts of
		// another count) are skipped as done like this part's own: check
		// their records too.
		if err := c.checkOtherPartitions(ctx, &st, v); err != nil {
			return err
		}
		var d copySourcesDoc
		found, err := st.readState(ctx, c.sourcesKey(), &d)
		if err != nil {
			return err
		}
		if found {
			for k, ver := range now {
				if d.Versions[k] != ver {
					return &SourceChangedError{Source: storage.Name(c.src), Key: k, Was: d.Versions[k], Now: ver}
				}
			}
			c.sources = d.Versions
			trackReadVersions(c.src)
			return nil
		}
	}
	c.sources = now
	trackReadVersions(c.src)
	if err := st.writeState(ctx, c.sourcesKey(), &copySourcesDoc{Part: c.part.Index, Parts: c.part.count(), Versions: now}); err != nil {
		return err
	}
	return st.sync(ctx) // durable before the first chunk
}

// checkOtherPartitions compares the recorded versions of the records
// that parts of another count left with the source's now.
func (c *copyJob) checkOtherPartitions(ctx context.Context, st *Job, v storage.Versioner) error {
	keys, err := c.dst.List(ctx, copySourcesPrefix)
	if err != nil {
		return err
	}
	slices.Sort(keys)
	for _, k := range keys {
		var d copySourcesDoc
		found, err := st.readState(ctx, k, &d)
		if err != nil {
			return err
		}
		if !found || d.Parts == c.part.count() {
			continue
		}
		chunks := slices.Sorted(maps.Keys(d.Versions))
		for _, key := range chunks {
			now, err := v.Version(ctx, key)
			if err != nil {
				return err
			}
			if was := d.Versions[key]; now != was {
				return &SourceChangedError{Source: storage.Name(c.src), Key: key, Was: was, Now: now}
			}
		}
	}
	return nil
}

// versions are the versions of this part's source chunks, from one
// listing when that costs fewer requests (bulkVersioner).
func (c *copyJob) versions(ctx context.Context, v storage.Versioner) (map[string]string, error) {
	v, err := bulkVersioner(ctx, c.src, v, int64(c.hi-c.lo), int64(c.count))
	if err != nil {
		return nil, err
	}
	vs := make(map[string]string, c.hi-c.lo)
	for _, k := range c.keys[c.lo:c.hi] {
		if vs[k], err = v.Version(ctx, k); err != nil {
			return nil, err
		}
	}
	return vs, nil
}

// checkSource compares a chunk's version, after it was read, with the
// recorded one.
func (c *copyJob) checkSource(ctx context.Context, key string) error {
	if c.sources == nil {
		return nil
	}
	now, ok := readVersion(c.src, key) // the version the read itself saw
	if !ok {
		v, _ := storage.Find[storage.Versioner](c.src)
		var err error
		if now, err = v.Version(ctx, key); err != nil {
			return err
		}
	}
	if was := c.sources[key]; now != was {
		return &SourceChangedError{Source: storage.Name(c.src), Key: key, Was: was, Now: now}
	}
	return nil
}

// removeSources deletes the recorded versions of every part (the store's
// finalize: all parts are done).
func (c *copyJob) removeSources(ctx context.Context) error {
	keys, err := c.dst.List(ctx, copySourcesPrefix)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if !isStateKey(k) {
			continue // not dt64's
		}
		if err := c.dst.Delete(ctx, k); err != nil {
			return err
		}
	}
	if dir, ok := localDir(c.dst); ok {
		_ = os.Remove(filepath.Join(dir, filepath.FromSlash(copySourcesPrefix))) // empty now
	}
	return nil
}
