package transcode

import (
	"context"
	"fmt"
	"slices"

	"github.com/zarr-dt64/dt64/storage"
)

// A resumed run must not mix old and new source values: before a part
// writes its first chunk it records the version (storage.Versioner: a file's
// size and modification time, an object's ETag) of every source chunk it
// will read, durably, in the destination; each unit checks its chunks
// still have those versions after reading them; a resume checks the whole
// record before going on, and a finalize checks every part's. A changed
// chunk stops the run with a *SourceChangedError naming it: the
// destination may hold values of the old version, so only starting over
// (Overwrite) gives a consistent array. A source that cannot tell versions
// (not a Versioner) is not checked.

// sourcesDoc records the versions of the source chunks of one part's
// units. A chunk not stored is absent.
type sourcesDoc struct {
	Part      int               `json:"part"`
	Parts     int               `json:"parts"`
	FirstUnit int64             `json:"first_unit"`
	EndUnit   int64             `json:"end_unit"`
	Versions  map[string]string `json:"versions"`
}

// SourceChangedError names a source chunk whose version differs from the
// one a run recorded when it read (or was about to read) it.
type SourceChangedError struct {
	Source   string // the source's location
	Key      string // the chunk's store key
	Was, Now string // its versions ("" for not stored)
}

func (e *SourceChangedError) Error() string {
	v := func(s string) string {
		if s == "" {
			return "not stored"
		}
		return s
	}
	return fmt.Sprintf("%v: source %s chunk %q changed since this run first read the source (was %s, now %s); the destination may hold values of the old version", ErrSourceChanged, e.Source, e.Key, v(e.Was), v(e.Now))
}

func (e *SourceChangedError) Unwrap() error { return ErrSourceChanged }

// unitSourceKeys calls fn with the store key of every source chunk of
// unit u, in C order.
func (t *Job) unitSourceKeys(u int64, fn func(key string) error) error {
	g := t.geo
	return g.chunksIn(g.origin(u), g.srcChunk, g.srcGrid, func(c []int64) error {
		k, err := t.src.ChunkKey(c)
		if err != nil {
			return err
		}
		return fn(k)
	})
}

// sourceVersions returns the versions of the source chunks of units
// [lo, hi).
func (t *Job) sourceVersions(ctx context.Context, v storage.Versioner, lo, hi int64) (map[string]string, error) {
	v, err := bulkVersioner(ctx, t.srcStore, v, hi-lo, t.geo.units) // versions.go
	if err != nil {
		return nil, err
	}
	vs := map[string]string{}
	for u := lo; u < hi; u++ {
		err := t.unitSourceKeys(u, func(k string) error {
			ver, err := v.Version(ctx, k)
			if err != nil {
				return fmt.Errorf("reading the source: %w", err)
			}
			if ver != "" {
				vs[k] = ver
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return vs, nil
}

// compareSources returns a *SourceChangedError for the first chunk of
// units [lo, hi) in array order whose version now differs from recorded.
func (t *Job) compareSources(ctx context.Context, v storage.Versioner, lo, hi int64, recorded map[string]string) error {
	now, err := t.sourceVersions(ctx, v, lo, hi)
	if err != nil {
		return err
	}
	for u := lo; u < hi; u++ {
		err := t.unitSourceKeys(u, func(k string) error {
			if now[k] != recorded[k] {
				return &SourceChangedError{Source: storage.Name(t.srcStore), Key: k, Was: recorded[k], Now: now[k]}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// recordSources records (fresh) or checks (resume) the versions of this
// part's source chunks, and keeps them for the per-unit checks.
func (t *Job) recordSources(ctx context.Context, resume bool) error {
	v, ok := storage.Find[storage.Versioner](t.srcStore)
	if !ok {
		return nil
	}
	key := sourcesKey(t.opts.Part)
	if resume {
		// Chunks another partition wrote (a plain run, or parts of
		// another count) are skipped as done like this part's own: their
		// records are checked too, or a chunk rewritten since they read it
		// would stay in the destination with its old values.
		if err := t.checkSourceRecords(ctx, v, func(d *sourcesDoc) bool { return d.Parts != t.opts.Part.count() }); err != nil {
			return err
		}
		var d sourcesDoc
		found, err := t.readState(ctx, key, &d)
		if err != nil {
			return err
		}
		if found && d.FirstUnit == t.lo && d.EndUnit == t.hi {
			if err := t.compareSources(ctx, v, t.lo, t.hi, d.Versions); err != nil {
				return err
			}
			t.sources = d.Versions
			trackReadVersions(t.srcStore)
			return nil
		}
		// No record: the killed run wrote no chunk of this part (the
		// record is durable before the first), so record now.
	}
	vs, err := t.sourceVersions(ctx, v, t.lo, t.hi)
	if err != nil {
		return err
	}
	d := sourcesDoc{Part: t.opts.Part.Index, Parts: t.opts.Part.count(), FirstUnit: t.lo, EndUnit: t.hi, Versions: vs}
	if err := t.writeState(ctx, key, &d); err != nil {
		return err
	}
	t.sources = vs
	trackReadVersions(t.srcStore)
	return t.sync(ctx)
}

// checkUnitSources checks, after unit u's source chunks were read, that
// they still have the versions recorded for them.
func (t *Job) checkUnitSources(ctx context.Context, u int64) error {
	if t.sources == nil {
		return nil
	}
	v, ok := storage.Find[storage.Versioner](t.srcStore)
	if !ok {
		return nil
	}
	return t.unitSourceKeys(u, func(k string) error {
		now, ok := readVersion(t.srcStore, k) // the version the read itself saw (versions.go)
		if !ok {
			var err error
			if now, err = v.Version(ctx, k); err != nil {
				return fmt.Errorf("reading the source: %w", err)
			}
		}
		if now != t.sources[k] {
			return &SourceChangedError{Source: storage.Name(t.srcStore), Key: k, Was: t.sources[k], Now: now}
		}
		return nil
	})
}

// checkAllSources checks every record in the destination before a
// finalize declares it complete: the finished parts' and any another
// partition left (a run resumed with another part count).
func (t *Job) checkAllSources(ctx context.Context) error {
	v, ok := storage.Find[storage.Versioner](t.srcStore)
	if !ok {
		return nil
	}
	return t.checkSourceRecords(ctx, v, func(*sourcesDoc) bool { return true })
}

// checkSourceRecords compares the versions of the source chunks in every
// record that check selects with the source's now.
func (t *Job) checkSourceRecords(ctx context.Context, v storage.Versioner, check func(*sourcesDoc) bool) error {
	keys, err := t.dstStore.List(ctx, sourcesPrefix)
	if err != nil {
		return err
	}
	slices.Sort(keys)
	for _, k := range keys {
		var d sourcesDoc
		found, err := t.readState(ctx, k, &d)
		if err != nil {
			return err
		}
		if !found || !check(&d) {
			continue // removed by a finalize running at the same time, or not asked for
		}
		if d.FirstUnit < 0 || d.EndUnit > t.geo.units || d.FirstUnit > d.EndUnit {
			return fmt.Errorf("%s/%s: unreadable dt64 state (units [%d, %d) of %d)", storage.Name(t.dstStore), k, d.FirstUnit, d.EndUnit, t.geo.units)
		}
		if err := t.compareSources(ctx, v, d.FirstUnit, d.EndUnit, d.Versions); err != nil {
			return err
		}
	}
	return nil
}
