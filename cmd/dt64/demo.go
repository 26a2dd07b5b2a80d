package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/internal/impl"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

func init() { subcommands = append(subcommands, newDemoCmd) }

// demoStart is the first sample timestamp: 2024-01-01T00:00:00Z in ns.
var demoStart = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()

type demoFlags struct {
	elements, chunk int64
	format, workers int
}

func newDemoCmd() *cobra.Command {
	var f demoFlags
	cmd := &cobra.Command{
		Use:   "demo [DIR]",
		Short: "Write a legacy-style Zarr array of timestamps, transcode it, verify it",
		Long: `Write a realistic legacy array: big-endian datetime64[ns] timestamps at a 1 s
cadence with sub-millisecond jitter, about 0.5% NaT, a few chunks entirely
NaT (so not stored, as zarr-python does), gzip-compressed, in Zarr v2
(">M8[ns]"; --format 3 writes v3). Then transcode it to little-endian
datetime64[us] with zstd in Zarr v3, as dt64 transcode would, verify every
destination chunk against a fresh conversion of the source and every element
against an independent computation, and print the summary.

DIR receives source.zarr and dest.zarr and is kept; without it a temporary
directory is used and removed at the end.`,
		Example: "  dt64 demo\n  dt64 demo /tmp/dt64-demo\n  dt64 demo --elements 1000000 --chunk 65536",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageError{fmt.Errorf("accepts at most 1 argument (DIR), received %d", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.elements < 1 || f.chunk < 1 {
				return usageError{errors.New("--elements and --chunk must be positive")}
			}
			if f.format != 2 && f.format != 3 {
				return usageError{fmt.Errorf("--format %d: want 2 or 3", f.format)}
			}
			dir := ""
			if len(args) == 1 {
				dir = args[0]
			}
			return runDemo(cmd, dir, f)
		},
	}
	fl := cmd.Flags()
	fl.Int64Var(&f.elements, "elements", 32<<20, "number of timestamps to generate")
	fl.Int64Var(&f.chunk, "chunk", 1<<20, "elements per chunk")
	fl.IntVar(&f.format, "format", 2, "Zarr format of the generated source, 2 or 3")
	fl.IntVar(&f.workers, "workers", 0, "workers (default: the number of CPUs)")
	return cmd
}

func runDemo(cmd *cobra.Command, dir string, f demoFlags) error {
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	out := cmd.OutOrStdout()
	if dir == "" {
		tmp, err := os.MkdirTemp("", "dt64-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
		fmt.Fprintf(out, "working in %s (removed at the end; give DIR to keep it)\n", dir)
	} else {
		for _, n := range []string{"source.zarr", "dest.zarr"} {
			if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
				return fmt.Errorf("%s already exists: give an empty or new DIR", filepath.Join(dir, n))
			} else if !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		fmt.Fprintf(out, "working in %s (kept)\n", dir)
	}
	srcDir, dstDir := filepath.Join(dir, "source.zarr"), filepath.Join(dir, "dest.zarr")
	workers := f.workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}

	t0 := time.Now()
	stored, encoded, err := writeDemoSource(ctx, storage.NewDir(srcDir), f, workers)
	if err != nil {
		return err
	}
	nChunks := (f.elements + f.chunk - 1) / f.chunk
	fmt.Fprintf(out, "source:    %d timestamps %s (v%d, gzip:1), %d chunks of %d (%d all NaT, not stored), %s decoded, %s stored; written in %s\n",
		f.elements, demoFrom.NumPy(binary.BigEndian), f.format, nChunks, f.chunk, nChunks-stored,
		transcodeBytes(8*f.elements), transcodeBytes(encoded), time.Since(t0).Round(time.Millisecond))

	us := dtype.Microsecond
	o := transcode.Options{
		Unit: us, Endian: binary.LittleEndian, Compression: &transcode.Compression{Codec: zarr.ZstdCodec{Level: 3}},
		Format: 3, Workers: workers,
	}
	dst := storage.NewDir(dstDir)
	dst.FlushAhead = flushAhead // as transcode does
	defer dst.Close()
	t, err := transcode.New(ctx, storage.NewDir(srcDir), dst, o)
	if err != nil {
		return err
	}
	printTranscodePlan(out, t.Plan(), srcDir, dstDir)
	fmt.Fprintf(out, "kernels:   %s\n", impl.Active("kernels"))
	sum, err := withTranscodeProgress(cmd, "transcode", false, t.Progress, func() (transcode.Summary, error) { return t.Run(ctx) })
	if err != nil {
		return err
	}
	if !sum.Complete {
		return errors.New("demo: the transcode did not complete")
	}
	printTranscodeSummary(out, sum)

	t1 := time.Now()
	if _, err := withTranscodeProgress(cmd, "verify", false, t.Progress, func() (transcode.Summary, error) { return transcode.Summary{}, t.Verify(ctx) }); err != nil {
		return err
	}
	fmt.Fprintf(out, "verified:  every destination chunk equals a fresh conversion of the source (%s)\n", time.Since(t1).Round(time.Millisecond))
	t2 := time.Now()
	if err := checkDemoDest(ctx, dstDir, f, workers); err != nil {
		return err
	}
	fmt.Fprintf(out, "checked:   every element equals floor(ns / 1000) of the generated value, NaT where NaT (%s)\n", time.Since(t2).Round(time.Millisecond))
	return nil
}

var (
	demoFrom = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}
	demoTo   = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Microsecond, Scale: 1}
)

// demoAllNaT reports the chunks left entirely NaT: every 13th, from the 5th.
func demoAllNaT(chunk int64) bool { return chunk%13 == 5 }

// demoChunk fills vals with chunk c's generated timestamps (deterministic
// per chunk, so checks can regenerate them). Past the array's end the
// values are NaT.
func demoChunk(vals []int64, c, n int64) {
	if demoAllNaT(c) {
		for i := range vals {
			vals[i] = dtype.NaT
		}
		return
	}
	rng := rand.New(rand.NewPCG(uint64(c), 0xd764))
	base := c * int64(len(vals))
	for i := range vals {
		idx := base + int64(i)
		v := demoStart + idx*int64(time.Second) + rng.Int64N(1_000_001) - 500_000
		if idx >= n || rng.IntN(200) == 0 {
			v = dtype.NaT
		}
		vals[i] = v
	}
}

func writeDemoSource(ctx context.Context, store storage.Store, f demoFlags, workers int) (stored int64, encoded int64, err error) {
	a, err := zarr.Create(ctx, store, zarr.Metadata{
		Format: f.format, DataType: demoFrom,
		Shape: []int64{f.elements}, ChunkShape: []int64{f.chunk}, FillValue: dtype.NaT,
		Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.BigEndian}, zarr.GzipCodec{Level: 1}},
	})
	if err != nil {
		return 0, 0, err
	}
	n := a.NumChunks()
	var next, storedN atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Go(func() {
			vals := make([]int64, a.ChunkLen())
			for {
				c := next.Add(1) - 1
				if c >= n || ctx.Err() != nil {
					return
				}
				demoChunk(vals, c, f.elements)
				if err := a.WriteChunk(ctx, []int64{c}, vals); err != nil {
					errs[w] = err
					return
				}
				if !demoAllNaT(c) {
					storedN.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, 0, err
	}
	if err := a.WriteMetadata(ctx); err != nil {
		return 0, 0, err
	}
	keys, err := store.List(ctx, "")
	if err != nil {
		return 0, 0, err
	}
	for _, k := range keys {
		b, err := store.Get(ctx, k)
		if err != nil {
			return 0, 0, err
		}
		encoded += int64(len(b))
	}
	return storedN.Load(), encoded, nil
}

// checkDemoDest compares every destination element with floor(v / 1000)
// of the regenerated source value, computed here without the kernels.
func checkDemoDest(ctx context.Context, dir string, f demoFlags, workers int) error {
	a, err := zarr.Open(ctx, storage.NewDir(dir))
	if err != nil {
		return err
	}
	if a.DataType() != demoTo || a.Format() != 3 {
		return fmt.Errorf("demo: destination is %s v%d, want %s v3", a.DataType(), a.Format(), demoTo)
	}
	srcChunk := f.chunk
	if a.ChunkShape()[0] != srcChunk {
		return fmt.Errorf("demo: destination chunks %v, want [%d]", a.ChunkShape(), srcChunk)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Go(func() {
			got := make([]int64, a.ChunkLen())
			want := make([]int64, a.ChunkLen())
			for {
				c := next.Add(1) - 1
				if c >= a.NumChunks() {
					return
				}
				if err := a.ReadChunk(ctx, []int64{c}, got); err != nil {
					errs[w] = err
					return
				}
				demoChunk(want, c, f.elements)
				for i, v := range want {
					if v != dtype.NaT {
						q := v / 1000
						if v%1000 < 0 {
							q--
						}
						v = q
					}
					if got[i] != v {
						errs[w] = fmt.Errorf("demo check failed: element %d is %d, want %d", c*srcChunk+int64(i), got[i], v)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
