package transcode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/zarr-dt64/dt64/storage"
)

// The run's state in the destination. Every key starts with statePrefix,
// which no chunk key encoding produces, so the state is told from the
// array's own keys by name alone. Each state transition records its intent
// before it acts, so a run killed at any moment leaves something the next
// one can finish:
//
//	planKey      a run is in progress (written and synced before any chunk)
//	sourcesKey   the versions of the source chunks a part reads
//	partKey      a part is done (its chunks synced before it is written)
//	finalKey     every part is done, the metadata is being written (with
//	             the summed summary); after it, the state is removed
//	wipeKey      an overwrite is deleting the array it names
//	liveKey      a process is running on the destination (its lease, renewed
//	             while it runs: live.go)
const (
	statePrefix   = ".dt64-"
	planKey       = ".dt64-transcode.json"
	partsPrefix   = ".dt64-parts/"
	sourcesPrefix = ".dt64-sources/"
	finalKey      = ".dt64-finalize.json"
	wipeKey       = ".dt64-wipe.json"
)

// isStateKey reports whether key is part of a run's state, not the
// array: one of the names above exactly (the parts' records named as
// partName names them). Other files that start with statePrefix are not
// dt64's: an overwrite refuses them and a cleanup leaves them.
func isStateKey(key string) bool {
	switch key {
	case planKey, finalKey, wipeKey, storePlanKey, storeWipeKey:
		return true
	}
	if isLiveKey(key) {
		return true
	}
	for _, dir := range []string{partsPrefix, sourcesPrefix, copySourcesPrefix, storePartsPrefx} {
		if name, ok := strings.CutPrefix(key, dir); ok {
			var i, n int
			var rest string
			k, _ := fmt.Sscanf(name, "%d-of-%d.%s", &i, &n, &rest)
			return k == 3 && rest == "json" && name == partName(Part{Index: i, Count: n})
		}
	}
	return false
}

func partName(p Part) string { return fmt.Sprintf("%d-of-%d.json", p.Index, p.count()) }

func partKey(p Part) string    { return partsPrefix + partName(p) }
func sourcesKey(p Part) string { return sourcesPrefix + partName(p) }

// partDoc records a finished part and its statistics.
type partDoc struct {
	Part      int     `json:"part"`
	Parts     int     `json:"parts"`
	FirstUnit int64   `json:"first_unit"`
	EndUnit   int64   `json:"end_unit"`
	Summary   Summary `json:"summary"`
}

// finalDoc records a finalize in progress: the summary of all parts, so
// that whichever run completes the cleanup reports it.
type finalDoc struct {
	Tool    string  `json:"tool"`
	Summary Summary `json:"summary"`
	// Claim is the part that claimed the finalize ("3-of-8"; claim.go).
	Claim string `json:"claim,omitempty"`
}

type startMode int

const (
	startFresh startMode = iota
	startResume
	startComplete
)

// prepare decides, from what the destination holds, whether this run
// starts afresh, resumes, or finds the work done, and refuses to touch a
// destination the options do not allow it to. A finalize or an overwrite
// that an earlier run left half done is finished here first. For
// startComplete it returns the summary to report.
func (t *Job) prepare(ctx context.Context) (startMode, Summary, error) {
	if err := t.checkOverlap(); err != nil {
		return 0, Summary{}, err
	}
	if done, err := t.finishWipe(ctx); err != nil || done {
		if err != nil {
			return 0, Summary{}, err
		}
		return startFresh, Summary{}, t.writePlan(ctx)
	}
	partMode := t.opts.Part.count() > 1
	stored, err := t.storedPlan(ctx)
	if err != nil {
		return 0, Summary{}, err
	}
	if stored != nil {
		if diff := t.doc.mismatch(stored); diff != "" {
			if t.opts.Overwrite {
				return t.startOver(ctx, stored.Destination)
			}
			return 0, Summary{}, t.destErr(ErrPlanMismatch, "an interrupted transcode with another plan ("+diff+")", false, true)
		}
		t.doc.Run = stored.Run // a resume, or another part: that run's
	}
	_, same, err := t.storedMetadata(ctx)
	if err != nil {
		return 0, Summary{}, err
	}
	switch {
	case t.opts.Overwrite && (stored != nil || same):
		docs := t.doc.Destination
		if stored != nil {
			docs = stored.Destination
		}
		return t.startOver(ctx, docs)
	case same:
		// Complete: this plan's metadata is there. A finalize killed after
		// writing it left state behind; clean it up whatever the options.
		sum, err := t.completed(ctx)
		if err != nil {
			return 0, sum, err
		}
		if sum.AlreadyComplete && !t.opts.Resume && !partMode {
			return 0, sum, t.destErr(ErrDestinationExists, "this transcode, complete", true, true)
		}
		return startComplete, sum, nil
	case stored != nil && (t.opts.Resume || partMode):
		if !t.inStore { // a StoreJob checks for the whole hierarchy
			if err := checkLive(ctx, t.dstStore, t.opts.leaseInterval(), partLabel(t.opts.Part)); err != nil {
				return 0, Summary{}, err
			}
			// checkLive may have waited for a run that then finished (or
			// was replaced): go on from what the destination holds now,
			// not report it as taken over.
			if again, err := t.storedPlan(ctx); err != nil {
				return 0, Summary{}, err
			} else if again == nil || again.Run != stored.Run {
				return t.prepare(ctx)
			}
		}
		return startResume, Summary{}, nil
	case stored != nil:
		return 0, Summary{}, t.destErr(ErrDestinationExists, "an interrupted transcode of this plan"+maybeRunning(ctx, t.dstStore), true, true)
	}
	keys, err := t.dstStore.List(ctx, "")
	if err != nil {
		return 0, Summary{}, err
	}
	if len(keys) == 0 {
		return startFresh, Summary{}, t.writePlan(ctx)
	}
	if slices.Contains(keys, planKey) {
		// Another part created the plan marker after we looked.
		return t.prepare(ctx)
	}
	if t.opts.Overwrite {
		return t.startOver(ctx, nil)
	}
	return 0, Summary{}, t.destErr(ErrDestinationExists, t.describe(ctx, keys), false, t.overwritable(ctx, keys))
}

// destErr builds the error for a destination that holds something: the
// options that would let a run go on are in the error for the caller to
// offer (the library names no command-line flags).
func (t *Job) destErr(err error, holds string, resume, overwrite bool) error {
	return &DestinationError{Destination: storage.Name(t.dstStore), Holds: holds, Err: err, Resume: resume, Overwrite: overwrite}
}

func (t *Job) writePlan(ctx context.Context) error {
	t.doc.Run = ""
	t.doc.Run = planRunID(&t.doc, t.opts.Part)
	if err := t.writeState(ctx, planKey, &t.doc); err != nil {
		return err
	}
	// Durable before any chunk: a destination holding chunks but no plan
	// marker would be nobody's, and no later run would touch it.
	return t.sync(ctx)
}

// writeState stores one state document.
func (t *Job) writeState(ctx context.Context, key string, doc any) error {
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return t.dstStore.Set(ctx, key, append(b, '\n'))
}

// readState reads one state document into doc; found is false when key
// is not stored.
func (t *Job) readState(ctx context.Context, key string, doc any) (found bool, err error) {
	b, err := t.dstStore.Get(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, doc); err != nil {
		return true, fmt.Errorf("%s/%s: unreadable dt64 state (%v)", storage.Name(t.dstStore), key, err)
	}
	return true, nil
}

// owned reports whether the destination is still this run's: its plan
// marker there, with its run id (the lease's check: live.go).
func (t *Job) owned(ctx context.Context) (bool, error) {
	p, err := t.storedPlan(ctx)
	return p != nil && p.Run == t.doc.Run, err
}

func (t *Job) storedPlan(ctx context.Context) (*planDoc, error) {
	var p planDoc
	found, err := t.readState(ctx, planKey, &p)
	if !found || err != nil {
		return nil, err
	}
	return &p, nil
}

// sync makes the destination's writes so far durable, when its store can
// tell (a storage.Syncer, possibly behind Unwrappers).
func (t *Job) sync(ctx context.Context) error {
	if s, ok := storage.Find[storage.Syncer](t.dstStore); ok {
		return s.Sync(ctx)
	}
	return nil
}

// storedMetadata reports whether the destination holds array metadata and
// whether it is exactly what this plan writes.
func (t *Job) storedMetadata(ctx context.Context) (has, same bool, err error) {
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

// cleanTemps removes temporary files a killed run left in the destination:
// all of them, or only those meant for this part's chunks (other parts may
// be writing theirs right now).
func (t *Job) cleanTemps(ctx context.Context, all bool) error {
	ds, ok := storage.Find[storage.TempLister](t.dstStore)
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

// checkOverlap refuses a destination that is the source or lies inside it
// (or contains it): writing or wiping it would change the source.
func (t *Job) checkOverlap() error {
	s, ok1 := dirStore(t.srcStore)
	d, ok2 := dirStore(t.dstStore)
	if !ok1 || !ok2 {
		sn, dn := storage.Name(t.srcStore), storage.Name(t.dstStore)
		if !strings.Contains(sn, "://") || !strings.Contains(dn, "://") {
			return nil // a memory store, or a store of each kind
		}
		return CheckOverlap(sn, dn)
	}
	return CheckOverlap(s.String(), d.String())
}
