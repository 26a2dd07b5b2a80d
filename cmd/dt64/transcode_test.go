package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// TestTranscodeHelperProcess is not a test: it is the dt64 command run in
// a subprocess by the tests below (so it can be killed), with the write
// delay and progress interval set from the environment.
func TestTranscodeHelperProcess(t *testing.T) {
	if os.Getenv("DT64_TRANSCODE_HELPER") != "1" {
		return
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	if d, err := time.ParseDuration(os.Getenv("DT64_TRANSCODE_TEST_DELAY")); err == nil {
		mark := os.Getenv("DT64_TRANSCODE_TEST_MARK_WRITES") == "1"
		transcodeStores = func(src, dst storage.Store) (storage.Store, storage.Store) {
			return src, &delayStore{Store: dst, d: d, mark: mark}
		}
	}
	if d, err := time.ParseDuration(os.Getenv("DT64_TRANSCODE_TEST_PROGRESS")); err == nil {
		progressEvery = d
	}
	if d, err := time.ParseDuration(os.Getenv("DT64_TRANSCODE_TEST_LEASE")); err == nil {
		leaseInterval = d
	}
	if n, err := strconv.ParseUint(os.Getenv("DT64_TEST_FSIZE"), 10, 64); err == nil {
		// A write past n bytes fails partway through the file, like a disk
		// filling up (limitFileSize).
		if err := limitFileSize(n); err != nil {
			fmt.Fprintln(os.Stderr, "limiting the file size:", err)
			os.Exit(3)
		}
	}
	// As main runs it: secrets redacted, a signal stops the command
	// (interrupt.go).
	ctx, interrupts := watchInterrupts()
	root := newRootCmd()
	root.SetArgs(args)
	red := newRedactor(secretsIn(args))
	root.SetOut(red.Writer(os.Stdout))
	root.SetErr(red.Writer(os.Stderr))
	cmd, err := root.ExecuteContextC(ctx)
	interrupts.exitIfInterrupted(cmd, args, err)
	code := 0
	if err != nil {
		fmt.Fprintln(os.Stderr, "dt64:", red.String(err.Error()))
		code = 1
		if isUsage(err) {
			code = 2
		}
	}
	os.Exit(code)
}

// delayStore slows every Set down, so a run lasts long enough to be
// killed at a random moment.
type delayStore struct {
	storage.Store
	d    time.Duration
	mark bool // say on stderr when each write starts (writeMark)
}

// writeMark starts the line a delayStore with mark writes to stderr as a
// write starts.
const writeMark = "test: writing "

func (s *delayStore) Set(ctx context.Context, key string, v []byte) error {
	if s.mark {
		fmt.Fprintln(os.Stderr, writeMark+key)
	}
	time.Sleep(s.d)
	return s.Store.Set(ctx, key, v)
}

func (s *delayStore) String() string { return s.Store.(fmt.Stringer).String() }

// Unwrap lets the engine find the directory store beneath (storage.Unwrapper).
func (s *delayStore) Unwrap() storage.Store { return s.Store }

// dt64Subprocess runs the test binary again as a dt64 process. Under an
// emulator (make test-arm64, test-s390x: qemu-user without binfmt_misc),
// DT64_TEST_EXEC names it, since the kernel cannot run the binary itself.
func dt64Subprocess(env []string, args ...string) *exec.Cmd {
	argv := append([]string{os.Args[0], "-test.run=^TestTranscodeHelperProcess$", "--"}, args...)
	if w := os.Getenv("DT64_TEST_EXEC"); w != "" {
		argv = append([]string{w}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), "DT64_TRANSCODE_HELPER=1"), env...)
	return cmd
}

var nsType = dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1}

// writeSample writes a v2 ">M8[ns]" gzip array of n elements in chunks of
// chunk, with every 7th chunk missing, and returns its directory.
func writeSample(t *testing.T, n, chunk int64) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "src.zarr")
	ctx := context.Background()
	a, err := zarr.Create(ctx, storage.NewDir(dir), zarr.Metadata{
		Format: 2, DataType: nsType, Shape: []int64{n}, ChunkShape: []int64{chunk}, FillValue: dtype.NaT,
		Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.BigEndian}, zarr.GzipCodec{Level: 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	buf := make([]int64, chunk)
	for _, c := range a.ChunkCoords() {
		if c[0]%7 == 3 {
			continue
		}
		for i := range buf {
			buf[i] = 1_700_000_000_000_000_000 + (c[0]*chunk+int64(i))*1_000_000_007 + rng.Int64N(1000)
			if rng.IntN(100) == 0 {
				buf[i] = dtype.NaT
			}
		}
		if err := a.WriteChunk(ctx, c, buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	return dir
}

// dirFiles maps every file under dir to the SHA-256 of its contents.
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		s := sha256.Sum256(b)
		files[rel] = hex.EncodeToString(s[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sameDirs(t *testing.T, want, got string) {
	t.Helper()
	compareDirs(t, want, got, "", nil)
}

// compareDirs reports, prefixed by where, each file of want that differs
// or is missing in got, and each file only in got unless extraOK allows it.
func compareDirs(t *testing.T, want, got, where string, extraOK func(name string) bool) {
	t.Helper()
	fw, fg := dirFiles(t, want), dirFiles(t, got)
	for k, v := range fw {
		if fg[k] != v {
			t.Errorf("%s%s differs or is missing in %s", where, k, got)
		}
	}
	for k := range fg {
		if _, ok := fw[k]; !ok && (extraOK == nil || !extraOK(k)) {
			t.Errorf("%s%s: extra file in %s", where, k, got)
		}
	}
}

func TestTranscodeCommand(t *testing.T) {
	src := writeSample(t, 5000, 512)
	before := dirFiles(t, src)
	dst := filepath.Join(t.TempDir(), "dst.zarr")
	out, _, err := run(t, nil, "transcode", src, dst, "--unit", "us", "--endian", "little", "--codec", "zstd:3",
		"--crc32c", "--format", "3", "--shard-chunks", "2", "--verify", "--workers", "2", "-q")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"summary:", "chunks", "5000 elements", "NaT", "overflowed 0", "lossy", "read", "wrote", "compression", "GB/s", "verified"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	a, err := zarr.Open(context.Background(), storage.NewDir(dst))
	if err != nil {
		t.Fatal(err)
	}
	if a.DataType().Unit != dtype.Microsecond || a.Format() != 3 || a.ByteOrder() != binary.LittleEndian || a.ChunkShape()[0] != 1024 {
		t.Errorf("destination %s v%d %v %v", a.DataType(), a.Format(), a.ByteOrder(), a.ChunkShape())
	}
	// Again: refused; --resume: nothing to do; --overwrite: redone.
	if _, _, err := run(t, nil, "transcode", src, dst, "--unit", "us", "-q"); err == nil || isUsage(err) {
		t.Errorf("existing destination: %v", err)
	}
	out, _, err = run(t, nil, "transcode", src, dst, "--unit", "us", "--endian", "little", "--codec", "zstd:3",
		"--crc32c", "--format", "3", "--shard-chunks", "2", "--resume", "-q")
	if err != nil || !strings.Contains(out, "already complete") {
		t.Errorf("resume of a complete run: %v\n%s", err, out)
	}
	if _, _, err := run(t, nil, "transcode", src, dst, "--unit", "ms", "--overwrite", "-q"); err != nil {
		t.Errorf("overwrite: %v", err)
	}
	if got := dirFiles(t, src); len(got) != len(before) {
		t.Error("source changed")
	} else {
		for k, v := range before {
			if got[k] != v {
				t.Errorf("source file %s changed", k)
			}
		}
	}
}

func TestTranscodeUsage(t *testing.T) {
	src := writeSample(t, 100, 50)
	dst := filepath.Join(t.TempDir(), "d")
	for _, args := range [][]string{
		{"--codec", "lz4"}, {"--codec", "zstd:99"}, {"--part", "2/2"}, {"--part", "x"}, {"--endian", "middle"},
		{"--format", "4"}, {"--unit", "parsec"}, {"--scale", "0"}, {"--resume", "--overwrite"},
		{"--overflow", "wrap"}, {"--shard-chunks", "0"}, {"--part", "0/2", "--overwrite"}, {"--finalize", "--part", "0/2"},
	} {
		_, _, err := run(t, nil, append([]string{"transcode", src, dst}, args...)...)
		if !isUsage(err) {
			t.Errorf("%v: got %v, want a usage error", args, err)
		}
	}
	if _, _, err := run(t, nil, "transcode", src); !isUsage(err) {
		t.Errorf("one argument: %v", err)
	}
	if _, _, err := run(t, nil, "transcode", filepath.Join(t.TempDir(), "nope"), dst); err == nil || isUsage(err) {
		t.Errorf("missing source: %v", err)
	}
	// Plan errors are failures, not usage errors: v2 has no crc32c.
	if _, _, err := run(t, nil, "transcode", src, dst, "--crc32c", "-q"); err == nil || !strings.Contains(err.Error(), "crc32c") {
		t.Errorf("crc32c into v2: %v", err)
	}
}

func TestTranscodeOverflowCommand(t *testing.T) {
	src := filepath.Join(t.TempDir(), "s.zarr")
	ctx := context.Background()
	sec := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1}
	a, err := zarr.Create(ctx, storage.NewDir(src), zarr.Metadata{Format: 3, DataType: sec, Shape: []int64{3, 4}, ChunkShape: []int64{2, 2}, FillValue: 0})
	if err != nil {
		t.Fatal(err)
	}
	// Chunk (1, 1) holds array elements [2..3, 2..3]; element 1 of it is [2, 3].
	if err := a.WriteChunk(ctx, []int64{1, 1}, []int64{1, 1 << 40, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "d.zarr")
	_, _, err = run(t, nil, "transcode", src, dst, "--unit", "ns", "-q")
	if err == nil || isUsage(err) {
		t.Fatalf("overflow: %v", err)
	}
	for _, want := range []string{`"c/1/1"`, "element 1", "[2 3]", "1099511627776"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dst, "zarr.json")); err == nil {
		t.Error("metadata written after an overflow")
	}
	out, _, err := run(t, nil, "transcode", src, dst, "--unit", "ns", "--overflow", "clamp", "--overwrite", "-q")
	if err != nil || !strings.Contains(out, "overflowed 1") {
		t.Errorf("clamp: %v\n%s", err, out)
	}
	out, _, err = run(t, nil, "transcode", src, dst, "--unit", "ns", "--overflow", "nat", "--overwrite", "-q")
	if err != nil || !strings.Contains(out, "overflowed 1") || !strings.Contains(out, "NaT 1,") {
		t.Errorf("nat: %v\n%s", err, out)
	}
}

func TestTranscodePartsCommand(t *testing.T) {
	src := writeSample(t, 3000, 100)
	flags := []string{"--unit", "ms", "--endian", "little", "-q"}
	ref := filepath.Join(t.TempDir(), "ref.zarr")
	if _, _, err := run(t, nil, append([]string{"transcode", src, ref}, flags...)...); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "dst.zarr")
	out, _, err := run(t, nil, append([]string{"transcode", src, dst, "--part", "1/2"}, flags...)...)
	if err != nil || !strings.Contains(out, "1 of 2 parts") {
		t.Fatalf("part 1/2: %v\n%s", err, out)
	}
	if _, _, err := run(t, nil, append([]string{"transcode", src, dst, "--finalize"}, flags...)...); err == nil {
		t.Error("finalize with part 0 missing succeeded")
	}
	// Two processes at once, as on two machines: the second joins.
	cmd := dt64Subprocess(nil, append([]string{"transcode", src, dst, "--part", "0/2"}, flags...)...)
	if b, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(b), "part 0/2 done; all 2 parts finished: the metadata is written, the destination is complete") {
		t.Fatalf("part 0/2, the last: %v\n%s", err, b)
	}
	sameDirs(t, ref, dst)
	// 30 units in 100 parts: part 50 has none, and the plan says so.
	_, errOut, err := run(t, nil, "transcode", src, filepath.Join(t.TempDir(), "few.zarr"), "--unit", "ms", "--part", "50/100")
	if err != nil || !strings.Contains(errOut, "this part: no units (more parts than units)") {
		t.Errorf("part 50/100 of 30 units: %v\n%s", err, errOut)
	}
}

// TestTranscodeProgressLines checks the plain progress lines printed when
// stderr is not a terminal.
func TestTranscodeProgressLines(t *testing.T) {
	src := writeSample(t, 2000, 100)
	dst := filepath.Join(t.TempDir(), "d.zarr")
	cmd := dt64Subprocess([]string{"DT64_TRANSCODE_TEST_DELAY=10ms", "DT64_TRANSCODE_TEST_PROGRESS=50ms"}, "transcode", src, dst, "--workers", "1", "--in-flight", "1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "transcode: ") || !strings.Contains(stderr.String(), "units") || !strings.Contains(stderr.String(), "plan:") {
		t.Errorf("no progress lines:\n%s", stderr.String())
	}
	if !strings.Contains(string(out), "summary:") {
		t.Errorf("no summary:\n%s", out)
	}
}

// TestTranscodeZarrPython round-trips arrays written by zarr-python 2.13
// through v3 (in a finer unit) and back to v2, and reads the result with
// zarr-python: the values must be the original ones.
func TestTranscodeZarrPython(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import zarr, numcodecs").Run(); err != nil {
		// The interop check is the point of this test: without zarr-python
		// it fails (install python3-zarr), except in -short runs.
		if testing.Short() {
			t.Skipf("zarr-python not available: %v", err)
		}
		t.Fatalf("zarr-python not available (apt-get install python3-zarr): %v", err)
	}
	root, err := filepath.Abs("../../tools/zarrpy")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if b, err := exec.Command(py, filepath.Join(root, "write_v2.py"), dir).CombinedOutput(); err != nil {
		t.Fatalf("write_v2.py: %v\n%s", err, b)
	}
	finer := map[string]string{
		"ns_le_zstd_missing": "ps", "10us_be_zlib": "us", "25h_le_gzip": "h", "ms_be_none": "us",
		"s_le_zstd_2d_slash": "ms", "D_be_zlib_2d_dot": "h", "M_le_fillnull": "D", "us_le_0d": "ns",
	}
	var finals, origs []string
	for name, fine := range finer {
		orig := filepath.Join(dir, name+".zarr")
		v3 := filepath.Join(dir, name+".v3.zarr")
		back := filepath.Join(dir, name+".back.zarr")
		a, err := zarr.Open(context.Background(), storage.NewDir(orig))
		if err != nil {
			t.Fatal(err)
		}
		d := a.DataType()
		if _, _, err := run(t, nil, "transcode", orig, v3, "--format", "3", "--unit", fine, "--codec", "zstd", "--crc32c", "--verify", "-q"); err != nil {
			t.Fatalf("%s -> v3: %v", name, err)
		}
		if _, _, err := run(t, nil, "transcode", v3, back, "--format", "2", "--unit", d.Unit.String(), "--scale", fmt.Sprint(d.Scale), "--exact", "-q"); err != nil {
			t.Fatalf("%s v3 -> v2: %v", name, err)
		}
		origs, finals = append(origs, orig), append(finals, back)
	}
	out, err := exec.Command(py, append([]string{filepath.Join(root, "read_v2.py")}, append(origs, finals...)...)...).Output()
	if err != nil {
		t.Fatalf("read_v2.py: %v", err)
	}
	var got map[string]struct {
		Dtype  string  `json:"dtype"`
		Shape  []int64 `json:"shape"`
		Values []int64 `json:"values"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	for i := range origs {
		o, f := got[origs[i]], got[finals[i]]
		if o.Dtype != f.Dtype || fmt.Sprint(o.Shape) != fmt.Sprint(f.Shape) || len(o.Values) != len(f.Values) {
			t.Errorf("%s: %s %v vs %s %v", filepath.Base(origs[i]), o.Dtype, o.Shape, f.Dtype, f.Shape)
			continue
		}
		for j := range o.Values {
			if o.Values[j] != f.Values[j] {
				t.Errorf("%s: element %d: %d after the round trip, %d before", filepath.Base(origs[i]), j, f.Values[j], o.Values[j])
				break
			}
		}
	}
}
