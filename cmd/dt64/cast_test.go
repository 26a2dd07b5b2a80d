package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
)

func encode(order binary.ByteOrder, vals ...int64) []byte {
	b := make([]byte, 8*len(vals))
	for i, v := range vals {
		order.PutUint64(b[8*i:], uint64(v))
	}
	return b
}

func decode(t *testing.T, order binary.ByteOrder, b []byte) []int64 {
	t.Helper()
	if len(b)%8 != 0 {
		t.Fatalf("output length %d is not a multiple of 8", len(b))
	}
	v := make([]int64, len(b)/8)
	for i := range v {
		v[i] = int64(order.Uint64(b[8*i:]))
	}
	return v
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestCastBasics(t *testing.T) {
	nat := int64(math.MinInt64)
	in := []int64{0, 1, -1, 1_700_000_000, nat}
	want := []int64{0, 1e9, -1e9, 1_700_000_000e9, nat}
	for _, o := range []struct {
		from, to string
		in, out  binary.ByteOrder
	}{
		{"<M8[s]", "<M8[ns]", binary.LittleEndian, binary.LittleEndian},
		{">M8[s]", ">M8[ns]", binary.BigEndian, binary.BigEndian},
		{">M8[s]", "<M8[ns]", binary.BigEndian, binary.LittleEndian},
		{"M8[s]", ">M8[ns]", binary.LittleEndian, binary.BigEndian}, // no prefix: little endian
	} {
		out, _, err := run(t, bytes.NewReader(encode(o.in, in...)), "cast", "--from", o.from, "--to", o.to)
		if err != nil {
			t.Fatalf("%s -> %s: %v", o.from, o.to, err)
		}
		if got := decode(t, o.out, []byte(out)); !equal(got, want) {
			t.Errorf("%s -> %s: got %v, want %v", o.from, o.to, got, want)
		}
	}
}

func TestCastFiles(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bin")
	out := filepath.Join(dir, "out.bin")
	if err := os.WriteFile(in, encode(binary.LittleEndian, -1, 1500, math.MinInt64), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := run(t, nil, "cast", "--from", "<m8[ms]", "--to", "<m8[s]", "-v", in, out)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := decode(t, binary.LittleEndian, b); !equal(got, []int64{-1, 1, math.MinInt64}) {
		t.Errorf("got %v", got)
	}
	for _, s := range []string{"elements 3", "NaT 1", "overflowed 0", "lossy 2"} {
		if !strings.Contains(stderr, s) {
			t.Errorf("summary %q lacks %q", stderr, s)
		}
	}
}

// An overflow stops the cast, names the element and value, and leaves no
// output file behind, not even a temporary one.
func TestCastOverflowLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bin")
	out := filepath.Join(dir, "out.bin")
	vals := make([]int64, 300_000) // spans several blocks: the index must be global
	vals[200_000] = math.MaxInt64 / 10
	if err := os.WriteFile(in, encode(binary.LittleEndian, vals...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, nil, "cast", "--from", "<M8[s]", "--to", "<M8[ns]", in, out)
	if err == nil {
		t.Fatal("overflow accepted")
	}
	for _, s := range []string{"200000", strconv.FormatInt(math.MaxInt64/10, 10)} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %s", err, s)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files left behind: %v", names)
	}
}

func TestCastPolicies(t *testing.T) {
	big := int64(math.MaxInt64 / 10)
	src := encode(binary.LittleEndian, 1, big, -big)
	for _, tc := range []struct {
		policy string
		want   []int64
	}{
		{"nat", []int64{1e9, math.MinInt64, math.MinInt64}},
		{"clamp", []int64{1e9, math.MaxInt64, math.MinInt64 + 1}},
	} {
		out, stderr, err := run(t, bytes.NewReader(src), "cast", "--from", "<M8[s]", "--to", "<M8[ns]", "--overflow", tc.policy, "-v")
		if err != nil {
			t.Fatalf("%s: %v", tc.policy, err)
		}
		if got := decode(t, binary.LittleEndian, []byte(out)); !equal(got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.policy, got, tc.want)
		}
		if !strings.Contains(stderr, "overflowed 2") {
			t.Errorf("%s: summary %q does not count 2 overflows", tc.policy, stderr)
		}
	}
}

func TestCastExact(t *testing.T) {
	src := encode(binary.LittleEndian, 2000, 3001)
	_, _, err := run(t, bytes.NewReader(src), "cast", "--from", "<m8[ms]", "--to", "<m8[s]", "--exact")
	if err == nil || !strings.Contains(err.Error(), "3001") || !strings.Contains(err.Error(), "1") {
		t.Errorf("lossy element in exact mode: got %v", err)
	}
}

func TestCastErrors(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		stdin   []byte
		usage   bool
		mention string
	}{
		{[]string{"cast", "--to", "<M8[s]"}, nil, true, "--from"},
		{[]string{"cast", "--from", "<M8[s]", "--to", "<M8[X]"}, nil, true, "X"},
		{[]string{"cast", "--from", "<M8[s]", "--to", "<M8[ns]", "--overflow", "wrap"}, nil, true, "wrap"},
		{[]string{"cast", "--from", "<M8[s]", "--to", "<m8[s]"}, nil, false, "timedelta"},
		{[]string{"cast", "--from", "<M8[s]", "--to", "<M8"}, nil, false, "generic"},
		{[]string{"cast", "--from", "<M8[s]", "--to", "<M8[ms]"}, make([]byte, 20), false, "multiple of 8"},
		{[]string{"cast", "--from", "<M8[s]", "--to", "<M8[ms]", "/nonexistent/in.bin"}, nil, false, "/nonexistent/in.bin"},
		{[]string{"cast", "--from", "<M8[s]", "--to", "<M8[ms]", "a", "b", "c"}, nil, true, "at most 2"},
	} {
		_, _, err := run(t, bytes.NewReader(tc.stdin), tc.args...)
		if err == nil {
			t.Errorf("%v: accepted", tc.args)
			continue
		}
		if isUsage(err) != tc.usage {
			t.Errorf("%v: usage error = %v, want %v (%v)", tc.args, isUsage(err), tc.usage, err)
		}
		if !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("%v: error %q does not mention %q", tc.args, err, tc.mention)
		}
	}
}

// TestCastOracle runs every pair of the NumPy vectors through the command
// line in all four byte-order combinations (-short: one a pair, in turn):
// every element must be NumPy's answer where NumPy is exact, the exact
// answer where NumPy wraps around, and NaT (policy nat) where the exact
// answer overflows.
func TestCastOracle(t *testing.T) {
	type pair struct {
		SrcDtype string          `json:"src_dtype"`
		DstDtype string          `json:"dst_dtype"`
		Error    json.RawMessage `json:"error"`
		In       []int64         `json:"in"`
		Out      []int64         `json:"out"`
		Flags    []int           `json:"flags"`
		Exact    []string        `json:"exact"`
	}
	checked, pairs := 0, 0
	for _, name := range []string{"casts_datetime64.jsonl", "casts_timedelta64.jsonl"} {
		f, err := os.Open(filepath.Join("..", "..", "testdata", "oracle", name))
		if err != nil {
			t.Fatalf("oracle vectors missing: %v", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<26)
		for sc.Scan() {
			var p pair
			if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
				t.Fatal(err)
			}
			if len(p.In) == 0 { // specific -> generic: refused by both
				continue
			}
			want := make([]int64, len(p.In))
			for i, e := range p.Exact {
				x, ok := new(big.Int).SetString(e, 10)
				if !ok {
					t.Fatalf("%s -> %s: bad exact %q", p.SrcDtype, p.DstDtype, e)
				}
				switch {
				case p.Flags[i]&2 != 0:
					want[i] = math.MinInt64 // overflow, policy nat
				case !x.IsInt64():
					t.Fatalf("%s -> %s: exact %s fits nowhere but has no overflow flag", p.SrcDtype, p.DstDtype, e)
				default:
					want[i] = x.Int64()
				}
				if p.Out != nil && p.Flags[i]&6 == 0 && p.Out[i] != want[i] {
					t.Fatalf("%s -> %s: vectors disagree with themselves at %d", p.SrcDtype, p.DstDtype, i)
				}
			}
			orders := [][2]byte{{'<', '<'}, {'>', '>'}, {'<', '>'}, {'>', '<'}}
			if testing.Short() { // one combination a pair, each in turn (qemu)
				orders = orders[pairs%4 : pairs%4+1]
			}
			pairs++
			for _, ord := range orders {
				from := string(ord[0]) + p.SrcDtype[1:]
				to := string(ord[1]) + p.DstDtype[1:]
				out, _, err := run(t, bytes.NewReader(encode(orderOf(ord[0]), p.In...)), "cast", "--from", from, "--to", to, "--overflow", "nat")
				if err != nil {
					t.Errorf("cast %s -> %s: %v", from, to, err)
					continue
				}
				got := decode(t, orderOf(ord[1]), []byte(out))
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("cast %s -> %s of %d: got %d, want %d", from, to, p.In[i], got[i], want[i])
						break
					}
				}
				checked += len(want)
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	enough := 1_000_000
	if testing.Short() {
		enough /= 4
	}
	if checked < enough {
		t.Errorf("only %d elements checked", checked)
	}
	t.Logf("%d elements checked through the command line", checked)
}

func orderOf(c byte) binary.ByteOrder {
	if c == '>' {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// names lists a directory's entries.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ns []string
	for _, e := range entries {
		ns = append(ns, e.Name())
	}
	return ns
}

// castFixture writes a 3-element input and an old output beside it.
func castFixture(t *testing.T) (dir, in, out string) {
	dir = t.TempDir()
	in, out = filepath.Join(dir, "in.bin"), filepath.Join(dir, "out.bin")
	if err := os.WriteFile(in, encode(binary.LittleEndian, 1, 2, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, []byte("old output"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, in, out
}

func wantContents(t *testing.T, name string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s holds %q, want %q", name, got, want)
	}
}

// hookFsync replaces fsync for one test with f.
func hookFsync(t *testing.T, f func(*os.File) error) {
	old := fsync
	fsync = f
	t.Cleanup(func() { fsync = old })
}

// The output file is flushed before its rename and its directory after
// it; --no-sync flushes nothing, and standard output is never flushed.
func TestCastSync(t *testing.T) {
	dir, in, out := castFixture(t)
	var synced []string
	hookFsync(t, func(f *os.File) error {
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		// The file must still be the temporary one (not yet renamed)
		// and hold all its bytes when it is flushed.
		synced = append(synced, fmt.Sprintf("%s:%d:%v", filepath.Base(f.Name()), fi.Size(), fi.IsDir()))
		return f.Sync()
	})
	if _, _, err := run(t, nil, "cast", "--from", "<M8[s]", "--to", "<M8[ms]", in, out); err != nil {
		t.Fatal(err)
	}
	if len(synced) != 2 || !strings.HasPrefix(synced[0], ".out.bin.tmp-") || !strings.HasSuffix(synced[0], ":24:false") ||
		!strings.HasPrefix(synced[1], filepath.Base(dir)+":") || !strings.HasSuffix(synced[1], ":true") {
		t.Errorf("flushed %v, want the whole temporary file, then the directory", synced)
	}
	wantContents(t, out, encode(binary.LittleEndian, 1000, 2000, 3000))
	synced = nil
	if _, _, err := run(t, nil, "cast", "--no-sync", "--from", "<M8[s]", "--to", "<M8[us]", in, out); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, bytes.NewReader(encode(binary.LittleEndian, 1)), "cast", "--from", "<M8[s]", "--to", "<M8[us]"); err != nil {
		t.Fatal(err)
	}
	if len(synced) != 0 {
		t.Errorf("--no-sync and standard output flushed %v", synced)
	}
	wantContents(t, out, encode(binary.LittleEndian, 1e6, 2e6, 3e6))
}

// A failed flush of the output file fails the cast and leaves the old
// output as it was, and no temporary file; a failed flush of the
// directory (after the rename) fails the cast and says the output is
// complete.
func TestCastSyncFailure(t *testing.T) {
	dir, in, out := castFixture(t)
	calls := 0
	hookFsync(t, func(f *os.File) error {
		calls++
		if calls == 1 {
			return syscall.EIO
		}
		return f.Sync()
	})
	_, _, err := run(t, nil, "cast", "--from", "<M8[s]", "--to", "<M8[ms]", in, out)
	if err == nil || !strings.Contains(err.Error(), "flushing "+out) || !errors.Is(err, syscall.EIO) {
		t.Errorf("failed flush of the file: got %v", err)
	}
	wantContents(t, out, []byte("old output"))
	if ns := names(t, dir); len(ns) != 2 {
		t.Errorf("files left behind: %v", ns)
	}
	calls = 0
	hookFsync(t, func(f *os.File) error {
		calls++
		if calls == 2 {
			return syscall.EIO
		}
		return f.Sync()
	})
	_, _, err = run(t, nil, "cast", "--from", "<M8[s]", "--to", "<M8[ms]", in, out)
	if err == nil || !strings.Contains(err.Error(), "is complete") || !errors.Is(err, syscall.EIO) {
		t.Errorf("failed flush of the directory: got %v", err)
	}
	wantContents(t, out, encode(binary.LittleEndian, 1000, 2000, 3000))
	wantContents(t, in, encode(binary.LittleEndian, 1, 2, 3))
}

// A cast that runs out of space in a real dt64 process (a file-size limit,
// like a full disk: a write fails partway) fails, leaves the old output
// untouched and no temporary file, and the source as it was, whether the
// input is a file (mapped, its size reserved first: the limit does not
// apply to a reservation that keeps the size) or a pipe.
func TestCastOutOfSpaceLeavesNothing(t *testing.T) {
	needFileSizeLimit(t)
	dir, in, out := castFixture(t)
	vals := make([]int64, 1<<18) // 2 MiB: several blocks, so the limit falls mid-file
	for i := range vals {
		vals[i] = int64(i)
	}
	src := encode(binary.LittleEndian, vals...)
	if err := os.WriteFile(in, src, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		input, sync string
		cause       string
	}{
		{"file", "--no-sync=false", "write " + dir},
		{"file", "--no-sync", "write " + dir},
		{"pipe", "--no-sync=false", "write " + dir},
		{"pipe", "--no-sync", "write " + dir},
	} {
		args := []string{"cast", c.sync, "--from", "<M8[s]", "--to", "<M8[ms]", in, out}
		if c.input == "pipe" {
			args = []string{"cast", c.sync, "--from", "<M8[s]", "--to", "<M8[ms]", "-", out}
		}
		cmd := dt64Subprocess([]string{"DT64_TEST_FSIZE=1000000"}, args...)
		cmd.Stdin = bytes.NewReader(src) // a pipe to the process
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Fatalf("%s %s under a 1 MB file limit: %v, want exit status 1\n%s", c.input, c.sync, err, stderr.String())
		}
		if msg := stderr.String(); !strings.Contains(msg, "file too large") || !strings.Contains(msg, c.cause) {
			t.Errorf("%s %s: the error does not say %q and the cause:\n%s", c.input, c.sync, c.cause, msg)
		}
		wantContents(t, out, []byte("old output"))
		if ns := names(t, dir); len(ns) != 2 {
			t.Errorf("%s %s: files left behind: %v", c.input, c.sync, ns)
		}
		wantContents(t, in, src)
	}
}

// OUT may not be IN: not by the same name, a hard link or a symbolic link.
func TestCastRefusesItsSource(t *testing.T) {
	dir, in, _ := castFixture(t)
	link, sym := filepath.Join(dir, "link.bin"), filepath.Join(dir, "sym.bin")
	if err := os.Link(in, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("in.bin", sym); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{in, link, sym} {
		_, _, err := run(t, nil, "cast", "--from", "<M8[s]", "--to", "<M8[ms]", in, out)
		if !isUsage(err) || !strings.Contains(err.Error(), "input file itself") {
			t.Errorf("OUT %s: got %v, want a usage error", out, err)
		}
		wantContents(t, in, encode(binary.LittleEndian, 1, 2, 3))
	}
}

// A large input gives the same bytes read from a file (mapped, through
// windows smaller than a block, so blocks end at window edges) and from a
// pipe (read into buffers), as converting it whole.
func TestCastLarge(t *testing.T) {
	old := castWindow
	castWindow = int64(3 * os.Getpagesize())
	t.Cleanup(func() { castWindow = old })
	vals := make([]int64, 3*castBlock/8/2+5) // 1.5 blocks and a bit
	for i := range vals {
		vals[i] = int64(i)*7919 - 1e9
	}
	vals[len(vals)-1] = math.MinInt64
	want := make([]int64, len(vals))
	for i, v := range vals {
		want[i] = v * 1000
	}
	want[len(want)-1] = math.MinInt64
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.bin"), filepath.Join(dir, "out.bin")
	src := encode(binary.BigEndian, vals...)
	if err := os.WriteFile(in, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t, nil, "cast", "--from", ">M8[s]", "--to", "<M8[ms]", in, out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := decode(t, binary.LittleEndian, b); !equal(got, want) {
		t.Errorf("from a file: wrong output (%d elements, want %d)", len(got), len(want))
	}
	stdout, _, err := run(t, bytes.NewReader(src), "cast", "--from", ">M8[s]", "--to", "<M8[ms]")
	if err != nil {
		t.Fatal(err)
	}
	if got := decode(t, binary.LittleEndian, []byte(stdout)); !equal(got, want) {
		t.Errorf("from a pipe: wrong output (%d elements, want %d)", len(got), len(want))
	}
	// Trailing bytes in a mapped file are named with the element they follow.
	if err := os.WriteFile(in, append(src, 1, 2, 3), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = run(t, nil, "cast", "--from", ">M8[s]", "--to", "<M8[ms]", in, out)
	if err == nil || !strings.Contains(err.Error(), "3 trailing bytes after element "+strconv.Itoa(len(vals))) {
		t.Errorf("trailing bytes: got %v", err)
	}
}

// failingWriter accepts n bytes, then fails.
type failingWriter struct{ n int }

func (w *failingWriter) Write(b []byte) (int, error) {
	if len(b) > w.n {
		k := w.n
		w.n = 0
		return k, syscall.ENOSPC
	}
	w.n -= len(b)
	return len(b), nil
}

// A failing write stops the cast early and is the error returned.
func TestCastStreamWriteFails(t *testing.T) {
	tc := castTranscoder(t)
	src := make([]byte, 20*castBlock)
	st, err := castStream(context.Background(), tc, bytes.NewReader(src), &failingWriter{n: castBlock + 100}, "in")
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("got %v, want the write's error", err)
	}
	if st.Elements > len(src)/8/2 {
		t.Errorf("converted %d elements after the write failed (of %d)", st.Elements, len(src)/8)
	}
}

func castTranscoder(t *testing.T) *kernels.Transcoder {
	t.Helper()
	conv, err := dtype.NewConversion(dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1}, nsType)
	if err != nil {
		t.Fatal(err)
	}
	tc, err := kernels.NewTranscoder(conv, kernels.Options{From: binary.BigEndian})
	if err != nil {
		t.Fatal(err)
	}
	return tc
}

// A mapped input truncated by someone else while cast reads it is an
// error, not a crash (SIGBUS on the vanished pages).
func TestCastMappedInputShrinks(t *testing.T) {
	name := filepath.Join(t.TempDir(), "in.bin")
	if err := os.WriteFile(name, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, ok := mapFile(f)
	if ok != (runtime.GOOS == "linux") {
		t.Fatalf("mapFile on %s: %v", runtime.GOOS, ok)
	}
	if !ok {
		return // read, not mapped: nothing can vanish
	}
	defer s.close()
	view, err := s.next(make([]byte, 1<<20))
	if err != nil && err != io.EOF || len(view) != 1<<20 {
		t.Fatalf("next: %d bytes, %v", len(view), err)
	}
	if err := os.Truncate(name, 0); err != nil {
		t.Fatal(err)
	}
	_, err = convert(castTranscoder(t), make([]byte, len(view)), view, s)
	if !errors.Is(err, errShrank) {
		t.Errorf("got %v, want errShrank", err)
	}
}

// Reserving more space than the disk has fails (on Linux; elsewhere there
// is nothing to reserve); a file that cannot reserve (a pipe) is no error.
func TestCastPreallocate(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "out.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := preallocate(f, 1<<20); err != nil {
		t.Errorf("1 MiB: %v", err)
	}
	err = preallocate(f, 1<<60)
	if (err != nil) != (runtime.GOOS == "linux") || err != nil && !errors.Is(err, syscall.ENOSPC) && !errors.Is(err, syscall.EFBIG) {
		t.Errorf("1 EiB on %s: got %v", runtime.GOOS, err)
	}
	if fi, err := f.Stat(); err != nil || fi.Size() != 0 {
		t.Errorf("the reservation changed the size: %v, %v", fi.Size(), err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if err := preallocate(w, 1<<20); err != nil {
		t.Errorf("a pipe: %v", err)
	}
}

// cast reads and writes local files: an IN or OUT that is a URL (but
// file://, the local path it names) is a usage error saying so, not a
// path "s3:/bucket/x.bin" that does not exist.
func TestCastURL(t *testing.T) {
	_, in, out := castFixture(t)
	for _, c := range [][3]string{{in, "s3://bucket/x.bin", "OUT s3://bucket/x.bin is a URL"}, {"s3://bucket/in.bin", out, "IN s3://bucket/in.bin is a URL"}} {
		_, _, err := run(t, nil, "cast", "--from", "<M8[s]", "--to", "<M8[ms]", c[0], c[1])
		if !isUsage(err) || !strings.Contains(err.Error(), "cast reads and writes local files") || !strings.Contains(err.Error(), c[2]) {
			t.Errorf("cast %s %s: %v, want a usage error saying %q", c[0], c[1], err, c[2])
		}
	}
	wantContents(t, out, []byte("old output"))
	if _, _, err := run(t, nil, "cast", "--from", "<M8[s]", "--to", "<M8[ms]", "file://"+in, "file://"+out); err != nil {
		t.Fatal(err)
	}
	wantContents(t, out, encode(binary.LittleEndian, 1000, 2000, 3000))
}
