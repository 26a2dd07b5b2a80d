package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/klauspost/cpuid/v2"
	"github.com/spf13/cobra"

	"github.com/zarr-dt64/dt64/bench"
	"github.com/zarr-dt64/dt64/internal/impl"
)

func init() { subcommands = append(subcommands, newBenchCmd) }

func newBenchCmd() *cobra.Command {
	var (
		sizes  []string
		rounds int
		match  string
		impls  []string
		asJSON bool
	)
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
limit.`,
		Example: `  dt64 bench
  dt64 bench --sizes 8MiB --rounds 9 --kernel 'Multiply|FloorDivide'
  dt64 bench --impl avx512,generic --json > bench.json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			var byteSizes []int
			for _, s := range sizes {
				n, err := parseSize(s)
				if err != nil {
					return usageError{fmt.Errorf("--sizes: %w", err)}
				}
				byteSizes = append(byteSizes, n)
			}
			if rounds < 1 {
				return usageError{fmt.Errorf("--rounds must be at least 1, got %d", rounds)}
			}
			re, err := regexp.Compile(match)
			if err != nil {
				return usageError{fmt.Errorf("--kernel: %w", err)}
			}
			available := impl.Names("kernels")
			for _, name := range impls {
				if !contains(available, name) {
					return usageError{fmt.Errorf("--impl %s: not available on this CPU (available: %s)", name, strings.Join(available, ", "))}
				}
			}
			var cases []bench.Case
			for _, c := range bench.Standard() {
				if re.MatchString(c.Name) && (len(impls) == 0 || contains(impls, c.Impl)) {
					cases = append(cases, c)
				}
			}
			if len(cases) == 0 {
				return usageError{fmt.Errorf("no kernel matches --kernel %q and --impl %v", match, impls)}
			}
			var all []bench.Result
			for _, size := range byteSizes {
				rs, err := bench.Measure(size, rounds, cases)
				if err != nil {
					return err
				}
				all = append(all, rs...)
			}
			out := cmd.OutOrStdout()
			machine := fmt.Sprintf("%s, %d logical CPUs, %s/%s", cpuid.CPU.BrandName, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
			if asJSON {
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
				}{Machine: machine, Rounds: rounds}
				for _, r := range all {
					doc.Results = append(doc.Results, row{r.Name, r.Impl, r.Size, r.Ratio, r.GBps, r.CopyGBps})
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(doc)
			}
			fmt.Fprintf(out, "%s; medians of %d rounds; ratio = kernel time / copy() time\n\n", machine, rounds)
			w := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(w, "kernel\timpl\tsize\tGB/s\tcopy GB/s\tratio\t")
			for _, r := range all {
				fmt.Fprintf(w, "%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t\n", r.Name, r.Impl, formatSize(r.Size), r.GBps, r.CopyGBps, r.Ratio)
			}
			return w.Flush()
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&sizes, "sizes", []string{"64KiB", "8MiB", "256MiB"}, "buffer sizes (KiB, MiB, GiB suffixes)")
	f.IntVar(&rounds, "rounds", 5, "rounds per size; figures are medians over rounds")
	f.StringVar(&match, "kernel", "", "only kernels whose name matches this regular expression")
	f.StringSliceVar(&impls, "impl", nil, "only these implementations (default: every one this CPU has)")
	f.BoolVar(&asJSON, "json", false, "print JSON instead of a table")
	return cmd
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

func formatSize(n int) string {
	switch {
	case n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}
