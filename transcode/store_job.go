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
	"time"

	"github.com/zarr-dt64/dt64/zarr"
)

// StoreOptions describe a re-encode of a whole hierarchy: Options apply
// to every time array (and Part, Resume, Overwrite, Workers and InFlight
// to the whole run); the other arrays are carried over value for value.
type StoreOptions struct {
	Options
	// Include and Exclude select arrays by their path in the hierarchy
	// ("sub/stamp") with path.Match patterns: an array is converted or
	// copied when it matches one of Include (or Include is empty) and none
	// of Exclude. Groups are always kept.
	Include, Exclude []string
	// RecodeAll re-encodes the chunks of the arrays that are not time
	// arrays with Compression (and CRC32C) too, values and byte order
	// unchanged; without it their chunk bytes are copied as they are.
	RecodeAll bool
	// Consolidate writes consolidated metadata even when the source has
	// none (it is written whenever the source has it).
	Consolidate bool
}

// StoreJob is a planned re-encode of a hierarchy (a group and everything
// under it) into a destination: one Job per time array, a copy per other
// array, then the groups' metadata and the consolidated metadata, last.
type StoreJob struct {
	opts        StoreOptions
	src, dst    zarr.Store
	arrays      []*storeArray
	groups      []groupOut
	format      int
	consolidate bool
	doc         storePlanDoc
	plan        StorePlan
}

// storeArray is one array of the hierarchy and the job that carries it.
type storeArray struct {
	path string
	time *Job     // a time array
	copy *copyJob // any other
}

// groupOut is a group of the destination and the documents it gets.
type groupOut struct {
	path string
	docs []keyDoc
}

type keyDoc struct {
	key string // store key, from the destination's root
	doc []byte
}

// StorePlan describes a planned re-encode of a hierarchy.
type StorePlan struct {
	Format       int // the destination's Zarr format
	Groups       int
	Arrays       []ArrayPlan
	Consolidated bool // consolidated metadata is written last
	// Units is the work of the whole run (time arrays' work units and
	// copied chunks, of all arrays); PartUnits this part's share.
	Units, PartUnits int64
	// MemoryBound is the most memory the buffers take at once: arrays are
	// converted one after another, so the largest array's bound.
	MemoryBound int64
	Workers     int
	InFlight    int
}

// ArrayPlan is the plan of one array of a hierarchy.
type ArrayPlan struct {
	Path string
	// Action is "transcode" (a time array, converted by the options),
	// "copy" (chunk bytes and metadata as they are), "migrate" (chunk
	// bytes as they are, the metadata translated to Zarr v3) or "recode"
	// (RecodeAll: values as they are, encoded with the new compressor).
	Action   string
	DataType string // the source's, as NumPy names it
	Shape    []int64
	// Plan is the time array's plan; nil for the others.
	Plan             *Plan
	Units, PartUnits int64
}

// StoreSummary describes what a run over a hierarchy did.
type StoreSummary struct {
	Summary
	Arrays []ArraySummary
}

// ArraySummary is one array's share of a StoreSummary.
type ArraySummary struct {
	Path   string
	Action string
	Summary
}

// timeJob is the one place that decides whether an array is a time array
// the engine converts (by a Job, returned) or one it carries over (nil):
// it is one when New plans it. So every array New accepts joins (a CF
// time array, once Job converts CF time), and a native time array whose
// plan fails is an error, never silently copied.
func timeJob(ctx context.Context, a *zarr.Array, src, dst zarr.Store, o Options) (*Job, error) {
	j, err := New(ctx, src, dst, o)
	switch {
	case err == nil:
		return j, nil
	case a.IsTime():
		return nil, err
	}
	return nil, nil
}

// IsGroup reports whether the store's root is a group (a hierarchy for
// NewStore) rather than an array.
func IsGroup(ctx context.Context, s zarr.Store) bool {
	_, err := zarr.OpenGroup(ctx, s)
	return err == nil
}

// NewStore plans a re-encode of the hierarchy in src into dst. Every
// array is planned before anything is written: an array that cannot be
// carried over (a data type with no v3 translation, say) makes an error
// naming all such arrays. It does not touch dst (Run does).
func NewStore(ctx context.Context, src, dst zarr.Store, o StoreOptions) (*StoreJob, error) {
	if o.Resume && o.Overwrite {
		return nil, planErr("resume and overwrite exclude each other")
	}
	if o.Overwrite && o.Part.count() > 1 {
		return nil, planErr("overwrite cannot be combined with a part: one part would delete the others' work")
	}
	if o.RecodeAll && o.Compression == nil {
		return nil, planErr("re-encoding every array needs the compressor to re-encode them with")
	}
	for _, g := range append(slices.Clone(o.Include), o.Exclude...) {
		if _, err := path.Match(g, ""); err != nil {
			return nil, planErr("pattern %q: %v", g, err)
		}
	}
	srcKeys, err := src.List(ctx, "") // the one listing of the source
	if err != nil {
		return nil, err
	}
	nodes, err := zarr.WalkKeys(ctx, src, srcKeys)
	if err != nil {
		return nil, fmt.Errorf("reading the source hierarchy: %w", err)
	}
	if nodes[0].Kind != zarr.GroupNode {
		return nil, planErr("the source is an array, not a group")
	}
	s := &StoreJob{opts: o, src: src, dst: dst, format: nodes[0].Format}
	if o.Format != 0 {
		s.format = o.Format
	}
	_, cerr := zarr.ReadConsolidated(ctx, src)
	s.consolidate = o.Consolidate || cerr == nil
	// Each Job resumes (or starts) inside a destination this job has
	// checked; the hierarchy's overwrite and refusals are the store's.
	jo := o.Options
	jo.Resume, jo.Overwrite = true, false
	jo.InFlight = o.inFlight(localStores(src, dst))
	jo.Workers = o.cpus(localStores(src, dst))
	var problems []string
	for _, n := range nodes {
		if n.Kind == zarr.GroupNode {
			g, err := s.groupDocs(n)
			if err != nil {
				problems = append(problems, err.Error())
			}
			s.groups = append(s.groups, g)
			continue
		}
		if !selected(n.Path, o.Include, o.Exclude) {
			continue
		}
		a, err := s.planArray(ctx, n, jo, srcKeys)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", n.Path, err))
			continue
		}
		s.arrays = append(s.arrays, a)
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w: %d of the hierarchy's nodes cannot be carried over, so nothing was written: %s", ErrPlan, len(problems), strings.Join(problems, "; "))
	}
	s.doc = s.planDoc(nodes)
	s.plan = s.makePlan(jo)
	return s, nil
}

func selected(p string, include, exclude []string) bool {
	match := func(globs []string) bool {
		for _, g := range globs {
			if ok, _ := path.Match(g, p); ok {
				return true
			}
		}
		return false
	}
	return (len(include) == 0 || match(include)) && !match(exclude)
}

// groupDocs are the destination documents of group n.
func (s *StoreJob) groupDocs(n zarr.Node) (groupOut, error) {
	g := groupOut{path: n.Path}
	key := func(k string) string { return path.Join(n.Path, k) }
	switch {
	case n.Format == s.format && n.Format == 2:
		g.docs = append(g.docs, keyDoc{key(".zgroup"), n.Metadata})
		if n.AttrsDoc != nil {
			g.docs = append(g.docs, keyDoc{key(".zattrs"), n.AttrsDoc})
		}
	case n.Format == s.format:
		doc := n.Metadata
		if n.Path == "" {
			var err error
			if doc, err = zarr.WithoutConsolidated(doc); err != nil {
				return g, fmt.Errorf("group %q: %w", n.Path, err)
			}
		}
		g.docs = append(g.docs, keyDoc{key("zarr.json"), doc})
	case s.format == 3:
		doc, err := zarr.MigrateV2Group(n)
		if err != nil {
			return g, err
		}
		g.docs = append(g.docs, keyDoc{key("zarr.json"), doc})
	default:
		zg, za, err := zarr.V2GroupDocs(n)
		if err != nil {
			return g, err
		}
		g.docs = append(g.docs, keyDoc{key(".zgroup"), zg})
		if za != nil {
			g.docs = append(g.docs, keyDoc{key(".zattrs"), za})
		}
	}
	return g, nil
}

// planArray plans one array: a Job for a time array, a copy otherwise.
func (s *StoreJob) planArray(ctx context.Context, n zarr.Node, jo Options, srcKeys []string) (*storeArray, error) {
	sv, err := newArrayView(s.src, n.Path)
	if err != nil {
		return nil, err
	}
	dv, err := newArrayView(s.dst, n.Path)
	if err != nil {
		return nil, err
	}
	a, openErr := zarr.Open(ctx, sv)
	if openErr == nil {
		j, err := timeJob(ctx, a, sv, dv, jo)
		if err != nil {
			return nil, err
		}
		if j != nil {
			return &storeArray{path: n.Path, time: j}, nil
		}
	}
	c, err := newCopyJob(ctx, n, a, sv, dv, s.format, srcKeys, jo, s.opts.RecodeAll)
	if err != nil {
		if openErr != nil && !errors.Is(err, zarr.ErrUntranslatable) {
			return nil, fmt.Errorf("%w (opening it: %v)", err, openErr)
		}
		return nil, err
	}
	return &storeArray{path: n.Path, copy: c}, nil
}

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
		Tool: "dt64 transcode", Version: planVersion, Source: storeName(s.src),
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
		return "the arrays or their conversions differ"
	case !slices.Equal(p.Groups, q.Groups):
		return "the groups differ"
	}
	return ""
}

func (s *StoreJob) makePlan(jo Options) StorePlan {
	p := StorePlan{Format: s.format, Groups: len(s.groups), Consolidated: s.consolidate, Workers: jo.Workers, InFlight: jo.InFlight}
	for _, a := range s.arrays {
		ap := ArrayPlan{Path: a.path}
		if a.time != nil {
			tp := a.time.Plan()
			ap.Action, ap.Plan = "transcode", &tp
			ap.DataType = tp.Source.DataType.NumPy(tp.SourceOrder)
			ap.Shape = tp.Source.Shape
			ap.Units, ap.PartUnits = tp.Units, tp.EndUnit-tp.FirstUnit
			p.MemoryBound = max(p.MemoryBound, tp.MemoryBound)
		} else {
			c := a.copy
			ap.Action, ap.DataType, ap.Shape = c.action, c.node.DataType, c.node.Shape
			ap.Units, ap.PartUnits = int64(len(c.keys)), int64(c.hi-c.lo)
			p.MemoryBound = max(p.MemoryBound, c.memoryBound())
		}
		p.Units += ap.Units
		p.PartUnits += ap.PartUnits
		p.Arrays = append(p.Arrays, ap)
	}
	return p
}

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
	var present map[string]bool
	if mode == startResume {
		if present, err = s.listed(ctx); err != nil {
			return sum, err
		}
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
		as := ArraySummary{Path: a.path}
		if a.time != nil {
			as.Action = "transcode"
			as.Summary, err = a.time.Run(ctx)
			if s.lostRace(err) {
				// This part's share is done (its marker precedes the
				// finalize); another part finalizing the array at the same
				// moment removed a file of ours. The last finalize of the
				// hierarchy completes the array.
				err = nil
			}
		} else {
			as.Action = a.copy.action
			as.Summary, err = a.copy.run(ctx, present)
		}
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
	if err := s.writeDoc(ctx, storePartsPrefx+partName(s.opts.Part), &partDoc{Part: s.opts.Part.Index, Parts: s.opts.Part.count()}); err != nil {
		return sum, err
	}
	done, err := s.finalize(ctx)
	sum.PartsDone = done
	sum.Elapsed = time.Since(start)
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
			return sum, fmt.Errorf("%w: %s holds no transcode of this hierarchy in progress", ErrIncomplete, storeName(s.dst))
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

// listed is the set of destination keys, from one listing, for copies
// resuming.
func (s *StoreJob) listed(ctx context.Context) (map[string]bool, error) {
	keys, err := s.dst.List(ctx, "")
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
	ts, ok := find[tempFiles](s.dst)
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

func (s *StoreJob) sync(ctx context.Context) error {
	if sy, ok := find[zarr.Syncer](s.dst); ok {
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
	return &DestinationError{Destination: storeName(s.dst), Holds: holds, Err: err, Resume: resume, Overwrite: overwrite}
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
		switch {
		case s.opts.Overwrite:
			return s.startOver(ctx)
		case s.opts.Resume || partMode:
			return startResume, nil
		}
		return 0, s.destErr(ErrDestinationExists, "an interrupted transcode of this hierarchy", true, true)
	}
	keys, err := s.dst.List(ctx, "")
	if err != nil {
		return 0, err
	}
	if len(keys) == 0 {
		return startFresh, s.writePlan(ctx)
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
	return 0, s.destErr(ErrDestinationExists, fmt.Sprintf("%d keys (%s)", len(keys), listSome(keys)), false, s.overwritable(ctx, keys))
}

func (s *StoreJob) writePlan(ctx context.Context) error {
	if err := s.writeDoc(ctx, storePlanKey, &s.doc); err != nil {
		return err
	}
	return s.sync(ctx)
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
		nodes, err := zarr.Walk(ctx, s.dst)
		if err != nil {
			return false, nil
		}
		key, doc, err := zarr.ConsolidatedDocument(nodes)
		if err != nil {
			return false, nil
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
	n := s.opts.Part.count()
	done := 0
	for i := range n {
		if slices.Contains(keys, storePartsPrefx+partName(Part{Index: i, Count: n})) {
			done++
		}
	}
	if done < n {
		return done, fmt.Errorf("%w: %d of %d parts of the hierarchy done", ErrIncomplete, done, n)
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
	// there, nobody takes the destination for a hierarchy.
	for i := len(s.groups) - 1; i >= 0; i-- {
		for _, d := range s.groups[i].docs {
			if err := s.dst.Set(ctx, d.key, d.doc); err != nil {
				return done, err
			}
		}
	}
	if err := s.sync(ctx); err != nil {
		return done, err
	}
	if s.consolidate {
		if _, err := zarr.WriteConsolidated(ctx, s.dst); err != nil {
			return done, err
		}
		if err := s.sync(ctx); err != nil {
			return done, err
		}
	}
	return done, s.cleanup(ctx)
}

// cleanup removes the store's state, the plan marker last, and every
// temporary file a killed part left (all parts are done: nobody writes).
func (s *StoreJob) cleanup(ctx context.Context) error {
	if ts, ok := find[tempFiles](s.dst); ok {
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
	for _, k := range keys {
		if err := s.dst.Delete(ctx, k); err != nil {
			return err
		}
	}
	if dir, ok := localDir(s.dst); ok {
		removeEmptyDir(dir, storePartsDir)
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
