package bench

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/zarr-dt64/dt64/dtype"
)

// CastFrom and CastTo are the conversion MeasureCastFile times: big-endian
// seconds to little-endian nanoseconds (a byte swap and a checked multiply),
// the README's example of legacy data.
const (
	CastFrom = ">M8[s]"
	CastTo   = "<M8[ns]"
)

// CastFileOptions says how to time `dt64 cast` of a file against `cp` of
// the same file.
type CastFileOptions struct {
	Dt64   []string // the dt64 command: the executable and any arguments before "cast"
	Dir    string   // where the source and the outputs go: one filesystem for both
	Size   int      // bytes in the source file, a multiple of 8
	Rounds int
	// Sync makes both sides durable: cast as it runs by default (fsync of
	// the file and its directory), cp followed by `sync DST DIR` (the
	// same two fsyncs), inside the timing. Without Sync cast runs with --no-sync and neither
	// side flushes inside the timing.
	Sync bool
}

// CastFileResult is the median over rounds of cast's time / cp's time, and
// each side's median time.
type CastFileResult struct {
	CastFileOptions
	Ratio      float64   // < 1: cast is faster than cp
	Ratios     []float64 // every round's ratio
	Cast, Copy time.Duration
	// CPURatio is the median of cast's CPU time (user + system, every
	// thread) / cp's: the work each does, which another process's load
	// disturbs less than the elapsed time.
	CPURatio float64
}

// MeasureCastFile times `cp SRC DST` and `dt64 cast SRC DST` of one warm
// source file into the same directory, interleaved: each round runs both,
// cp first in even rounds and cast first in odd ones. Outside the timing,
// each output is flushed to disk and removed before the next command runs,
// so neither pays for the other's writeback.
func MeasureCastFile(o CastFileOptions) (CastFileResult, error) {
	res := CastFileResult{CastFileOptions: o}
	if o.Size <= 0 || o.Size%8 != 0 || o.Rounds < 1 {
		return res, fmt.Errorf("bench: size %d and rounds %d: want a positive multiple of 8 and at least 1", o.Size, o.Rounds)
	}
	cp, err := exec.LookPath("cp")
	if err != nil {
		return res, err
	}
	dir, err := os.MkdirTemp(o.Dir, "dt64-bench-cast-")
	if err != nil {
		return res, err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "src.bin")
	if err := writeSource(src, o.Size); err != nil {
		return res, err
	}
	dst := filepath.Join(dir, "dst.bin")
	castArgs := []string{"cast", "--from", CastFrom, "--to", CastTo, src, dst}
	if !o.Sync {
		castArgs = append(castArgs, "--no-sync")
	}
	if len(o.Dt64) == 0 {
		return res, fmt.Errorf("bench: no dt64 command")
	}
	castArgs = append(append([]string(nil), o.Dt64[1:]...), castArgs...)
	syncCmd := ""
	if o.Sync {
		if syncCmd, err = exec.LookPath("sync"); err != nil {
			return res, err
		}
	}
	runCast := func() (time.Duration, error) { return run(o.Dt64[0], castArgs...) }
	runCp := func() (time.Duration, error) {
		cpu, err := run(cp, src, dst)
		if err != nil || !o.Sync {
			return cpu, err
		}
		// coreutils sync FILE... fsyncs each named file.
		cpu2, err := run(syncCmd, dst, dir)
		return cpu + cpu2, err
	}
	var casts, copies, cpuRatios []float64
	for r := range o.Rounds {
		var tc, tp timing
		if r%2 == 0 {
			tp, err = timeOne(runCp, dst, o.Size)
			if err == nil {
				tc, err = timeOne(runCast, dst, o.Size)
			}
		} else {
			tc, err = timeOne(runCast, dst, o.Size)
			if err == nil {
				tp, err = timeOne(runCp, dst, o.Size)
			}
		}
		if err != nil {
			return res, err
		}
		casts, copies = append(casts, tc.wall), append(copies, tp.wall)
		res.Ratios = append(res.Ratios, tc.wall/tp.wall)
		cpuRatios = append(cpuRatios, tc.cpu/tp.cpu)
	}
	res.Ratio = median(res.Ratios)
	res.CPURatio = median(cpuRatios)
	res.Cast = time.Duration(median(casts) * 1e9)
	res.Copy = time.Duration(median(copies) * 1e9)
	return res, nil
}

// writeSource writes size bytes of big-endian seconds, flushed to disk (no
// writeback left to disturb the timing) and still in the page cache.
func writeSource(name string, size int) error {
	b := make([]byte, size)
	Fill(b, dtype.Second, binary.BigEndian)
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// timing is one command's elapsed and CPU seconds.
type timing struct{ wall, cpu float64 }

// timeOne times cmd, checks that it wrote dst whole, then (untimed)
// flushes and removes dst.
func timeOne(cmd func() (time.Duration, error), dst string, size int) (timing, error) {
	t0 := time.Now()
	cpu, err := cmd()
	t := timing{time.Since(t0).Seconds(), cpu.Seconds()}
	if err != nil {
		return t, err
	}
	fi, err := os.Stat(dst)
	if err != nil {
		return t, err
	}
	if fi.Size() != int64(size) {
		return t, fmt.Errorf("bench: %s has %d bytes, want %d", dst, fi.Size(), size)
	}
	if err := syncFileAndDir(dst); err != nil {
		return t, err
	}
	return t, os.Remove(dst)
}

// run runs a command and returns its CPU time.
func run(name string, args ...string) (time.Duration, error) {
	cmd := exec.Command(name, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("bench: %s %v: %w\n%s", name, args, err, out)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

func syncFileAndDir(name string) error {
	for _, n := range []string{name, filepath.Dir(name)} {
		f, err := os.Open(n)
		if err != nil {
			return err
		}
		err = f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
