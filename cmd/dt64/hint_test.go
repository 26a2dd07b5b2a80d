package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// The library's overflow error names no flag; the CLI adds the one that
// gets past it.
func TestHintNamesOverflowFlag(t *testing.T) {
	overflow := fmt.Errorf("in.bin: %w", &dtype.ElementError{Reason: dtype.ReasonOverflow, Index: 3})
	if h := hint(overflow); !strings.Contains(h, "--overflow nat") {
		t.Errorf("hint for an overflow = %q, want it to name --overflow", h)
	}
	if strings.Contains(overflow.Error(), "--overflow") {
		t.Errorf("the library's message %q names a CLI flag", overflow.Error())
	}
	for _, err := range []error{&dtype.ElementError{Reason: dtype.ReasonLoss}, errors.New("other")} {
		if h := hint(err); h != "" {
			t.Errorf("hint(%v) = %q, want none", err, h)
		}
	}
}

// A store whose arrays have no translation to the other format: the
// library's error names no flag; the CLI names --recode-all.
func TestHintNamesRecodeAll(t *testing.T) {
	err := fmt.Errorf("plan: %w", zarr.ErrUntranslatable)
	if h := hint(err); !strings.Contains(h, "--recode-all") {
		t.Errorf("hint for an untranslatable array = %q, want it to name --recode-all", h)
	}
	// An array of strings: --recode-all cannot re-encode it either, so
	// the hint is --exclude.
	src := filepath.Join(t.TempDir(), "s.zarr")
	for k, v := range map[string]string{
		".zgroup":       `{"zarr_format":2}`,
		"names/.zarray": `{"chunks":[2],"compressor":null,"dtype":"<U5","fill_value":"","filters":null,"order":"C","shape":[2],"zarr_format":2}`,
	} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, k)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, k), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err = run(t, nil, "transcode", src, filepath.Join(t.TempDir(), "d.zarr"), "--format", "3", "-q")
	if h := hint(err); !errors.Is(err, zarr.ErrDataTypeNotMigrated) || strings.Contains(h, "--recode-all") || !strings.Contains(h, "--exclude") {
		t.Errorf("a string array: %v, hint %q; want --exclude, not --recode-all", err, h)
	}
}

// --finalize on a destination holding another array (or another plan's
// run) is refused; the hint may not suggest --overwrite alongside
// --finalize, which takes none (a usage error), but a run without it.
// The same for a hierarchy, and for a source that changed.
func TestHintFinalizeNoOverwrite(t *testing.T) {
	src := writeSample(t, 100, 10)
	dst := filepath.Join(t.TempDir(), "other.zarr")
	if _, _, err := run(t, nil, "transcode", src, dst, "--unit", "us", "-q"); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, nil, "transcode", src, dst, "--unit", "ms", "--finalize", "-q")
	h := hint(err)
	if err == nil || isUsage(err) || strings.Contains(h, "--overwrite starts over") || !strings.Contains(h, "run without --finalize, with --overwrite") {
		t.Errorf("--finalize over another array: %v%s", err, h)
	}
	if _, _, err := run(t, nil, "transcode", src, dst, "--unit", "ms", "--finalize", "--overwrite", "-q"); !isUsage(err) {
		t.Errorf("--finalize --overwrite: %v, want the usage error the hint avoids", err)
	}
	// Without --finalize, --overwrite is the way.
	_, _, err = run(t, nil, "transcode", src, dst, "--unit", "ms", "-q")
	if h := hint(err); !strings.Contains(h, "--overwrite starts over") {
		t.Errorf("a run over another array: %v%s", err, h)
	}
	group, gdst := exportGroup(t), filepath.Join(t.TempDir(), "g.zarr")
	if _, _, err := run(t, nil, "transcode", group, gdst, "--unit", "us", "--part", "0/2", "-q"); err != nil {
		t.Fatal(err)
	}
	_, _, err = run(t, nil, "transcode", group, gdst, "--unit", "ms", "--finalize", "-q")
	if h := hint(err); err == nil || strings.Contains(h, "--overwrite starts over") || !strings.Contains(h, "run without --finalize, with --overwrite") {
		t.Errorf("--finalize of a hierarchy over another plan's parts: %v%s", err, h)
	}
	changed := finalizeRefused(fmt.Errorf("x: %w", &transcode.SourceChangedError{}))
	if h := hint(changed); strings.Contains(h, "start over with --overwrite") || !strings.Contains(h, "without --finalize") {
		t.Errorf("--finalize, source changed: %s", h)
	}
}

// TestHintOnlyFlagsTheCommandHas: a hint suggests a flag only to a command
// that has it (inspect has no --overflow); to another it names the
// commands that take the flag, each of which does.
func TestHintOnlyFlagsTheCommandHas(t *testing.T) {
	root := newRootCmd()
	errs := map[string]error{
		"overflow":         fmt.Errorf("x: %w", &dtype.ElementError{Reason: dtype.ReasonOverflow}),
		"calendar-missing": fmt.Errorf("x: %w", &dtype.ElementError{Reason: dtype.ReasonNoDate}),
		"convert-calendar": fmt.Errorf("x: %w", cf.ErrModelCalendar),
	}
	sawOther := false
	for flag, err := range errs {
		for _, c := range root.Commands() {
			h := hintFor(c, err)
			if c.Flags().Lookup(flag) != nil {
				if !strings.HasPrefix(h, " (use --"+flag+" ") {
					t.Errorf("%s has --%s; hint %q", c.Name(), flag, h)
				}
				continue
			}
			if strings.Contains(h, "use --"+flag) || h != "" && !strings.Contains(h, c.Name()+" has no --"+flag) {
				t.Errorf("%s has no --%s; hint %q", c.Name(), flag, h)
			}
			for _, o := range root.Commands() {
				if named := strings.Contains(h, " "+o.Name()+" ") || strings.Contains(h, " "+o.Name()+",") ||
					strings.Contains(h, "dt64 "+o.Name()); named && o != c && o.Flags().Lookup(flag) == nil {
					t.Errorf("hint for %s %q names %s, which has no --%s", c.Name(), h, o.Name(), flag)
				}
			}
			sawOther = sawOther || h != ""
		}
	}
	inspect, _, _ := root.Find([]string{"inspect"})
	h := hintFor(inspect, errs["overflow"])
	if !strings.Contains(h, "inspect has no --overflow") || !strings.Contains(h, "transcode") || !strings.Contains(h, "export") || !sawOther {
		t.Errorf("inspect's overflow hint %q: want the commands that take --overflow", h)
	}
}

// TestHintCoarserUnit: CF floats decode to nanoseconds unless --unit says
// otherwise, so float times before 1677 overflow by default; the hint
// offers a coarser --unit first (--overflow nat would make every such
// value NaT). With --unit given, the hint is the overflow policy's.
func TestHintCoarserUnit(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "f1500.zarr")
	a, err := zarr.Create(ctx, storage.NewDir(dir), zarr.Metadata{
		Format: 2, Shape: []int64{4}, ChunkShape: []int64{4},
		Numeric:    zarr.NumericType{Kind: zarr.Float, Size: 8},
		Attributes: json.RawMessage(`{"units":"days since 1500-01-01"}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 32)
	for i, v := range []float64{0, 1.0 / 24, 0.5, 36500.25} {
		binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(v))
	}
	if _, err := a.WriteChunkRaw(ctx, []int64{0}, raw); err != nil {
		t.Fatal(err)
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	root := newRootCmd()
	nsOut := filepath.Join(t.TempDir(), "ns.zarr")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"transcode", dir, filepath.Join(t.TempDir(), "o.zarr"), "-q"}, "--unit us, ms or s"},
		{[]string{"export", dir, filepath.Join(t.TempDir(), "o.arrow"), "-q"}, "--unit us, ms or s"},
		{[]string{"transcode", dir, nsOut, "--unit", "ns", "-q"}, "(use --overflow nat or clamp to store NaT or saturate, with --overwrite to start over)"},
	} {
		_, _, err := run(t, nil, c.args...)
		cmd, _, _ := root.Find(c.args[:1])
		_ = cmd.ParseFlags(c.args[1:])
		if h := hintFor(cmd, err); err == nil || !strings.Contains(h, c.want) {
			t.Errorf("%v: %v, hint %q; want %q", c.args, err, h, c.want)
		}
		// The units as the attribute says them: in the standard calendar
		// 1500-01-01 is a Julian date, 1500-01-10 proleptic Gregorian.
		if err != nil && !strings.Contains(err.Error(), "float64 days since 1500-01-01 value") {
			t.Errorf("%v: %v; want the units as given", c.args, err)
		}
	}
	if _, _, err := run(t, nil, "transcode", dir, filepath.Join(t.TempDir(), "s.zarr"), "--unit", "s", "-q"); err != nil {
		t.Errorf("--unit s: %v", err)
	}
	// inspect shows such values in the finest unit that holds them,
	// microseconds, keeping the 06:00 the CF unit (days) would floor away.
	if out, _, err := run(t, nil, "inspect", dir); err != nil || !strings.Contains(out, "decoded as datetime64[us]") || !strings.Contains(out, "1599-12-17T06:00:00.000000") {
		t.Errorf("inspect: %v\n%s", err, out)
	}
	// The hint's command works where the stopped run left its state.
	if _, _, err := run(t, nil, "transcode", dir, nsOut, "--unit", "ns", "--overflow", "nat", "--overwrite", "-q"); err != nil {
		t.Errorf("following the hint: %v", err)
	}
}

// A full disk stops a transcode resumably; the hint says how to go on.
func TestHintDiskFull(t *testing.T) {
	transcodeCmd, _, _ := newRootCmd().Find([]string{"transcode"})
	full := fmt.Errorf("writing the destination: %w", &fs.PathError{Op: "write", Path: "d/c/0", Err: syscall.ENOSPC})
	if h := hintFor(transcodeCmd, full); !strings.Contains(h, "--resume") {
		t.Errorf("hint for a full disk: %q", h)
	}
}

// A part that finds every part done but another's finalize claim names
// that part and --finalize for the case it died; otherwise the count.
func TestPartsLine(t *testing.T) {
	got := partsLine("0/2", transcode.Summary{PartsDone: 2, Parts: 2, Finalizer: "1-of-2"})
	if want := "part 0/2 done; all 2 parts finished: part 1-of-2 is writing the metadata (if it died, run with --finalize)"; got != want {
		t.Errorf("claimed: %q, want %q", got, want)
	}
	got = partsLine("2/3", transcode.Summary{PartsDone: 3, Parts: 3, Complete: true})
	if want := "part 2/3 done; all 3 parts finished: the metadata is written, the destination is complete"; got != want {
		t.Errorf("the last part: %q, want %q", got, want)
	}
	got = partsLine("0/3", transcode.Summary{PartsDone: 1, Parts: 3})
	if want := "part 0/3 done; 1 of 3 parts finished: the last one writes the metadata (or run with --finalize)"; got != want {
		t.Errorf("incomplete: %q, want %q", got, want)
	}
}
