package transcode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zarr-dt64/dt64/storage"
)

// On a storage.ConditionalSetter the part that finds every part done claims the finalize
// by creating its record (finalKey) conditionally, so that of several
// parts finishing at once exactly one writes the metadata and removes the
// state; the others leave it to that one. A claim is the part's: the same
// part run again (a retried pod, Resume) takes its own claim back, and
// Finalize takes any claim over, for a claimant that died. On other
// stores every part that finds all done finalizes, which is safe on a
// directory (each step is idempotent) and is what Finalize is for
// elsewhere.

// claimFinalize records the finalize (finalKey) and reports whether this
// run is the one to do it.
func (t *Job) claimFinalize(ctx context.Context, sum Summary, explicit bool) (bool, error) {
	me := strings.TrimSuffix(partName(t.opts.Part), ".json") // "3-of-8"
	doc := finalDoc{Tool: "dt64 transcode", Summary: sum, Claim: me}
	cs, ok := storage.Find[storage.ConditionalSetter](t.dstStore)
	if !ok || explicit {
		return true, t.writeState(ctx, finalKey, &doc)
	}
	b, err := json.MarshalIndent(&doc, "", "  ")
	if err != nil {
		return false, err
	}
	created, err := cs.SetIfAbsent(ctx, finalKey, append(b, '\n'))
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		return true, t.writeState(ctx, finalKey, &doc)
	case err != nil:
		return false, err
	case created:
		return true, nil
	}
	var held finalDoc
	found, err := t.readState(ctx, finalKey, &held)
	switch {
	case err != nil:
		return false, err
	case !found: // the claimant finished and removed it: nothing left to do
		return false, nil
	case held.Claim == me || held.Claim == "":
		// Ours (a retried PUT that had succeeded, or this part run again),
		// or written by a run without claims.
		return true, t.writeState(ctx, finalKey, &doc)
	}
	return false, nil
}

// finalizeClaimed is the error of a run whose finalize another part holds.
func finalizeClaimed(t *Job, sum *Summary) error {
	var held finalDoc
	_, _ = t.readState(context.Background(), finalKey, &held)
	who := "another part"
	sum.Finalizer = who
	if held.Claim != "" {
		who = "part " + held.Claim
		sum.Finalizer = held.Claim
	}
	return fmt.Errorf("%w: %d of %d parts done; %s is writing the metadata of %s (if it died, run --finalize)", ErrIncomplete, sum.PartsDone, sum.Parts, who, storage.Name(t.dstStore))
}
