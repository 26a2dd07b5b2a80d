package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

func init() { subcommands = append(subcommands, newInspectCmd) }

func newInspectCmd() *cobra.Command {
	var asJSON bool
	var cal calendarFlags
	cmd := &cobra.Command{
		Use:   "inspect PATH",
		Short: "Describe a Zarr v2 or v3 datetime64/timedelta64 array and its values",
		Long: `Describe the Zarr array in directory PATH: its metadata, how many chunks are
stored, their stored and decoded sizes, and statistics over every value
(NaT count, minimum and maximum).

When PATH is a group (an xarray dataset), print its tree instead: every
node's path and kind, and each array's data type, shape, chunks, codecs and
dimension names, with the NaT count and range of every time array (native
or CF). With --json: {"path", "kind": "group", "format", "consolidated",
"nodes": [{"path", "kind", "attributes", "data_type", "shape",
"chunk_shape", "dimension_names", "codecs", "note", "time"}], "warnings"},
where "time" is the single-array document below for a time array and
"warnings" (when there are any) says why consolidated metadata is ignored.
PATH may be a directory, s3:// or http(s)://: a location that cannot be
listed is read from its consolidated metadata, and its arrays' chunks are
found by asking for each key of the chunk grid.

Every stored chunk is decoded (several at a time), so checksums are verified
on the way. Chunks that are not stored count as the fill value. Only elements
inside the array's shape are counted: the padding of edge chunks is not.
For a sharded array a "chunk" is a shard (one stored object).

Minimum and maximum are shown as integers and as text: an ISO 8601 date at
the data type's unit for datetime64 (as np.datetime_as_string prints it, but
exact where NumPy's own output wraps around), or a count of the unit for
timedelta64 ("50 microseconds").

A CF time array (xarray's encoding: numbers with units "<unit> since
<date>") is decoded exactly as dt64 transcode decodes it, to the same
default unit (the CF unit when every value is exact in it, else ns; the CF
unit when the values overflow ns), and its fill value, minimum and maximum
are shown decoded; data_type is then the stored numeric type ("int64").
A CF duration (units "days", "hours", "minutes", "seconds",
"milliseconds", "microseconds" or "nanoseconds", as xarray reads them) is
shown the same way, decoded to timedelta64.
A model calendar's range is shown in its own calendar and, with
--convert-calendar, converted.

With --json the output is one JSON object with these members, always all of
them, in this order:

  path             the PATH argument
  format           2 or 3 (Zarr format)
  data_type        the Zarr v3 data_type object (also for v2 arrays)
  numpy            the NumPy dtype string with byte order, e.g. "<M8[10us]"
  byte_order       "little" or "big": how elements are stored
  shape            array shape (list of integers)
  chunk_shape      chunk (or shard) shape
  fill_value       integer; NaT is -9223372036854775808
  fill_value_text  the fill value as text (as min_text)
  fill_value_null  true for a v2 "fill_value": null: none defined, so missing
                   chunks read as NaT (fill_value is then NaT), also those
                   of a CF time array
  codecs           the codec chain: [{"name", "configuration"}], as in zarr.json
                   (v2 compressors shown as their v3 equivalent)
  chunks           {"grid": chunks per dimension, "total", "present", "missing"}
  stored_bytes     bytes of the stored chunks as they are on disk
  decoded_bytes    bytes of the stored chunks once decoded (full chunk size)
  elements         number of elements in the array (product of shape)
  nat              NaT elements, missing chunks included
  valid            elements that are not NaT (elements - nat)
  min, max         smallest and largest non-NaT value as integers (int64;
                   may exceed 2^53), null when there is none
  min_text,        min and max as text, null when there is none
  max_text
  cf               for a CF time array {"units" as written, "reference" (ISO
                   8601, proleptic Gregorian, UTC), "calendar", "stored"
                   (e.g. "float64"), "decoded_as" (e.g. "datetime64[ns]"),
                   "duration" (true for a CF duration, whose reference and
                   calendar are then "")}; null otherwise. For a model
                   calendar (noleap, all_leap, 360_day) or one --convert-calendar converts, also
                   "source_min_text" and "source_max_text" (the range in
                   its own calendar), "calendar_conversion" ("date" or
                   "year"; absent when not converted, and min and max are
                   then null) and "no_date" (dates the proleptic Gregorian
                   calendar lacks, counted in nat; inspect stores them as
                   NaT whatever --calendar-missing says)`,
		Example: `  dt64 inspect data/events.zarr
  dt64 inspect --json data/events.zarr | jq .nat`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			co, err := cal.options()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			var rep interface{ writeText(io.Writer) error }
			if isGroupDir(ctx, args[0]) {
				rep, err = inspectGroup(ctx, args[0], co)
			} else {
				rep, err = inspectArray(ctx, args[0], co, nil)
			}
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false) // "<M8[ns]", not "\u003cM8[ns]"
				return enc.Encode(rep)
			}
			return rep.writeText(out)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "write one JSON document (fields in the help above)")
	cal.add(cmd.Flags())
	return cmd
}

// inspectReport is the --json document; its members are documented in the
// command's help, which is the contract: add members, never rename them.
type inspectReport struct {
	Path          string          `json:"path"`
	Format        int             `json:"format"`
	DataType      json.RawMessage `json:"data_type"`
	NumPy         string          `json:"numpy"`
	ByteOrder     string          `json:"byte_order"`
	Shape         []int64         `json:"shape"`
	ChunkShape    []int64         `json:"chunk_shape"`
	FillValue     int64           `json:"fill_value"`
	FillValueText string          `json:"fill_value_text"`
	FillValueNull bool            `json:"fill_value_null"`
	Codecs        []codecJSON     `json:"codecs"`
	Chunks        chunkCounts     `json:"chunks"`
	StoredBytes   int64           `json:"stored_bytes"`
	DecodedBytes  int64           `json:"decoded_bytes"`
	Elements      int64           `json:"elements"`
	NaT           int64           `json:"nat"`
	Valid         int64           `json:"valid"`
	Min           *int64          `json:"min"`
	Max           *int64          `json:"max"`
	MinText       *string         `json:"min_text"`
	MaxText       *string         `json:"max_text"`
	CF            *inspectCF      `json:"cf"`

	codecText string
}

// inspectCF describes a CF time array (xarray's encoding).
type inspectCF struct {
	Units     string `json:"units"`
	Reference string `json:"reference"`
	Calendar  string `json:"calendar"`
	Stored    string `json:"stored"`
	// Unsigned: an _Unsigned attribute reads the array's integers (its
	// data type) as Stored, of the other signedness.
	Unsigned  bool   `json:"unsigned,omitempty"`
	DecodedAs string `json:"decoded_as"`
	Duration  bool   `json:"duration"`
	// A model calendar, or one converted by --convert-calendar: the
	// conversion ("" for none: min and max are then null), the range in
	// the source calendar, and the dates without a Gregorian one (NaT).
	Conversion    string  `json:"calendar_conversion,omitempty"`
	SourceMinText *string `json:"source_min_text,omitempty"`
	SourceMaxText *string `json:"source_max_text,omitempty"`
	NoDate        int64   `json:"no_date,omitempty"`
}

type chunkCounts struct {
	Grid    []int64 `json:"grid"`
	Total   int64   `json:"total"`
	Present int64   `json:"present"`
	Missing int64   `json:"missing"`
}

type codecJSON struct {
	Name          string         `json:"name"`
	Configuration map[string]any `json:"configuration,omitempty"`
}

// inspectArray describes the array in dir, read with attrs added to its
// attributes (the coordinate's units of CF bounds; nil for none).
func inspectArray(ctx context.Context, dir string, co cf.CalendarOptions, attrs map[string]json.RawMessage) (*inspectReport, error) {
	a, store, err := openArrayDir(ctx, dir, attrs)
	if err != nil {
		return nil, err
	}
	defer store.Close()
	files, err := a.Inventory(ctx)
	if err != nil {
		return nil, err
	}
	if len(files.NotValues) > 0 {
		return nil, fmt.Errorf("%w (dt64 validate %s lists every problem)", zarr.NotValueError(dir, files.NotValues[0]), dir)
	}
	meta := a.Metadata()
	d := a.DataType()
	cft, err := a.CFTime()
	if err != nil {
		return nil, err
	}
	var js json.RawMessage
	numpy, fill := "", a.FillValue()
	if cft != nil {
		numpy = a.Numeric().NumPy(a.ByteOrder())
		own := cft.Stored
		if cft.Unsigned.Kind != 0 {
			own = cft.Unsigned
		}
		js, _ = json.Marshal(own.String())
	} else {
		if js, err = d.MarshalJSON(); err != nil {
			return nil, err
		}
		numpy = d.NumPy(a.ByteOrder())
	}
	grid := a.Grid()
	elements := grid.NumElements()
	rep := &inspectReport{
		Path:          dir,
		Format:        a.Format(),
		DataType:      js,
		NumPy:         numpy,
		ByteOrder:     byteOrderName(a.ByteOrder()),
		Shape:         nonNilInts(a.Shape()),
		ChunkShape:    nonNilInts(a.ChunkShape()),
		FillValue:     fill,
		FillValueText: formatValueText(fill, d),
		FillValueNull: meta.FillNull,
		Chunks: chunkCounts{
			Grid:    nonNilInts(a.ChunkGrid()),
			Total:   a.NumChunks(),
			Present: int64(len(files.Chunks)),
			Missing: a.NumChunks() - int64(len(files.Chunks)),
		},
		StoredBytes:  files.StoredBytes,
		DecodedBytes: int64(len(files.Chunks)) * int64(a.ChunkLen()) * 8,
		Elements:     elements,
	}
	var texts []string
	for _, c := range meta.Codecs {
		j, t := describeCodec(c)
		rep.Codecs = append(rep.Codecs, j)
		texts = append(texts, t)
	}
	if rep.Codecs == nil {
		rep.Codecs = []codecJSON{}
	}
	rep.codecText = strings.Join(texts, " -> ")

	if cft == nil {
		if err := rep.valueStats(ctx, a, files, nil, d); err != nil {
			return nil, fmt.Errorf("%w (dt64 validate %s lists every problem)", err, dir)
		}
		return rep, nil
	}
	types := cfTypes(cft)
	for i, to := range types {
		var err error
		if cft.Calendar.IsModel() || co.Convert.Effective(cft.Calendar) != cf.ConvertNone {
			err = rep.calendarStats(ctx, a, files, cft, to, co)
		} else {
			var view *cfView
			if view, err = newCFView(a, cft, to, co); err != nil {
				return nil, err
			}
			err = rep.valueStats(ctx, a, files, view, to)
		}
		if err != nil && isOverflow(err) && i+1 < len(types) {
			continue // values beyond the default type's range: show them in the CF unit
		}
		if err != nil {
			return nil, fmt.Errorf("%w (dt64 validate %s lists every problem)", err, dir)
		}
		cfRep := &inspectCF{Units: cft.Units.Text, Reference: cf.FormatInstant(cft.Units.Reference), Calendar: cft.Calendar.String(), Stored: cft.Stored.String(), Unsigned: cft.Unsigned.Kind != 0, DecodedAs: to.String()}
		if rep.CF != nil { // calendarStats' part
			cfRep.Reference = cft.Calendar.FormatDate(cft.Units.Reference)
			cfRep.Conversion, cfRep.SourceMinText, cfRep.SourceMaxText, cfRep.NoDate = rep.CF.Conversion, rep.CF.SourceMinText, rep.CF.SourceMaxText, rep.CF.NoDate
		}
		if cft.Units.Duration {
			cfRep.Reference, cfRep.Calendar, cfRep.Duration = "", "", true
		}
		rep.CF = cfRep
		return rep, nil
	}
	return rep, nil
}

// valueStats sets the element statistics of rep from every stored chunk
// (padding excluded) and the fill value of the missing ones, the values
// of a CF array decoded by view to d.
func (rep *inspectReport) valueStats(ctx context.Context, a *zarr.Array, files *zarr.Inventory, view *cfView, d dtype.DataType) error {
	grid := a.Grid()
	elements := grid.NumElements()
	fill, err := rep.decodedFill(a, view)
	if err != nil {
		return err
	}
	// Statistics of the stored chunks, padding excluded, per worker then
	// merged: no locking in the hot path.
	type acc struct {
		elems, nat, valid int64
		min, max          int64
	}
	workers := a.StoredReaders(len(files.Chunks))
	accs := make([]acc, workers)
	for i := range accs {
		accs[i] = acc{min: math.MaxInt64, max: math.MinInt64}
	}
	errs := a.ReadStored(ctx, files.Chunks, workers, true, func(w int, c zarr.StoredChunk, raw []byte, order binary.ByteOrder) error {
		s := &accs[w]
		if view != nil {
			var err error
			if raw, err = view.decode(a, c.Coords, raw); err != nil {
				return err
			}
			order = dtype.NativeOrder()
		}
		return grid.ForEachInside(c.Coords, func(off, n int) error {
			run := raw[8*off : 8*(off+n)]
			lo, hi, valid, err := kernels.MinMax(run, order)
			if err != nil {
				return err
			}
			s.elems += int64(n)
			s.valid += int64(valid)
			s.nat += int64(n - valid)
			if valid > 0 {
				s.min = min(s.min, lo)
				s.max = max(s.max, hi)
			}
			return nil
		})
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	total := acc{min: math.MaxInt64, max: math.MinInt64}
	for _, s := range accs {
		total.elems += s.elems
		total.nat += s.nat
		total.valid += s.valid
		total.min = min(total.min, s.min)
		total.max = max(total.max, s.max)
	}
	// Elements of missing chunks (inside the shape) read as the fill value.
	if missing := elements - total.elems; missing > 0 {
		if fill == dtype.NaT {
			total.nat += missing
		} else {
			total.valid += missing
			total.min = min(total.min, fill)
			total.max = max(total.max, fill)
		}
	}
	rep.NaT, rep.Valid = total.nat, total.valid
	if total.valid > 0 {
		lo, hi := total.min, total.max
		loText, hiText := formatValueText(lo, d), formatValueText(hi, d)
		rep.Min, rep.Max, rep.MinText, rep.MaxText = &lo, &hi, &loText, &hiText
	}
	return nil
}

// decodedFill is what missing chunks read as: the fill value, decoded for
// a CF array (also set as the report's fill value).
func (rep *inspectReport) decodedFill(a *zarr.Array, view *cfView) (int64, error) {
	if view == nil {
		return a.FillValue(), nil
	}
	m := a.Metadata()
	if m.FillNull {
		// No fill value: missing chunks have no values, and converting
		// makes them NaT (never what zero bits decode to).
		rep.FillValue, rep.FillValueText = dtype.NaT, formatValueText(dtype.NaT, view.to)
		return dtype.NaT, nil
	}
	buf := make([]byte, 8)
	z := copy(buf, m.Numeric.Element(m.NumericFill, a.ByteOrder()))
	if _, err := view.dec.Run(buf, buf[:z], nil); err != nil {
		return 0, err
	}
	v := int64(dtype.NativeOrder().Uint64(buf))
	rep.FillValue, rep.FillValueText = v, formatValueText(v, view.to)
	return v, nil
}

func (r *inspectReport) writeText(w io.Writer) error {
	var typeLine string
	if r.CF != nil {
		readAs := ""
		if r.CF.Unsigned {
			readAs = fmt.Sprintf(" read as %s (_Unsigned)", r.CF.Stored)
		}
		decoded := "decoded as " + r.CF.DecodedAs
		if r.CF.Conversion == "" && r.CF.SourceMinText != nil {
			decoded = "decodes to " + r.CF.DecodedAs + " once converted" // a model calendar, not converted
		}
		typeLine = fmt.Sprintf("%s  (NumPy %s)%s, CF time: %s, calendar %s; %s", r.DataType, r.NumPy, readAs, r.CF.Units, r.CF.Calendar, decoded)
		if r.CF.Duration {
			typeLine = fmt.Sprintf("%s  (NumPy %s)%s, CF duration: %s; decoded as %s", r.DataType, r.NumPy, readAs, r.CF.Units, r.CF.DecodedAs)
		}
	} else {
		var dt dtype.DataType
		if err := dt.UnmarshalJSON(r.DataType); err != nil {
			return err
		}
		typeLine = fmt.Sprintf("%s  (NumPy %s, %s)", r.DataType, r.NumPy, dt)
	}
	fill := fmt.Sprint(r.FillValue)
	if r.FillValueText != fill {
		fill += " (" + r.FillValueText + ")"
	}
	if r.FillValueNull {
		fill = "null (none defined; missing chunks read as NaT when converted)"
	}
	lines := [][2]string{
		{"path", r.Path},
		{"format", fmt.Sprintf("Zarr v%d", r.Format)},
		{"data type", typeLine},
		{"byte order", r.ByteOrder},
		{"shape", formatInts(r.Shape)},
		{"chunk shape", formatInts(r.ChunkShape)},
		{"fill value", fill},
		{"codecs", r.codecText},
		{"chunks", fmt.Sprintf("%d in grid %s: %d present, %d missing", r.Chunks.Total, formatInts(r.Chunks.Grid), r.Chunks.Present, r.Chunks.Missing)},
		{"stored", fmt.Sprintf("%d bytes", r.StoredBytes)},
		{"decoded", fmt.Sprintf("%d bytes%s", r.DecodedBytes, storedRatio(r.DecodedBytes, r.StoredBytes))},
		{"elements", fmt.Sprintf("%d: %d valid, %d NaT", r.Elements, r.Valid, r.NaT)},
	}
	if r.CF != nil && r.CF.SourceMinText != nil {
		lines = append(lines, [2]string{"in calendar", fmt.Sprintf("%s .. %s (%s)", *r.CF.SourceMinText, *r.CF.SourceMaxText, r.CF.Calendar)})
		switch {
		case r.CF.Conversion == "":
			lines = append(lines, [2]string{"converted", "no (a model calendar: --convert-calendar date, or year for 360_day, converts it)"})
		default:
			lines = append(lines, [2]string{"converted", fmt.Sprintf("by %s; %d dates the proleptic Gregorian calendar lacks (NaT)", r.CF.Conversion, r.CF.NoDate)})
		}
	}
	if r.Min != nil {
		lines = append(lines,
			[2]string{"min", fmt.Sprintf("%d  %s", *r.Min, *r.MinText)},
			[2]string{"max", fmt.Sprintf("%d  %s", *r.Max, *r.MaxText)})
	} else if r.CF != nil && r.CF.SourceMinText != nil && r.CF.Conversion == "" {
		lines = append(lines, [2]string{"min, max", "none (not converted)"})
	} else {
		lines = append(lines, [2]string{"min, max", "none (no valid values)"})
	}
	for _, l := range lines {
		if _, err := fmt.Fprintf(w, "%-12s %s\n", l[0]+":", l[1]); err != nil {
			return err
		}
	}
	return nil
}

func storedRatio(decoded, stored int64) string {
	if stored == 0 || decoded == 0 {
		return ""
	}
	return fmt.Sprintf(" (%.2fx the stored size)", float64(decoded)/float64(stored))
}

func formatInts(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

func nonNilInts(v []int64) []int64 {
	if v == nil {
		return []int64{}
	}
	return v
}

// formatValueText shows a value of d: ISO 8601 for datetimes, a count of the unit
// for timedeltas.
func formatValueText(v int64, d dtype.DataType) string {
	if d.Unit == dtype.Generic && v != dtype.NaT {
		// NumPy refuses to print one ("Cannot convert a NumPy datetime
		// value other than NaT with generic units"); FormatISO's "NaT"
		// would read as a missing value.
		return "(no date: generic unit)"
	}
	if d.Kind == dtype.Timedelta {
		return dtype.FormatTimedelta(v, d)
	}
	return dtype.FormatISO(v, d)
}

func byteOrderName(o binary.ByteOrder) string {
	switch o {
	case binary.LittleEndian:
		return "little"
	case binary.BigEndian:
		return "big"
	}
	return "unknown"
}

// describeCodec returns a codec as its zarr.json object and as one line of
// text.
func describeCodec(c zarr.Codec) (codecJSON, string) {
	j := codecJSON{Name: c.Name()}
	text := func() string {
		if len(j.Configuration) == 0 {
			return j.Name
		}
		keys := make([]string, 0, len(j.Configuration))
		for k := range j.Configuration {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = fmt.Sprintf("%s=%v", k, j.Configuration[k])
		}
		return j.Name + "(" + strings.Join(parts, ", ") + ")"
	}
	switch c := c.(type) {
	case zarr.BytesCodec:
		j.Configuration = map[string]any{"endian": byteOrderName(c.Endian)}
	case zarr.ZstdCodec:
		j.Configuration = map[string]any{"level": c.Level, "checksum": c.Checksum}
	case zarr.GzipCodec:
		j.Configuration = map[string]any{"level": c.Level}
	case zarr.ZlibCodec:
		j.Configuration = map[string]any{"level": c.Level}
	case zarr.BloscCodec:
		typesize := c.TypeSize
		if typesize == 0 {
			typesize = 8
		}
		j.Configuration = map[string]any{"cname": c.CName, "clevel": c.CLevel, "shuffle": c.Shuffle,
			"typesize": typesize, "blocksize": c.BlockSize}
	case zarr.TransposeCodec:
		j.Configuration = map[string]any{"order": c.Order}
	case zarr.ShardingCodec:
		inner, innerText := describeCodecs(c.Codecs)
		index, indexText := describeCodecs(c.IndexCodecs)
		loc := c.IndexLocation
		if loc == "" {
			loc = zarr.IndexEnd
		}
		j.Configuration = map[string]any{
			"chunk_shape":    nonNilInts(c.ChunkShape),
			"codecs":         inner,
			"index_codecs":   index,
			"index_location": string(loc),
		}
		return j, fmt.Sprintf("sharding_indexed(chunk_shape=%s, codecs=[%s], index_codecs=[%s], index_location=%s)",
			formatInts(c.ChunkShape), innerText, indexText, loc)
	}
	return j, text()
}

func describeCodecs(cs []zarr.Codec) ([]codecJSON, string) {
	js := []codecJSON{}
	var texts []string
	for _, c := range cs {
		j, t := describeCodec(c)
		js = append(js, j)
		texts = append(texts, t)
	}
	return js, strings.Join(texts, " -> ")
}

// ---- shared by inspect and validate ----

// openArrayDir opens the array in directory dir, with attrs (nil for
// none) added to its attributes as read (zarr.Array.WithAttributes). The
// caller closes the store.
func openArrayDir(ctx context.Context, dir string, attrs map[string]json.RawMessage) (*zarr.Array, arrayStore, error) {
	store, err := openArrayStore(ctx, dir) // a directory or an object store (stores.go)
	if err != nil {
		return nil, nil, err
	}
	a, err := zarr.Open(ctx, store)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			if u, uerr := transcode.FindUnfinished(ctx, store); uerr == nil && u != nil {
				store.Close()
				return nil, nil, &unfinishedError{dir, u, err}
			}
			store.Close()
			return nil, nil, err // names the store and what it lacks
		}
		store.Close()
		return nil, nil, err
	}
	if attrs != nil {
		if a, err = a.WithAttributes(attrs); err != nil {
			store.Close()
			return nil, nil, err
		}
	}
	if !a.IsTime() {
		t, err := a.CFTime()
		if err != nil {
			store.Close()
			return nil, nil, fmt.Errorf("%s: a Zarr array of %s with %w", dir, a.Numeric(), err)
		}
		if t == nil {
			store.Close()
			return nil, nil, fmt.Errorf("%s: a Zarr array of %s, not of datetime64 or timedelta64 values nor CF time (units \"<unit> since <date>\") or a CF duration (units \"hours\", …)", dir, a.Numeric())
		}
	}
	return a, store, nil
}
