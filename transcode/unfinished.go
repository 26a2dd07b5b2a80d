package transcode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/zarr-dt64/dt64/storage"
)

// Unfinished is what a destination holds of a dt64 transcode that has
// not finished: a run interrupted (a kill, a signal, an error), or a
// partitioned run whose parts are not all done. Its metadata is written
// last, so such a destination has no array or group metadata yet: this
// says what it has instead.
type Unfinished struct {
	// Hierarchy is set for a run over a group (its plan at the root),
	// unset for one array's.
	Hierarchy bool
	// Source is where the run reads from, as it recorded it.
	Source string
	// Parts is the number of parts of a partitioned run with parts done,
	// PartsDone how many of them are (0 and 0 when none is).
	Parts, PartsDone int
	// Finalizing is set when every part was done and the metadata was
	// being written; Wiping when an overwrite was deleting what the
	// destination held before.
	Finalizing, Wiping bool
}

// FindUnfinished returns the unfinished transcode whose state store
// holds, or nil when it holds none.
func FindUnfinished(ctx context.Context, store storage.Store) (*Unfinished, error) {
	var u Unfinished
	var plan struct {
		Source string `json:"source"`
	}
	found := false
	for _, k := range []struct {
		key       string
		hierarchy bool
	}{{storePlanKey, true}, {planKey, false}} {
		ok, err := readDoc(ctx, store, k.key, &plan)
		if err != nil {
			return nil, err
		}
		if ok {
			found, u.Hierarchy, u.Source = true, k.hierarchy, plan.Source
			break
		}
	}
	for _, k := range []struct {
		key  string
		flag *bool
	}{{finalKey, &u.Finalizing}, {wipeKey, &u.Wiping}, {storeWipeKey, &u.Wiping}} {
		if _, err := store.Get(ctx, k.key); err == nil {
			*k.flag, found = true, true
			if k.key == storeWipeKey {
				u.Hierarchy = true // a hierarchy's overwrite, its plan maybe deleted already
			}
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if !found {
		return nil, nil
	}
	prefix := partsPrefix
	if u.Hierarchy {
		prefix = storePartsPrefx
	}
	keys, err := store.List(ctx, prefix)
	if err != nil {
		return nil, err
	}
	// Parts of runs in different numbers of parts may be there (a run
	// re-partitioned): the one a finalize would take, as it counts.
	if done, n, _ := partsDone(keys, prefix, 1); done > 0 && n > 1 {
		u.Parts, u.PartsDone = n, done
	}
	return &u, nil
}

// readDoc reads the JSON document at key of store into doc, and reports
// whether there is one.
func readDoc(ctx context.Context, store storage.Store, key string, doc any) (bool, error) {
	b, err := store.Get(ctx, key)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, doc); err != nil {
		return true, fmt.Errorf("%s: unreadable dt64 state (%v)", key, err)
	}
	return true, nil
}
