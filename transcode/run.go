package transcode

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Run does this process's part of the transcode: every work unit of the
// part, then a part marker; when every part is done (always, for an
// unpartitioned run) it finalizes: writes the destination's metadata and
// removes the run's state. On any error the metadata is not written, so
// the destination never looks complete; Resume continues from there.
//
// Durability (on a store that is a storage.Syncer): the plan marker and the
// source versions are synced before the first chunk, the part's chunks
// before its marker, every chunk before the metadata, and the metadata
// before the state is removed; so after a machine crash at any moment the
// destination is complete only with all its data, and otherwise holds a
// run that Resume finishes.
//
// While it works the run holds a lease on the destination (live.go): an
// overwrite refuses to start over under it, and a run that finds its
// destination taken over all the same stops with ErrTakenOver.
func (t *Job) Run(ctx context.Context) (Summary, error) {
	start := time.Now()
	sum := Summary{Units: t.hi - t.lo, Parts: t.opts.Part.count()}
	mode, done, err := t.prepare(ctx)
	if err != nil {
		return sum, err
	}
	if mode == startComplete {
		done.PartsDone, done.Parts = max(done.Parts, sum.Parts), max(done.Parts, sum.Parts)
		done.Elapsed = time.Since(start)
		return done, nil
	}
	if t.inStore { // a StoreJob holds the lease of the whole hierarchy
		return t.run(ctx, mode, start)
	}
	l, lctx, err := startLease(ctx, t.dstStore, t.doc.Run, t.opts.Part, t.opts.leaseInterval(), t.owned)
	if err != nil {
		return sum, err
	}
	t.lease = l
	sum, err = t.run(lctx, mode, start)
	t.lease = nil
	return sum, l.end(ctx, err)
}

// run is Run past prepare, under the lease.
func (t *Job) run(ctx context.Context, mode startMode, start time.Time) (Summary, error) {
	sum := Summary{Units: t.hi - t.lo, Parts: t.opts.Part.count()}
	var err error
	resume := mode == startResume
	partDone := false
	if resume {
		var p partDoc
		found, err := t.readState(ctx, partKey(t.opts.Part), &p)
		if err == nil && found && p.FirstUnit == t.lo && p.EndUnit == t.hi {
			sum, partDone = p.Summary, true
			sum.Complete = false
		}
	}
	if !partDone {
		if sum, err = t.runUnits(ctx, resume, start); err != nil {
			return sum, err
		}
	}
	fin, err := t.finalize(ctx, false)
	sum.PartsDone, sum.Finalizer = fin.PartsDone, fin.Finalizer
	sum.Elapsed = time.Since(start)
	if errors.Is(err, ErrIncomplete) && t.opts.Part.count() == 1 {
		// This run was every part: its plan or part marker went away
		// after its last check (or lease-less, in a StoreJob).
		if owned, oerr := t.owned(ctx); oerr == nil && !owned {
			return sum, takeoverErr(t.dstStore)
		}
	}
	if errors.Is(err, ErrIncomplete) {
		return sum, nil // other parts still running: the last one finalizes
	}
	if err != nil {
		return sum, err
	}
	sum.Complete = fin.Complete
	return sum, nil
}

// runUnits converts this part's units, makes them durable and writes the
// part's marker.
func (t *Job) runUnits(ctx context.Context, resume bool, start time.Time) (Summary, error) {
	sum := Summary{Units: t.hi - t.lo, Parts: t.opts.Part.count()}
	if resume {
		if err := t.cleanTemps(ctx, t.opts.Part.count() == 1); err != nil {
			return sum, err
		}
	}
	if err := t.recordSources(ctx, resume); err != nil {
		return sum, err
	}
	var mu sync.Mutex
	err := t.forEachUnit(ctx, t.lo, t.hi, func(ctx context.Context, b *buffers, u int64) error {
		us, err := t.doUnit(ctx, b, u, resume)
		if err != nil {
			return err
		}
		mu.Lock()
		sum.addUnit(us)
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
	// The part's chunks durable before the marker that says they are done.
	if err := t.sync(ctx); err != nil {
		return sum, err
	}
	// Still this run's destination: its marker may go there.
	if err := t.lease.confirm(ctx); err != nil {
		return sum, err
	}
	p := partDoc{Part: t.opts.Part.Index, Parts: t.opts.Part.count(), FirstUnit: t.lo, EndUnit: t.hi, Summary: sum}
	return sum, t.writeState(ctx, partKey(t.opts.Part), &p)
}
