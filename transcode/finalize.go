package transcode

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/zarr-dt64/dt64/storage"
)

// Finalize writes the destination's metadata once every part of a
// partitioned run is done, and removes the run's state. Its Summary adds
// up the parts. It is what the last part to finish does by itself; call it
// (dt64 transcode --finalize) when that part died after its marker. It is
// idempotent: on a destination a finalize completed, or was killed while
// completing, it finishes the cleanup and reports the run complete.
func (t *Job) Finalize(ctx context.Context) (Summary, error) {
	if err := t.checkOverlap(); err != nil {
		return Summary{}, err
	}
	return t.finalize(ctx, true)
}

// finalize writes the metadata if every part is done; explicit (Finalize)
// takes over another part's claim (claim.go).
func (t *Job) finalize(ctx context.Context, explicit bool) (Summary, error) {
	stored, err := t.storedPlan(ctx)
	if err != nil {
		return Summary{}, err
	}
	if stored != nil {
		if diff := t.doc.mismatch(stored); diff != "" {
			return Summary{}, t.destErr(ErrPlanMismatch, "a transcode with another plan ("+diff+")", false, true)
		}
	}
	has, same, err := t.storedMetadata(ctx)
	switch {
	case err != nil:
		return Summary{}, err
	case same:
		return t.completed(ctx)
	case stored == nil && has:
		return Summary{}, t.destErr(ErrPlanMismatch, "a Zarr array that this plan did not write", false, true)
	case stored == nil:
		return Summary{}, fmt.Errorf("%w: %s holds no transcode in progress", ErrIncomplete, storage.Name(t.dstStore))
	}
	sum, err := t.finishedParts(ctx)
	if err != nil {
		if _, same, err2 := t.storedMetadata(ctx); err2 == nil && same {
			return t.completed(ctx) // a part finalizing at the same time won
		}
		return sum, err
	}
	if err := t.checkAllSources(ctx); err != nil {
		return sum, err
	}
	if err := t.cleanTemps(ctx, true); err != nil {
		return sum, err
	}
	// Every part synced its chunks before its marker, so they are durable
	// now. The metadata goes last: until it exists nobody takes the
	// destination for a complete array.
	if mine, err := t.claimFinalize(ctx, sum, explicit); err != nil || !mine {
		if err == nil {
			err = finalizeClaimed(t, &sum)
		}
		return sum, err
	}
	// The plan marker read again now that the claim is this run's: gone,
	// or another run's, the destination changed hands since it was read
	// above. Either another part finished the array meanwhile (its claim
	// gone, so this one's was created: the metadata there is then exactly
	// this plan's, and writing it again and cleaning up is harmless), or
	// it was taken over (an overwrite while this process was stopped),
	// whose array this metadata would describe wrongly.
	if again, err := t.storedPlan(ctx); err != nil {
		return sum, err
	} else if again == nil || again.Run != stored.Run || t.doc.mismatch(again) != "" {
		if _, same, err := t.storedMetadata(ctx); err != nil || !same {
			return sum, takeoverErr(t.dstStore)
		}
	}
	if err := t.dst.WriteMetadata(ctx); err != nil {
		return sum, err
	}
	if err := t.sync(ctx); err != nil {
		return sum, err
	}
	if err := t.cleanup(ctx); err != nil {
		return sum, err
	}
	sum.Complete = true
	return sum, nil
}

// finishedParts reads the part markers and returns the summaries of a
// complete set of parts added up, or ErrIncomplete naming the missing
// ones.
func (t *Job) finishedParts(ctx context.Context) (Summary, error) {
	var sum Summary
	keys, err := t.dstStore.List(ctx, partsPrefix)
	if err != nil {
		return sum, err
	}
	groups := map[int]map[int]partDoc{}
	for _, k := range keys {
		var p partDoc
		found, err := t.readState(ctx, k, &p)
		if err != nil {
			return sum, err
		}
		if !found {
			continue // a part finalizing at the same time removed it
		}
		if p.Parts < 1 || p.Part < 0 || p.Part >= p.Parts {
			return sum, fmt.Errorf("%s/%s: unreadable dt64 state (part %d of %d)", storage.Name(t.dstStore), k, p.Part, p.Parts)
		}
		if groups[p.Parts] == nil {
			groups[p.Parts] = map[int]partDoc{}
		}
		groups[p.Parts][p.Part] = p
	}
	best, bestN := 0, t.opts.Part.count()
	for n, ps := range groups {
		if len(ps) == n {
			for i := range n {
				sum.add(ps[i].Summary)
				sum.Elapsed = max(sum.Elapsed, ps[i].Summary.Elapsed)
			}
			sum.PartsDone, sum.Parts = n, n
			return sum, nil
		}
		if len(ps) > best {
			best, bestN = len(ps), n
		}
	}
	sum.PartsDone, sum.Parts = best, bestN
	if len(groups) == 0 {
		return sum, noPartDone(t.dstStore)
	}
	var missing []string
	for i := range bestN {
		if _, ok := groups[bestN][i]; !ok {
			missing = append(missing, fmt.Sprint(i))
		}
	}
	if len(missing) > 8 {
		missing = append(missing[:8], "...")
	}
	return sum, fmt.Errorf("%w: %d of %d parts done (missing parts %s of %d)", ErrIncomplete, best, bestN, strings.Join(missing, ", "), bestN)
}

// noPartDone is --finalize's refusal where no part has finished: it is
// not "0 of 1 parts done", since a run without --part has no parts to
// finalize and is continued with --resume.
func noPartDone(dst storage.Store) error {
	return fmt.Errorf("%w: %s: no part of a partitioned run (--part I/N) has finished; --finalize writes the metadata once all have, and a run without --part is continued with --resume", ErrIncomplete, storage.Name(dst))
}

// completed reports a destination whose metadata this plan wrote, first
// removing any state a finalize killed after writing it left behind.
func (t *Job) completed(ctx context.Context) (Summary, error) {
	sum, cleaned, err := t.finishFinalize(ctx)
	sum.Complete = err == nil
	sum.AlreadyComplete = !cleaned
	return sum, err
}

// finishFinalize removes the state a finalize left when it was killed
// after writing the metadata. It returns the summary that finalize
// recorded and whether there was anything to remove.
func (t *Job) finishFinalize(ctx context.Context) (Summary, bool, error) {
	var f finalDoc
	if _, err := t.readState(ctx, finalKey, &f); err != nil {
		return Summary{}, false, err
	}
	keys, err := t.stateKeys(ctx)
	if err != nil || len(keys) == 0 {
		// A cleanup killed after its last delete left the directories
		// that held the state, empty.
		t.removeStateDirs()
		return Summary{}, false, err
	}
	sum := f.Summary
	sum.Complete, sum.AlreadyComplete = false, false
	return sum, true, t.cleanup(ctx)
}

// cleanup removes a finished run's state, the finalize record last (it is
// what tells a later run that the rest may be removed), and syncs.
func (t *Job) cleanup(ctx context.Context) error {
	keys, err := t.stateKeys(ctx)
	if err != nil {
		return err
	}
	keys = slices.DeleteFunc(keys, func(k string) bool { return k == finalKey })
	for _, k := range append(keys, finalKey) {
		if err := t.dstStore.Delete(ctx, k); err != nil {
			return err
		}
	}
	if err := t.cleanTemps(ctx, true); err != nil {
		return err
	}
	t.removeStateDirs()
	return t.sync(ctx)
}

// removeStateDirs removes the directories of a directory store that held
// the run's state, once empty.
func (t *Job) removeStateDirs() {
	if dir, ok := localDir(t.dstStore); ok {
		for _, d := range []string{partsPrefix, sourcesPrefix, livePrefix} {
			removeEmptyDir(dir, strings.TrimSuffix(d, "/"))
		}
	}
}

// stateKeys lists the run's state in the destination: the keys that
// start with statePrefix and are dt64's (isStateKey).
func (t *Job) stateKeys(ctx context.Context) ([]string, error) {
	keys, err := t.dstStore.List(ctx, statePrefix)
	return slices.DeleteFunc(keys, func(k string) bool { return !isStateKey(k) }), err
}
