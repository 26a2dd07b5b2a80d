package transcode

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/zarr-dt64/dt64/storage"
)

// Plan returns the plan.
func (s *StoreJob) Plan() StorePlan { return s.plan }

// Progress is a snapshot of this part's progress over all arrays.
func (s *StoreJob) Progress() Progress {
	var p Progress
	for _, a := range s.arrays {
		var q Progress
		if a.time != nil {
			q = a.time.Progress()
		} else {
			q = a.copy.progress()
		}
		p.Units += q.Units
		p.UnitsDone += q.UnitsDone
		p.Elements += q.Elements
		p.BytesRead += q.BytesRead
		p.BytesWritten += q.BytesWritten
	}
	return p
}

// Run does this process's part of the whole hierarchy: every array's
// share, one after another, then a part marker; the last part to finish
// (always, for an unpartitioned run) finalizes: the copied arrays'
// metadata, the groups' (the root last) and the consolidated metadata,
// each made durable before the next, then the run's state is removed. A
// run killed at any moment is finished by Resume, byte for byte as an
// uninterrupted one.
//
// While it works the run holds a lease on the destination, as a Job's does
// (live.go).
func (s *StoreJob) Run(ctx context.Context) (StoreSummary, error) {
	start := time.Now()
	sum := StoreSummary{Summary: Summary{Parts: s.opts.Part.count()}}
	mode, err := s.prepare(ctx)
	if err != nil {
		return sum, err
	}
	if mode == startComplete {
		sum.Complete, sum.AlreadyComplete = true, true
		sum.PartsDone = sum.Parts
		return sum, nil
	}
	l, lctx, err := startLease(ctx, s.dst, s.doc.Run, s.opts.Part, s.opts.leaseInterval(), s.owned)
	if err != nil {
		return sum, err
	}
	sum, err = s.run(lctx, mode, start, l)
	return sum, l.end(ctx, err)
}

// run is Run past prepare, under the lease l.
func (s *StoreJob) run(ctx context.Context, mode startMode, start time.Time, l *lease) (StoreSummary, error) {
	sum := StoreSummary{Summary: Summary{Parts: s.opts.Part.count()}}
	var err error
	if mode == startResume {
		if err := s.cleanCopyTemps(ctx); err != nil {
			return sum, err
		}
	}
	// Each part starts at another array, so that parts running at once
	// rarely finish (and finalize) the same array at the same moment; the
	// summary lists the arrays in plan order all the same.
	order := make([]int, len(s.arrays))
	for i := range order {
		order[i] = (i + s.opts.Part.Index) % len(order)
	}
	sum.Arrays = make([]ArraySummary, len(s.arrays))
	for _, i := range order {
		a := s.arrays[i]
		as := ArraySummary{Path: a.path, Note: a.note}
		if a.time != nil {
			as.Action = "transcode"
			as.Summary, err = a.time.Run(ctx)
			if s.lostRace(err) && a.time.partDone(ctx) {
				// This part's share is done (its marker precedes the
				// finalize); another part finalizing the array at the same
				// moment removed a file of ours. The last finalize of the
				// hierarchy completes the array.
				err = nil
			}
		} else {
			as.Action = a.copy.action
			var present map[string]bool
			if mode == startResume {
				present, err = s.listed(ctx, a.path)
			}
			if err == nil {
				as.Summary, err = a.copy.run(ctx, present)
			}
		}
		// What the run kept per chunk (the source versions) is done with:
		// the store's memory stays that of one array, not of all.
		a.release()
		sum.Arrays[i] = as
		sum.add(as.Summary)
		if err != nil {
			sum.Elapsed = time.Since(start)
			return sum, fmt.Errorf("array %q: %w", a.path, err)
		}
	}
	sum.Units = s.plan.PartUnits
	if err := s.sync(ctx); err != nil {
		return sum, err
	}
	// Still this run's destination: its marker may go there.
	if err := l.confirm(ctx); err != nil {
		return sum, err
	}
	if err := s.writeDoc(ctx, storePartsPrefx+partName(s.opts.Part), &partDoc{Part: s.opts.Part.Index, Parts: s.opts.Part.count()}); err != nil {
		return sum, err
	}
	done, err := s.finalize(ctx)
	sum.PartsDone = done
	sum.Elapsed = time.Since(start)
	if errors.Is(err, ErrIncomplete) && s.opts.Part.count() == 1 {
		// This run was every part: its plan or part marker went away
		// after its last check.
		if owned, oerr := s.owned(ctx); oerr == nil && !owned {
			return sum, takeoverErr(s.dst)
		}
	}
	if errors.Is(err, ErrIncomplete) {
		return sum, nil
	}
	if s.lostRace(err) {
		return sum, nil // another part is finalizing: it, or --finalize, completes
	}
	if err != nil {
		return sum, err
	}
	sum.Complete = true
	for i := range sum.Arrays {
		sum.Arrays[i].Complete = true
	}
	return sum, nil
}

// Finalize writes the hierarchy's metadata once every part of a
// partitioned run is done (what the last part does by itself).
func (s *StoreJob) Finalize(ctx context.Context) (StoreSummary, error) {
	sum := StoreSummary{Summary: Summary{Parts: s.opts.Part.count()}}
	if err := s.checkOverlap(); err != nil {
		return sum, err
	}
	var stored storePlanDoc
	found, err := s.readDoc(ctx, storePlanKey, &stored)
	if err != nil {
		return sum, err
	}
	if !found {
		// Complete already (a part finished it), or nothing of ours.
		same, err := s.completeHere(ctx)
		if err != nil {
			return sum, err
		}
		if !same {
			return sum, fmt.Errorf("%w: %s holds no transcode of this hierarchy in progress", ErrIncomplete, storage.Name(s.dst))
		}
		sum.Complete, sum.AlreadyComplete, sum.PartsDone = true, true, sum.Parts
		return sum, nil
	}
	if diff := s.doc.mismatch(&stored); diff != "" {
		return sum, s.destErr(ErrPlanMismatch, "a transcode of a hierarchy with another plan ("+diff+")", false, true)
	}
	done, err := s.finalize(ctx)
	sum.PartsDone = done
	if err != nil {
		return sum, err
	}
	sum.Complete = true
	return sum, nil
}

// lostRace reports whether err is what a part meets when another part
// finalizes at the same moment: a temporary file of its own removed by the
// other's cleanup (no store offers an exclusive create to prevent it).
func (s *StoreJob) lostRace(err error) bool {
	return err != nil && s.opts.Part.count() > 1 && errors.Is(err, fs.ErrNotExist)
}

// release drops what the array's run kept per chunk.
func (a *storeArray) release() {
	if a.time != nil {
		a.time.sources = nil
	} else {
		a.copy.release()
	}
}

// listed is the set of the destination's keys under the array at node (from
// the store's root), from one listing, for a copy resuming.
func (s *StoreJob) listed(ctx context.Context, node string) (map[string]bool, error) {
	keys, err := s.dst.List(ctx, node+"/")
	if err != nil {
		return nil, err
	}
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m, nil
}

// cleanCopyTemps removes the temporary files a killed run left for this
// part's copied chunks (one listing of them for all arrays; other parts
// may be writing theirs right now, and the Jobs clean their own).
func (s *StoreJob) cleanCopyTemps(ctx context.Context) error {
	ts, ok := storage.Find[storage.TempLister](s.dst)
	if !ok {
		return nil
	}
	temps, err := ts.Temps(ctx)
	if err != nil {
		return err
	}
	for p, key := range temps {
		for _, a := range s.arrays {
			if rest, ok := strings.CutPrefix(key, a.path+"/"); ok && a.copy != nil && a.copy.mine(rest) {
				if err := ts.RemoveTemp(p); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Verify checks every array of this part (the whole hierarchy for an
// unpartitioned run): a time array's chunks against an independent
// conversion of the source (Job.Verify), a carried-over array's chunk
// bytes and metadata against the source's and the plan's.
func (s *StoreJob) Verify(ctx context.Context) error {
	for _, a := range s.arrays {
		var err error
		if a.time != nil {
			err = a.time.Verify(ctx)
		} else {
			err = a.copy.verify(ctx)
		}
		if err != nil {
			return fmt.Errorf("array %q: %w", a.path, err)
		}
	}
	return nil
}

// partDone reports whether this part's marker of the Job is stored: its
// share of the array is done and durable.
func (t *Job) partDone(ctx context.Context) bool {
	var p partDoc
	found, err := t.readState(ctx, partKey(t.opts.Part), &p)
	return err == nil && found && p.FirstUnit == t.lo && p.EndUnit == t.hi
}
