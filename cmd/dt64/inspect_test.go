package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

const v3FixtureDir = "../../testdata/zarr/v3"

// readableV3Fixtures are the zarr-python 3 fixtures dt64 decodes (blosc is
// not supported yet).
var readableV3Fixtures = []string{
	"dt64_10us_le_zstd_crc32c.zarr",
	"dt64_D_le_zstd_sharded.zarr",
	"dt64_M_le_zstd_checksum.zarr",
	"dt64_ns_be_gzip.zarr",
	"dt64_ns_le_zstd0.zarr",
	"dt64_s_be_none.zarr",
	"dt64_us_le_blosc_lz4.zarr",
	"td64_25h_be_gzip_sharded.zarr",
	"td64_ms_le_zstd.zarr",
}

// runCLIInProcess runs the dt64 command line in-process.
func runCLIInProcess(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := newRootCmd()
	var out, errOut bytes.Buffer
	cmd.SetIn(strings.NewReader(""))
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err = cmd.Execute()
	return out.String(), errOut.String(), err
}

// copyV3Fixture copies a fixture array into a temporary directory, so tests
// may damage it; testdata is never modified.
func copyV3Fixture(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join(v3FixtureDir, name)
	dst := filepath.Join(t.TempDir(), name)
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatalf("copy fixture %s: %v", name, err)
	}
	return dst
}

// readFixtureValues reads NAME.values.jsonl: the values zarr-python read, with
// NumPy's text for each ("iso" for datetimes, "repr" = str() for timedeltas).
type fixtureValueLine struct {
	Kind string `json:"kind"`
	Int  int64  `json:"int"`
	NaT  bool   `json:"nat"`
	ISO  string `json:"iso"`
	Repr string `json:"repr"`
}

func readFixtureValues(t *testing.T, name string) []fixtureValueLine {
	t.Helper()
	f, err := os.Open(filepath.Join(v3FixtureDir, name+".values.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vals []fixtureValueLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var v fixtureValueLine
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		if v.Kind == "value" {
			vals = append(vals, v)
		}
	}
	if err := sc.Err(); err != nil || len(vals) == 0 {
		t.Fatalf("%s.values.jsonl: %d values, %v", name, len(vals), err)
	}
	return vals
}

func runInspectJSON(t *testing.T, dir string) inspectReport {
	t.Helper()
	out, errOut, err := runCLIInProcess(t, "inspect", "--json", dir)
	if err != nil {
		t.Fatalf("inspect --json %s: %v\nstderr: %s", dir, err, errOut)
	}
	if strings.Contains(out, `\u003c`) || strings.Contains(out, `\u003e`) {
		t.Errorf("NumPy dtype string HTML-escaped in the JSON output:\n%s", out)
	}
	var rep inspectReport
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("inspect --json output does not parse: %v\n%s", err, out)
	}
	return rep
}

func TestInspectFixturesJSON(t *testing.T) {
	for _, name := range readableV3Fixtures {
		t.Run(name, func(t *testing.T) {
			dir := copyV3Fixture(t, name)
			rep := runInspectJSON(t, dir)
			vals := readFixtureValues(t, name)
			var nat, valid int64
			lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
			var loText, hiText string
			for _, v := range vals {
				if v.NaT {
					nat++
					continue
				}
				valid++
				text := v.ISO
				if strings.HasPrefix(name, "td64") {
					text = v.Repr
				}
				if v.Int < lo {
					lo, loText = v.Int, text
				}
				if v.Int > hi {
					hi, hiText = v.Int, text
				}
			}
			if rep.Elements != int64(len(vals)) || rep.NaT != nat || rep.Valid != valid {
				t.Errorf("elements %d, NaT %d, valid %d; want %d, %d, %d", rep.Elements, rep.NaT, rep.Valid, len(vals), nat, valid)
			}
			if rep.Min == nil || rep.Max == nil || rep.MinText == nil || rep.MaxText == nil {
				t.Fatalf("min/max missing: %+v", rep)
			}
			if *rep.Min != lo || *rep.Max != hi {
				t.Errorf("min, max = %d, %d; want %d, %d", *rep.Min, *rep.Max, lo, hi)
			}
			// NumPy's own text for the same values.
			if *rep.MinText != loText || *rep.MaxText != hiText {
				t.Errorf("min_text, max_text = %q, %q; NumPy %q, %q", *rep.MinText, *rep.MaxText, loText, hiText)
			}
			// Chunk files as stored by zarr-python.
			var present, stored int64
			err := filepath.WalkDir(filepath.Join(dir, "c"), func(p string, e fs.DirEntry, err error) error {
				if err != nil || e.IsDir() {
					return err
				}
				info, err := e.Info()
				present++
				stored += info.Size()
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Chunks.Present != present || rep.Chunks.Present+rep.Chunks.Missing != rep.Chunks.Total || rep.StoredBytes != stored {
				t.Errorf("chunks %+v, stored %d; want %d present of %d bytes", rep.Chunks, rep.StoredBytes, present, stored)
			}
			if rep.Format != 3 || rep.Path != dir || len(rep.Shape) != 1 || rep.Shape[0] != 16 || rep.FillValue != dtype.NaT || rep.FillValueText != "NaT" {
				t.Errorf("metadata: %+v", rep)
			}
			order := "little"
			if strings.Contains(name, "_be_") {
				order = "big"
			}
			if rep.ByteOrder != order || !strings.HasPrefix(rep.NumPy, map[string]string{"little": "<", "big": ">"}[order]) {
				t.Errorf("byte order %q, numpy %q; want %s", rep.ByteOrder, rep.NumPy, order)
			}
			d, err := dtype.ParseJSON(rep.DataType)
			if err != nil {
				t.Errorf("data_type: %v", err)
			} else if want, _, _ := dtype.ParseNumPy(rep.NumPy); want != d {
				t.Errorf("data_type %v and numpy %q disagree", d, rep.NumPy)
			}
			if rep.DecodedBytes != present*8*rep.ChunkShape[0] {
				t.Errorf("decoded %d bytes, want %d", rep.DecodedBytes, present*8*rep.ChunkShape[0])
			}
			if len(rep.Codecs) == 0 || (rep.Codecs[0].Name != "bytes" && rep.Codecs[0].Name != "sharding_indexed") {
				t.Errorf("codecs: %+v", rep.Codecs)
			}
		})
	}
}

func TestInspectText(t *testing.T) {
	dir := copyV3Fixture(t, "dt64_10us_le_zstd_crc32c.zarr")
	out, _, err := runCLIInProcess(t, "inspect", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"format:      Zarr v3\n",
		"(NumPy <M8[10us], datetime64[10us])",
		"codecs:      bytes(endian=little) -> zstd(checksum=false, level=3) -> crc32c\n",
		"chunks:      4 in grid [4]: 4 present, 0 missing\n",
		"elements:    16: 14 valid, 2 NaT\n",
		"min:         -110738880000000  1934-11-29T00:00:00.000000\n",
		"max:         110738880000000  2005-02-03T00:00:00.000000\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestInspectErrors(t *testing.T) {
	_, _, err := runCLIInProcess(t, "inspect")
	if !isUsageFailure(err) {
		t.Errorf("no PATH: %v, want a usage error", err)
	}
	_, _, err = runCLIInProcess(t, "inspect", filepath.Join(t.TempDir(), "nothing"))
	if err == nil || isUsageFailure(err) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing directory: %v", err)
	}
	// A plain directory: said once, naming the directory once, and still
	// fs.ErrNotExist for callers.
	empty := t.TempDir()
	_, _, err = runCLIInProcess(t, "inspect", empty)
	if err == nil || err.Error() != empty+": no Zarr array here (neither zarr.json nor .zarray)" || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("empty directory: %v", err)
	}
	// An unknown codec: the metadata error names it.
	dir := copyV3Fixture(t, "dt64_s_be_none.zarr")
	renameCodec(t, dir, "bytes", "no-such-codec")
	_, _, err = runCLIInProcess(t, "inspect", dir)
	var me *zarr.MetadataError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "no-such-codec") {
		t.Errorf("unknown codec: %v, want a MetadataError naming it", err)
	}
	// A damaged chunk stops inspect with the chunk named.
	dir = copyV3Fixture(t, "dt64_10us_le_zstd_crc32c.zarr")
	flipFileByte(t, filepath.Join(dir, "c", "2"), 3)
	_, _, err = runCLIInProcess(t, "inspect", "--json", dir)
	var ce *zarr.ChunkError
	if !errors.As(err, &ce) || ce.Key != "c/2" || !errors.Is(err, zarr.ErrChecksum) {
		t.Errorf("corrupt chunk: %v, want a checksum ChunkError for c/2", err)
	}
}

// renameCodec replaces a codec name in a copied array's zarr.json.
func renameCodec(t *testing.T, dir, from, to string) {
	t.Helper()
	p := filepath.Join(dir, "zarr.json")
	js, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(js), `"name": "`+from+`"`, `"name": "`+to+`"`, 1)
	if bad == string(js) {
		t.Fatalf("fixture changed: no codec %q in %s", from, p)
	}
	if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
}

func isUsageFailure(err error) bool {
	var ue usageError
	return errors.As(err, &ue)
}

// TestInspectEdgePadding writes arrays whose edge chunks hold extreme values
// and NaT in their padding, and chunks that are missing (reading as a fill
// value that is not NaT): statistics must count exactly the elements inside
// the shape. Chunks are written as raw files (bytes codec only), so the
// padding is what the test puts there, not what WriteChunk would store.
func TestInspectEdgePadding(t *testing.T) {
	cases := []struct {
		shape, chunk []int64
		format       int
	}{
		{[]int64{17}, []int64{5}, 3},
		{[]int64{5, 7}, []int64{2, 3}, 3},
		{[]int64{5, 7}, []int64{5, 3}, 2},
		{[]int64{3, 5, 7}, []int64{2, 2, 3}, 3},
		{[]int64{4, 6, 7}, []int64{2, 3, 7}, 3},
		{[]int64{3, 4, 5, 6}, []int64{2, 4, 2, 6}, 2},
		{[]int64{}, []int64{}, 3},
	}
	rng := rand.New(rand.NewPCG(7, 8))
	const fill = 1000
	for _, c := range cases {
		t.Run(formatInts(c.shape), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "a.zarr")
			d := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1}
			a, err := zarr.Create(context.Background(), storage.NewDir(dir), zarr.Metadata{
				Format: c.format, DataType: d, Shape: c.shape, ChunkShape: c.chunk, FillValue: fill,
				Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.BigEndian}},
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := a.WriteMetadata(context.Background()); err != nil {
				t.Fatal(err)
			}
			var nat, valid, present int64
			lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
			for i, coords := range a.ChunkCoords() {
				if i%3 == 1 {
					continue // missing: fill value
				}
				present++
				raw := make([]byte, 8*a.ChunkLen())
				for e := 0; e < a.ChunkLen(); e++ {
					inside := true
					rem := int64(e)
					for k := len(c.chunk) - 1; k >= 0; k-- {
						pos := rem % c.chunk[k]
						rem /= c.chunk[k]
						if coords[k]*c.chunk[k]+pos >= c.shape[k] {
							inside = false
						}
					}
					var v int64
					switch {
					case !inside:
						v = []int64{dtype.NaT, math.MaxInt64, math.MinInt64 + 1}[rng.IntN(3)]
					case rng.IntN(4) == 0:
						v = dtype.NaT
					default:
						v = rng.Int64N(2_000_000_000) - 1_000_000_000
					}
					binary.BigEndian.PutUint64(raw[8*e:], uint64(v))
					if !inside {
						continue
					}
					if v == dtype.NaT {
						nat++
					} else {
						valid++
						lo, hi = min(lo, v), max(hi, v)
					}
				}
				key, err := a.ChunkKey(coords)
				if err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, filepath.FromSlash(key))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, raw, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			elements := int64(1)
			for _, s := range c.shape {
				elements *= s
			}
			if missing := elements - nat - valid; missing > 0 {
				valid += missing
				lo, hi = min(lo, fill), max(hi, fill)
			}
			rep := runInspectJSON(t, dir)
			if rep.Format != c.format || rep.Elements != elements || rep.NaT != nat || rep.Valid != valid {
				t.Errorf("format %d, elements %d, NaT %d, valid %d; want %d, %d, %d, %d", rep.Format, rep.Elements, rep.NaT, rep.Valid, c.format, elements, nat, valid)
			}
			if rep.Min == nil || *rep.Min != lo || *rep.Max != hi {
				t.Errorf("min, max = %v, %v; want %d, %d", rep.Min, rep.Max, lo, hi)
			}
			if rep.Chunks.Present != present || rep.Chunks.Total != a.NumChunks() || rep.ByteOrder != "big" || rep.NumPy != ">M8[s]" {
				t.Errorf("report: %+v", rep)
			}
			if rep.FillValue != fill || rep.FillValueText != "1970-01-01T00:16:40" {
				t.Errorf("fill %d %q", rep.FillValue, rep.FillValueText)
			}
			// The same array checks out.
			out, _, err := runCLIInProcess(t, "validate", dir)
			if err != nil || !strings.HasPrefix(out, "ok: ") {
				t.Errorf("validate: %v\n%s", err, out)
			}
		})
	}
}

// TestInspectWrittenArray: an array written through the zarr package, with
// the default codecs, no chunk stored but one, and timedelta values.
func TestInspectWrittenArray(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "td.zarr")
	d := dtype.DataType{Kind: dtype.Timedelta, Unit: dtype.Microsecond, Scale: 10}
	a, err := zarr.Create(ctx, storage.NewDir(dir), zarr.Metadata{DataType: d, Shape: []int64{1000}, ChunkShape: []int64{100}, FillValue: dtype.NaT})
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]int64, 100)
	for i := range vals {
		vals[i] = int64(i) - 50
	}
	vals[7] = dtype.NaT
	if err := a.WriteChunk(ctx, []int64{3}, vals); err != nil {
		t.Fatal(err)
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	rep := runInspectJSON(t, dir)
	if rep.Elements != 1000 || rep.NaT != 901 || rep.Valid != 99 || *rep.Min != -50 || *rep.Max != 49 ||
		*rep.MinText != "-500 microseconds" || *rep.MaxText != "490 microseconds" {
		t.Errorf("report: %+v (min_text %q)", rep, *rep.MinText)
	}
	if rep.Chunks.Present != 1 || rep.Chunks.Missing != 9 || rep.DecodedBytes != 800 || rep.NumPy != "<m8[10us]" {
		t.Errorf("chunks %+v, decoded %d, numpy %s", rep.Chunks, rep.DecodedBytes, rep.NumPy)
	}
	// No valid value at all: min and max are null.
	empty := filepath.Join(t.TempDir(), "empty.zarr")
	a, err = zarr.Create(ctx, storage.NewDir(empty), zarr.Metadata{DataType: d, Shape: []int64{10}, ChunkShape: []int64{4}, FillValue: dtype.NaT})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLIInProcess(t, "inspect", "--json", empty)
	if err != nil || !strings.Contains(out, `"min": null`) || !strings.Contains(out, `"max_text": null`) || !strings.Contains(out, `"nat": 10`) {
		t.Errorf("empty array: %v\n%s", err, out)
	}
}

// TestInspectGenericUnit: a valid value of the generic unit has no date
// (NumPy refuses to print one); inspect says so instead of printing "NaT",
// which read as a missing value.
func TestInspectGenericUnit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "g.zarr")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	meta := `{"zarr_format":2,"shape":[2],"chunks":[2],"dtype":"<M8","compressor":null,"fill_value":null,"order":"C","filters":null}`
	chunk := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 5), 1<<63) // NaT
	if os.WriteFile(filepath.Join(dir, ".zarray"), []byte(meta), 0o644) != nil || os.WriteFile(filepath.Join(dir, "0"), chunk, 0o644) != nil {
		t.Fatal("writing the array")
	}
	out, _, err := run(t, nil, "inspect", dir)
	if err != nil || !strings.Contains(out, "1 valid, 1 NaT") || !strings.Contains(out, "min:         5  (no date: generic unit)") {
		t.Errorf("inspect: %v\n%s", err, out)
	}
}
