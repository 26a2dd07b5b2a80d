package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/klauspost/cpuid/v2"
	"github.com/spf13/cobra"

	"github.com/zarr-dt64/dt64/cmd/dt64/internal/bench"
	"github.com/zarr-dt64/dt64/internal/impl"
)

func init() { subcommands = append(subcommands, newBenchCmd) }

func newBenchCmd() *cobra.Command {
	var o benchOptions
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure every kernel and implementation against copy() of the same bytes",
		Long: `Measure every kernel with every implementation this CPU has (generic Go,
AVX2, AVX-512, NEON) at several buffer sizes, next to copy() of the same
bytes in the same run. Each round times copy() and then every kernel; a
kernel's figure is the median over rounds of its time divided by copy()'s
time, so load on a shared machine hits both sides of the ratio alike.

A ratio below 1 is faster than copying the bytes. 8 MiB fits in cache on
most servers; 256 MiB does not, so there copy() is the memory-bandwidth
limit.

--cast times 'dt64 cast' of a file (big-endian seconds to little-endian
nanoseconds, default 256 MiB) against 'cp' of the same file, in the same
run: a warm source, outputs in --dir beside it, cp and cast alternating
which goes first, each output flushed and removed (untimed) before the
next command. Once without fsync (cast --no-sync) and once with it (cast's
default, and cp followed by 'sync FILE DIR').`,
		Example: `  dt64 bench
  dt64 bench --sizes 8MiB --rounds 9 --kernel 'Multiply|FloorDivide'
  dt64 bench --sizes 8MiB --rounds 9 --kernel 'CF|Multiply\(h'
  dt64 bench --impl avx512,generic --json > bench.json
  dt64 bench --sizes 8MiB,256MiB --rounds 7 --plot docs/bench.svg
  dt64 bench --cast --rounds 5 --dir /data/scratch`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("sizes") && o.cast {
				o.sizes = []string{"256MiB"}
			}
			var byteSizes []int
			for _, s := range o.sizes {
				n, err := parseSize(s)
				if err != nil {
					return usageError{fmt.Errorf("--sizes: %w", err)}
				}
				byteSizes = append(byteSizes, n)
			}
			if o.rounds < 1 {
				return usageError{fmt.Errorf("--rounds must be at least 1, got %d", o.rounds)}
			}
			if o.plot != "" {
				if o.cast {
					return usageError{errors.New("--plot draws the kernels' ratios; it does not go with --cast")}
				}
				if _, err := bench.PlotFormat(o.plot); err != nil {
					return usageError{fmt.Errorf("--plot %w", err)}
				}
			}
			if o.cast {
				return benchCast(cmd, o, byteSizes)
			}
			return benchKernels(cmd, o, byteSizes)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.sizes, "sizes", []string{"64KiB", "8MiB", "256MiB"}, "buffer sizes (KiB, MiB, GiB suffixes); with --cast, file sizes, where the default is 256MiB")
	f.IntVar(&o.rounds, "rounds", 5, "rounds per size; figures are medians over rounds")
	f.StringVar(&o.match, "kernel", "", "only kernels whose name matches this regular expression")
	f.StringSliceVar(&o.impls, "impl", nil, "only these implementations (default: every one this CPU has)")
	f.BoolVar(&o.asJSON, "json", false, "print JSON instead of a table")
	f.BoolVar(&o.markdown, "markdown", false, "print a Markdown page (make bench-report writes docs/performance.md with it)")
	f.BoolVar(&o.cast, "cast", false, "time 'dt64 cast' of a file against 'cp' of the same file instead of the kernels")
	f.StringVar(&o.dir, "dir", os.TempDir(), "with --cast: the directory for the source file and the copies")
	f.StringVar(&o.plot, "plot", "", "also draw the ratios as a chart into this .svg or .png file")
	return cmd
}

type benchOptions struct {
	sizes    []string
	rounds   int
	match    string
	impls    []string
	asJSON   bool
	markdown bool
	cast     bool
	dir      string
	plot     string
}

func machineName() string {
	return fmt.Sprintf("%s, %d logical CPUs, %s/%s", cpuid.CPU.BrandName, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
}

// benchKernels measures every selected kernel and implementation at each
// size next to copy().
func benchKernels(cmd *cobra.Command, o benchOptions, byteSizes []int) error {
	re, err := regexp.Compile(o.match)
	if err != nil {
		return usageError{fmt.Errorf("--kernel: %w", err)}
	}
	available := impl.Names("kernels")
	for _, name := range o.impls {
		if !contains(available, name) {
			return usageError{fmt.Errorf("--impl %s: not available on this CPU (available: %s)", name, strings.Join(available, ", "))}
		}
	}
	var cases []bench.Case
	for _, c := range bench.Standard() {
		if re.MatchString(c.Name) && (len(o.impls) == 0 || contains(o.impls, c.Impl)) {
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		return usageError{fmt.Errorf("no kernel matches --kernel %q and --impl %v", o.match, o.impls)}
	}
	var all []bench.Result
	for _, size := range byteSizes {
		if err := cmdContext(cmd).Err(); err != nil {
			return err // interrupted: a size is the step an interrupt waits for
		}
		rs, err := bench.Measure(size, o.rounds, cases)
		if err != nil {
			return err
		}
		all = append(all, rs...)
	}
	if o.plot != "" {
		if err := writePlot(o, all); err != nil {
			return err
		}
	}
	out := cmd.OutOrStdout()
	if o.markdown {
		return writeMarkdown(out, o, all)
	}
	if o.asJSON {
		type row struct {
			Kernel   string  `json:"kernel"`
			Impl     string  `json:"impl"`
			Bytes    int     `json:"bytes"`
			Ratio    float64 `json:"ratio_to_copy"`
			GBps     float64 `json:"gb_per_s"`
			CopyGBps float64 `json:"copy_gb_per_s"`
		}
		doc := struct {
			Machine string `json:"machine"`
			Rounds  int    `json:"rounds"`
			Results []row  `json:"results"`
		}{Machine: machineName(), Rounds: o.rounds}
		for _, r := range all {
			doc.Results = append(doc.Results, row{r.Name, r.Impl, r.Size, r.Ratio, r.GBps, r.CopyGBps})
		}
		return writeJSON(out, doc)
	}
	fmt.Fprintf(out, "%s; medians of %d rounds; ratio = kernel time / copy() time\n\n", machineName(), o.rounds)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "kernel\timpl\tsize\tGB/s\tcopy GB/s\tratio\t")
	for _, r := range all {
		fmt.Fprintf(w, "%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t\n", r.Name, r.Impl, bench.FormatSize(r.Size), r.GBps, r.CopyGBps, r.Ratio)
	}
	return w.Flush()
}

// writePlot draws the chart into o.plot, under a temporary name renamed
// into place, so a failure leaves no partial image.
func writePlot(o benchOptions, all []bench.Result) error {
	format, err := bench.PlotFormat(o.plot)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	title := fmt.Sprintf("dt64 bench: kernel time / copy() time of the same bytes, median of %d rounds\n%s", o.rounds, machineName())
	if err := bench.Plot(&buf, format, title, all); err != nil {
		return err
	}
	tmp, err := createTemp(o.plot, 0o666)
	if err != nil {
		return err
	}
	_, err = tmp.Write(buf.Bytes())
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), o.plot)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

func writeJSON(w io.Writer, doc any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// benchDt64 is the dt64 command bench --cast runs: this executable (tests
// replace it).
var benchDt64 = func() ([]string, error) {
	exe, err := os.Executable()
	return []string{exe}, err
}

// benchCast times this dt64's cast of a file against cp of the same file,
// without and with fsync.
func benchCast(cmd *cobra.Command, o benchOptions, byteSizes []int) error {
	dt64, err := benchDt64()
	if err != nil {
		return err
	}
	var all []bench.CastFileResult
	for _, size := range byteSizes {
		for _, sync := range []bool{false, true} {
			if err := cmdContext(cmd).Err(); err != nil {
				return err
			}
			r, err := bench.MeasureCastFile(bench.CastFileOptions{Dt64: dt64, Dir: o.dir, Size: size, Rounds: o.rounds, Sync: sync})
			if err != nil {
				return err
			}
			all = append(all, r)
		}
	}
	out := cmd.OutOrStdout()
	if o.asJSON {
		type row struct {
			Bytes       int       `json:"bytes"`
			Fsync       bool      `json:"fsync"`
			Ratio       float64   `json:"ratio_to_cp"`
			Ratios      []float64 `json:"ratios"`
			CPURatio    float64   `json:"cpu_ratio_to_cp"`
			CastSeconds float64   `json:"cast_seconds"`
			CpSeconds   float64   `json:"cp_seconds"`
		}
		doc := struct {
			Machine string `json:"machine"`
			Cast    string `json:"cast"`
			Dir     string `json:"dir"`
			Rounds  int    `json:"rounds"`
			Results []row  `json:"results"`
		}{Machine: machineName(), Cast: bench.CastFrom + " -> " + bench.CastTo, Dir: o.dir, Rounds: o.rounds}
		for _, r := range all {
			doc.Results = append(doc.Results, row{r.Size, r.Sync, r.Ratio, r.Ratios, r.CPURatio, r.Cast.Seconds(), r.Copy.Seconds()})
		}
		return writeJSON(out, doc)
	}
	fmt.Fprintf(out, "%s\ndt64 cast --from '%s' --to '%s' FILE vs cp FILE, warm source, output in %s;\nmedians of %d interleaved rounds; ratio = cast time / cp time (elapsed; CPU: user + system)\n\n",
		machineName(), bench.CastFrom, bench.CastTo, o.dir, o.rounds)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "size\tfsync\tcp\tcast\tratio\tevery round\tCPU ratio\t")
	for _, r := range all {
		fsync := "no (cast --no-sync)"
		if r.Sync {
			fsync = "yes (cp; sync FILE DIR)"
		}
		rounds := make([]string, len(r.Ratios))
		for i, x := range r.Ratios {
			rounds[i] = fmt.Sprintf("%.2f", x)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%.2f\t%s\t%.2f\t\n", bench.FormatSize(r.Size), fsync,
			r.Copy.Round(time.Millisecond), r.Cast.Round(time.Millisecond), r.Ratio, strings.Join(rounds, " "), r.CPURatio)
	}
	return w.Flush()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parseSize reads "64KiB", "8MiB", "1GiB" or a plain byte count; sizes
// must be positive multiples of 8 (whole elements).
func parseSize(s string) (int, error) {
	mult := 1
	num := s
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if strings.HasSuffix(s, u.suffix) {
			mult, num = u.mult, strings.TrimSuffix(s, u.suffix)
			break
		}
	}
	var n int
	if _, err := fmt.Sscanf(num, "%d", &n); err != nil || fmt.Sprint(n) != num || n <= 0 {
		return 0, fmt.Errorf("invalid size %q (want e.g. 64KiB, 8MiB, 256MiB)", s)
	}
	if n*mult%8 != 0 {
		return 0, fmt.Errorf("size %q is not a whole number of 8-byte elements", s)
	}
	return n * mult, nil
}
