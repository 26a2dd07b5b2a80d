package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
)

// castBlock is how many bytes cast converts per step: large enough that the
// kernels run at full speed, small enough to stay in cache.
const castBlock = 1 << 20

func init() { subcommands = append(subcommands, newCastCmd) }

func newCastCmd() *cobra.Command {
	var (
		from, to, overflow string
		exact, verbose     bool
	)
	cmd := &cobra.Command{
		Use:   "cast --from SPEC --to SPEC [IN [OUT]]",
		Short: "Convert raw 8-byte datetime64/timedelta64 elements between data types",
		Long: `Convert a raw buffer of 8-byte elements from one data type to another with
NumPy's semantics: the exact value, floored; NaT stays NaT; overflow is
never silent.

SPEC is a NumPy dtype string or a Zarr v3 data_type JSON object; the byte
order comes from the NumPy string's '<' or '>' (little endian when absent).
IN and OUT default to standard input and output ('-' also means them).
An output file is written under a temporary name and renamed into place
only when every element converted, so a failed cast leaves nothing behind.

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
			policy, err := kernels.ParsePolicy(overflow)
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
			start := time.Now()
			st, err := castFiles(cmd, tc, inName, outName)
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
	return cmd
}

// castFiles streams IN through the transcoder into OUT. A named OUT is
// written to a temporary file beside it and renamed only on success.
func castFiles(cmd *cobra.Command, tc *kernels.Transcoder, inName, outName string) (kernels.Stats, error) {
	var in io.Reader = cmd.InOrStdin()
	if inName != "-" {
		f, err := os.Open(inName)
		if err != nil {
			return kernels.Stats{}, err
		}
		defer f.Close()
		in = f
	}
	if outName == "-" {
		return castStream(tc, in, cmd.OutOrStdout(), inName)
	}
	tmp, err := os.CreateTemp(filepath.Dir(outName), "."+filepath.Base(outName)+".tmp-*")
	if err != nil {
		return kernels.Stats{}, err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	st, err := castStream(tc, in, tmp, inName)
	if err != nil {
		tmp.Close()
		return st, err
	}
	if err := tmp.Close(); err != nil {
		return st, err
	}
	return st, os.Rename(tmp.Name(), outName)
}

func castStream(tc *kernels.Transcoder, in io.Reader, out io.Writer, inName string) (kernels.Stats, error) {
	var total kernels.Stats
	// Start small: most inputs given on a pipe are small, and a full block
	// per call would dominate their cost.
	buf := make([]byte, 64<<10)
	base := 0 // index of the first element of buf in the whole input
	for {
		n, rerr := io.ReadFull(in, buf)
		if rerr != nil && rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
			return total, fmt.Errorf("reading %s: %w", inName, rerr)
		}
		whole := n &^ 7
		if whole > 0 {
			st, err := tc.Run(buf[:whole], buf[:whole], nil)
			total.Add(st)
			if err != nil {
				return total, shiftIndex(err, base, inName)
			}
			if _, err := out.Write(buf[:whole]); err != nil {
				return total, err
			}
			base += whole / 8
		}
		if n != whole {
			return total, fmt.Errorf("%s: length is not a multiple of 8 bytes: %d trailing bytes after element %d", inName, n-whole, base)
		}
		if rerr != nil {
			return total, nil
		}
		if len(buf) < castBlock { // a large input: full-size blocks from now on
			buf = make([]byte, castBlock)
		}
	}
}

// shiftIndex turns a block-relative element index into one in the whole input.
func shiftIndex(err error, base int, inName string) error {
	var ke *kernels.ElementError
	if errors.As(err, &ke) {
		e := *ke
		e.Index += base
		return fmt.Errorf("%s: %w", inName, &e)
	}
	return err
}
