package transcode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// CF time (xarray's encoding) on either side of a job. A CF source is a
// numeric array whose attributes say "<unit> since <date>"
// (zarr.Array.CFTime): its numbers are decoded exactly, chunk by chunk, as
// they are read, widened in place in the region buffer, and the job goes
// on as for a datetime64 source. A CF destination (Options.CF) is an
// int64 array of counts of a unit since a reference, with the CF
// attributes xarray reads.

// cfAttributes are the attributes that describe a CF encoding: dropped
// from a decoded destination, replaced in a CF one.
var cfAttributes = []string{"units", "calendar", "_FillValue", "missing_value", "scale_factor", "add_offset", "_Unsigned"}

// valueAttributes state values in the stored encoding (CF 2.5.1's valid
// range, and the common actual_range): once the encoding changes they
// mean other instants (readers that honour valid_* would hide every
// value), so they are dropped with the encoding, and a note says so.
var valueAttributes = []string{"actual_range", "valid_max", "valid_min", "valid_range"}

// droppedValuesNote names the valueAttributes of src that dst lacks, or "".
func droppedValuesNote(src, dst json.RawMessage) string {
	var gone []string
	for _, k := range valueAttributes {
		if hasAttribute(src, k) && !hasAttribute(dst, k) {
			gone = append(gone, k)
		}
	}
	if len(gone) == 0 {
		return ""
	}
	return fmt.Sprintf("attributes %s are not copied: they state values in the source's encoding, which the destination does not have", strings.Join(gone, ", "))
}

// cfReference is the reference date of a CF destination when
// Options.CFUnits is empty: the epoch, so the stored numbers are the
// datetime64 counts themselves.
const cfReference = "1970-01-01 00:00:00"

// unitSeconds is the length of one count of d in seconds (d has a fixed
// length: not Y, M or generic).
func unitSeconds(d dtype.DataType) *big.Rat {
	c, err := dtype.NewConversion(d, dtype.DataType{Kind: d.Kind, Unit: dtype.Second, Scale: 1})
	if err != nil {
		panic(err) // the callers pass fixed-length units
	}
	num, den := c.Factor()
	return new(big.Rat).SetFrac(num, den)
}

// cfUnitFor is the CF unit a CF destination counts in by default: the
// datetime64 unit itself where CF (and xarray) has it; weeks become days
// (xarray reads no weeks), units finer than nanoseconds nanoseconds.
func cfUnitFor(d dtype.DataType) (dtype.Unit, error) {
	switch d.Unit {
	case dtype.Week:
		return dtype.Day, nil
	case dtype.Day, dtype.Hour, dtype.Minute, dtype.Second, dtype.Millisecond, dtype.Microsecond, dtype.Nanosecond:
		return d.Unit, nil
	case dtype.Picosecond, dtype.Femtosecond, dtype.Attosecond:
		return dtype.Nanosecond, nil
	}
	return 0, fmt.Errorf("%s has no fixed length, so no CF unit counts it: choose a unit or CF units", d)
}

var cfUnitWord = map[dtype.Unit]string{
	dtype.Day: "days", dtype.Hour: "hours", dtype.Minute: "minutes", dtype.Second: "seconds",
	dtype.Millisecond: "milliseconds", dtype.Microsecond: "microseconds", dtype.Nanosecond: "nanoseconds",
}

// cfDestinationUnits parses Options.CFUnits (in the proleptic Gregorian
// calendar the destination declares) or makes the default for values of
// type d: for timedelta64, CF duration units ("hours").
func cfDestinationUnits(text string, d dtype.DataType) (cf.Units, error) {
	if d.Kind == dtype.Timedelta {
		return cfDurationUnits(text, d)
	}
	if text == "" {
		u, err := cfUnitFor(d)
		if err != nil {
			return cf.Units{}, planErr("CF destination: %v", err)
		}
		text = cfUnitWord[u] + " since " + cfReference
	}
	if cf.IsDuration(text) {
		return cf.Units{}, planErr("CF destination units %q are a CF duration, and the values are %s instants: give \"%s since <date>\"", text, d, text)
	}
	u, err := cf.ParseUnits(text, cf.ProlepticGregorian)
	if err != nil {
		return cf.Units{}, planErr("CF destination units: %v", err)
	}
	if !slices.Contains(strings.Fields(text), "since") {
		// cftime reads "SINCE" (and so does dt64), xarray does not: it
		// would show the numbers dt64 writes as numbers.
		return cf.Units{}, planErr("CF destination units %q: write \"since\" in lower case; xarray reads any other as plain numbers", text)
	}
	if u.Unit == dtype.Week {
		return cf.Units{}, planErr("CF destination units %q: xarray reads no weeks; use days", text)
	}
	if ns := unitSeconds(dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}); !new(big.Rat).Quo(u.Reference, ns).IsInt() {
		// pandas parses a reference to whole nanoseconds, dropping the
		// rest: xarray would read every number as another instant.
		return cf.Units{}, planErr("CF destination units %q: the reference date is not a whole nanosecond, and xarray (pandas) reads it without the fraction below 1 ns; give a reference in whole nanoseconds", text)
	}
	return u, nil
}

// midType is the datetime64 (timedelta64 for a duration) type a CF
// source decodes to on its way to a CF destination with units u: u's
// unit, or a finer one in which u's reference is a whole number, so that
// flooring twice (to it, then to u's unit) is flooring once.
func midType(u cf.Units) dtype.DataType {
	for _, unit := range []dtype.Unit{dtype.Week, dtype.Day, dtype.Hour, dtype.Minute, dtype.Second, dtype.Millisecond, dtype.Microsecond, dtype.Nanosecond, dtype.Picosecond, dtype.Femtosecond, dtype.Attosecond} {
		d := dtype.DataType{Kind: u.Kind(), Unit: unit, Scale: 1}
		us, ds := unitSeconds(dtype.DataType{Kind: u.Kind(), Unit: u.Unit, Scale: 1}), unitSeconds(d)
		if ds.Cmp(us) > 0 {
			continue
		}
		if new(big.Rat).Quo(u.Reference, ds).IsInt() {
			return d
		}
	}
	return dtype.DataType{Kind: u.Kind(), Unit: dtype.Attosecond, Scale: 1}
}

// describeCF says what a CF time description is, for plan lines:
// "hours since 1900-01-01 00:00:00, calendar standard, int64" ("hours,
// int64" for a duration).
func describeCF(t *cf.Time) string {
	stored := t.Stored.String()
	if t.Unsigned.Kind != 0 {
		stored = fmt.Sprintf("%s read as %s (_Unsigned)", t.Unsigned, t.Stored)
	}
	s := fmt.Sprintf("%s, calendar %s, %s", strings.TrimSpace(t.Units.Text), t.Calendar, stored)
	if t.Units.Duration {
		s = fmt.Sprintf("%s, %s", t.Units.Text, stored)
	}
	if t.Packing.Scale != nil {
		s += ", scale_factor " + t.Packing.Scale.RatString()
	}
	if t.Packing.Offset != nil {
		s += ", add_offset " + t.Packing.Offset.RatString()
	}
	return s
}

// editAttributes returns the attributes attrs (a JSON object, or empty)
// without the CF encoding attributes and the values stated in that
// encoding, and with set added.
func editAttributes(attrs json.RawMessage, set map[string]any) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(attrs)) > 0 {
		if err := json.Unmarshal(attrs, &obj); err != nil {
			return nil, planErr("source attributes: %v", err)
		}
	}
	for _, k := range cfAttributes {
		delete(obj, k)
	}
	for _, k := range valueAttributes {
		delete(obj, k)
	}
	for k, v := range set {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		obj[k] = b
	}
	return json.Marshal(obj) // keys sorted, as zarr-python writes them
}

func hasAttribute(attrs json.RawMessage, name string) bool {
	var obj map[string]json.RawMessage
	if json.Unmarshal(attrs, &obj) != nil {
		return false
	}
	_, ok := obj[name]
	return ok
}

// cfSide is what a job does with CF time.
type cfSide struct {
	src      *cf.Time       // the source's description; nil for a datetime64 source
	mid      dtype.DataType // the datetime64 type decoding produces
	dstUnits *cf.Units      // a CF destination's units; nil for datetime64
}

// cfSourceAsTime is the metadata of the datetime64 array decoding the CF
// source (metadata sm, description t) makes: t.DefaultType(), NaT as the
// fill value, the CF attributes dropped. destMetadata derives the
// destination from it as from a datetime64 source.
func cfSourceAsTime(sm zarr.Metadata, t *cf.Time, o *Options) (zarr.Metadata, error) {
	m := sm.Clone()
	m.Numeric, m.NumericFill, m.FillNull = zarr.NumericType{}, [2]uint64{}, false
	m.DataType, m.FillValue = t.DefaultType(), dtype.NaT
	attrs, err := editAttributes(sm.Attributes, calendarAttributes(t, o.Calendar))
	if err != nil {
		return m, err
	}
	if sm.Format == 2 && len(sm.Attributes) == 0 {
		attrs = nil
	}
	m.Attributes = attrs
	if o.Unit == dtype.NoUnit && o.Scale != 0 {
		return m, planErr("a scale needs a unit with a CF source")
	}
	return m, nil
}

// calendarAttributes are the attributes a destination converted from
// another calendar records (nil when none is converted): the source's
// calendar, and the conversion, "date" or "year" as xarray's
// convert_calendar names its align_on. xarray's own conversion drops
// the calendar attribute and records nothing, so these keep what a
// reader would otherwise lose.
func calendarAttributes(t *cf.Time, o cf.CalendarOptions) map[string]any {
	conv := o.Convert.Effective(t.Calendar)
	if conv == cf.ConvertNone {
		return nil
	}
	return map[string]any{"source_calendar": t.Calendar.String(), "calendar_conversion": conv.String()}
}

// cfDestination turns dm, the metadata of a datetime64 (or timedelta64)
// destination, into that of the CF-encoded one with units u: int64
// counts, NaT as MinInt64, declared as the fill value and _FillValue; a
// calendar for times only (xarray writes none for a duration).
// A v2 destination gets the xarray attribute _ARRAY_DIMENSIONS from a v3
// source's dimension_names (dims) when it has none.
func cfDestination(dm zarr.Metadata, u cf.Units, dims json.RawMessage) (zarr.Metadata, error) {
	m := dm.Clone()
	m.DataType, m.FillValue = dtype.DataType{}, 0
	m.Numeric = zarr.NumericType{Kind: zarr.Int, Size: 8}
	m.NumericFill = [2]uint64{uint64(1) << 63}
	m.FillNull = false
	set := map[string]any{
		"units":      strings.TrimSpace(u.Text),
		"calendar":   "proleptic_gregorian",
		"_FillValue": int64(math.MinInt64),
	}
	if u.Duration {
		delete(set, "calendar")
	}
	var names []string // null names fail to unmarshal: no attribute then
	if m.Format == 2 && len(dims) > 0 && json.Unmarshal(dims, &names) == nil && !hasAttribute(dm.Attributes, "_ARRAY_DIMENSIONS") {
		set["_ARRAY_DIMENSIONS"] = names
	}
	attrs, err := editAttributes(dm.Attributes, set)
	if err != nil {
		return m, err
	}
	m.Attributes = attrs
	return m, nil
}

// cfKernel is a CF decoder or encoder as the engine drives it.
type cfKernel interface {
	Run(dst, src, validity []byte) (kernels.Stats, error)
}

// XarrayExactBound is how far (in counts of u) xarray 2023.01 decodes
// int64 CF times with a _FillValue exactly: it masks them through
// float64 and multiplies by the unit's nanoseconds in float64, which is
// exact while |v| × (the odd part of the unit's nanoseconds) ≤ 2^53.
func XarrayExactBound(u dtype.Unit) int64 {
	ns := cfUnitNanoseconds[u]
	for ns > 0 && ns%2 == 0 {
		ns /= 2
	}
	if ns == 0 {
		return 0
	}
	return (1 << 53) / ns
}

// cfUnitNanoseconds are the lengths of xarray's CF units.
var cfUnitNanoseconds = map[dtype.Unit]int64{dtype.Day: 86400e9, dtype.Hour: 3600e9, dtype.Minute: 60e9, dtype.Second: 1e9,
	dtype.Millisecond: 1e6, dtype.Microsecond: 1e3, dtype.Nanosecond: 1}

// XarrayRounding says, for a CF destination, when xarray 2023.01 would
// not decode every value a run wrote exactly (see XarrayExactBound):
// reason is "" when it would (or the plan is not CF); exact are CF units
// with the same unit that would keep the values exact (the first midnight
// at or before the earliest value as the reference), "" when none would
// (a coarser unit is needed). For a CF duration (xarrayDurationBound)
// exact is always "".
func (p Plan) XarrayRounding(s Summary) (reason, exact string) {
	u := p.CFUnits
	if u == nil || !s.Ranged {
		return "", ""
	}
	bound := XarrayExactBound(u.Unit)
	if u.Duration {
		bound = xarrayDurationBound(u.Unit)
	}
	if s.Min >= -bound && s.Max <= bound {
		return "", ""
	}
	if u.Duration {
		return xarrayDurationRounding(s, u.Unit, bound), ""
	}
	word := cfUnitWord[u.Unit]
	reason = fmt.Sprintf("the values reach %d..%d %s since the reference; xarray (2023.01 at least) masks int64 times with a _FillValue "+
		"through float64 and decodes them exactly only within ±%d, so it may round some of these instants", s.Min, s.Max, word, bound)
	us := unitSeconds(dtype.DataType{Kind: dtype.Datetime, Unit: u.Unit, Scale: 1})
	first := new(big.Rat).Add(u.Reference, new(big.Rat).Mul(new(big.Rat).SetInt64(s.Min), us))
	day := new(big.Int).Div(first.Num(), new(big.Int).Mul(first.Denom(), big.NewInt(86400)))
	day.Mul(day, big.NewInt(86400))
	span := new(big.Rat).Add(u.Reference, new(big.Rat).Mul(new(big.Rat).SetInt64(s.Max), us))
	span.Sub(span, new(big.Rat).SetInt(day)).Quo(span, us)
	if span.Cmp(new(big.Rat).SetInt64(bound)) <= 0 {
		exact = fmt.Sprintf("%s since %s", word, cf.FormatInstant(new(big.Rat).SetInt(day))[:10])
	}
	return reason, exact
}

// planKernels compiles the conversion of a job from sm (the source's
// metadata) to dm (the destination's, as destMetadata derived it): a
// Transcoder between datetime64 arrays, a CF encoder from datetime64 to
// CF, or a CF decoder (and for a CF destination an encoder after it). It
// sets the fill values and turns dm into the CF destination's metadata
// when o.CF.
func (t *Job) planKernels(sm zarr.Metadata, dm *zarr.Metadata, o Options) error {
	ko := kernels.Options{From: sm.ByteOrder(), To: dm.ByteOrder(), Overflow: o.Overflow, Exact: o.Exact, CFFloat: o.CFFloat, Calendar: o.Calendar}
	if o.CF {
		u, err := cfDestinationUnits(o.CFUnits, dm.DataType)
		if err != nil {
			return err
		}
		t.cf.dstUnits = &u
	}
	var err error
	switch {
	case t.cf.src == nil && t.cf.dstUnits == nil:
		return t.planNative(sm, dm, ko)
	case t.cf.src == nil:
		err = t.planEncode(sm, ko)
	default:
		err = t.planDecode(sm, dm, ko)
	}
	if err != nil {
		return err
	}
	if t.cf.dstUnits != nil {
		*dm, err = cfDestination(*dm, *t.cf.dstUnits, sm.DimensionNames)
	}
	return err
}

// planNative plans datetime64 (or timedelta64) to datetime64.
func (t *Job) planNative(sm zarr.Metadata, dm *zarr.Metadata, ko kernels.Options) error {
	var err error
	if t.conv, err = dtype.NewConversion(sm.DataType, dm.DataType); err != nil {
		return fmt.Errorf("%w: %w", ErrPlan, err)
	}
	fill, fillSt, err := convertFill(t.conv, sm.FillValue, ko)
	if err != nil {
		return err
	}
	t.fillNote = fillNote(t.conv, sm.FillValue, fill, fillSt, ko.Overflow)
	t.fillSt, dm.FillValue, t.fillSame, t.dstFillNaT = fillSt, fill, true, fill == dtype.NaT
	ko.From.PutUint64(t.srcFill[:], uint64(sm.FillValue))
	if t.kern, err = kernels.NewTranscoder(t.conv, ko); err != nil {
		return fmt.Errorf("%w: %w", ErrPlan, err)
	}
	return nil
}

// planEncode plans datetime64 to CF: one encoder pass. The source's fill
// value must encode (whatever the policy); where it is not NaT, chunks
// missing in the source are written (the destination's fill is NaT).
func (t *Job) planEncode(sm zarr.Metadata, ko kernels.Options) error {
	u := *t.cf.dstUnits
	if sm.DataType.Kind != u.Kind() {
		return planErr("%s encodes %s values; the source holds %s", cfNoun(u), u.Kind(), sm.DataType)
	}
	t.cf.mid = sm.DataType
	eo := ko
	eo.Stats = true // the range of the values, for XarrayRounding
	var err error
	if t.enc, err = kernels.NewCFEncoder(sm.DataType, u, eo); err != nil {
		return fmt.Errorf("%w: %w", ErrPlan, err)
	}
	ko.From.PutUint64(t.srcFill[:], uint64(sm.FillValue))
	fk, err := kernels.NewCFEncoder(sm.DataType, u, kernels.Options{From: ko.From, To: dtype.NativeOrder(), Exact: ko.Exact})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrPlan, err)
	}
	var out [8]byte
	st, err := fk.Run(out[:], t.srcFill[:], nil)
	if err != nil {
		return planErr("the fill value %d (%s) does not encode as %s: %v", sm.FillValue, sm.DataType, u.Text, err)
	}
	t.fillSt, t.fillSame, t.dstFillNaT = st, int64(dtype.NativeOrder().Uint64(out[:])) == dtype.NaT, true
	return nil
}

// planDecode plans CF to datetime64 (dm's type), or to CF through the
// datetime64 type midType.
func (t *Job) planDecode(sm zarr.Metadata, dm *zarr.Metadata, ko kernels.Options) error {
	t.cf.mid = dm.DataType
	do := ko
	if t.cf.dstUnits != nil {
		t.cf.mid = midType(*t.cf.dstUnits)
		do.To = dtype.NativeOrder()
	}
	var err error
	if t.dec, err = kernels.NewCFDecoder(t.cf.src, t.cf.mid, do); err != nil {
		return fmt.Errorf("%w: %w", ErrPlan, err)
	}
	if t.cf.dstUnits != nil {
		eo := ko
		eo.From, eo.Stats = dtype.NativeOrder(), true
		if t.enc, err = kernels.NewCFEncoder(t.cf.mid, *t.cf.dstUnits, eo); err != nil {
			return fmt.Errorf("%w: %w", ErrPlan, err)
		}
	}
	// What missing chunks read as: the fill value, decoded. It is NaT
	// unless the fill is a v2 null that is no missing value (zeros).
	fill := sm.Numeric.Element(sm.NumericFill, ko.From)
	fk, err := kernels.NewCFDecoder(t.cf.src, t.cf.mid, kernels.Options{From: ko.From, To: dtype.NativeOrder(), CFFloat: ko.CFFloat, Calendar: ko.Calendar})
	if err != nil {
		return fmt.Errorf("%w: %w", ErrPlan, err)
	}
	out := alignedBytes(8)
	copy(out, fill)
	st, err := fk.Run(out, out[:len(fill)], nil)
	t.fillSt, t.fillSame = st, err == nil && int64(dtype.NativeOrder().Uint64(out)) == dtype.NaT
	if t.nullFill = sm.FillNull; t.nullFill {
		// No fill value: missing chunks are NaT (nullfill.go), not zeros.
		t.fillSt, t.fillSame = kernels.Stats{Elements: 1, NaT: 1}, true
	}
	t.dstFillNaT, dm.FillValue = true, dtype.NaT
	if t.conv, err = dtype.NewConversion(t.cf.mid, t.cf.mid); err != nil {
		return fmt.Errorf("%w: %w", ErrPlan, err)
	}
	return nil
}

// conversionText is the conversion the plan marker records.
func (t *Job) conversionText() string {
	if t.cf.src == nil && t.cf.dstUnits == nil {
		return t.conv.String()
	}
	return t.cfText()
}

// cfText says what CF time the job reads and writes.
func (t *Job) cfText() string {
	var parts []string
	if t.cf.src != nil {
		floats := ""
		if t.cf.src.Stored.Kind == cf.StoredFloat {
			floats = " (floats: " + t.opts.CFFloat.String() + ")"
		}
		conv := ""
		if s := t.opts.Calendar.String(t.cf.src.Calendar); s != "" {
			conv = "; " + s
		}
		parts = append(parts, cfNoun(t.cf.src.Units)+": "+describeCF(t.cf.src)+", decoded to "+t.cf.mid.String()+floats+conv)
	}
	if u := t.cf.dstUnits; u != nil {
		cal := ", calendar proleptic_gregorian"
		if u.Duration {
			cal = " (a CF duration)"
		}
		parts = append(parts, fmt.Sprintf("CF destination: int64 %s%s, NaT as _FillValue %d", strings.TrimSpace(u.Text), cal, dtype.NaT))
	}
	return strings.Join(parts, "; ")
}

// kernel is what convertRegion runs: the Transcoder, the CF encoder, or
// nothing (a CF source to datetime64, decoded as it was read).
func (t *Job) kernel() cfKernel {
	switch {
	case t.enc != nil:
		return t.enc
	case t.kern != nil:
		return t.kern
	}
	return nil
}

// decodedNaT is NaT in the byte order the CF decoder writes.
func (t *Job) decodedNaT() [8]byte {
	var b [8]byte
	o := t.plan.DestinationOrder
	if t.cf.dstUnits != nil || o == nil {
		o = dtype.NativeOrder()
	}
	o.PutUint64(b[:], 1<<63) // NaT
	return b
}

// decodeChunk decodes the CF source chunk at coords, raw (its stored
// elements, at the start of buf), into buf, 8 bytes an element, in place.
// Padding (which a writer may have left uninitialized) is first set to
// the chunk's first element, which is always inside the array, so that
// it decodes as that element does and never fails on its own; its
// statistics are then taken back out.
func (t *Job) decodeChunk(dec cfKernel, b *buffers, buf, raw []byte, coords []int64) (kernels.Stats, error) {
	z := t.src.ElementSize()
	grid := t.src.Grid()
	_, inside := grid.Extent(coords)
	npad := len(buf)/8 - int(inside)
	var first [8]byte
	if npad > 0 {
		copy(first[:z], raw[:z])
		grid.Pad(raw, coords, first[:z])
	}
	st, err := dec.Run(buf, raw, nil)
	if err != nil {
		return st, t.chunkElementError(coords, err)
	}
	if npad > 0 {
		if b.one == nil {
			b.one = alignedBytes(8)
		}
		copy(b.one, first[:z])
		one, err := dec.Run(b.one, b.one[:z], nil)
		if err != nil {
			return st, t.chunkElementError(coords, err)
		}
		subtractStats(&st, one, npad)
	}
	return st, nil
}

// chunkElementError places a kernel's element error, whose index is
// within the source chunk at coords, in the array.
func (t *Job) chunkElementError(coords []int64, err error) error {
	var ke *dtype.ElementError
	if !errors.As(err, &ke) {
		return err
	}
	e := *ke
	cs := t.src.ChunkShape()
	idx := make([]int64, len(cs))
	r := int64(e.Index)
	for d := len(cs) - 1; d >= 0; d-- {
		idx[d] = coords[d]*cs[d] + r%cs[d]
		r /= cs[d]
	}
	key, _ := t.src.ChunkKey(coords)
	return &zarr.ElementError{Array: storage.Name(t.srcStore), Key: key, Index: e.Index, ArrayIndex: idx, Value: e.Value, Err: &e}
}
