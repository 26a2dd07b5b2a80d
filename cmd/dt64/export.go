package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/internal/sysmem"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarrow"
)

func init() { subcommands = append(subcommands, newExportCmd) }

type exportFlags struct {
	unit, dim, compression, overflow string
	exact, noSync, quiet, overwrite  bool
	maskAndScale                     bool
	rows, rowGroup                   int64
	workers                          int
	calendar                         calendarFlags
	layoutFlags
}

func newExportCmd() *cobra.Command {
	var f exportFlags
	cmd := &cobra.Command{
		Use:   "export SRC OUT.parquet|OUT.arrow",
		Short: "Write a time array or a group (gridded ones with --layout long) as Parquet or an Arrow IPC file",
		Long: `export writes Zarr data for analytics engines (DuckDB, Polars, Spark,
DataFusion, pandas): a Parquet file (OUT ending in .parquet) or an Arrow
IPC file (.arrow, .arrows or .feather; the file format, not the stream).

SRC is a time array, giving one column named after it (an N-D array is
flattened in C order), or a group, giving every 1-D array along --dim
(default: the dimension of its time coordinate) with the arrays' paths as
column names. With --layout long a group gives one row per element of its
gridded variables (--vars, default every array whose dimensions include
the time coordinate's and all have coordinate arrays), a column per
dimension coordinate first, in the row order of xarray's
ds[vars].to_dataframe().reset_index() (C order of the variables; a whole
dataset's to_dataframe() may order its dimensions otherwise). datetime64 arrays become timestamp columns (no time zone),
timedelta64 arrays duration columns, in --unit (default: the coarsest of
s, ms, us, ns in which every value of the data type is exact, so ns for
CF floats, which may fall anywhere; give --unit for dates before 1677 or
after 2262); NaT becomes null. Parquet
has no duration type: a duration column is INT64 counts there, its unit
kept in the Arrow schema stored with the file, which Arrow's readers
use and DuckDB does not (it reads BIGINT); see docs/engines.md. Their
values are floored to the unit as NumPy does (Arrow's own casts truncate
toward zero). A CF time array decodes as transcode's default decodes it:
integers floored to the unit, floats to the coarsest instant each stands
for, rounded half to even to the unit. Numeric arrays become columns of
their type, holding the stored numbers: packed ones (scale_factor,
add_offset), missing values and xarray's bool encoding are not decoded,
and a note names each such column. --mask-and-scale decodes them as
xarray does (its decode_cf mask_and_scale, the default of
xarray.open_zarr): _Unsigned, then _FillValue, missing_value and the
Zarr fill value (unless a v2 null) as missing, then scale_factor and
add_offset in the float type xarray picks, and a "dtype" attribute of
"bool". The values are xarray's; a missing value (xarray's NaN) is null,
a float NaN too, and an integer column masked but not scaled stays
integers. Like xarray it masks a Zarr fill value of 0 where zarr-python
wrote one by default. A CF time array in a model calendar needs --convert-calendar
(see transcode --help); a converted column's field metadata records
source_calendar and calendar_conversion.

Parquet is zstd-compressed, in row groups of --row-group rows, timestamps
annotated with their unit. Arrow IPC is uncompressed unless
--compression zstd|lz4 (some readers, apache-arrow for JavaScript among
them, cannot read compressed batches).

--workers batches are read ahead, and as many Parquet row groups (or
compressed IPC buffers) encoded at once; the file is the same for any
--workers. Memory is bounded by a few batches of --rows rows and the
row groups in flight: the plan line states the bound. OUT appears only when
complete: it is written under a temporary name, flushed to disk and
renamed (--no-sync skips the flush). An existing OUT is refused unless
--overwrite; the temporary file of an export that was killed is removed
by the next export to the same OUT.`,
		Example: `  dt64 export era5.zarr era5.parquet --unit us
  dt64 export ds.zarr ds.arrow --dim time
  dt64 export era5.zarr era5-long.parquet --layout long --vars t2m,tp
  duckdb -c "SELECT min(time), max(time), count(*) FROM 'era5.parquet'"`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runExport(cmd, args[0], args[1], &f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.unit, "unit", "", "time unit of the columns: s, ms, us or ns (default: the coarsest exact for the data type)")
	fl.StringVar(&f.dim, "dim", "", "for a group: the dimension the columns run along (default: the time coordinate's)")
	fl.StringVar(&f.compression, "compression", "", "Arrow IPC only: zstd or lz4 (default: none)")
	fl.StringVar(&f.overflow, "overflow", "error", "a value the unit cannot hold: error, nat (null) or clamp")
	f.calendar.add(fl)
	fl.BoolVar(&f.exact, "exact", false, "fail on any value that loses a remainder in the unit (floored, or a CF float rounded)")
	fl.Int64Var(&f.rows, "rows", 0, "rows per record batch (the memory bound; an N-D array's batches take whole indices of its first dimension, at least one); default: 1 Mi, or with --layout long as many as make about 8 MiB")
	fl.Int64Var(&f.rowGroup, "row-group", zarrow.DefaultRowGroupRows, "Parquet only: rows per row group")
	fl.IntVar(&f.workers, "workers", 0, "batches read ahead and row groups encoded at once (default: the number of CPUs)")
	fl.BoolVar(&f.maskAndScale, "mask-and-scale", false, "decode numeric columns as xarray does: missing values to null, scale_factor and add_offset applied, _Unsigned and bool encodings")
	fl.BoolVar(&f.overwrite, "overwrite", false, "replace an existing OUT")
	fl.BoolVar(&f.noSync, "no-sync", false, "do not fsync the output before renaming it into place")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "print only the summary")
	addLayoutFlags(fl, &f.layoutFlags)
	return cmd
}

func runExport(cmd *cobra.Command, src, out string, f *exportFlags) (rerr error) {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	out, err := localFile("OUT", out, "export writes a local file (copy it to object storage afterwards)")
	if err != nil {
		return err
	}
	var o zarrow.ExportOptions
	switch strings.ToLower(filepath.Ext(out)) {
	case ".parquet", ".pq":
		o.Format = zarrow.Parquet
		if f.compression != "" {
			return usageError{fmt.Errorf("--compression is for Arrow IPC; Parquet is always zstd")}
		}
	case ".arrow", ".arrows", ".feather", ".ipc":
		o.Format = zarrow.IPC
		if f.compression != "" && f.compression != "zstd" && f.compression != "lz4" {
			return usageError{fmt.Errorf("--compression %q: want zstd or lz4", f.compression)}
		}
		o.Compression = f.compression
	default:
		return usageError{fmt.Errorf("OUT %s: name it .parquet or .arrow", out)}
	}
	o.RowGroupRows = f.rowGroup
	var to zarrow.TableOptions
	if f.unit != "" {
		u, err := dtype.ParseUnit(f.unit)
		if _, ok := zarrow.TimeUnit(u); err != nil || !ok {
			return usageError{fmt.Errorf("--unit %q: want s, ms, us or ns", f.unit)}
		}
		to.Unit = u
	}
	pol, err := dtype.ParseOverflowPolicy(f.overflow)
	if err != nil {
		return usageError{fmt.Errorf("--overflow: %w", err)}
	}
	if f.rows < 0 || f.rows == 0 && cmd.Flags().Changed("rows") {
		return usageError{fmt.Errorf("--rows %d: want at least 1", f.rows)}
	}
	if f.rowGroup < 1 {
		return usageError{fmt.Errorf("--row-group %d: want at least 1", f.rowGroup)}
	}
	if f.workers < 0 || f.workers == 0 && cmd.Flags().Changed("workers") {
		return usageError{fmt.Errorf("--workers %d: want at least 1", f.workers)}
	}
	if err := f.layoutFlags.check(cmd); err != nil {
		return err
	}
	to.Overflow, to.Exact, to.Dim, to.BatchRows = pol, f.exact, f.dim, f.rows
	to.MaskAndScale = f.maskAndScale
	if to.Calendar, err = f.calendar.options(); err != nil {
		return err
	}
	to.Parquet = o.Format == zarrow.Parquet
	workers := f.workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	// Each worker reads a batch ahead and encodes a row group.
	to.Parallel, to.Prefetch, o.Workers = workers, workers, workers
	// Batch after batch the reader and the writers allocate buffers of the
	// same sizes: the recycler hands them freed ones instead of fresh
	// memory, which costs a page fault per page (zarrow.Recycler). It
	// keeps at most the plan's bound, set once the table is open.
	recycler := zarrow.NewRecycler(0)
	to.Allocator, o.Allocator = recycler, recycler
	if err := transcode.CheckOverlap(src, out); err != nil {
		return err
	}
	store, err := openStore(ctx, src, true) // a path, file://, s3:// or http(s)://
	if err != nil {
		return err
	}
	tab, plan, err := openExportTable(ctx, store, src, &f.layoutFlags, to)
	if err != nil {
		return err
	}
	// After the arguments and the source are checked: their mistakes are
	// the ones to report first.
	if _, err := os.Lstat(out); err == nil && !f.overwrite {
		return &ExistsError{Path: out}
	}
	if err := transcode.CheckSparse(ctx, store, tab.Chunks()); err != nil {
		return err
	}
	bound := exportMemoryBound(tab, o)
	if lim := sysmem.Total(); lim > 0 && uint64(bound) > lim {
		// Refused before anything is allocated: the runtime's "out of
		// memory" is fatal, with no message of ours.
		return fmt.Errorf("the export would hold up to %s in memory (%s, batches of %d rows), more than the %s this machine gives dt64: lower --workers or --rows (a batch holds at least one index of the first dimension)",
			transcodeBytes(bound), count(o.Workers, "worker"), tab.BatchRows(), transcodeBytes(int64(lim)))
	}
	recycler.SetLimit(bound)
	errw := cmd.ErrOrStderr()
	if !f.quiet {
		fmt.Fprintf(errw, "source:      %s  %s, %s\n", src, count(tab.Rows(), "row"), count(tab.Columns(), "column"))
		for _, fd := range tab.Schema().Fields() {
			fmt.Fprintf(errw, "  %-24s %s\n", fd.Name, fd.Type)
		}
		for _, s := range tab.Skipped() {
			fmt.Fprintf(errw, "  %-24s skipped: no Arrow type\n", s)
		}
		for _, p := range plan {
			fmt.Fprintln(errw, p)
		}
		fmt.Fprintln(errw, exportMemoryPlan(o, bound))
		fmt.Fprintf(errw, "destination: %s  %s\n", out, map[zarrow.ExportFormat]string{zarrow.Parquet: "Parquet, zstd", zarrow.IPC: "Arrow IPC file, " + orNone(o.Compression)}[o.Format])
	}
	if fi, err := os.Stat(out); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("OUT %s is not a regular file", out)
	}
	if _, err := removeStaleTemps(out); err != nil {
		return err
	}
	tmp, err := createTemp(out, 0o666)
	if err != nil {
		return err
	}
	// A panic on this goroutine (a bug) fails the export like any error,
	// and the temporary file goes; zarrow returns those on its own
	// goroutines as errors.
	defer func() {
		if r := recover(); r != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			rerr = panicked(r)
		}
	}()
	start := time.Now()
	r := tab.RecordReader(ctx)
	defer r.Release()
	var done atomic.Int64
	counted := &countingReader{RecordReader: r, rows: &done}
	per := tab.BatchRows() // a long table's batches follow its grid
	batches := (tab.Rows() + per - 1) / per
	_, err = withTranscodeProgress(cmd, "export", f.quiet, func() transcode.Progress {
		d := done.Load()
		return transcode.Progress{Units: batches, UnitsDone: (d + per - 1) / per, Elements: d * int64(tab.Columns())}
	}, func() (transcode.Summary, error) {
		_, err := zarrow.Export(counted, tmp, o)
		return transcode.Summary{}, err
	})
	if err == nil && !f.noSync {
		err = fsync(tmp)
	}
	if err == nil {
		err = publish(tmp, out, f.overwrite)
	} else {
		tmp.Close()
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if !f.noSync {
		if err := syncDir(filepath.Dir(out)); err != nil {
			return fmt.Errorf("%s is complete, but flushing its directory to disk failed (it may not survive a crash): %w", out, err)
		}
	}
	st := r.Stats()
	el := time.Since(start)
	size := int64(0)
	if fi, err := os.Stat(out); err == nil {
		size = fi.Size()
	}
	lossy := "a remainder floored away"
	if tab.RoundsCFFloats() {
		lossy += ", or a CF float's rounded off, half to even"
	}
	fmt.Fprintf(cmd.OutOrStdout(), "exported %s × %s to %s (%s) in %s: %d null (NaT)%s, %d overflowed, %d lossy (%s)\n",
		count(done.Load(), "row"), count(tab.Columns(), "column"), out, transcodeBytes(size), el.Round(time.Millisecond), st.NaT, noDateText(st.NoDate), st.Overflowed, st.Lossy, lossy)
	if pol == dtype.OverflowClamp && st.Overflowed > 0 {
		// Clamped values are ±(2^63-1), DuckDB's ±infinity (docs/engines.md).
		fmt.Fprintf(cmd.ErrOrStderr(), "note: the %d clamped values are ±(2^63-1), the extremes of the unit; NumPy, pandas and Arrow read them as those instants, DuckDB as ±infinity\n", st.Overflowed)
	}
	return nil
}

// exportMemoryPlan states the workers and the memory bound of an export:
// the reader's batches and the writer's row groups in flight.
func exportMemoryPlan(o zarrow.ExportOptions, bound int64) string {
	what := "batches read ahead"
	if o.Format == zarrow.Parquet {
		what += ", row groups encoded at once"
	}
	return fmt.Sprintf("plan:        %s (%s): memory at most %s", count(o.Workers, "worker"), what, transcodeBytes(bound))
}

// exportMemoryBound is the most memory the export's reader and writer
// hold: the plan line's figure.
func exportMemoryBound(tab *zarrow.Table, o zarrow.ExportOptions) int64 {
	return tab.MemoryBound() + zarrow.ExportMemoryBound(tab.Schema(), tab.BatchRows(), tab.HeldBytes(), o)
}

func orNone(s string) string {
	if s == "" {
		return "uncompressed"
	}
	return s
}

// countingReader counts the rows of the batches handed out.
type countingReader struct {
	*zarrow.RecordReader
	rows *atomic.Int64
}

func (c *countingReader) Next() bool {
	if !c.RecordReader.Next() {
		return false
	}
	c.rows.Add(c.RecordReader.RecordBatch().NumRows())
	return true
}
