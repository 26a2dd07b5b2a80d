package zarr

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
)

const python = "/usr/bin/python3"

// requireZarrPython fails the test (skips it under -short) when
// /usr/bin/python3 cannot import zarr: interop with zarr-python is part of
// what this package promises, so a missing zarr must not pass silently.
func requireZarrPython(t *testing.T) {
	t.Helper()
	out, err := exec.Command(python, "-c", "import zarr, numcodecs; print(zarr.__version__)").CombinedOutput()
	if err == nil {
		return
	}
	msg := "zarr-python interop test needs " + python + " with zarr 2 (install it: apt-get install python3-zarr): " + err.Error() + ": " + string(out)
	if testing.Short() {
		t.Skip(msg)
	}
	t.Fatal(msg)
}

// readFlat reads any array into a flat C-order slice.
func readFlat(t *testing.T, a *Array) []int64 {
	t.Helper()
	m := a.Metadata()
	n, err := numElements(m.Shape, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int64, n)
	buf := make([]int64, a.ChunkLen())
	for _, c := range a.ChunkCoords() {
		if err := a.ReadChunk(context.Background(), c, buf); err != nil {
			t.Fatal(err)
		}
		for j, v := range buf {
			if k := flatIndex(m.Shape, m.ChunkShape, c, j); k >= 0 {
				out[k] = v
			}
		}
	}
	return out
}

type pyExpected struct {
	Dtype    string  `json:"dtype"`
	Shape    []int64 `json:"shape"`
	FillNull bool    `json:"fill_null"`
	Values   []int64 `json:"values"`
}

func TestReadZarrPythonV2(t *testing.T) {
	requireZarrPython(t)
	dir := t.TempDir()
	cmd := exec.Command(python, "../tools/zarrpy/write_v2.py", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("write_v2.py: %v\n%s", err, out)
	}
	var exp map[string]pyExpected
	readJSONFile(t, filepath.Join(dir, "expected.json"), &exp)
	if len(exp) < 8 {
		t.Fatalf("expected.json has %d arrays", len(exp))
	}
	for name, e := range exp {
		t.Run(name, func(t *testing.T) {
			a, err := Open(context.Background(), storage.NewDir(filepath.Join(dir, name+".zarr")))
			if err != nil {
				t.Fatal(err)
			}
			m := a.Metadata()
			if m.Format != 2 || m.FillNull != e.FillNull || m.DataType.NumPy(a.ByteOrder()) != e.Dtype {
				t.Errorf("metadata %+v, dtype %s; want v2 %s fill_null=%v", m, m.DataType.NumPy(a.ByteOrder()), e.Dtype, e.FillNull)
			}
			got := readFlat(t, a)
			if len(got) != len(e.Values) {
				t.Fatalf("%d values, want %d", len(got), len(e.Values))
			}
			for i := range got {
				if got[i] != e.Values[i] {
					t.Errorf("[%d] = %d, zarr-python read %d", i, got[i], e.Values[i])
				}
			}
		})
	}
}

type pyRead struct {
	Dtype     string          `json:"dtype"`
	Shape     []int64         `json:"shape"`
	FillValue *int64          `json:"fill_value"`
	Attrs     json.RawMessage `json:"attrs"`
	Values    []int64         `json:"values"`
}

func TestWriteForZarrPythonV2(t *testing.T) {
	requireZarrPython(t)
	ctx := context.Background()
	dir := t.TempDir()
	type tcase struct {
		dtype      string
		shape      []int64
		chunks     []int64
		comp       Codec
		fill       int64
		fillNull   bool
		sep        string
		writeEmpty bool
	}
	cases := map[string]tcase{
		"ns_le_zstd":         {"<M8[ns]", []int64{23}, []int64{5}, ZstdCodec{Level: 3}, dtype.NaT, false, ".", false},
		"10us_be_zlib":       {">M8[10us]", []int64{23}, []int64{5}, ZlibCodec{Level: 5}, 0, false, ".", false},
		"25h_le_gzip":        {"<m8[25h]", []int64{17}, []int64{4}, GzipCodec{Level: 6}, dtype.NaT, false, ".", true},
		"ms_be_none":         {">m8[ms]", []int64{12}, []int64{5}, nil, -1, false, ".", false},
		"s_le_zstd_2d_slash": {"<M8[s]", []int64{7, 9}, []int64{3, 4}, ZstdCodec{Level: -1}, dtype.NaT, false, "/", false},
		"D_be_gzip_2d":       {">M8[D]", []int64{7, 9}, []int64{3, 4}, GzipCodec{Level: 1}, dtype.NaT, false, ".", false},
		"M_le_fillnull":      {"<M8[M]", []int64{10}, []int64{4}, ZstdCodec{Level: 19}, 0, true, ".", false},
		"us_be_0d":           {">M8[us]", []int64{}, []int64{}, ZstdCodec{}, dtype.NaT, false, ".", false},
		"big_chunk_zstd":     {"<m8[ns]", []int64{100000}, []int64{40000}, ZstdCodec{Level: 3}, dtype.NaT, false, ".", false},
	}
	truths := map[string][]int64{}
	var paths []string
	for name, c := range cases {
		dt, order, err := dtype.ParseNumPy(c.dtype)
		if err != nil {
			t.Fatal(err)
		}
		codecs := []Codec{BytesCodec{Endian: order}}
		if c.comp != nil {
			codecs = append(codecs, c.comp)
		}
		path := filepath.Join(dir, name+".zarr")
		paths = append(paths, path)
		fill := c.fill
		if c.fillNull {
			fill = dtype.NaT
		}
		a, err := Create(ctx, storage.NewDir(path), Metadata{Format: 2, DataType: dt, Shape: c.shape, ChunkShape: c.chunks,
			FillValue: fill, FillNull: c.fillNull, KeyEncoding: KeyEncoding{"v2", c.sep}, Codecs: codecs,
			Attributes: json.RawMessage(`{"written_by":"dt64"}`)})
		if err != nil {
			t.Fatal(err)
		}
		a.SetWriteEmptyChunks(c.writeEmpty)
		n, _ := numElements(c.shape, 1<<30)
		truth := truthValues(int(n), uint64(len(name)))
		if !c.fillNull && n > 10 {
			// A run of fill values: an all-fill chunk that is not stored
			// and must read as fill in zarr-python.
			for i := 0; i < 10 && i < int(n); i++ {
				truth[i] = fill
			}
		}
		truths[path] = truth
		writeAll(t, a, truth)
		if err := a.WriteMetadata(ctx); err != nil {
			t.Fatal(err)
		}
	}
	out, err := exec.Command(python, append([]string{"../tools/zarrpy/read_v2.py"}, paths...)...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("read_v2.py: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var got map[string]pyRead
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("read_v2.py output: %v\n%.500s", err, out)
	}
	for name, c := range cases {
		path := filepath.Join(dir, name+".zarr")
		r, ok := got[path]
		if !ok {
			t.Errorf("%s: not read by zarr-python", name)
			continue
		}
		if r.Dtype != c.dtype {
			t.Errorf("%s: zarr-python dtype %s, want %s", name, r.Dtype, c.dtype)
		}
		if c.fillNull != (r.FillValue == nil) || (r.FillValue != nil && *r.FillValue != c.fill) {
			t.Errorf("%s: zarr-python fill_value %v, want %d (null %v)", name, r.FillValue, c.fill, c.fillNull)
		}
		if !bytes.Equal(r.Attrs, []byte(`{"written_by": "dt64"}`)) {
			t.Errorf("%s: attrs %s", name, r.Attrs)
		}
		truth := truths[path]
		if len(r.Values) != len(truth) {
			t.Errorf("%s: zarr-python read %d values, want %d", name, len(r.Values), len(truth))
			continue
		}
		bad := 0
		for i := range truth {
			if r.Values[i] != truth[i] && bad < 5 {
				bad++
				t.Errorf("%s[%d]: zarr-python read %d, dt64 wrote %d", name, i, r.Values[i], truth[i])
			}
		}
	}
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	b, err := readFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
