package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/transcode"
)

func init() { subcommands = append(subcommands, newCastCmd) }

func newCastCmd() *cobra.Command {
	var (
		from, to, overflow string
		exact, verbose     bool
		noSync             bool
	)
	cmd := &cobra.Command{
		Use:   "cast --from SPEC --to SPEC [IN [OUT]]",
		Short: "Convert raw 8-byte datetime64/timedelta64 elements between data types",
		Long: `Convert a raw buffer of 8-byte elements from one data type to another with
NumPy's semantics: the exact value, floored; NaT stays NaT; overflow is
never silent.

SPEC is a NumPy dtype string or a Zarr v3 data_type JSON object; the byte
order comes from the NumPy string's '<' or '>' (little endian without one:
none, '=' or '|', whatever the machine).
IN and OUT default to standard input and output ('-' also means them).
An output file is written under a temporary name, flushed to disk (unless
--no-sync) and renamed into place only when every element converted, so a
failed cast leaves nothing behind and a crash leaves the old OUT or the
whole new one. It gets the permissions cp would give it. As with cp, a
symbolic link is written through and a FIFO or device is written into
(without the temporary name). OUT must not be IN. An interrupt leaves no
OUT, even one that waits on its input.

Overflow policies: error (stop and name the element), nat (store NaT),
clamp (saturate). --exact makes any loss of precision an error.`,
		Example: `  dt64 cast --from '>M8[s]' --to '<M8[ns]' big_s.bin little_ns.bin
  dt64 cast --from '<m8[ns]' --to '<m8[s]' --exact < durations.bin > seconds.bin
  dt64 cast --from '<M8[ns]' --to '<M8[M]' --overflow nat -v in.bin out.bin`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 2 {
				return usageError{fmt.Errorf("accepts at most 2 arguments (IN and OUT), received %d", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" || to == "" {
				return usageError{errors.New("both --from and --to are required")}
			}
			policy, err := dtype.ParseOverflowPolicy(overflow)
			if err != nil {
				return usageError{err}
			}
			src, srcOrder, err := parseSpec(from)
			if err != nil {
				return usageError{fmt.Errorf("--from: %w", err)}
			}
			dst, dstOrder, err := parseSpec(to)
			if err != nil {
				return usageError{fmt.Errorf("--to: %w", err)}
			}
			conv, err := dtype.NewConversion(src, dst)
			if err != nil {
				return err
			}
			tc, err := kernels.NewTranscoder(conv, kernels.Options{
				From: srcOrder, To: dstOrder, Overflow: policy, Exact: exact,
			})
			if err != nil {
				return err
			}
			inName, outName := "-", "-"
			if len(args) > 0 {
				inName = args[0]
			}
			if len(args) > 1 {
				outName = args[1]
			}
			for _, f := range []struct {
				name *string
				role string
			}{{&inName, "IN"}, {&outName, "OUT"}} {
				if *f.name != "-" {
					if *f.name, err = localFile(f.role, *f.name, "cast reads and writes local files (or - for standard input and output)"); err != nil {
						return err
					}
				}
			}
			start := time.Now()
			st, err := castFiles(cmd, tc, inName, outName, noSync)
			if err != nil {
				return err
			}
			if verbose {
				fmt.Fprintf(cmd.ErrOrStderr(), "%s\nelements %d, NaT %d, overflowed %d, lossy %d, %s\n",
					conv, st.Elements, st.NaT, st.Overflowed, st.Lossy, time.Since(start).Round(time.Microsecond))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&from, "from", "", "source data type (NumPy string or Zarr JSON)")
	f.StringVar(&to, "to", "", "destination data type (NumPy string or Zarr JSON)")
	f.StringVar(&overflow, "overflow", "error", "overflow policy: error, nat or clamp")
	f.BoolVar(&exact, "exact", false, "fail on any loss of precision")
	f.BoolVarP(&verbose, "verbose", "v", false, "print a summary on stderr")
	f.BoolVar(&noSync, "no-sync", false, "do not flush OUT to disk before renaming it into place (scratch output: after a crash it may be incomplete)")
	return cmd
}

// castFiles streams IN through the transcoder into OUT. A named OUT is
// written to a temporary file beside it and renamed only on success;
// unless noSync, the file is flushed to stable storage before the rename
// and its directory after it, so a crash leaves the old OUT or the whole
// new one. The source is only read.
func castFiles(cmd *cobra.Command, tc *kernels.Transcoder, inName, outName string, noSync bool) (kernels.Stats, error) {
	special := false
	if outName != "-" {
		var err error
		if outName, special, err = castTarget(outName); err != nil {
			return kernels.Stats{}, err
		}
	}
	var in io.Reader = cmd.InOrStdin()
	var size int64               // of a regular input file, else 0
	inPerm := os.FileMode(0o666) // what cp gives a new file made from in

	if inName != "-" {
		f, err := os.Open(inName)
		if err != nil {
			return kernels.Stats{}, err
		}
		defer f.Close()
		in = f
		fi, err := f.Stat()
		if err != nil {
			return kernels.Stats{}, err
		}
		if fi.Mode().IsRegular() {
			size, inPerm = fi.Size(), fi.Mode().Perm()
		}
		if outName != "-" {
			if err := notSameFile(fi, outName); err != nil {
				return kernels.Stats{}, err
			}
			if err := transcode.CheckOverlap(inName, outName); err != nil {
				return kernels.Stats{}, err
			}
		}
	}
	if outName == "-" {
		return castStream(cmdContext(cmd), tc, in, dataWriter(cmd.OutOrStdout()), inName)
	}
	if special {
		// A FIFO, a device or a socket: written into, as cp does; there
		// is nothing to rename into place.
		f, err := os.OpenFile(outName, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return kernels.Stats{}, err
		}
		st, err := castStream(cmdContext(cmd), tc, in, f, inName)
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("writing %s: %w", outName, cerr)
		}
		return st, err
	}
	if _, err := removeStaleTemps(outName); err != nil {
		return kernels.Stats{}, err
	}
	tmp, err := createTemp(outName, inPerm)
	if err != nil {
		return kernels.Stats{}, err
	}
	var st kernels.Stats
	if err = preallocate(tmp, size); err != nil {
		err = fmt.Errorf("reserving %d bytes on disk for %s: %w", size, outName, err)
	} else {
		st, err = castStream(cmdContext(cmd), tc, in, tmp, inName)
	}
	if err == nil && !noSync {
		if err = fsync(tmp); err != nil {
			err = fmt.Errorf("flushing %s to disk: %w", outName, err)
		}
	}
	if err == nil {
		err = publish(tmp, outName, true)
	} else {
		tmp.Close()
	}
	if err != nil {
		os.Remove(tmp.Name())
		return st, err
	}
	if !noSync {
		if err := syncDir(filepath.Dir(outName)); err != nil {
			return st, fmt.Errorf("%s is complete, but flushing its directory to disk failed (it may not survive a crash): %w", outName, err)
		}
	}
	return st, nil
}

// castTarget is the file cast writes for OUT name, as cp treats a
// destination: a symbolic link is written through (its target replaced,
// the link kept; a dangling one refused, as cp refuses it), and special
// reports a FIFO, device or socket, which is written into rather than
// replaced (it used to be replaced by a regular file: /dev/null too). A
// directory is refused: OUT names a file.
func castTarget(name string) (target string, special bool, err error) {
	fi, err := os.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return name, false, nil
	}
	if err != nil {
		return "", false, err
	}
	target = name
	if fi.Mode()&fs.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(name); err != nil {
			return "", false, fmt.Errorf("OUT %s is a symbolic link that leads nowhere (%w); cast does not write through it", name, err)
		}
		if fi, err = os.Stat(target); err != nil {
			return "", false, err
		}
	}
	switch {
	case fi.IsDir():
		return "", false, usageError{fmt.Errorf("OUT %s is a directory; cast writes a file: name one", name)}
	case !fi.Mode().IsRegular():
		return target, true, nil
	}
	return target, false, nil
}

// fsync is (*os.File).Sync; tests replace it to make it fail.
var fsync = (*os.File).Sync

// syncDir flushes a directory's entries (a rename into it) to disk.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = fsync(d)
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// notSameFile refuses an OUT that is IN itself (the same path, a hard
// link or a symbolic link to it): cast never replaces its source.
func notSameFile(in os.FileInfo, outName string) error {
	ofi, err := os.Stat(outName)
	if err != nil {
		return nil // no such OUT yet; creating it reports other problems
	}
	if os.SameFile(in, ofi) {
		return usageError{fmt.Errorf("OUT %s is the input file itself; cast never replaces its source: write to another name", outName)}
	}
	return nil
}

// createTemp creates an empty file beside name, for writing name's new
// contents. It has the permissions of the file it will replace, as cp
// keeps them when it overwrites one, or else perm minus the umask, as cp
// creates one (perm: the source file's, or 0666 for a file made from
// other input; os.CreateTemp's would be 0600). It is locked until
// closed, which tells a live write from one a killed process left behind
// (removeStaleTemps).
func createTemp(name string, perm os.FileMode) (*os.File, error) {
	keep := false
	if fi, err := os.Lstat(name); err == nil && fi.Mode().IsRegular() {
		perm, keep = fi.Mode().Perm(), true
	}
	dir, base := filepath.Split(name)
	for {
		var rnd [8]byte
		_, _ = rand.Read(rnd[:])
		tmp := filepath.Join(dir, "."+base+".tmp-"+hex.EncodeToString(rnd[:]))
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if errors.Is(err, fs.ErrNotExist) {
			// Name what the user gave, not the temporary file.
			return nil, fmt.Errorf("cannot write %s: directory %s does not exist", name, filepath.Dir(name))
		}
		if err != nil {
			return nil, err
		}
		if err := lockTemp(f); err != nil {
			f.Close()
			os.Remove(tmp)
			return nil, err
		}
		if keep { // the umask applied at creation; keep the mode exactly
			if err := f.Chmod(perm); err != nil {
				f.Close()
				os.Remove(tmp)
				return nil, err
			}
		}
		return f, nil
	}
}
