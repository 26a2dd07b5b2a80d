package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/zarr-dt64/dt64/transcode"
)

// interrupts turns the first SIGINT or SIGTERM into a cancelled context:
// the command's workers stop, and what a later run needs is already
// durable (the engine writes nothing it cannot resume from). A second
// signal exits at once.
type interrupts struct {
	mu  sync.Mutex
	sig os.Signal
}

// watchInterrupts returns the context commands run under and the watcher
// that tells, afterwards, whether a signal cancelled it.
func watchInterrupts() (context.Context, *interrupts) {
	ctx, cancel := context.WithCancel(context.Background())
	in := &interrupts{}
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-ch
		in.mu.Lock()
		in.sig = s
		in.mu.Unlock()
		cancel()
		s = <-ch
		fmt.Fprintln(os.Stderr, "\ndt64: interrupted again: exiting at once")
		os.Exit(signalStatus(s))
	}()
	return ctx, in
}

func (in *interrupts) signal() os.Signal {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.sig
}

// signalStatus is the shell's exit status for a process a signal ended:
// 128 + its number (130 for SIGINT, 143 for SIGTERM).
func signalStatus(s os.Signal) int {
	if n, ok := s.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 130
}

// exitIfInterrupted ends the process when a signal stopped cmd (it
// failed after the signal; one that finished anyway has done its work):
// it prints how far the command got and the command that continues, and
// exits with the signal's status. args are the command line after
// "dt64".
func (in *interrupts) exitIfInterrupted(cmd *cobra.Command, args []string, err error) {
	s := in.signal()
	if s == nil || err == nil {
		return
	}
	w := io.Writer(os.Stderr)
	if cmd != nil {
		w = cmd.ErrOrStderr() // redacted: the continuing command repeats the arguments
	}
	fmt.Fprintln(w, interruptedLine(cmd, args, onTerminal(os.Stderr)))
	os.Exit(signalStatus(s))
}

func onTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// interruptedLine says how far cmd got and how to continue: a transcode
// with --resume (instead of --overwrite, which would start over), any
// other command by running it again. On a terminal it starts on a line
// of its own, after the progress bar and the ^C the terminal echoed.
func interruptedLine(cmd *cobra.Command, args []string, terminal bool) string {
	var b strings.Builder
	if terminal {
		b.WriteString("\n")
	}
	b.WriteString("interrupted")
	if p, what, ok := lastProgress(); ok {
		fmt.Fprintf(&b, " after %d/%d %s", p.UnitsDone, p.Units, what)
	}
	name := ""
	if cmd != nil && cmd != cmd.Root() {
		name = cmd.Name()
	}
	if name != "transcode" || hasFlag(args, "--finalize") {
		b.WriteString("; run the same command again")
		if name == "transcode" {
			fmt.Fprintf(&b, ": %s", shellCommand(args))
		}
		return b.String()
	}
	var cont []string
	for _, a := range args {
		if a != "--overwrite" && a != "--overwrite=true" {
			cont = append(cont, a)
		}
	}
	if !hasFlag(cont, "--resume") {
		cont = append(cont, "--resume")
	}
	fmt.Fprintf(&b, "; continue with: %s", shellCommand(cont))
	return b.String()
}

func hasFlag(args []string, flag string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == flag || strings.HasPrefix(a, flag+"=") {
			return true
		}
	}
	return false
}

// shellCommand is dt64 with args, quoted for a POSIX shell where needed.
func shellCommand(args []string) string {
	words := []string{"dt64"}
	for _, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@+%") == "" {
			words = append(words, a)
			continue
		}
		words = append(words, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	return strings.Join(words, " ")
}

// progressNow is the progress of the command's running stage, and what
// its units are; set by withTranscodeProgress.
var progressNow struct {
	sync.Mutex
	what string
	prog func() transcode.Progress
}

func setProgress(what string, prog func() transcode.Progress) {
	progressNow.Lock()
	defer progressNow.Unlock()
	progressNow.what, progressNow.prog = what, prog
}

func lastProgress() (transcode.Progress, string, bool) {
	progressNow.Lock()
	defer progressNow.Unlock()
	if progressNow.prog == nil {
		return transcode.Progress{}, "", false
	}
	return progressNow.prog(), progressNow.what, true
}

// progressUnits names the units of each stage's progress.
var progressUnits = map[string]string{"transcode": "work units", "verify": "work units verified", "export": "batches"}

// cmdContext is the command's context: cancelled by an interrupt.
func cmdContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// unfinishedError is inspect's and validate's answer for a destination
// that holds a dt64 transcode not finished yet (no metadata, by design,
// until every chunk is written): what is there and the flag that ends it.
type unfinishedError struct {
	dir string
	u   *transcode.Unfinished
	err error // the metadata's absence
}

func (e *unfinishedError) Unwrap() error { return e.err }

func (e *unfinishedError) Error() string {
	what := "an array's"
	if e.u.Hierarchy {
		what = "a hierarchy's"
	}
	from := ""
	if e.u.Source != "" {
		from = " from " + e.u.Source
	}
	switch {
	case e.u.Wiping:
		return fmt.Sprintf("%s: an interrupted dt64 transcode --overwrite (%s) was deleting what was here: run it again to finish", e.dir, what)
	case e.u.Finalizing:
		return fmt.Sprintf("%s: a dt64 transcode (%s%s) whose parts are all done was writing its metadata: finish it with --finalize", e.dir, what, from)
	case e.u.Parts > 0:
		return fmt.Sprintf("%s: a partitioned dt64 transcode (%s%s), %d of %d parts done, no metadata yet: run the other parts (--part I/%d), then --finalize if the last one does not", e.dir, what, from, e.u.PartsDone, e.u.Parts, e.u.Parts)
	}
	return fmt.Sprintf("%s: an interrupted dt64 transcode (%s%s), no metadata yet: run the same transcode with --resume to finish it", e.dir, what, from)
}
