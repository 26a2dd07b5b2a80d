package transcode

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// storePlanDoc is the store's plan marker, at the destination's root
// while a run is in progress.
type storePlanDoc struct {
	Tool                 string            `json:"tool"`
	Version              int               `json:"version"`
	Source               string            `json:"source"`
	SourceMetadataSHA256 string            `json:"source_metadata_sha256"`
	Format               int               `json:"format"`
	Consolidate          bool              `json:"consolidate"`
	Arrays               map[string]string `json:"arrays"` // path: what is done to it
	Groups               []string          `json:"groups"`
	// Run identifies the run, as planDoc.Run does.
	Run string `json:"run,omitempty"`
}

const (
	storePlanKey    = ".dt64-store.json"
	storePartsDir   = ".dt64-store-parts"
	storePartsPrefx = storePartsDir + "/"
	storeWipeKey    = ".dt64-store-wipe.json"
)

func (s *StoreJob) planDoc(nodes []zarr.Node) storePlanDoc {
	h := sha256.New()
	for _, n := range nodes {
		fmt.Fprintf(h, "%s\x00%d\x00%s\x00%s\x00", n.Path, n.Kind, n.Metadata, n.AttrsDoc)
	}
	d := storePlanDoc{
		Tool: "dt64 transcode", Version: planVersion, Source: storage.Name(s.src),
		SourceMetadataSHA256: hex.EncodeToString(h.Sum(nil)), Format: s.format,
		Consolidate: s.consolidate, Arrays: map[string]string{},
	}
	// What is done to each array, with a digest of the metadata it gets,
	// so a resume with other options (another codec, say) is refused, not
	// finished with chunks of two encodings.
	digest := func(docs []keyDoc) string {
		h := sha256.New()
		for _, d := range docs {
			fmt.Fprintf(h, "%s\x00%s\x00", d.key, d.doc)
		}
		return hex.EncodeToString(h.Sum(nil))[:16]
	}
	for _, a := range s.arrays {
		if a.time != nil {
			var docs []keyDoc
			for _, k := range slices.Sorted(maps.Keys(a.time.doc.Destination)) {
				docs = append(docs, keyDoc{k, []byte(a.time.doc.Destination[k])})
			}
			d.Arrays[a.path] = "transcode " + a.time.doc.Conversion + " " + digest(docs)
		} else {
			d.Arrays[a.path] = a.copy.action + " " + digest(a.copy.docs)
		}
	}
	for _, g := range s.groups {
		d.Groups = append(d.Groups, g.path)
	}
	return d
}

func (p *storePlanDoc) mismatch(q *storePlanDoc) string {
	switch {
	case p.SourceMetadataSHA256 != q.SourceMetadataSHA256:
		return "the source's metadata differs"
	case p.Format != q.Format:
		return fmt.Sprintf("format %d, not %d", q.Format, p.Format)
	case p.Consolidate != q.Consolidate:
		return "consolidated metadata differs"
	case !maps.Equal(p.Arrays, q.Arrays):
		return arraysMismatch(p.Arrays, q.Arrays)
	case !slices.Equal(p.Groups, q.Groups):
		return "the groups differ"
	}
	return ""
}

// arraysMismatch says how the arrays of this run's plan (now) differ
// from the stored plan's (was): which arrays, and for each what is done
// to it, up to three of them.
func arraysMismatch(now, was map[string]string) string {
	var diffs []string
	paths := slices.Sorted(maps.Keys(now))
	for p := range was {
		if _, ok := now[p]; !ok {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		n, inNow := now[p]
		w, inWas := was[p]
		nDo, wDo := planAction(n), planAction(w)
		switch {
		case !inWas:
			diffs = append(diffs, fmt.Sprintf("array %q was not in it", p))
		case !inNow:
			diffs = append(diffs, fmt.Sprintf("array %q was in it, and is not in this run", p))
		case nDo != wDo:
			diffs = append(diffs, fmt.Sprintf("array %q: %s, now %s", p, wDo, nDo))
		case n != w:
			diffs = append(diffs, fmt.Sprintf("array %q: its destination metadata differs", p))
		}
	}
	if len(diffs) > 3 {
		diffs = append(diffs[:3], fmt.Sprintf("and %d more arrays", len(diffs)-3))
	}
	return strings.Join(diffs, "; ")
}

// planAction is what a storePlanDoc entry does to its array, without the
// digest of its destination metadata that ends it ("transcode <conversion>
// <digest>", "copy <digest>").
func planAction(v string) string {
	if i := strings.LastIndexByte(v, ' '); i >= 0 {
		return v[:i]
	}
	return v
}

func (s *StoreJob) sync(ctx context.Context) error {
	if sy, ok := storage.Find[storage.Syncer](s.dst); ok {
		return sy.Sync(ctx)
	}
	return nil
}

func (s *StoreJob) checkOverlap() error {
	j := Job{srcStore: s.src, dstStore: s.dst}
	return j.checkOverlap()
}

// storeDestErr is a DestinationError for the hierarchy's destination.
func (s *StoreJob) destErr(err error, holds string, resume, overwrite bool) error {
	return &DestinationError{Destination: storage.Name(s.dst), Holds: holds, Err: err, Resume: resume, Overwrite: overwrite}
}

func (s *StoreJob) writeDoc(ctx context.Context, key string, doc any) error {
	j := Job{dstStore: s.dst}
	return j.writeState(ctx, key, doc)
}

func (s *StoreJob) readDoc(ctx context.Context, key string, doc any) (bool, error) {
	j := Job{dstStore: s.dst}
	return j.readState(ctx, key, doc)
}

// prepare decides from what the destination holds whether this run
// starts afresh, resumes or finds the hierarchy complete, and refuses a
// destination the options do not allow it to touch (leaving it as it is).
func (s *StoreJob) prepare(ctx context.Context) (startMode, error) {
	if err := s.checkOverlap(); err != nil {
		return 0, err
	}
	if found, err := s.finishWipe(ctx); err != nil || found {
		if err != nil {
			return 0, err
		}
		return startFresh, s.writePlan(ctx)
	}
	partMode := s.opts.Part.count() > 1
	var stored storePlanDoc
	found, err := s.readDoc(ctx, storePlanKey, &stored)
	if err != nil {
		return 0, err
	}
	if found {
		if diff := s.doc.mismatch(&stored); diff != "" {
			if s.opts.Overwrite {
				return s.startOver(ctx)
			}
			return 0, s.destErr(ErrPlanMismatch, "an interrupted transcode of a hierarchy with another plan ("+diff+")", false, true)
		}
		s.doc.Run = stored.Run // a resume, or another part: that run's
		switch {
		case s.opts.Overwrite:
			return s.startOver(ctx)
		case s.opts.Resume || partMode:
			if err := checkLive(ctx, s.dst, s.opts.leaseInterval(), partLabel(s.opts.Part)); err != nil {
				return 0, err
			}
			// As an array's prepare: the run checkLive waited for may
			// have finished meanwhile.
			var again storePlanDoc
			if found, err := s.readDoc(ctx, storePlanKey, &again); err != nil {
				return 0, err
			} else if !found || again.Run != stored.Run {
				return s.prepare(ctx)
			}
			return startResume, nil
		}
		return 0, s.destErr(ErrDestinationExists, "an interrupted transcode of this hierarchy"+maybeRunning(ctx, s.dst), true, true)
	}
	keys, err := s.dst.List(ctx, "")
	if err != nil {
		return 0, err
	}
	if len(keys) == 0 {
		return startFresh, s.writePlan(ctx)
	}
	if slices.Contains(keys, storePlanKey) {
		return s.prepare(ctx) // another part created the plan marker after we looked
	}
	if s.opts.Overwrite {
		return s.startOver(ctx)
	}
	if same, err := s.completeHere(ctx); err != nil || same {
		if err != nil {
			return 0, err
		}
		if s.opts.Resume || partMode {
			return startComplete, nil
		}
		return 0, s.destErr(ErrDestinationExists, "this transcode of the hierarchy, complete", true, true)
	}
	o := s.ownedHere(ctx, keys, nil)
	holds := fmt.Sprintf("%d keys (%s)", len(keys), listSome(keys))
	if o.walkErr != nil {
		holds += fmt.Sprintf(" that do not read as a hierarchy (%v)", o.walkErr)
	}
	return 0, s.destErr(ErrDestinationExists, holds, false, len(o.foreign(keys)) == 0)
}

func (s *StoreJob) writePlan(ctx context.Context) error {
	s.doc.Run = ""
	s.doc.Run = planRunID(&s.doc, s.opts.Part)
	if err := s.writeDoc(ctx, storePlanKey, &s.doc); err != nil {
		return err
	}
	return s.sync(ctx)
}

// owned reports whether the destination is still this run's: its plan
// marker there, with its run id (the lease's check: live.go).
func (s *StoreJob) owned(ctx context.Context) (bool, error) {
	var p storePlanDoc
	found, err := s.readDoc(ctx, storePlanKey, &p)
	return found && p.Run == s.doc.Run, err
}

// completeHere reports whether the destination holds exactly what this
// plan writes, complete: every array's and group's metadata.
func (s *StoreJob) completeHere(ctx context.Context) (bool, error) {
	for _, a := range s.arrays {
		if a.time != nil {
			_, same, err := a.time.storedMetadata(ctx)
			if err != nil || !same {
				return false, err
			}
			continue
		}
		for _, d := range a.copy.docs {
			if ok, err := s.holds(ctx, path.Join(a.path, d.key), d.doc); err != nil || !ok {
				return false, err
			}
		}
	}
	for _, g := range s.groups {
		for _, d := range g.docs {
			if g.path == "" && s.consolidate && s.format == 3 {
				continue // rewritten with the consolidated metadata
			}
			if ok, err := s.holds(ctx, d.key, d.doc); err != nil || !ok {
				return false, err
			}
		}
	}
	if s.consolidate {
		key, doc, err := s.consolidatedDoc()
		if err != nil {
			return false, err
		}
		return s.holds(ctx, key, doc)
	}
	return true, nil
}

func (s *StoreJob) holds(ctx context.Context, key string, want []byte) (bool, error) {
	b, err := s.dst.Get(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return string(b) == string(want), nil
}

// finalize writes the hierarchy's metadata when every part is done. It
// returns how many parts are.
func (s *StoreJob) finalize(ctx context.Context) (int, error) {
	keys, err := s.dst.List(ctx, storePartsPrefx)
	if err != nil {
		return 0, err
	}
	done, n, missing := partsDone(keys, storePartsPrefx, s.opts.Part.count())
	if done == 0 {
		return 0, noPartDone(s.dst)
	}
	if done < n {
		return done, fmt.Errorf("%w: %d of %d parts done (missing parts %s of %d)", ErrIncomplete, done, n, missing, n)
	}
	var plan storePlanDoc
	if found, err := s.readDoc(ctx, storePlanKey, &plan); err != nil {
		return done, err
	} else if !found {
		plan.Run = "" // another part finished meanwhile, or taken over: below
	}
	// Every time array is complete (its last part finalized it); make sure
	// of it, and finish a finalize killed midway.
	for _, a := range s.arrays {
		if a.time == nil {
			continue
		}
		js, err := a.time.Finalize(ctx)
		if s.lostRace(err) {
			return done, fmt.Errorf("%w: another part is finalizing array %q", ErrIncomplete, a.path)
		}
		if err != nil {
			return done, fmt.Errorf("array %q: %w", a.path, err)
		}
		if !js.Complete {
			return done, fmt.Errorf("%w: array %q", ErrIncomplete, a.path)
		}
	}
	// The plan marker goes only once the metadata is written: gone, or
	// another run's, the hierarchy was taken over since it was read (an
	// overwrite while this process was stopped).
	// Another part that finished the hierarchy meanwhile removed it too;
	// then what is there is exactly this plan's, and writing it again is
	// harmless.
	var again storePlanDoc
	if found, err := s.readDoc(ctx, storePlanKey, &again); err != nil {
		return done, err
	} else if !found || plan.Run == "" || again.Run != plan.Run {
		if complete, err := s.completeHere(ctx); err != nil || !complete {
			return done, takeoverErr(s.dst)
		}
	}
	// The copies' chunks were synced before each part's marker.
	for _, a := range s.arrays {
		if a.copy != nil {
			if err := a.copy.writeMetadata(ctx); err != nil {
				return done, err
			}
		}
	}
	if err := s.sync(ctx); err != nil {
		return done, err
	}
	// Groups deepest first, the root last: until the root's metadata is
	// there, nobody takes the destination for a hierarchy. A v3 root with
	// consolidated metadata is written once, consolidated, so that a part
	// finalizing late never replaces it with the plain document.
	ckey, cdoc, err := s.consolidatedDoc()
	if err != nil {
		return done, err
	}
	for i := len(s.groups) - 1; i >= 0; i-- {
		for _, d := range s.groups[i].docs {
			if d.key == ckey {
				continue
			}
			if err := s.dst.Set(ctx, d.key, d.doc); err != nil {
				return done, err
			}
		}
	}
	if s.consolidate {
		if err := s.sync(ctx); err != nil {
			return done, err
		}
		if err := s.dst.Set(ctx, ckey, cdoc); err != nil {
			return done, err
		}
	}
	if err := s.sync(ctx); err != nil {
		return done, err
	}
	return done, s.cleanup(ctx)
}

// consolidatedDoc is the consolidated metadata this plan writes (key ""
// without consolidation), made from the documents the plan writes, as
// zarr.WriteConsolidated would make it from the store.
func (s *StoreJob) consolidatedDoc() (key string, doc []byte, err error) {
	if !s.consolidate {
		return "", nil, nil
	}
	var nodes []zarr.Node
	for _, g := range s.groups {
		n := zarr.Node{Path: g.path, Kind: zarr.GroupNode, Format: s.format}
		for _, d := range g.docs {
			if path.Base(d.key) == ".zattrs" {
				n.AttrsDoc = d.doc
			} else {
				n.Metadata = d.doc
			}
		}
		nodes = append(nodes, n)
	}
	for _, a := range s.arrays {
		n := zarr.Node{Path: a.path, Kind: zarr.ArrayNode, Format: s.format}
		var docs []keyDoc
		if a.time != nil {
			for k, d := range a.time.doc.Destination {
				docs = append(docs, keyDoc{k, []byte(d)})
			}
		} else {
			docs = a.copy.docs
		}
		for _, d := range docs {
			if d.key == ".zattrs" {
				n.AttrsDoc = d.doc
			} else {
				n.Metadata = d.doc
			}
		}
		nodes = append(nodes, n)
	}
	return zarr.ConsolidatedDocument(nodes)
}

// cleanup removes the store's state, the plan marker last, and every
// temporary file a killed part left (all parts are done: nobody writes).
func (s *StoreJob) cleanup(ctx context.Context) error {
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
	for _, a := range s.arrays {
		if a.copy != nil {
			if err := a.copy.removeSources(ctx); err != nil {
				return err
			}
		}
	}
	keys, err := s.dst.List(ctx, storePartsPrefx)
	if err != nil {
		return err
	}
	// The leases too: those of killed runs (a live one is renewed, and
	// deleted by its run as it ends).
	leases, err := s.dst.List(ctx, livePrefix)
	if err != nil {
		return err
	}
	for _, k := range append(keys, leases...) {
		if !isStateKey(k) {
			continue // not dt64's
		}
		if err := s.dst.Delete(ctx, k); err != nil {
			return err
		}
	}
	if dir, ok := localDir(s.dst); ok {
		removeEmptyDir(dir, storePartsDir)
		removeEmptyDir(dir, strings.TrimSuffix(livePrefix, "/"))
	}
	// The rest of the state durably gone before the plan marker: a store
	// without it is complete, and nothing cleans it up any more.
	if err := s.sync(ctx); err != nil {
		return err
	}
	if err := s.dst.Delete(ctx, storePlanKey); err != nil {
		return err
	}
	return s.sync(ctx)
}

// partsDone reads the part markers ("I-of-N.json" under prefix) among
// keys: the count of the run whose parts are all done, or else of the one
// with the most done (count n when there are none, as a part knows its
// own count; a finalize, run without --part, learns it here), the parts
// done and the missing ones, listed as the array finalize lists them.
func partsDone(keys []string, prefix string, n int) (done, count int, missing string) {
	runs := map[int]int{} // count → parts done
	for _, k := range keys {
		var i, c int
		if _, err := fmt.Sscanf(strings.TrimPrefix(k, prefix), "%d-of-%d.json", &i, &c); err != nil || c < 1 || i < 0 || i >= c {
			continue
		}
		if k == prefix+partName(Part{Index: i, Count: c}) {
			runs[c]++
		}
	}
	count = n
	if n <= 1 && len(runs) > 0 {
		// A complete run first, then the most parts done, then the fewest
		// parts (map order must not decide).
		better := func(c, than int) bool {
			if cc, ct := runs[c] == c, runs[than] == than; cc != ct {
				return cc
			}
			if runs[c] != runs[than] {
				return runs[c] > runs[than]
			}
			return c < than
		}
		first := true
		for c := range runs {
			if first || better(c, count) {
				count, first = c, false
			}
		}
	}
	var list []string
	for i := range count {
		if slices.Contains(keys, prefix+partName(Part{Index: i, Count: count})) {
			done++
		} else if len(list) < 8 {
			list = append(list, fmt.Sprint(i))
		} else if len(list) == 8 {
			list = append(list, "...")
		}
	}
	return done, count, strings.Join(list, ", ")
}
