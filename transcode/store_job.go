package transcode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// StoreOptions describe a re-encode of a whole hierarchy: Options apply
// to every time array (and Part, Resume, Overwrite, Workers and InFlight
// to the whole run); the other arrays are carried over value for value.
type StoreOptions struct {
	Options
	// Include and Exclude select arrays by their path in the hierarchy
	// ("sub/stamp") with path.Match patterns per "/"-separated segment,
	// where a segment "**" matches any number of them (matchGlob): an array is converted or
	// copied when it matches one of Include (or Include is empty) and none
	// of Exclude. Groups are always kept.
	Include, Exclude []string
	// RecodeAll re-encodes the chunks of the arrays that are not time
	// arrays with Compression (and CRC32C) too, and in Endian's byte order
	// when it is set, values unchanged; without it their chunk bytes are
	// copied as they are.
	RecodeAll bool
	// Consolidate writes consolidated metadata even when the source has
	// none (it is written whenever the source has it).
	Consolidate bool
	// SkipUnconvertible carries over as they are (numbers, or datetime64
	// values, with their attributes) the time arrays, native or CF, whose
	// plan fails under Options, each with a note in the plan and the
	// summary saying why. Without it such an array makes NewStore fail,
	// naming it and the reason, as the array alone would: no time array is
	// left unconverted in silence.
	SkipUnconvertible bool
}

// StoreJob is a planned re-encode of a hierarchy (a group and everything
// under it) into a destination: one Job per time array, a copy per other
// array, then the groups' metadata and the consolidated metadata, last.
type StoreJob struct {
	opts        StoreOptions
	src, dst    storage.Store
	arrays      []*storeArray
	groups      []groupOut
	format      int
	consolidate bool
	warnings    []string
	// srcListing is the source's keys when it cannot be listed (http(s)):
	// found once, from its consolidated metadata and chunk grids.
	srcListing []string
	// bounds are the CF bounds arrays read with their coordinate's units
	// and calendar (store_bounds.go).
	bounds map[string]zarr.Bounds
	doc    storePlanDoc
	plan   StorePlan
}

// storeArray is one array of the hierarchy and the job that carries it.
type storeArray struct {
	path string
	time *Job     // a time array
	copy *copyJob // any other
	note string   // why an array that looks like time is carried over
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
	// Warnings are what the run goes on despite: the source's consolidated
	// metadata malformed (a member key leaving the hierarchy, say), which
	// the run ignores, writing consolidated metadata of its own.
	Warnings []string
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
	// bytes as they are, the metadata translated to the other Zarr
	// format, the chunk keys to v2 keys when needed) or "recode"
	// (RecodeAll: values as they are, encoded with the new compressor).
	Action   string
	DataType string // the source's, as NumPy names it
	Shape    []int64
	// Plan is the time array's plan; nil for the others.
	Plan *Plan
	// Note says why an array that looks like time (CF attributes dt64
	// refuses, a calendar other than the proleptic Gregorian one say) is
	// carried over as numbers instead of converted; "" for the others.
	Note             string
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
	// Note is the plan's note of a time array carried over unconverted
	// (StoreOptions.SkipUnconvertible); "" for the others.
	Note string
	Summary
}

// timeJob is the one place that decides whether an array is a time array
// the engine converts (by a Job, returned) or one it carries over (nil):
// it is one when New plans it. An array that is time (datetime64, or CF
// attributes, even ones dt64 refuses) but does not plan is an error, so
// never copied in silence; under skip it is carried over, and note says
// why.
func timeJob(ctx context.Context, a *zarr.Array, src, dst storage.Store, o Options, skip bool) (j *Job, note string, err error) {
	j, err = New(ctx, src, dst, o)
	if err == nil {
		return j, "", nil
	}
	t, cerr := a.CFTime()
	switch {
	case !a.IsTime() && t == nil && cerr == nil:
		return nil, "", nil // not time: numbers, carried over
	case !skip:
		return nil, "", &UnconvertibleError{Err: err}
	}
	// Its numbers (or values) and attributes go over as they are, so
	// xarray still decodes them as before.
	return nil, fmt.Sprintf("not converted (unconvertible time arrays are skipped), carried over as it is: %v", err), nil
}

// cfUnitsFor is a hierarchy's options for array a: one Options.CFUnits
// describes instants ("hours since 2000-01-01") or durations ("hours"),
// and a group may hold both (ERA5's valid_time and step). The arrays of
// the other kind take their default units, with a note saying so,
// instead of failing the plan.
func cfUnitsFor(a *zarr.Array, o Options) (Options, string) {
	if o.CFUnits == "" {
		return o, ""
	}
	durations := a.IsTime() && a.DataType().Kind == dtype.Timedelta
	if t, err := a.CFTime(); err == nil && t != nil {
		durations = t.Units.Duration
	}
	if durations == cf.IsDuration(o.CFUnits) {
		return o, ""
	}
	kind, own := "instants", "durations"
	if !durations {
		kind, own = own, kind
	}
	units := o.CFUnits
	o.CFUnits = ""
	return o, fmt.Sprintf("--cf-units %q describe %s; this array's %s take their default CF units", units, kind, own)
}

// looksLikeTime reports whether array node n holds time by its metadata
// alone (for an array that does not open): a datetime64 or timedelta64
// data type, or CF units "<unit> since <date>" (xarray's test, "since" in
// the units).
func looksLikeTime(n zarr.Node) bool {
	dt := strings.TrimLeft(n.DataType, "<>|=")
	if strings.HasPrefix(dt, "M8") || strings.HasPrefix(dt, "m8") || strings.HasPrefix(dt, "datetime64") || strings.HasPrefix(dt, "timedelta64") ||
		n.DataType == "numpy.datetime64" || n.DataType == "numpy.timedelta64" {
		return true
	}
	var attrs struct {
		Units any `json:"units"`
	}
	if json.Unmarshal(n.Attributes, &attrs) != nil {
		return false
	}
	u, ok := attrs.Units.(string)
	return ok && strings.Contains(u, "since")
}

// UnconvertibleError is a time array of a hierarchy (native or CF) that
// does not plan under the options, so the hierarchy does not either
// (unless StoreOptions.SkipUnconvertible).
type UnconvertibleError struct {
	Err error // why its plan failed, as for the array alone
}

func (e *UnconvertibleError) Error() string {
	// The hierarchy's error says it cannot plan; the array's reason need
	// not say it again.
	return "a time array that cannot be converted: " + strings.TrimPrefix(e.Err.Error(), ErrPlan.Error()+": ")
}

func (e *UnconvertibleError) Unwrap() error { return e.Err }

// IsGroup reports whether the store's root is a group (a hierarchy for
// NewStore) rather than an array.
func IsGroup(ctx context.Context, s storage.Store) bool {
	_, err := zarr.OpenGroup(ctx, s)
	return err == nil
}

// NewStore plans a re-encode of the hierarchy in src into dst. Every
// array is planned before anything is written: an array that cannot be
// carried over (a data type with no v3 translation, say) makes an error
// naming all such arrays. It does not touch dst (Run does).
func NewStore(ctx context.Context, src, dst storage.Store, o StoreOptions) (*StoreJob, error) {
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
		if err := checkGlob(g); err != nil {
			return nil, planErr("pattern %q: %v", g, err)
		}
	}
	srcKeys, err := src.List(ctx, "") // the one listing of the source
	unlisted := false
	if err != nil {
		keys, ok, cerr := consolidatedListing(ctx, src)
		switch {
		case !ok && cerr != nil:
			return nil, fmt.Errorf("%w; nor does it read as a hierarchy from consolidated metadata: %v", err, cerr)
		case !ok:
			return nil, err
		case cerr != nil:
			return nil, cerr
		}
		srcKeys, unlisted = keys, true
	}
	nodes, err := zarr.WalkKeys(ctx, src, srcKeys)
	if err != nil {
		return nil, fmt.Errorf("reading the source hierarchy: %w", err)
	}
	if nodes[0].Kind != zarr.GroupNode {
		return nil, planErr("the source is an array, not a group")
	}
	s := &StoreJob{opts: o, src: src, dst: dst, format: nodes[0].Format, bounds: zarr.CFBounds(nodes)}
	if unlisted {
		s.srcListing = srcKeys
	}
	if o.Format != 0 {
		s.format = o.Format
	}
	// A source with consolidated metadata gets it in the destination, made
	// from the hierarchy written; one whose consolidated metadata is
	// malformed too, since xarray would use it, with a warning naming why.
	_, cerr := zarr.ReadConsolidated(ctx, src)
	s.consolidate = o.Consolidate || !errors.Is(cerr, fs.ErrNotExist)
	if cerr != nil && !errors.Is(cerr, fs.ErrNotExist) {
		s.warnings = append(s.warnings, fmt.Sprintf("the source's consolidated metadata is ignored: %v; the destination's is made from the hierarchy written", cerr))
	}
	// Each Job resumes (or starts) inside a destination this job has
	// checked; the hierarchy's overwrite and refusals are the store's.
	jo := o.Options
	jo.Resume, jo.Overwrite = true, false
	jo.InFlight = o.inFlight(localStores(src, dst))
	jo.Workers = o.cpus(localStores(src, dst))
	var problems []string
	var causes []error // what the problems wrap, for errors.Is and errors.As
	for _, n := range nodes {
		if n.Implicit {
			s.warnings = append(s.warnings, fmt.Sprintf("%s: no group metadata in the source (an implicit group, which zarr-python does not list, though it reads what is below it): the destination gets an empty group there, so that nothing below it is lost", n.Path))
		}
		if n.Kind == zarr.GroupNode {
			g, err := s.groupDocs(n)
			if err != nil {
				problems, causes = append(problems, err.Error()), append(causes, err)
			}
			s.groups = append(s.groups, g)
			continue
		}
		if !selected(n.Path, o.Include, o.Exclude) {
			continue
		}
		a, err := s.planArray(ctx, n, jo, srcKeys)
		if err != nil {
			problems, causes = append(problems, fmt.Sprintf("%s: %v", n.Path, err)), append(causes, err)
			continue
		}
		s.arrays = append(s.arrays, a)
	}
	if err := unmatched(nodes, o.Include, o.Exclude); err != nil {
		return nil, err
	}
	s.warnings = append(s.warnings, danglingCoordinates(nodes, o.Include, o.Exclude)...)
	if len(problems) > 0 {
		err := fmt.Errorf("%w: %d of the hierarchy's nodes cannot be carried over, so nothing was written: %s", ErrPlan, len(problems), strings.Join(problems, "; "))
		return nil, alsoIs{err, causes}
	}
	// The consolidated metadata is written last, but made now, so that one
	// dt64 could not read back (too large) stops the job before it writes.
	if _, _, err := s.consolidatedDoc(); err != nil {
		return nil, fmt.Errorf("%w: consolidated metadata: %w", ErrPlan, err)
	}
	s.doc = s.planDoc(nodes)
	s.plan = s.makePlan(jo)
	return s, nil
}

// alsoIs is an error that also matches its causes (errors.Is, errors.As),
// without repeating their text.
type alsoIs struct {
	error
	causes []error
}

func (e alsoIs) Unwrap() []error { return append([]error{e.error}, e.causes...) }

func selected(p string, include, exclude []string) bool {
	match := func(globs []string) bool {
		for _, g := range globs {
			if matchGlob(g, p) {
				return true
			}
		}
		return false
	}
	return (len(include) == 0 || match(include)) && !match(exclude)
}

// danglingCoordinates warns of each selected array whose CF "coordinates"
// attribute names an array of its group that the selection leaves out:
// the destination's attribute names a variable it lacks, which xarray
// reports when it opens the dataset.
func danglingCoordinates(nodes []zarr.Node, include, exclude []string) []string {
	if len(include)+len(exclude) == 0 {
		return nil
	}
	arrays := map[string]bool{}
	for _, n := range nodes {
		if n.Kind == zarr.ArrayNode {
			arrays[n.Path] = true
		}
	}
	var out []string
	for _, n := range nodes {
		if n.Kind != zarr.ArrayNode || !selected(n.Path, include, exclude) {
			continue
		}
		var attrs struct {
			Coordinates string `json:"coordinates"`
		}
		if json.Unmarshal(n.Attributes, &attrs) != nil {
			continue
		}
		var gone []string
		for _, c := range strings.Fields(attrs.Coordinates) {
			if p := path.Join(path.Dir(n.Path), c); arrays[p] && !selected(p, include, exclude) {
				gone = append(gone, c)
			}
		}
		if len(gone) > 0 {
			out = append(out, fmt.Sprintf("%s: its coordinates attribute names %s, which the selection leaves out", n.Path, strings.Join(gone, ", ")))
		}
	}
	return out
}

// unmatched refuses a selection pattern that matches no array of the
// hierarchy (a mistyped path would otherwise drop or keep arrays
// silently), and a selection of no array at all.
func unmatched(nodes []zarr.Node, include, exclude []string) error {
	if len(include)+len(exclude) == 0 {
		return nil
	}
	var none []string
	for _, g := range append(slices.Clone(include), exclude...) {
		hit := false
		for _, n := range nodes {
			if matchGlob(g, n.Path) && n.Kind == zarr.ArrayNode {
				hit = true
				break
			}
		}
		if !hit {
			none = append(none, strconv.Quote(g))
		}
	}
	if len(none) > 0 {
		return planErr("pattern %s matches no array of the hierarchy", strings.Join(none, ", "))
	}
	for _, n := range nodes {
		if n.Kind == zarr.ArrayNode && selected(n.Path, include, exclude) {
			return nil
		}
	}
	return planErr("include %q and exclude %q leave no array of the hierarchy", include, exclude)
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
	var src storage.Store = sv
	boundsNote := ""
	if in, ok := s.bounds[n.Path]; ok {
		docs, err := withAttributes(n, in.Attributes)
		if err != nil {
			return nil, fmt.Errorf("%v: reading their attributes: %w", in, err)
		}
		src = &boundsView{arrayView: sv, docs: docs}
		boundsNote = in.String() + ", as xarray reads them (CF 7.1)"
	}
	a, openErr := zarr.Open(ctx, src)
	note := ""
	if openErr != nil && looksLikeTime(n) {
		// A time array dt64 cannot even open (a codec it lacks, say):
		// copying it would leave it unconverted without a word.
		if !s.opts.SkipUnconvertible {
			return nil, &UnconvertibleError{Err: openErr}
		}
		note = fmt.Sprintf("not converted (unconvertible time arrays are skipped), carried over as it is: %v", openErr)
	}
	if openErr == nil {
		ao, unitsNote := cfUnitsFor(a, jo)
		j, why, err := timeJob(ctx, a, src, dv, ao, s.opts.SkipUnconvertible)
		if err != nil {
			return nil, err
		}
		if j != nil {
			j.inStore = true
			if boundsNote != "" {
				j.plan.Notes = append(j.plan.Notes, boundsNote)
			}
			if unitsNote != "" {
				j.plan.Notes = append(j.plan.Notes, unitsNote)
			}
			return &storeArray{path: n.Path, time: j}, nil
		}
		note = why
	}
	c, err := newCopyJob(ctx, n, a, src, dv, s.format, srcKeys, jo, s.opts.RecodeAll)
	if c != nil && s.srcListing != nil {
		c.listing = under(s.srcListing, n.Path)
	}
	if err != nil {
		if openErr != nil && !errors.Is(err, zarr.ErrUntranslatable) {
			return nil, fmt.Errorf("%w (opening it: %v)", err, openErr)
		}
		return nil, err
	}
	if c.note != "" && note == "" {
		note = c.note
	}
	return &storeArray{path: n.Path, copy: c, note: note}, nil
}

func (s *StoreJob) makePlan(jo Options) StorePlan {
	p := StorePlan{Format: s.format, Groups: len(s.groups), Consolidated: s.consolidate, Warnings: s.warnings, Workers: jo.Workers, InFlight: jo.InFlight}
	for _, a := range s.arrays {
		ap := ArrayPlan{Path: a.path}
		if a.time != nil {
			tp := a.time.Plan()
			ap.Action, ap.Plan = "transcode", &tp
			ap.DataType = tp.Source.DataType.NumPy(tp.SourceOrder)
			if !tp.Source.IsTime() { // CF time: numbers
				ap.DataType = tp.Source.Numeric.NumPy(tp.SourceOrder)
			}
			ap.Shape = tp.Source.Shape
			ap.Units, ap.PartUnits = tp.Units, tp.EndUnit-tp.FirstUnit
			p.MemoryBound = max(p.MemoryBound, tp.MemoryBound)
		} else {
			c := a.copy
			ap.Action, ap.DataType, ap.Shape, ap.Note = c.action, c.node.DataType, c.node.Shape, a.note
			ap.Units, ap.PartUnits = int64(c.count), int64(c.hi-c.lo)
			p.MemoryBound = max(p.MemoryBound, c.memoryBound())
		}
		p.Units += ap.Units
		p.PartUnits += ap.PartUnits
		p.Arrays = append(p.Arrays, ap)
	}
	return p
}
