package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/zarr"
)

func init() { subcommands = append(subcommands, newValidateCmd) }

func newValidateCmd() *cobra.Command {
	var cal calendarFlags
	cmd := &cobra.Command{
		Use:   "validate PATH",
		Short: "Check a Zarr v2 or v3 datetime64/timedelta64 array: metadata and every chunk",
		Long: `Check the Zarr array in directory PATH: its metadata (zarr.json or .zarray,
strictly), and that every stored chunk decodes: checksums (crc32c codec, zstd
and gzip frame checksums), compressed streams, decoded sizes, shard indexes.
When PATH is a group, every array of the hierarchy is checked so (an array
whose codecs, data type or order dt64 does not decode is "not checked
(reason)", a warning: strings, objects, structured and Fortran-order
arrays, numcodecs filters), each warning naming the file by its path in
the hierarchy; temporary files and other files outside the arrays (beside
the groups' metadata documents) are warnings too.

Every problem found is reported, not just the first: one line per problem on
standard output, "KEY: reason", naming the chunk's store key ("metadata" for
the metadata). A chunk that does not decode is one problem (decoding stops
at the damage); in a CF time array every element that cannot be decoded
is one, and the first ` + fmt.Sprint(maxNamedElements) + ` of a chunk are named, then one line counts
the rest. A chunk key at which the directory holds something other than a
regular file (a directory "c/0/" holding files, a named pipe) is a
problem too: every reader fails on it. The exit status is then 1. When all
is well the output is a single line "ok: N chunks (M present) valid" and
the exit status 0.

Files that are not part of the array are warnings on standard error and do
not change the exit status: temporary files left by an interrupted dt64
write (".dt64-tmp-*", safe to delete), chunk keys outside the chunk grid
(left by a shrinking resize; never read), and any other unexpected file.

A CF time array (xarray's encoding) is decoded as dt64 transcode decodes it
(in its CF unit): a value that cannot be an instant (±Inf, or beyond int64
counts of the unit) is a problem; so is a CF duration's (units "hours",
…) that cannot be a timedelta64. A datetime64 array that still carries a
CF units attribute "<unit> since <date>" gets a warning: a reader that
applies it shifts every instant, and xarray, which does not, cannot write
the dataset back while units is an attribute. A model
calendar's numbers are checked in its own time unless --convert-calendar is
given; then every date is converted too, and one the proleptic Gregorian
calendar lacks is a problem (unless --calendar-missing nat).`,
		Example: "  dt64 validate data/events.zarr || echo damaged",
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			co, err := cal.options()
			if err != nil {
				return err
			}
			return runValidate(ctx, cmd, args[0], co, nil, "")
		},
	}
	cal.add(cmd.Flags())
	return cmd
}

// problemsError is validate's failure: the problems are already printed.
type problemsError struct {
	path string
	n    int
}

func (e *problemsError) Error() string {
	s := "s"
	if e.n == 1 {
		s = ""
	}
	return fmt.Sprintf("%s: %d problem%s found", e.path, e.n, s)
}

// runValidate validates the array or group in dir; an array is read with
// attrs added to its attributes (the coordinate's units of CF bounds; nil
// for none), and where ("" alone, "path/" in a group) prefixes the keys
// its warnings name.
func runValidate(ctx context.Context, cmd *cobra.Command, dir string, co cf.CalendarOptions, attrs map[string]json.RawMessage, where string) error {
	if isGroupDir(ctx, dir) {
		return validateGroup(ctx, cmd, dir, co)
	}
	out, warn := cmd.OutOrStdout(), cmd.ErrOrStderr()
	a, store, err := openArrayDir(ctx, dir, attrs)
	if err != nil {
		// A missing directory is a mistake in the command, not a damaged
		// array; anything else is a metadata problem to report like the rest.
		// An unsupported codec is not damage: say it cannot be checked.
		var me *zarr.MetadataError
		if errors.Is(err, zarr.ErrUnsupported) {
			return fmt.Errorf("cannot check: %w", err)
		}
		if errors.As(err, &me) && me.Field == "order" {
			// A valid array dt64 does not decode (Fortran order), as a
			// group's validate says of it: not damage.
			return fmt.Errorf("cannot check: %w", err)
		}
		if !errors.As(err, &me) {
			return err
		}
		fmt.Fprintf(out, "metadata: %v\n", err)
		return &problemsError{dir, 1}
	}
	defer store.Close()
	files, err := a.Inventory(ctx)
	if err != nil {
		return err
	}
	inventoryWarnings(warn, where, a, files)
	if w := cfLeftovers(a); w != "" {
		fmt.Fprintf(warn, "metadata: warning: %s\n", w)
	}

	// Decoding checks everything the codecs know (checksums, sizes,
	// frames, shard indexes); a CF array's values are decoded too.
	check := func(int, zarr.StoredChunk, []byte, binary.ByteOrder) error { return nil }
	if t, err := a.CFTime(); err == nil && t != nil {
		co.ModelTime = co.Convert == cf.ConvertNone // a model calendar's numbers decode, unconverted
		view, err := newCFView(a, t, dtype.DataType{Kind: t.Units.Kind(), Unit: t.Units.Unit, Scale: 1}, co)
		if err != nil {
			return err
		}
		check = func(_ int, c zarr.StoredChunk, raw []byte, _ binary.ByteOrder) error {
			saved := append([]byte(nil), raw[:a.ElementSize()*a.ChunkLen()]...)
			_, err := view.decode(a, c.Coords, raw)
			var ke *dtype.ElementError
			if !errors.As(err, &ke) {
				return err
			}
			return view.elementProblems(a, c.Coords, saved, ke)
		}
	}
	errs := a.ReadStored(ctx, files.Chunks, a.StoredReaders(len(files.Chunks)), false, check)
	problems := 0
	for _, n := range files.NotValues {
		problems++
		fmt.Fprintf(out, "%s: is %s, not a regular file\n", n.Key, n.NotValue)
	}
	for i, err := range errs {
		if err == nil {
			continue
		}
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			return fmt.Errorf("%s: stopped after %d problems: %w", dir, problems, ctxErr)
		}
		reason := err
		var ce *zarr.ChunkError
		if errors.As(err, &ce) {
			reason = ce.Err
		}
		var ep *elementProblems
		if errors.As(err, &ep) {
			problems += ep.total
			for _, e := range ep.named {
				fmt.Fprintf(out, "%s: %v\n", files.Chunks[i].Key, e)
			}
			if more := ep.total - len(ep.named); more > 0 {
				fmt.Fprintf(out, "%s: %d more elements that cannot be decoded (%d in this chunk, the first %d named)\n", files.Chunks[i].Key, more, ep.total, len(ep.named))
			}
			continue
		}
		problems++
		fmt.Fprintf(out, "%s: %v\n", files.Chunks[i].Key, reason)
	}
	if problems > 0 {
		return &problemsError{dir, problems}
	}
	fmt.Fprintf(out, "ok: %s (%d present) valid\n", count(a.NumChunks(), "chunk"), len(files.Chunks))
	return nil
}

// maxNamedElements is how many elements that cannot be decoded validate
// names per chunk of a CF time array; it counts the others.
const maxNamedElements = 10

// elementProblems are the elements of a CF time chunk that cannot be
// decoded: total of them, the first maxNamedElements named.
type elementProblems struct {
	named []error
	total int
}

func (e *elementProblems) Error() string {
	return fmt.Sprintf("%v (and %d more elements that cannot be decoded)", e.named[0], e.total-1)
}

// elementProblems finds every element of the chunk at coords that cannot
// be decoded, given the first (first, from decode) and the chunk's stored
// elements as they were before decode (saved): it decodes on from the
// element after each failure, so the chunk is decoded once in all, and
// counts the failures inside the array (not its edge chunk's padding).
func (v *cfView) elementProblems(a *zarr.Array, coords []int64, saved []byte, first *dtype.ElementError) error {
	n, z := a.ChunkLen(), a.ElementSize()
	inside := make([]bool, n)
	_ = a.Grid().ForEachInside(coords, func(off, k int) error {
		for i := off; i < off+k; i++ {
			inside[i] = true
		}
		return nil
	})
	p := &elementProblems{}
	dst := make([]byte, 8*n)
	for e, start := first, 0; ; {
		e.Index += start
		if e.Index >= n {
			break
		}
		if inside[e.Index] {
			if p.total++; len(p.named) < maxNamedElements {
				p.named = append(p.named, e)
			}
		}
		start = e.Index + 1
		if start == n {
			break
		}
		_, err := v.dec.Run(dst[8*start:], saved[z*start:z*n], nil)
		if err == nil {
			break
		}
		if !errors.As(err, &e) {
			return err
		}
	}
	if p.total == 0 { // only padding failed (it never does: it repeats the first element)
		return nil
	}
	return p
}

// inventoryWarnings prints what an array's directory holds beside its
// chunks and metadata, each key prefixed with where.
func inventoryWarnings(w io.Writer, where string, a *zarr.Array, files *zarr.Inventory) {
	for _, k := range files.Temps {
		fmt.Fprintf(w, "%s%s: warning: %s\n", where, k, tempWarning)
	}
	for _, k := range files.Outside {
		fmt.Fprintf(w, "%s%s: warning: chunk key outside the chunk grid %s (never read)\n", where, k, formatInts(a.ChunkGrid()))
	}
	for _, k := range files.Stray {
		fmt.Fprintf(w, "%s%s: warning: not a chunk or metadata document of this array\n", where, k)
	}
}

const tempWarning = "temporary file of an interrupted write (safe to delete)"
