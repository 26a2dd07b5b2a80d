package transcode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Keys of the run's state in the destination. They start with a dot, so
// no chunk key encoding produces them, and they are removed once the
// metadata is written.
const (
	planKey     = ".dt64-transcode.json"
	partsPrefix = ".dt64-parts/"
)

func partKey(p Part) string {
	return fmt.Sprintf("%s%d-of-%d.json", partsPrefix, p.Index, p.count())
}

// partDoc records a finished part and its statistics.
type partDoc struct {
	Part      int     `json:"part"`
	Parts     int     `json:"parts"`
	FirstUnit int64   `json:"first_unit"`
	EndUnit   int64   `json:"end_unit"`
	Summary   Summary `json:"summary"`
}

type startMode int

const (
	startFresh startMode = iota
	startResume
	startComplete
)

// prepare decides, from what the destination holds, whether this run
// starts afresh, resumes, or finds the work done, and refuses to touch a
// destination the options do not allow it to.
func (t *Transcoder) prepare(ctx context.Context) (startMode, error) {
	if err := t.checkOverlap(); err != nil {
		return 0, err
	}
	dst := t.dstStore
	name := storeName(dst)
	stored, err := t.storedPlan(ctx)
	if err != nil {
		return 0, err
	}
	partMode := t.opts.Part.count() > 1
	switch {
	case stored != nil:
		if diff := t.doc.mismatch(stored); diff != "" {
			if t.opts.Overwrite {
				return t.startOver(ctx)
			}
			return 0, fmt.Errorf("%w: %s holds an interrupted transcode with another plan (%s); use --overwrite to discard it", ErrPlanMismatch, name, diff)
		}
		switch {
		case t.opts.Overwrite:
			return t.startOver(ctx)
		case t.opts.Resume || partMode:
			return startResume, nil
		}
		return 0, fmt.Errorf("%w: %s holds an interrupted transcode of this plan; use --resume to finish it or --overwrite to start over", ErrDestinationExists, name)
	}
	hasMeta, same, err := t.storedMetadata(ctx)
	if err != nil {
		return 0, err
	}
	switch {
	case hasMeta && t.opts.Overwrite:
		return t.startOver(ctx)
	case hasMeta && same && (t.opts.Resume || partMode):
		return startComplete, nil
	case hasMeta && same:
		return 0, fmt.Errorf("%w: %s already holds this transcode, complete (--resume accepts that; --overwrite redoes it)", ErrDestinationExists, name)
	case hasMeta:
		return 0, fmt.Errorf("%w: %s holds a Zarr array; use --overwrite to replace it", ErrDestinationExists, name)
	}
	keys, err := dst.List(ctx, "")
	if err != nil {
		return 0, err
	}
	if slices.Contains(keys, planKey) {
		// Another part created the plan marker after we looked.
		return t.prepare(ctx)
	}
	if len(keys) > 0 {
		return 0, fmt.Errorf("%w: %s holds %d files (%s...) that are neither a Zarr array nor a dt64 transcode; refusing to write there or delete them", ErrDestinationExists, name, len(keys), keys[0])
	}
	return startFresh, t.writePlan(ctx)
}

func (t *Transcoder) startOver(ctx context.Context) (startMode, error) {
	if err := t.wipe(ctx); err != nil {
		return 0, err
	}
	return startFresh, t.writePlan(ctx)
}

func (t *Transcoder) writePlan(ctx context.Context) error {
	b, err := json.MarshalIndent(&t.doc, "", "  ")
	if err != nil {
		return err
	}
	return t.dstStore.Set(ctx, planKey, append(b, '\n'))
}

func (t *Transcoder) storedPlan(ctx context.Context) (*planDoc, error) {
	b, err := t.dstStore.Get(ctx, planKey)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var p planDoc
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("%s/%s: unreadable plan marker (%v); use --overwrite to start over", storeName(t.dstStore), planKey, err)
	}
	return &p, nil
}

// storedMetadata reports whether the destination holds array metadata and
// whether it is exactly what this plan writes.
func (t *Transcoder) storedMetadata(ctx context.Context) (has, same bool, err error) {
	same = true
	for _, k := range metadataKeys {
		b, err := t.dstStore.Get(ctx, k)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if _, want := t.doc.Destination[k]; want {
				same = false
			}
			continue
		case err != nil:
			return false, false, err
		}
		if k != ".zattrs" {
			has = true
		}
		if w, want := t.doc.Destination[k]; !want || !bytes.Equal(b, []byte(w)) {
			same = false
		}
	}
	return has, has && same, nil
}

// wipe deletes a destination array (metadata first, so it stops looking
// complete at once), a run's state and stray temporary files.
func (t *Transcoder) wipe(ctx context.Context) error {
	dst := t.dstStore
	for _, k := range []string{"zarr.json", ".zarray", ".zattrs"} {
		if err := dst.Delete(ctx, k); err != nil {
			return err
		}
	}
	keys, err := dst.List(ctx, "")
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := dst.Delete(ctx, k); err != nil {
			return err
		}
	}
	return t.cleanTemps(ctx, true)
}

// cleanTemps removes temporary files a killed run left in the destination:
// all of them, or only those meant for this part's chunks (other parts may
// be writing theirs right now).
func (t *Transcoder) cleanTemps(ctx context.Context, all bool) error {
	ds, ok := dirStore(t.dstStore)
	if !ok {
		return nil // only directory stores leave temporary files
	}
	temps, err := ds.Temps(ctx)
	if err != nil || len(temps) == 0 {
		return err
	}
	var mine map[string]bool
	if !all {
		mine = map[string]bool{}
		for u := t.lo; u < t.hi; u++ {
			_ = t.geo.chunksIn(t.geo.origin(u), t.geo.dstChunk, t.geo.dstGrid, func(c []int64) error {
				k, err := t.dst.ChunkKey(c)
				mine[k] = true
				return err
			})
		}
	}
	for p, key := range temps {
		if all || mine[key] {
			if err := ds.RemoveTemp(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkOverlap refuses a destination directory that is the source or lies
// inside it (or contains it): writing or wiping it would change the source.
func (t *Transcoder) checkOverlap() error {
	s, ok1 := dirStore(t.srcStore)
	d, ok2 := dirStore(t.dstStore)
	if !ok1 || !ok2 {
		return nil
	}
	sp, dp := canonical(s.String()), canonical(d.String())
	inside := func(a, b string) bool { return a == b || strings.HasPrefix(a, b+string(filepath.Separator)) }
	if inside(sp, dp) || inside(dp, sp) {
		return fmt.Errorf("%w: destination %s and source %s overlap; the source is never modified", ErrPlan, d, s)
	}
	return nil
}

func canonical(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r
	}
	// The destination may not exist yet: resolve its parent.
	if r, err := filepath.EvalSymlinks(filepath.Dir(a)); err == nil {
		return filepath.Join(r, filepath.Base(a))
	}
	return a
}

// Run does this process's part of the transcode: every work unit of the
// part, then a part marker; when every part is done (always, for an
// unpartitioned run) it finalizes: writes the destination's metadata and
// removes the run's state. On any error the metadata is not written, so
// the destination never looks complete; Resume continues from there.
func (t *Transcoder) Run(ctx context.Context) (Summary, error) {
	start := time.Now()
	sum := Summary{Units: t.hi - t.lo, Parts: t.opts.Part.count()}
	mode, err := t.prepare(ctx)
	if err != nil {
		return sum, err
	}
	if mode == startComplete {
		sum.Complete, sum.AlreadyComplete, sum.PartsDone = true, true, sum.Parts
		sum.Elapsed = time.Since(start)
		return sum, nil
	}
	resume := mode == startResume
	done := false
	if resume {
		if b, err := t.dstStore.Get(ctx, partKey(t.opts.Part)); err == nil {
			var p partDoc
			if json.Unmarshal(b, &p) == nil && p.FirstUnit == t.lo && p.EndUnit == t.hi {
				sum, done = p.Summary, true
				sum.Complete = false
			}
		}
		if !done {
			if err := t.cleanTemps(ctx, t.opts.Part.count() == 1); err != nil {
				return sum, err
			}
		}
	}
	if !done {
		var mu sync.Mutex
		err := t.forEachUnit(ctx, t.lo, t.hi, func(ctx context.Context, b *buffers, u int64) error {
			us, err := t.doUnit(ctx, b, u, resume)
			if err != nil {
				return err
			}
			mu.Lock()
			if us.resumed {
				sum.Resumed++
			}
			sum.Chunks += us.chunks
			sum.Stored += us.stored
			sum.Elements += us.elements
			sum.NaT += us.nat
			sum.Overflowed += us.overflowed
			sum.Lossy += us.lossy
			mu.Unlock()
			t.progress.unitsDone.Add(1)
			t.progress.elements.Add(us.elements)
			return nil
		})
		sum.BytesRead, sum.BytesWritten = t.srcIO.read.Load(), t.dstIO.written.Load()
		sum.Elapsed = time.Since(start)
		if err != nil {
			return sum, err
		}
		p := partDoc{Part: t.opts.Part.Index, Parts: t.opts.Part.count(), FirstUnit: t.lo, EndUnit: t.hi, Summary: sum}
		b, err := json.MarshalIndent(&p, "", "  ")
		if err != nil {
			return sum, err
		}
		if err := t.dstStore.Set(ctx, partKey(t.opts.Part), append(b, '\n')); err != nil {
			return sum, err
		}
	}
	fin, err := t.finalize(ctx)
	sum.PartsDone = fin.PartsDone
	sum.Elapsed = time.Since(start)
	if errors.Is(err, ErrIncomplete) {
		return sum, nil // other parts still running: the last one finalizes
	}
	if err != nil {
		return sum, err
	}
	sum.Complete = fin.Complete
	return sum, nil
}

// Finalize writes the destination's metadata once every part of a
// partitioned run is done, and removes the run's state. Its Summary adds
// up the parts. It is what the last part to finish does by itself; call it
// (dt64 transcode --finalize) when that part died after its marker.
func (t *Transcoder) Finalize(ctx context.Context) (Summary, error) {
	if err := t.checkOverlap(); err != nil {
		return Summary{}, err
	}
	return t.finalize(ctx)
}

func (t *Transcoder) finalize(ctx context.Context) (Summary, error) {
	var sum Summary
	stored, err := t.storedPlan(ctx)
	if err != nil {
		return sum, err
	}
	if stored == nil {
		has, same, err := t.storedMetadata(ctx)
		switch {
		case err != nil:
			return sum, err
		case same:
			sum.Complete, sum.AlreadyComplete = true, true
			return sum, nil
		case has:
			return sum, fmt.Errorf("%w: %s holds a Zarr array that this plan did not write", ErrPlanMismatch, storeName(t.dstStore))
		}
		return sum, fmt.Errorf("%w: %s holds no transcode in progress", ErrIncomplete, storeName(t.dstStore))
	}
	if diff := t.doc.mismatch(stored); diff != "" {
		return sum, fmt.Errorf("%w: %s holds a transcode with another plan (%s)", ErrPlanMismatch, storeName(t.dstStore), diff)
	}
	keys, err := t.dstStore.List(ctx, partsPrefix)
	if err != nil {
		return sum, err
	}
	groups := map[int][]partDoc{}
	for _, k := range keys {
		b, err := t.dstStore.Get(ctx, k)
		if errors.Is(err, fs.ErrNotExist) {
			continue // another part finalizing at the same time removed it
		}
		if err != nil {
			return sum, err
		}
		var p partDoc
		if err := json.Unmarshal(b, &p); err != nil || p.Parts < 1 {
			return sum, fmt.Errorf("%s/%s: unreadable part marker", storeName(t.dstStore), k)
		}
		groups[p.Parts] = append(groups[p.Parts], p)
	}
	var complete []partDoc
	best, bestN := 0, t.opts.Part.count()
	for n, ps := range groups {
		seen := map[int]bool{}
		for _, p := range ps {
			seen[p.Part] = true
		}
		if len(seen) == n {
			complete = ps
			break
		}
		if len(seen) > best {
			best, bestN = len(seen), n
		}
	}
	if complete == nil {
		sum.PartsDone, sum.Parts = best, bestN
		var missing []string
		for i := range bestN {
			found := false
			for _, p := range groups[bestN] {
				found = found || p.Part == i
			}
			if !found {
				missing = append(missing, fmt.Sprint(i))
			}
		}
		if len(missing) > 8 {
			missing = append(missing[:8], "...")
		}
		return sum, fmt.Errorf("%w: %d of %d parts done (missing parts %s of %d)", ErrIncomplete, best, bestN, strings.Join(missing, ", "), bestN)
	}
	slices.SortFunc(complete, func(a, b partDoc) int { return a.Part - b.Part })
	seen := map[int]bool{}
	for _, p := range complete {
		if !seen[p.Part] {
			seen[p.Part] = true
			sum.add(p.Summary)
			sum.Elapsed = max(sum.Elapsed, p.Summary.Elapsed)
		}
	}
	sum.PartsDone, sum.Parts = len(seen), len(seen)
	if err := t.cleanTemps(ctx, true); err != nil {
		return sum, err
	}
	// The metadata goes last: until it exists, nobody takes the
	// destination for a complete array.
	if err := t.dst.WriteMetadata(ctx); err != nil {
		return sum, err
	}
	for _, k := range keys {
		if err := t.dstStore.Delete(ctx, k); err != nil {
			return sum, err
		}
	}
	if err := t.dstStore.Delete(ctx, planKey); err != nil {
		return sum, err
	}
	if ds, ok := dirStore(t.dstStore); ok {
		_ = os.Remove(filepath.Join(ds.String(), strings.TrimSuffix(partsPrefix, "/"))) // empty now
	}
	sum.Complete = true
	return sum, nil
}
