package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
)

// storeFlags are transcode's flags for a source that is a group.
type storeFlags struct {
	include, exclude       []string
	recodeAll, consolidate bool
	skipUnconvertible      bool
}

func addStoreFlags(fl *pflag.FlagSet, f *storeFlags) {
	fl.StringArrayVar(&f.include, "include", nil, "with a group SRC: only the arrays whose path matches this glob (repeatable; e.g. 'sub/*'; '**' matches any number of levels: 'sub/**', '**/time')")
	fl.StringArrayVar(&f.exclude, "exclude", nil, "with a group SRC: leave out the arrays whose path matches this glob (repeatable)")
	fl.BoolVar(&f.recodeAll, "recode-all", false, "with a group SRC: re-encode the arrays that are not time arrays with --codec (and --endian, --crc32c) too")
	fl.BoolVar(&f.consolidate, "consolidate", false, "with a group SRC: write consolidated metadata even when SRC has none")
	fl.BoolVar(&f.skipUnconvertible, "skip-unconvertible", false, "with a group SRC: carry over as they are the time arrays (native or CF) the other flags cannot convert, with a note, instead of failing")
}

// refuseStoreFlags refuses the group-only flags for an array SRC: they
// would select nothing, or change nothing, silently.
func refuseStoreFlags(cmd *cobra.Command, srcName string) error {
	for _, name := range []string{"include", "exclude", "recode-all", "consolidate"} {
		if fl := cmd.Flags().Lookup(name); fl != nil && fl.Changed {
			return usageError{fmt.Errorf("--%s is for a group SRC; %s is an array", name, srcName)}
		}
	}
	return nil
}

// runStoreTranscodeCmd transcodes a hierarchy: SRC is a group.
func runStoreTranscodeCmd(cmd *cobra.Command, ctx context.Context, src, dst storage.Store, srcName, dstName string, o transcode.Options, f *transcodeFlags) error {
	so := transcode.StoreOptions{Options: o, Include: f.store.include, Exclude: f.store.exclude,
		RecodeAll: f.store.recodeAll, Consolidate: f.store.consolidate, SkipUnconvertible: f.store.skipUnconvertible}
	j, err := transcode.NewStore(ctx, src, dst, so)
	var ue *transcode.UnconvertibleError
	if errors.As(err, &ue) {
		return fmt.Errorf("%w (--skip-unconvertible carries such arrays over as they are)", err)
	}
	if err != nil {
		return err
	}
	p := j.Plan()
	errw, out := cmd.ErrOrStderr(), cmd.OutOrStdout()
	if !f.quiet {
		printStorePlan(errw, p, srcName, dstName)
	}
	for _, w := range p.Warnings { // even with -q: the run ignores something of the source's
		fmt.Fprintf(errw, "warning: %s\n", w)
	}
	var sum transcode.StoreSummary
	if f.finalize {
		sum, err = j.Finalize(ctx)
		err = finalizeRefused(err)
	} else {
		_, err = withTranscodeProgress(cmd, "transcode", f.quiet, j.Progress, func() (transcode.Summary, error) {
			var err error
			sum, err = j.Run(ctx)
			return sum.Summary, err
		})
	}
	if err != nil {
		return err
	}
	printStoreSummary(out, sum)
	for i, a := range sum.Arrays {
		ap := p.Arrays[i]
		if ap.Plan == nil || ap.Path != a.Path {
			continue
		}
		if w := xarrayWarning(*ap.Plan, a.Summary); w != "" {
			fmt.Fprintf(errw, "warning: %s: %s\n", a.Path, w)
		}
	}
	if !sum.Complete || o.Part.Count > 1 && !sum.AlreadyComplete {
		fmt.Fprintln(out, partsLine(o.Part.String(), sum.Summary))
	}
	if f.verify {
		start := time.Now()
		_, err := withTranscodeProgress(cmd, "verify", f.quiet, j.Progress, func() (transcode.Summary, error) { return transcode.Summary{}, j.Verify(ctx) })
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "verified: %d arrays, %d work units: time arrays equal a fresh conversion of the source, the others its bytes (%s)\n", len(p.Arrays), p.PartUnits, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

func printStorePlan(w io.Writer, p transcode.StorePlan, srcName, dstName string) {
	cons := ""
	if p.Consolidated {
		cons = ", consolidated metadata last"
	}
	fmt.Fprintf(w, "source:      %s  a hierarchy: %s, %s selected\n", srcName, count(p.Groups, "group"), count(len(p.Arrays), "array"))
	fmt.Fprintf(w, "destination: %s  Zarr v%d%s\n", dstName, p.Format, cons)
	for _, a := range p.Arrays {
		what := a.Action
		if a.Plan != nil {
			what = fmt.Sprintf("transcode %s -> %s, %s", planType(a.Plan.Source, a.Plan.SourceOrder), planType(a.Plan.Destination, a.Plan.DestinationOrder), transcodeCodecs(a.Plan.Destination.Codecs))
		}
		fmt.Fprintf(w, "  array:     %-20s %s %v: %s, %s\n", a.Path, a.DataType, a.Shape, what, count(a.Units, "unit"))
	}
	part := ""
	if p.PartUnits != p.Units {
		part = fmt.Sprintf(", this part %d", p.PartUnits)
	}
	fmt.Fprintf(w, "plan:        %s in all%s; %s, %d in flight, buffers at most %s (the largest array's; plus ~20 MiB for the program)\n",
		count(p.Units, "work unit"), part, count(p.Workers, "worker"), p.InFlight, transcodeBytes(p.MemoryBound))
	for _, a := range p.Arrays {
		if a.Note != "" {
			fmt.Fprintf(w, "note:        %s: %s\n", a.Path, a.Note)
		}
		if a.Plan != nil {
			for _, n := range a.Plan.Notes {
				fmt.Fprintf(w, "note:        %s: %s\n", a.Path, n)
			}
		}
	}
}

func printStoreSummary(w io.Writer, s transcode.StoreSummary) {
	if s.AlreadyComplete {
		fmt.Fprintln(w, alreadyComplete)
		return
	}
	fmt.Fprintf(w, "summary: %s, %s (%d stored), %d already done; time elements %d, NaT %d%s, overflowed %d, lossy %d; read %s, wrote %s; %s\n",
		count(len(s.Arrays), "array"), count(s.Chunks, "chunk"), s.Stored, s.Resumed, s.Elements, s.NaT, noDateText(s.NoDate), s.Overflowed, s.Lossy,
		transcodeBytes(s.BytesRead), transcodeBytes(s.BytesWritten), s.Elapsed.Round(time.Millisecond))
	for _, a := range s.Arrays {
		// The element counts per array, where a run covers several.
		counts := ""
		if a.Elements > 0 {
			counts = fmt.Sprintf("; NaT %d%s, overflowed %d, lossy %d", a.NaT, noDateText(a.NoDate), a.Overflowed, a.Lossy)
		}
		switch {
		case strings.HasPrefix(a.Note, "not converted"):
			counts += " (not converted, see the note)"
		case a.Note != "":
			counts += " (see the note)"
		}
		fmt.Fprintf(w, "  %-20s %-9s %s (%d stored, %d already done), read %s, wrote %s%s\n",
			a.Path, a.Action, count(a.Chunks, "chunk"), a.Stored, a.Resumed, transcodeBytes(a.BytesRead), transcodeBytes(a.BytesWritten), counts)
	}
	for _, a := range s.Arrays {
		if a.Unfilled > 0 {
			fmt.Fprintf(w, "note:        %s: %s\n", a.Path, unfilledText(a.Unfilled))
		}
	}
}
