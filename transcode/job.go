package transcode

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// Job is a planned re-encode of one source array into one
// destination. New plans it without touching the destination; Run does
// this process's part of the work; Finalize and Verify complete it.
// Progress may be called from another goroutine while Run or Verify runs.
type Job struct {
	opts     Options
	srcStore storage.Store // as given: markers and metadata go straight here
	dstStore storage.Store
	srcIO    *ioStore // chunk traffic: counted, CPU token released
	dstIO    *ioStore
	src, dst *zarr.Array
	plan     Plan
	doc      planDoc
	geo      *geometry
	conv     dtype.Conversion    // a datetime64 source's conversion (or a CF one's decoding)
	kern     *kernels.Transcoder // a datetime64 source to a datetime64 destination
	cf       cfSide
	dec, enc cfKernel      // a CF source's decoder; a CF destination's encoder
	srcFill  [8]byte       // a datetime64 source's fill value in source byte order
	fillSt   kernels.Stats // what the source fill value converts as
	fillNote string        // what an overflowing fill value became (fillNote)
	// fillSame: the source's fill value converts to the destination's,
	// so a region whose source chunks are all missing is all fill.
	fillSame   bool
	dstFillNaT bool // the destination's fill value is NaT (padding counts as NaT)
	// nullFill: a CF source whose fill value is a v2 null has no fill
	// value, so the chunks it does not store have no values: they
	// become NaT (nullfill.go), never what their zero bits decode to.
	nullFill bool
	// inStore: a Job of a StoreJob, which holds the lease (live.go);
	// lease is this Job's own while Run runs (nil otherwise).
	inStore bool
	lease   *lease
	lo, hi  int64             // this part's work units
	sources map[string]string // versions of this part's source chunks (sources.go)

	bufs chan *buffers // the pool: at most InFlight sets ever exist
	nbuf atomic.Int64

	progress struct {
		unitsDone, elements atomic.Int64
	}
}

// Plan describes a planned re-encode.
type Plan struct {
	Source, Destination           zarr.Metadata
	SourceOrder, DestinationOrder binary.ByteOrder
	Conversion                    dtype.Conversion
	// CF says what CF time the job reads or writes ("" for none), e.g.
	// "CF time: hours since 1900-01-01 00:00:00, calendar standard, int64".
	CF string
	// CFUnits are a CF destination's units (nil for datetime64).
	CFUnits *cf.Units
	// Units is the number of work units in the whole array; a unit
	// covers UnitShape elements (a destination shard made of source
	// chunks, a source shard split into destination chunks, or one chunk).
	Units     int64
	UnitShape []int64
	// FirstUnit and EndUnit delimit this part's units [FirstUnit, EndUnit).
	FirstUnit, EndUnit int64
	Workers, InFlight  int
	// MemoryBound is the most memory the engine's buffers take at once,
	// in bytes (see the package documentation).
	MemoryBound int64
	// Notes say what a format change could not carry over.
	Notes []string
}

// Summary describes what a run did.
type Summary struct {
	Units   int64 // work units of this part
	Resumed int64 // of which found complete in the destination and skipped
	Chunks  int64 // destination chunks covered
	Stored  int64 // of which written (the others are all fill and not stored)
	// Element statistics. Units skipped on resume contribute Elements and
	// NaT but not Overflowed and Lossy (those are known only when
	// converting).
	Elements, NaT, Overflowed, Lossy int64
	// Unfilled counts the elements (also counted as NaT) of chunks a CF
	// source with a null fill value does not store: they have no value
	// and became NaT.
	Unfilled int64 `json:",omitempty"`
	// NoDate counts the CF dates the proleptic Gregorian calendar lacks,
	// stored as NaT (cf.MissingNaT; counted in NaT too). Like Overflowed,
	// known only when converting.
	NoDate                  int64
	BytesRead, BytesWritten int64 // encoded chunk bytes
	Elapsed                 time.Duration
	// Complete is true when the destination's metadata is written: the
	// array is whole. AlreadyComplete: it was before this run.
	Complete, AlreadyComplete bool
	// PartsDone of Parts have finished (for a partitioned run).
	PartsDone, Parts int
	// Finalizer names the part ("1-of-2") that holds the finalize when
	// every part is done but another one is writing the metadata; if it
	// died, Finalize completes the array.
	Finalizer string `json:",omitempty"`
	// Min and Max are the extremes of the non-NaT values a CF
	// destination holds, as stored (counts of its units), in the units
	// of this part; Ranged says there were any. Not computed for
	// datetime64 destinations.
	Min, Max int64 `json:",omitempty"`
	Ranged   bool  `json:",omitempty"`
}

func (s *Summary) addUnit(u unitStats) {
	if u.resumed {
		s.Resumed++
	}
	s.add(Summary{Chunks: u.chunks, Stored: u.stored, Elements: u.elements, NaT: u.nat, Overflowed: u.overflowed, Lossy: u.lossy, Unfilled: u.unfilled, NoDate: u.noDate,
		Min: u.min, Max: u.max, Ranged: u.ranged})
}

func (s *Summary) add(o Summary) {
	s.Units += o.Units
	s.Resumed += o.Resumed
	s.Chunks += o.Chunks
	s.Stored += o.Stored
	s.Elements += o.Elements
	s.NaT += o.NaT
	s.Overflowed += o.Overflowed
	s.Lossy += o.Lossy
	s.Unfilled += o.Unfilled
	s.NoDate += o.NoDate
	s.BytesRead += o.BytesRead
	s.BytesWritten += o.BytesWritten
	if o.Ranged {
		if !s.Ranged {
			s.Min, s.Max = o.Min, o.Max
		}
		s.Min, s.Max, s.Ranged = min(s.Min, o.Min), max(s.Max, o.Max), true
	}
}

// Progress is a snapshot of a running transcode.
type Progress struct {
	Units, UnitsDone        int64 // this part's work units, and how many are done
	Elements                int64
	BytesRead, BytesWritten int64
}

// New plans a re-encode of the array in src into dst. It reads the source
// metadata and checks that the options make a valid destination; it does
// not touch dst (Run does).
func New(ctx context.Context, src, dst storage.Store, o Options) (*Job, error) {
	if o.Resume && o.Overwrite {
		return nil, planErr("resume and overwrite exclude each other")
	}
	if o.Overwrite && o.Part.count() > 1 {
		return nil, planErr("overwrite cannot be combined with a part: one part would delete the others' work")
	}
	if o.Part.Index < 0 || (o.Part.Count > 0 && o.Part.Index >= o.Part.Count) || o.Part.Count < 0 {
		return nil, planErr("part %d/%d: want 0 <= I < N", o.Part.Index, o.Part.Count)
	}
	t := &Job{opts: o, srcStore: src, dstStore: dst}
	t.srcIO, t.dstIO = &ioStore{Store: src}, &ioStore{Store: dst}
	var err error
	if t.src, err = zarr.Open(ctx, t.srcIO); err != nil {
		return nil, fmt.Errorf("opening the source: %w", err)
	}
	cft, err := t.src.CFTime()
	if err != nil {
		return nil, fmt.Errorf("%w: the source: %w", ErrPlan, err)
	}
	if !t.src.IsTime() && cft == nil {
		return nil, planErr("the source holds %s numbers, not datetime64 or timedelta64 values nor CF time (a units attribute \"<unit> since <date>\") or a CF duration (\"hours\", …)", t.src.Numeric())
	}
	if o.CFUnits != "" {
		o.CF = true
		t.opts.CF = true
	}
	if o.CF && o.CFUnits != "" && (o.Unit != dtype.NoUnit || o.Scale != 0) {
		return nil, planErr("a CF destination counts in the unit of its CF units; give the unit there, not as a datetime64 unit")
	}
	sm := t.src.Metadata()
	asTime := sm // the source as a datetime64 array
	if cft != nil {
		if asTime, err = cfSourceAsTime(sm, cft, &o); err != nil {
			return nil, err
		}
	}
	dm, notes, err := destMetadata(asTime, &o)
	if err != nil {
		return nil, err
	}
	t.cf.src = cft
	if err := t.planKernels(sm, &dm, o); err != nil {
		return nil, err
	}
	if t.fillNote != "" {
		notes = append(notes, t.fillNote)
	}
	if n := droppedValuesNote(sm.Attributes, dm.Attributes); n != "" {
		notes = append(notes, n)
	}
	if t.cf.dstUnits != nil && dm.Format == 2 && len(sm.DimensionNames) > 0 && hasAttribute(dm.Attributes, "_ARRAY_DIMENSIONS") {
		for i, n := range notes {
			if strings.HasPrefix(n, "dimension_names") {
				notes[i] = fmt.Sprintf("dimension_names %s become the attribute _ARRAY_DIMENSIONS (xarray's convention in v2)", sm.DimensionNames)
			}
		}
	}
	if t.dst, err = zarr.Create(ctx, t.dstIO, dm); err != nil {
		return nil, fmt.Errorf("%w: destination metadata: %w", ErrPlan, err)
	}
	srcOrder, dstOrder := t.src.ByteOrder(), t.dst.ByteOrder()
	if t.geo, err = newGeometry(sm.Shape, sm.ChunkShape, t.src.ChunkGrid(), dm.ChunkShape, t.dst.ChunkGrid()); err != nil {
		return nil, err
	}
	if err := CheckSparse(ctx, src, t.geo.units); err != nil {
		return nil, err
	}
	if err := t.checkUnfilled(ctx); err != nil {
		return nil, err
	}
	if t.nullFill {
		notes = append(notes, unfilledNote)
	}
	if dm := t.dst.Metadata(); dm.Format == 2 && dm.DataType.Unit == dtype.Generic {
		notes = append(notes, fmt.Sprintf("the destination's %s has the generic unit, which Zarr format 2 allows but zarr-python 2 refuses to open (\"please specify units\"); a unit (--unit) makes it readable there", dm.DataType))
	}
	t.lo, t.hi = o.Part.units(t.geo.units)

	fp, err := sourceFingerprint(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("reading the source metadata: %w", err)
	}
	docs, err := metadataDocs(ctx, t.dst.Metadata())
	if err != nil {
		return nil, fmt.Errorf("%w: destination metadata: %w", ErrPlan, err)
	}
	t.doc = planDoc{
		Tool: "dt64 transcode", Version: planVersion, Source: storage.Name(src),
		SourceMetadataSHA256: fp, Destination: docs, Conversion: t.conversionText(),
		Overflow: o.Overflow.String(), Exact: o.Exact, Units: t.geo.units,
	}
	t.plan = Plan{
		Source: sm, Destination: t.dst.Metadata(), SourceOrder: srcOrder, DestinationOrder: dstOrder,
		Conversion: t.conv, CF: t.cfText(), CFUnits: t.cf.dstUnits, Units: t.geo.units, UnitShape: append([]int64(nil), t.geo.region...),
		FirstUnit: t.lo, EndUnit: t.hi, Workers: o.cpus(localStores(src, dst)), InFlight: o.inFlight(localStores(src, dst)), Notes: notes,
	}
	t.plan.MemoryBound = int64(t.plan.InFlight) * t.perUnitBytes()
	t.bufs = make(chan *buffers, t.plan.InFlight)
	return t, nil
}

// perUnitBytes is the most memory one unit in flight holds: the region
// buffer, staging for a source and a destination chunk when chunks are
// not contiguous in it (or for resume checks and verification), and the
// codec scratch the zarr package uses for one chunk operation (encoded
// input up to MaxEncodedSize, a decoded copy for encoding, encoded
// output of about the same bound).
func (t *Job) perUnitBytes() int64 {
	g := t.geo
	n := int64(g.regionLen) * 8
	n += int64(g.srcLen)*8 + int64(g.dstLen)*8
	n += int64(t.src.MaxEncodedSize()) + int64(g.dstLen)*8 + int64(t.dst.MaxEncodedSize())
	return n
}

// Plan returns the plan.
func (t *Job) Plan() Plan { return t.plan }

// Progress returns a snapshot of this part's progress.
func (t *Job) Progress() Progress {
	return Progress{
		Units: t.hi - t.lo, UnitsDone: t.progress.unitsDone.Load(),
		Elements:  t.progress.elements.Load(),
		BytesRead: t.srcIO.read.Load(), BytesWritten: t.dstIO.written.Load(),
	}
}
