// Command dt64 converts and inspects NumPy datetime64/timedelta64 data:
// Zarr data types, raw element buffers and whole Zarr arrays.
//
// Run `dt64 --help` for the commands.
package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/internal/panics"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

func main() {
	red := newRedactor(secretsIn(os.Args[1:]))
	root := newRootCmd()
	root.SetOut(red.Writer(os.Stdout))
	root.SetErr(red.Writer(os.Stderr))
	ctx, interrupts := watchInterrupts()
	cmd, err := root.ExecuteContextC(ctx)
	interrupts.exitIfInterrupted(cmd, os.Args[1:], err)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dt64:", red.String(oneLine(err)+hintFor(cmd, err)))
		if stack := panicStack(err); stack != nil {
			fmt.Fprintf(os.Stderr, "dt64: this is a bug in dt64; please report it with the stack of the panic:\n%s", red.String(string(stack)))
		}
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "dt64",
		Short: "NumPy datetime64/timedelta64 for Zarr, at memory speed",
		Long: `dt64 implements the Zarr v3 data types numpy.datetime64 and numpy.timedelta64:
it validates their metadata, converts their values between units, scales
and byte orders exactly as NumPy defines them (without NumPy's silent
wrap-around), and re-encodes whole Zarr v2 and v3 arrays in one pass over
memory, with SIMD kernels chosen for this CPU.

Exit status: 0 on success, 1 on any failure, 2 for a mistake on the
command line, 130 or 143 when interrupted (SIGINT, SIGTERM); an
interrupted transcode says how to continue it.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.Version = version()
	root.SetVersionTemplate("dt64 {{.Version}}\n")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return usageError{flagSuggestion(cmd, err)} })
	// An unknown command is a usage error (exit 2) like any other, with
	// cobra's suggestions; dt64 alone prints the help.
	root.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, " or "))
			} else {
				msg += " (see dt64 --help)"
			}
			return usageError{errors.New(msg)}
		}
		return nil
	}
	root.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	// help TOPIC for a topic that is no command is a usage error too
	// (cobra's help prints the root's usage and exits 0).
	root.SetHelpCommand(&cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, rest, err := c.Root().Find(args)
			if err != nil || cmd == nil || len(rest) > 0 {
				msg := fmt.Sprintf("unknown help topic %q", strings.Join(args, " "))
				if len(args) > 0 {
					if s := c.Root().SuggestionsFor(args[0]); len(s) > 0 {
						msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(s, " or "))
					}
				}
				return usageError{errors.New(msg + " (see dt64 --help)")}
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
	})
	for _, newCmd := range subcommands {
		root.AddCommand(newCmd())
	}
	return root
}

// subcommands are registered by each command's file, so commands can be
// added without touching this one.
var subcommands []func() *cobra.Command

// usageError marks a mistake in the command line itself (exit status 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// hint names the flag that gets past an error, for the errors the library
// reports without knowing the command line.
func hint(err error) string { return hintFor(nil, err) }

// hintFor is hint for an error of the command cmd (nil: any): a flag cmd
// does not have is named with the commands that take it, so that the
// hint never suggests a flag the command would refuse (inspect has no
// --overflow).
func hintFor(cmd *cobra.Command, err error) string {
	var ke *dtype.ElementError
	var de *transcode.DestinationError
	var sc *transcode.SourceChangedError
	switch {
	case errors.As(err, &ke) && ke.Reason == dtype.ReasonOverflow && defaultUnitTooFine(cmd, ke):
		return " (the values reach beyond datetime64[ns]'s 1677-09-21 .. 2262-04-11, the unit CF floats decode to unless told: " +
			"choose a coarser one with --unit us, ms or s; --overflow nat or clamp would store NaT or saturate them)"
	case errors.As(err, &ke) && ke.Reason == dtype.ReasonOverflow && cmd != nil && cmd.Name() == "transcode":
		// The stopped run's plan says "error": another policy is another
		// plan, which --resume refuses.
		return " (use --overflow nat or clamp to store NaT or saturate, with --overwrite to start over)"
	case errors.As(err, &ke) && ke.Reason == dtype.ReasonOverflow:
		return flagHint(cmd, "overflow", "--overflow nat or clamp to store NaT or saturate")
	case errors.As(err, &ke) && ke.Reason == dtype.ReasonNoDate:
		return flagHint(cmd, "calendar-missing", "--calendar-missing nat to store NaT for such dates")
	case errors.Is(err, cf.ErrModelCalendar):
		return flagHint(cmd, "convert-calendar", "--convert-calendar date to convert each date to the same date in datetime64's calendar, or year for 360_day's position in the year")
	case errors.As(err, &sc) && errors.As(err, new(finalizeError)):
		return " (start over: run without --finalize, with --overwrite)"
	case errors.As(err, &sc):
		return " (start over with --overwrite)"
	case errors.Is(err, syscall.ENOSPC) && cmd != nil && cmd.Name() == "transcode":
		return " (make room, then run the same command with --resume: the work done is kept)"
	case errors.Is(err, zarr.ErrDataTypeNotMigrated):
		return " (--exclude with its path leaves it out)"
	case errors.Is(err, zarr.ErrUntranslatable):
		return " (--recode-all with --codec re-encodes the arrays dt64 reads instead of translating their metadata)"
	case errors.Is(err, transcode.ErrRunning), errors.Is(err, transcode.ErrTakenOver):
		return "" // the error says what to do: nothing was deleted, or nothing more written
	case errors.As(err, &de):
		var hints []string
		if de.Resume {
			hints = append(hints, "--resume finishes it")
		}
		switch {
		case de.Overwrite && errors.As(err, new(finalizeError)):
			// --finalize --overwrite is refused (a usage error).
			hints = append(hints, "to start over, run without --finalize, with --overwrite")
		case de.Overwrite:
			hints = append(hints, "--overwrite starts over")
		}
		if len(hints) == 0 {
			return " (refusing to write there or delete anything)"
		}
		return " (" + strings.Join(hints, "; ") + ")"
	}
	return ""
}

// panicked is the error for the value r recovered from a panic on the
// command's goroutine, returned as the command's error (exit status 1)
// once the command has cleaned up; call it in the deferred function that
// recovered.
func panicked(r any) error { return panics.Recovered(r) }

// panicStack is the stack of the panic err reports (the command's, or one
// the libraries recovered on their worker goroutines), nil if none.
func panicStack(err error) []byte {
	var p *panics.Error
	if errors.As(err, &p) {
		return p.PanicStack()
	}
	return nil
}

// finalizeError is a destination --finalize refused: its hint may not
// suggest --overwrite alongside --finalize, which takes none.
type finalizeError struct{ error }

func (e finalizeError) Unwrap() error { return e.error }

// finalizeRefused marks the error of a --finalize (finalizeError).
func finalizeRefused(err error) error {
	if err == nil {
		return nil
	}
	return finalizeError{err}
}

// flagHint is " (use USE)" when cmd (nil: any command) has the flag,
// else names the commands that do: " (inspect has no --overflow; dt64
// cast, export and transcode take --overflow nat or clamp ...)".
func flagHint(cmd *cobra.Command, flag, use string) string {
	if cmd == nil || cmd.Flags().Lookup(flag) != nil {
		return " (use " + use + ")"
	}
	var with []string
	for _, c := range cmd.Root().Commands() {
		if c.Flags().Lookup(flag) != nil {
			with = append(with, c.Name())
		}
	}
	if len(with) == 0 {
		return ""
	}
	slices.Sort(with)
	names := "dt64 " + with[0]
	if n := len(with); n > 1 {
		names = "dt64 " + strings.Join(with[:n-1], ", ") + " and " + with[n-1]
	}
	verb := "takes"
	if len(with) > 1 {
		verb = "take"
	}
	return fmt.Sprintf(" (%s has no --%s; %s %s %s)", cmd.Name(), flag, names, verb, use)
}

// defaultUnitTooFine reports whether ke is a CF value that overflowed the
// nanoseconds cmd decoded it to by default (no --unit given): CF floats,
// and integers packed or with a reference between two of their unit,
// decode to nanoseconds (cf.Time.DefaultType), which end in 1677 and
// 2262, while a coarser unit holds them.
func defaultUnitTooFine(cmd *cobra.Command, ke *dtype.ElementError) bool {
	if cmd == nil || ke.Source == "" || ke.To.Unit != dtype.Nanosecond || strings.HasSuffix(ke.Text, "Inf") {
		return false // an infinity fits no unit
	}
	f := cmd.Flags().Lookup("unit")
	return f != nil && !f.Changed
}

// oneLine keeps error output to the one line scripts expect on stderr.
func oneLine(err error) string {
	s := err.Error()
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
