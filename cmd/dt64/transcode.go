package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

func init() { subcommands = append(subcommands, newTranscodeCmd) }

// transcodeStores lets tests wrap the stores (for example to slow writes
// down so a run can be killed mid-way). nil in the real command.
var transcodeStores func(src, dst storage.Store) (storage.Store, storage.Store)

// leaseInterval is how often a run renews its lease on the destination
// (0: the library's default); the tests shorten it.
var leaseInterval time.Duration

// progressEvery is how often progress lines are printed when stderr is not
// a terminal.
var progressEvery = 5 * time.Second

type transcodeFlags struct {
	unit, endian, codec, shard, part, overflow string
	scale                                      int64
	format, workers, inFlight                  int
	crc32c, finalize, exact, verify            bool
	resume, overwrite, quiet, noSync           bool
	cf                                         bool
	cfUnits                                    string
	cfFloat                                    string
	calendar                                   calendarFlags
	store                                      storeFlags // a group SRC
}

func newTranscodeCmd() *cobra.Command {
	var f transcodeFlags
	cmd := &cobra.Command{
		Use:   "transcode SRC DST",
		Short: "Re-encode a Zarr array of datetime64/timedelta64 values",
		Long: `Re-encode the Zarr array SRC (v2 or v3) into a new array DST: another unit
or scale, byte order, compressor, sharding or Zarr format. Every value is
converted exactly (NaT stays NaT, the result is floored as NumPy does) in one
pass over each decoded chunk.

Nothing is lost: chunks are written atomically and durably (fsync) and the
metadata last, so DST looks like an array only once it is complete, also
after a power loss. An interrupted run (killed, out of disk, an overflow, a
machine crash) continues with --resume and ends byte for byte as an
uninterrupted one would; a resume that finds a source chunk rewritten since
the run read it stops, naming the chunk. An existing DST is refused unless
--resume or --overwrite is given, and --overwrite deletes only what is
provably dt64's: an array dt64 reads and its chunks, never a group or other
files. SRC is only read. --no-sync skips the fsyncs, for scratch output.

--part I/N does a deterministic share (0 <= I < N) of the chunks, so N
processes or machines can share one array; the last part to finish writes
the metadata (or run --finalize SRC DST with the same options once all are
done). With --part, a DST holding the same plan is joined, not refused,
also by parts of another N (a run re-partitioned: each part skips the
chunks already done, and the metadata is written once all N parts of
one N are).

--overflow says what happens to a value that does not fit in 64 bits after
conversion: error (stop, naming the chunk, the element and the value; the
default), nat (store NaT) or clamp (saturate); both of the latter are
counted. The fill value converts the same way, since the chunks the source
does not store hold it. --exact makes any loss of precision an error.

Options that are not given keep the source's setting (the unit, scale,
byte order, compressor, sharding and format). --shard-chunks N,... makes
each destination chunk a shard of N source chunks per dimension;
--shard-chunks none removes sharding. A v2 zlib compressor becomes gzip in
v3; v2 has no crc32c or sharding.

CF time (xarray's encoding) is read as time: a numeric SRC (int8…int64,
uint8…uint64, float32, float64) whose units attribute reads "<unit> since
<date>" is decoded (value = reference + v × unit): integers exactly,
floored to the destination unit; a float, by default (--cf-float
shortest), as the coarsest instant whose nearest float it is, rounded half
to even to the unit (the float64 nearest 1/24 in "days since" is
01:00:00), or with --cf-float exact as the exact binary value it is,
floored (00:59:59.999999999). _Unsigned "true" reads signed integers as
unsigned, as xarray does. DST is a native datetime64 array (v3
numpy.datetime64, or <M8[U] with --format 2) without the CF attributes
(units, calendar, _FillValue, missing_value, scale_factor, add_offset,
_Unsigned); NaN, missing values and, in int64, -9223372036854775808
(NaT's bits, which xarray writes for NaT) become NaT. Without --unit the
unit is the CF one when every value is exact in it (integers, no
fractional scale_factor or add_offset, a reference that is a whole number
of the unit since 1970-01-01), else ns. A CF duration (units exactly "days", "hours",
"minutes", "seconds", "milliseconds", "microseconds" or "nanoseconds", the
words xarray decodes) becomes timedelta64 by the same rules, and --cf
writes timedelta64 back as one (units "hours" etc., no calendar;
--cf-units "seconds").

` + calendarHelp + ` A converted DST records the source's
calendar and the conversion in its attributes source_calendar and
calendar_conversion.

--cf writes DST CF-encoded instead, for readers without the datetime64
type: int64 counts, units "<U> since 1970-01-01 00:00:00" (U: --unit, else
the source's; weeks as days, ps/fs/as as ns), calendar
"proleptic_gregorian", NaT stored as -9223372036854775808 and declared as
the fill value and _FillValue. --cf-units "seconds since 2000-01-01"
chooses the units (implies --cf). xarray masks int64 times through float64:
when the values written reach beyond what float64 holds exactly, dt64 says
so after the run.

When SRC is a group (an xarray dataset), the whole hierarchy is one run:
its time arrays are converted by these options (CF bounds without units
of their own, time_bnds as CMIP data has them, with their coordinate's
units and calendar, as xarray reads them), every other array is
carried over value for value (chunk bytes copied; with --format 3 from v2
its metadata translated as zarr-python 3.1's migration does, with
--format 2 from v3 back to v2, chunks renamed to v2 keys, a sharded or
crc32c array refused; with --recode-all re-encoded with --codec), groups and attributes are kept, and
consolidated metadata (when SRC has it, or with --consolidate) is written
last. --include and --exclude select arrays by a glob on their path (a "**"
segment matches any number of levels: 'sub/**', '**/time').`,
		Example: `  dt64 transcode legacy.zarr new.zarr --unit us --endian little --codec zstd:3 --format 3
  dt64 transcode a.zarr b.zarr --codec zstd --crc32c --shard-chunks 16 --verify
  dt64 transcode a.zarr b.zarr --unit s --overflow nat --resume
  # four machines, one array (Kubernetes Indexed Job, Slurm array, xargs -P):
  dt64 transcode --part $JOB_COMPLETION_INDEX/4 --unit us s3://bucket/a.zarr s3://bucket/b.zarr
  dt64 transcode --finalize --unit us s3://bucket/a.zarr s3://bucket/b.zarr
  # CF time written by xarray to datetime64, and back:
  dt64 transcode era5.zarr/time time.zarr --unit ns --format 3
  dt64 transcode time.zarr cf.zarr --cf-units "seconds since 2000-01-01" --format 2
  # a whole xarray dataset, to Zarr v3, its datetime64 arrays in us:
  dt64 transcode ds.zarr ds3.zarr --format 3 --unit us --exclude 'scratch/*'`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := f.options(cmd)
			if err != nil {
				return err
			}
			src, dst, err := openTranscodeStores(cmd.Context(), args[0], args[1], f.noSync)
			if err != nil {
				return err
			}
			if d, ok := dst.(*storage.Dir); ok {
				defer d.Close() // waits for the flushes still in flight (FlushAhead)
			}
			srcName, dstName := storeLabel(src, args[0]), storeLabel(dst, args[1])
			if transcodeStores != nil {
				src, dst = transcodeStores(src, dst)
			}
			return runTranscodeCmd(cmd, src, dst, srcName, dstName, o, &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.unit, "unit", "", "destination unit (Y M W D h m s ms us μs ns ps fs as generic; case-sensitive); default: the source's")
	fl.Int64Var(&f.scale, "scale", 0, "destination scale factor (values count scale×unit); default 1 with --unit, else the source's")
	fl.StringVar(&f.endian, "endian", "", "destination byte order: little or big; default: the source's")
	fl.StringVar(&f.codec, "codec", "", "compressor: zstd[:LEVEL], gzip[:LEVEL], blosc[:CNAME[:LEVEL[:SHUFFLE]]] or none; default: the source's")
	fl.BoolVar(&f.crc32c, "crc32c", false, "append a crc32c checksum to every chunk (v3)")
	fl.StringVar(&f.shard, "shard-chunks", "", "shard with N,... source chunks per shard per dimension, or none to remove sharding")
	fl.IntVar(&f.format, "format", 0, "destination Zarr format, 2 or 3; default: the source's")
	fl.IntVar(&f.workers, "workers", 0, "chunks converted at once (default: the number of CPUs)")
	fl.IntVar(&f.inFlight, "in-flight", 0, "chunks in progress at once, including those waiting for the store: the memory bound's multiplier (default: --workers, twice that when a store is remote; fewer also converts fewer at once)")
	fl.StringVar(&f.part, "part", "", "do part I of N (I/N, 0 <= I < N) of the chunks")
	fl.BoolVar(&f.finalize, "finalize", false, "write the metadata of a partitioned run whose parts are all done")
	fl.StringVar(&f.overflow, "overflow", "error", "overflow policy: error, nat or clamp")
	fl.BoolVar(&f.exact, "exact", false, "fail on any loss of precision")
	fl.BoolVar(&f.verify, "verify", false, "afterwards, re-read every destination chunk (with --finalize: of the whole array) and compare it with an independent conversion of the source")
	fl.BoolVar(&f.noSync, "no-sync", false, "do not fsync: faster, for scratch output; after a power loss or OS crash the destination may be incomplete or torn, whatever --resume says")
	fl.BoolVar(&f.resume, "resume", false, "continue an interrupted run of the same plan in DST")
	fl.BoolVar(&f.overwrite, "overwrite", false, "replace the array (or interrupted run) in DST")
	fl.BoolVar(&f.cf, "cf", false, `write DST CF-encoded (int64 "<unit> since 1970-01-01 00:00:00", proleptic_gregorian, _FillValue for NaT), as xarray reads it`)
	fl.StringVar(&f.cfUnits, "cf-units", "", `the CF units of DST, e.g. "seconds since 2000-01-01" (implies --cf)`)
	fl.StringVar(&f.cfFloat, "cf-float", "shortest", "how a CF source's floats decode: shortest (the coarsest instant each float stands for, rounded to the unit) or exact (the binary value, floored)")
	f.calendar.add(fl)
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print only the summary")
	addStoreFlags(fl, &f.store)
	return cmd
}

func (f *transcodeFlags) options(cmd *cobra.Command) (transcode.Options, error) {
	var o transcode.Options
	if f.unit != "" {
		u, err := dtype.ParseUnit(f.unit)
		if err != nil {
			return o, usageError{fmt.Errorf("--unit: %w", err)}
		}
		o.Unit = u
	}
	if cmd.Flags().Changed("scale") {
		if f.scale < 1 || f.scale > dtype.MaxScale {
			return o, usageError{fmt.Errorf("--scale %d: want 1..%d", f.scale, dtype.MaxScale)}
		}
		o.Scale = f.scale
	}
	switch strings.ToLower(f.endian) {
	case "":
	case "little", "le", "<":
		o.Endian = binary.LittleEndian
	case "big", "be", ">":
		o.Endian = binary.BigEndian
	default:
		return o, usageError{fmt.Errorf("--endian %q: want little or big", f.endian)}
	}
	if f.codec != "" {
		c, err := transcode.ParseCompression(f.codec)
		if err != nil {
			return o, usageError{fmt.Errorf("--codec: %w", err)}
		}
		o.Compression = &c
	}
	o.CRC32C = f.crc32c
	if f.shard != "" {
		s, err := transcode.ParseSharding(f.shard)
		if err != nil {
			return o, usageError{fmt.Errorf("--shard-chunks: %w", err)}
		}
		o.Sharding = s
	}
	if f.format != 0 && f.format != 2 && f.format != 3 {
		return o, usageError{fmt.Errorf("--format %d: want 2 or 3", f.format)}
	}
	o.Format = f.format
	if f.workers < 0 || f.inFlight < 0 {
		return o, usageError{errors.New("--workers and --in-flight must not be negative")}
	}
	o.Workers, o.InFlight = f.workers, f.inFlight
	if f.part != "" {
		p, err := transcode.ParsePart(f.part)
		if err != nil {
			return o, usageError{fmt.Errorf("--part: %w", err)}
		}
		o.Part = p
	}
	pol, err := dtype.ParseOverflowPolicy(f.overflow)
	if err != nil {
		return o, usageError{fmt.Errorf("--overflow: %w", err)}
	}
	o.Overflow, o.Exact = pol, f.exact
	if f.resume && f.overwrite {
		return o, usageError{errors.New("--resume and --overwrite exclude each other")}
	}
	if f.overwrite && o.Part.Count > 1 {
		return o, usageError{errors.New("--overwrite cannot be combined with --part: one part would delete the others' work")}
	}
	if f.finalize && (f.part != "" || f.overwrite) {
		return o, usageError{errors.New("--finalize takes neither --part nor --overwrite")}
	}
	o.Resume, o.Overwrite = f.resume, f.overwrite
	o.LeaseInterval = leaseInterval
	if f.cfUnits != "" && (f.unit != "" || cmd.Flags().Changed("scale")) {
		return o, usageError{errors.New("--cf-units sets the unit of a CF destination: leave out --unit and --scale")}
	}
	o.CF, o.CFUnits = f.cf || f.cfUnits != "", f.cfUnits
	rule, err := cf.ParseFloatRule(f.cfFloat)
	if err != nil {
		return o, usageError{fmt.Errorf("--cf-float: %w", err)}
	}
	o.CFFloat = rule
	if o.Calendar, err = f.calendar.options(); err != nil {
		return o, err
	}
	return o, nil
}

// flushAhead is how many destination chunks may be flushing to disk and
// renaming while the workers go on: enough to keep a disk's queue busy,
// few enough that a failed flush stops the run soon after.
const flushAhead = 16

func runTranscodeCmd(cmd *cobra.Command, src, dst storage.Store, srcName, dstName string, o transcode.Options, f *transcodeFlags) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	if transcode.IsGroup(ctx, src) {
		return runStoreTranscodeCmd(cmd, ctx, src, dst, srcName, dstName, o, f)
	}
	if err := refuseStoreFlags(cmd, srcName); err != nil {
		return err
	}
	errw := cmd.ErrOrStderr()
	t, err := transcode.New(ctx, src, dst, o)
	if err != nil {
		return err
	}
	p := t.Plan()
	if !f.quiet {
		printTranscodePlan(errw, p, srcName, dstName)
	}
	var sum transcode.Summary
	if f.finalize {
		sum, err = t.Finalize(ctx)
		err = finalizeRefused(err)
	} else {
		sum, err = withTranscodeProgress(cmd, "transcode", f.quiet, t.Progress, func() (transcode.Summary, error) { return t.Run(ctx) })
	}
	if err != nil {
		return err
	}
	printTranscodeSummary(cmd.OutOrStdout(), sum)
	if w := xarrayWarning(p, sum); w != "" {
		fmt.Fprintf(errw, "warning: %s\n", w)
	}
	if !sum.Complete || o.Part.Count > 1 && !sum.AlreadyComplete {
		fmt.Fprintln(cmd.OutOrStdout(), partsLine(o.Part.String(), sum))
	}
	if f.verify {
		// Without --part (and always with --finalize) the Transcoder's
		// part is the whole array.
		start := time.Now()
		_, err := withTranscodeProgress(cmd, "verify", f.quiet, t.Progress, func() (transcode.Summary, error) { return transcode.Summary{}, t.Verify(ctx) })
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "verified: %d work units: every destination chunk equals a fresh conversion of the source (%s)\n", p.EndUnit-p.FirstUnit, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// withProgress runs fn while showing progress on stderr: a bar on a
// terminal, a plain line every progressEvery otherwise.
func withTranscodeProgress(cmd *cobra.Command, what string, quiet bool, prog func() transcode.Progress, fn func() (transcode.Summary, error)) (transcode.Summary, error) {
	setProgress(progressUnits[what], prog) // for the line an interrupt prints
	if quiet {
		return fn()
	}
	errw := cmd.ErrOrStderr()
	done := make(chan struct{})
	stopped := make(chan struct{})
	onTerminal := false
	if f, ok := errw.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		onTerminal = true
	}
	start := time.Now()
	go func() {
		defer close(stopped)
		if onTerminal {
			bar := progressbar.NewOptions64(max(prog().Units, 1),
				progressbar.OptionSetWriter(errw), progressbar.OptionSetDescription(what),
				progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true),
				progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
			tick := time.NewTicker(200 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-done:
					_ = bar.Clear()
					return
				case <-tick.C:
					_ = bar.Set64(prog().UnitsDone)
				}
			}
		}
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				pr := prog()
				el := time.Since(start)
				fmt.Fprintf(errw, "%s: %d/%s, %s, read %s, wrote %s, %s, %.2f GB/s\n", what,
					pr.UnitsDone, count(pr.Units, "unit"), count(pr.Elements, "element"), transcodeBytes(pr.BytesRead), transcodeBytes(pr.BytesWritten),
					el.Round(time.Second), float64(pr.Elements*8)/el.Seconds()/1e9)
			}
		}
	}()
	defer func() { // also when fn panics: the progress stops
		close(done)
		<-stopped
	}()
	return fn()
}

func printTranscodePlan(w io.Writer, p transcode.Plan, srcName, dstName string) {
	fmt.Fprintf(w, "source:      %s  %s, v%d, chunks %v, %s\n", srcName, planType(p.Source, p.SourceOrder), p.Source.Format, p.Source.ChunkShape, transcodeCodecs(p.Source.Codecs))
	fmt.Fprintf(w, "destination: %s  %s, v%d, chunks %v, %s\n", dstName, planType(p.Destination, p.DestinationOrder), p.Destination.Format, p.Destination.ChunkShape, transcodeCodecs(p.Destination.Codecs))
	part := ""
	switch {
	case p.EndUnit == p.FirstUnit:
		part = ", this part: no units (more parts than units)"
	case p.EndUnit-p.FirstUnit != p.Units:
		part = fmt.Sprintf(", this part: units %d..%d", p.FirstUnit, p.EndUnit-1)
	}
	what := p.Conversion.String()
	if p.CF != "" {
		what = p.CF
	}
	fmt.Fprintf(w, "plan:        %s; %s of %v%s; %s, %d in flight, buffers at most %s (plus ~20 MiB for the program)\n",
		what, count(p.Units, "work unit"), p.UnitShape, part, count(p.Workers, "worker"), p.InFlight, transcodeBytes(p.MemoryBound))
	for _, n := range p.Notes {
		fmt.Fprintf(w, "note:        %s\n", n)
	}
}

// planType is an array's data type in NumPy's spelling.
func planType(m zarr.Metadata, order binary.ByteOrder) string {
	if m.IsTime() {
		return m.DataType.NumPy(order)
	}
	return m.Numeric.NumPy(order)
}

// codecString names a codec chain briefly: "gzip:1", "zstd:3+crc32c",
// "sharding[64](zstd:3)".
func transcodeCodecs(cs []zarr.Codec) string {
	var parts []string
	for _, c := range cs {
		switch c := c.(type) {
		case zarr.BytesCodec:
		case zarr.ZstdCodec:
			parts = append(parts, "zstd:"+strconv.Itoa(c.Level))
		case zarr.GzipCodec:
			parts = append(parts, "gzip:"+strconv.Itoa(c.Level))
		case zarr.ZlibCodec:
			parts = append(parts, "zlib:"+strconv.Itoa(c.Level))
		case zarr.ShardingCodec:
			parts = append(parts, fmt.Sprintf("sharding(inner chunks %v, %s)", c.ChunkShape, transcodeCodecs(c.Codecs)))
		default:
			parts = append(parts, c.Name())
		}
	}
	if len(parts) == 0 {
		return "uncompressed"
	}
	return strings.Join(parts, "+")
}

// alreadyComplete is what a run finding its destination complete says. A
// complete destination keeps no record of the source (the state that
// catches a changed source chunk between a kill and a resume is removed
// at the end), so the source is not read again unless --verify asks.
const alreadyComplete = "destination already complete: nothing to do (the source is not read again: --verify compares every chunk with it)"

func printTranscodeSummary(w io.Writer, s transcode.Summary) {
	if s.AlreadyComplete {
		fmt.Fprintln(w, alreadyComplete)
		return
	}
	decoded := float64(s.Elements * 8)
	ratio := func(n int64) string {
		if n == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", decoded/float64(n))
	}
	compression := "compression " + ratio(s.BytesRead) + " -> " + ratio(s.BytesWritten)
	if s.Resumed > 0 {
		// A resumed run's elements include the units it skipped, its
		// bytes do not: a ratio of the two would mean nothing.
		compression = "compression not known for a resumed run"
	}
	resumed := ""
	if s.Resumed > 0 {
		resumed = fmt.Sprintf(" (%s already done, skipped)", count(s.Resumed, "unit"))
	}
	secs := s.Elapsed.Seconds()
	gbps := 0.0
	if secs > 0 {
		gbps = decoded / secs / 1e9
	}
	fmt.Fprintf(w, "summary: %s (%d stored, %d all fill)%s, %s, NaT %d%s, overflowed %d, lossy %d; read %s, wrote %s, %s; %s, %.2f GB/s\n",
		count(s.Chunks, "chunk"), s.Stored, s.Chunks-s.Stored, resumed, count(s.Elements, "element"), s.NaT, noDateText(s.NoDate), s.Overflowed, s.Lossy,
		transcodeBytes(s.BytesRead), transcodeBytes(s.BytesWritten), compression,
		s.Elapsed.Round(time.Millisecond), gbps)
	if s.Unfilled > 0 {
		fmt.Fprintf(w, "note:        %s\n", unfilledText(s.Unfilled))
	}
}

// unfilledText says what became of the elements of chunks that a CF
// source whose fill value is null does not store.
func unfilledText(n int64) string {
	return fmt.Sprintf("%s of chunks the source does not store became NaT: its fill value is null, so they have no value (--exact refuses such a source)", count(n, "element"))
}

func transcodeBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// partsLine is what a part says of the others: that the destination is
// complete (this part wrote the metadata, or found it written by another
// that finished first), or who writes it and what to do if it never
// will.
func partsLine(part string, sum transcode.Summary) string {
	if sum.Complete {
		return fmt.Sprintf("part %s done; all %d parts finished: the metadata is written, the destination is complete", part, sum.Parts)
	}
	if sum.Finalizer != "" && sum.PartsDone == sum.Parts {
		who := sum.Finalizer
		if who != "another part" {
			who = "part " + who
		}
		return fmt.Sprintf("part %s done; all %d parts finished: %s is writing the metadata (if it died, run with --finalize)", part, sum.Parts, who)
	}
	return fmt.Sprintf("part %s done; %d of %d parts finished: the last one writes the metadata (or run with --finalize)", part, sum.PartsDone, sum.Parts)
}
