package transcode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// Overwrite removes only what is provably dt64's own: an array whose
// metadata dt64 reads, the keys that are chunk keys of that array, and a
// run's state and temporary files. A destination holding anything else (a
// group, another program's files, keys that are no chunk of the array,
// metadata that does not parse) is refused before anything is deleted.
//
// The deletion records its intent first (wipeKey, holding the metadata of
// the array being removed, synced), so that a run killed midway, when
// the metadata may already be gone, leaves enough for the next run with
// Overwrite or Resume to finish the job.

// wipeDoc is an overwrite's intent: the metadata documents of the array
// being removed, as they were stored.
type wipeDoc struct {
	Tool     string            `json:"tool"`
	Metadata map[string]string `json:"metadata"`
}

// startOver removes the array described by docs (nil: the metadata the
// destination holds) and starts a fresh run.
func (t *Job) startOver(ctx context.Context, docs map[string]string) (startMode, Summary, error) {
	if err := checkLive(ctx, t.dstStore, t.opts.leaseInterval(), ""); err != nil {
		return 0, Summary{}, err
	}
	if docs == nil {
		var err error
		if docs, err = t.storedDocs(ctx); err != nil {
			return 0, Summary{}, err
		}
	}
	a, keys, err := t.doomed(ctx, docs)
	if err != nil {
		return 0, Summary{}, err
	}
	if err := t.writeState(ctx, wipeKey, &wipeDoc{Tool: "dt64 transcode", Metadata: docs}); err != nil {
		return 0, Summary{}, err
	}
	if err := t.sync(ctx); err != nil {
		return 0, Summary{}, err
	}
	if err := t.wipe(ctx, a, keys); err != nil {
		return 0, Summary{}, err
	}
	return startFresh, Summary{}, t.writePlan(ctx)
}

// finishWipe completes an overwrite an earlier run left half done, when
// the options allow (Overwrite, or Resume: the user asked for the
// overwrite before). It reports whether there was one.
func (t *Job) finishWipe(ctx context.Context) (bool, error) {
	var w wipeDoc
	found, err := t.readState(ctx, wipeKey, &w)
	if !found || err != nil {
		return false, err
	}
	if !t.opts.Overwrite && !t.opts.Resume {
		return false, t.destErr(ErrDestinationExists, "an overwrite that was interrupted", true, true)
	}
	a, keys, err := t.doomed(ctx, w.Metadata)
	if err != nil {
		return false, err
	}
	return true, t.wipe(ctx, a, keys)
}

// doomed opens the array that docs describe and lists the destination's
// keys, all of which must be that array's or a run's state; any other key
// is an error naming it.
func (t *Job) doomed(ctx context.Context, docs map[string]string) (*zarr.Array, []string, error) {
	keys, err := t.dstStore.List(ctx, "")
	if err != nil {
		return nil, nil, err
	}
	a, err := arrayFromDocs(ctx, docs)
	if err != nil {
		return nil, nil, t.destErr(ErrDestinationExists, t.describe(ctx, keys)+"; overwriting would delete what dt64 did not write", false, false)
	}
	if foreign := foreignKeys(a, keys); len(foreign) > 0 {
		return nil, nil, t.destErr(ErrDestinationExists, fmt.Sprintf("a Zarr array and %s that are not part of it (%s); overwriting would delete what dt64 did not write, so nothing was deleted", nOf(len(foreign), "file"), listSome(foreign)), false, false)
	}
	return a, keys, nil
}

// owned reports whether key is the array a's (its metadata or a chunk)
// or a run's state.
func owned(a *zarr.Array, key string) bool {
	if isStateKey(key) {
		return true
	}
	if a.Format() == 3 {
		if key == "zarr.json" {
			return true
		}
	} else if key == ".zarray" || key == ".zattrs" {
		return true
	}
	_, ok := a.ChunkOf(key)
	return ok
}

// wipe deletes keys (the metadata first, so the array stops looking
// complete at once; the overwrite's intent last, once the rest is
// durably gone) and every temporary file.
func (t *Job) wipe(ctx context.Context, a *zarr.Array, keys []string) (err error) {
	defer func() { err = wipeFailed(ctx, err) }()
	dst := t.dstStore
	for _, k := range metadataKeys {
		if err := dst.Delete(ctx, k); err != nil {
			return err
		}
	}
	for _, k := range keys {
		if k == wipeKey || isMetadataKey(k) {
			continue
		}
		if err := dst.Delete(ctx, k); err != nil {
			return err
		}
	}
	if err := t.cleanTemps(ctx, true); err != nil {
		return err
	}
	if dir, ok := localDir(dst); ok {
		// The directories the chunks were in (a v3 array's c/0/...),
		// which another format or chunk key encoding would not use.
		removeEmptyDirs(dir)
	}
	if err := t.sync(ctx); err != nil {
		return err
	}
	return dst.Delete(ctx, wipeKey)
}

// wipeFailed says, of an overwrite's deletion that failed, how to finish
// it: its record of intent stays, and the same command takes it up (an
// interrupted one is told so by the signal's own message).
func wipeFailed(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil {
		return err
	}
	return fmt.Errorf("%w (the overwrite stopped while deleting what it replaces: run the same command again to finish it)", err)
}

func isMetadataKey(k string) bool { return slices.Contains(metadataKeys, k) }

// storedDocs reads the destination's metadata documents as stored.
func (t *Job) storedDocs(ctx context.Context) (map[string]string, error) {
	docs := map[string]string{}
	for _, k := range metadataKeys {
		b, err := t.dstStore.Get(ctx, k)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		docs[k] = string(b)
	}
	return docs, nil
}

// arrayFromDocs opens the array that metadata documents describe.
func arrayFromDocs(ctx context.Context, docs map[string]string) (*zarr.Array, error) {
	mem := storage.NewMemory()
	for k, v := range docs {
		if err := mem.Set(ctx, k, []byte(v)); err != nil {
			return nil, err
		}
	}
	a, err := zarr.Open(ctx, mem)
	if err == nil && !a.IsTime() {
		// Only a time array can be this engine's output: datetime64,
		// timedelta64, or CF time (Options.CF).
		if t, cfErr := a.CFTime(); t == nil || cfErr != nil {
			return nil, fmt.Errorf("it holds %s, not datetime64, timedelta64 or CF time values", a.Numeric())
		}
	}
	return a, err
}

// describe says what a destination that is no run of this plan holds, for
// errors.
func (t *Job) describe(ctx context.Context, keys []string) string {
	has := map[string]bool{}
	for _, k := range keys {
		has[k] = true
	}
	switch {
	case has["zarr.json"]:
		b, err := t.dstStore.Get(ctx, "zarr.json")
		var node struct {
			NodeType string `json:"node_type"`
		}
		switch {
		case err != nil:
			return fmt.Sprintf("a zarr.json that cannot be read (%v)", err)
		case json.Unmarshal(b, &node) != nil:
			return "a zarr.json that is not valid JSON"
		case node.NodeType == "group":
			return fmt.Sprintf("a Zarr group (zarr.json with node_type \"group\") and %s", nOf(len(keys), "file"))
		}
		return t.describeArray(ctx, "zarr.json", keys)
	case has[".zgroup"]:
		return fmt.Sprintf("a Zarr v2 group (.zgroup) and %s", nOf(len(keys), "file"))
	case has[".zarray"]:
		return t.describeArray(ctx, ".zarray", keys)
	}
	return fmt.Sprintf("%s (%s) that are neither a Zarr array nor a dt64 transcode", nOf(len(keys), "file"), listSome(keys))
}

// describeArray says what a destination with array metadata doc holds:
// an array dt64 reads, and which of keys are not part of it.
func (t *Job) describeArray(ctx context.Context, doc string, keys []string) string {
	docs, err := t.storedDocs(ctx)
	if err != nil {
		return fmt.Sprintf("a %s that cannot be read (%v)", doc, err)
	}
	a, err := arrayFromDocs(ctx, docs)
	if err != nil {
		return fmt.Sprintf("a %s that dt64 does not read as an array (%v)", doc, withoutStoreName(err))
	}
	if foreign := foreignKeys(a, keys); len(foreign) > 0 {
		return fmt.Sprintf("a Zarr array and %s that are not part of it (%s)", nOf(len(foreign), "file"), listSome(foreign))
	}
	return "a Zarr array"
}

// foreignKeys returns the keys that are not the array a's or a run's state.
func foreignKeys(a *zarr.Array, keys []string) []string {
	var foreign []string
	for _, k := range keys {
		if !owned(a, k) {
			foreign = append(foreign, k)
		}
	}
	return foreign
}

// overwritable reports whether Overwrite would proceed on keys: they are
// an array dt64 reads and its chunks.
func (t *Job) overwritable(ctx context.Context, keys []string) bool {
	docs, err := t.storedDocs(ctx)
	if err != nil {
		return false
	}
	a, err := arrayFromDocs(ctx, docs)
	return err == nil && len(foreignKeys(a, keys)) == 0
}

// withoutStoreName drops the "memory/" prefix of arrayFromDocs's errors.
func withoutStoreName(err error) string {
	s := err.Error()
	return strings.TrimPrefix(s, "memory/")
}

// listSome names the first few of keys.
func listSome(keys []string) string {
	const most = 5
	if len(keys) <= most {
		return strings.Join(keys, ", ")
	}
	return strings.Join(keys[:most], ", ") + fmt.Sprintf(", ... (%d more)", len(keys)-most)
}

// nOf is "1 file", "2 files".
func nOf(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
