package transcode_test

import (
	"encoding/binary"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
)

// coarsestNs is the index of the coarsest grid of the float rule's
// ladder (day, hour, minute, second, 100 ms … 1 ns) that v (ns since the
// epoch) is on.
func coarsestNs(v int64) int {
	g := []int64{86400e9, 3600e9, 60e9, 1e9, 1e8, 1e7, 1e6, 1e5, 1e4, 1e3, 100, 10, 1}
	for i, s := range g {
		if v%s == 0 {
			return i
		}
	}
	return len(g)
}

// TestCFFloatShortestXarray: time coordinates xarray 2023.01 writes as
// float64 and float32 CF times (little and big endian, hourly,
// 15-minute and minute data, an edge chunk) decode by default to the
// instants written, at ns (v2 and v3, each byte order) and at s, and
// --verify agrees. xarray's own decoding equals them wherever it is not
// float noise (on a grid as coarse as the written instant's); the noise
// it keeps is counted.
func TestCFFloatShortestXarray(t *testing.T) {
	requireXarray(t)
	dir := t.TempDir()
	out, err := exec.Command(python, filepath.Join("..", "tools", "xarray", "float_times.py"), dir).Output()
	if err != nil {
		t.Fatalf("float_times.py: %v", err)
	}
	var fixtures map[string]struct{ Written, Xarray []int64 }
	if err := json.Unmarshal(out, &fixtures); err != nil {
		t.Fatal(err)
	}
	noise := 0
	for name, fx := range fixtures {
		src := storage.NewDir(filepath.Join(dir, name+".zarr", "time"))
		for _, o := range []transcode.Options{
			{Unit: dtype.Nanosecond, Workers: 1},
			{Unit: dtype.Nanosecond, Format: 3, Endian: binary.BigEndian, Workers: 2},
			{Unit: dtype.Nanosecond, Endian: binary.LittleEndian, Workers: 2, Exact: true},
			{Unit: dtype.Second, Workers: 2, Exact: true},
		} {
			dst := storage.NewMemory()
			job, err := transcode.New(ctx, src, dst, o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			sum, err := job.Run(ctx)
			if err != nil {
				t.Fatalf("%s %+v: %v", name, o, err)
			}
			if sum.Lossy != 0 || sum.Elements != int64(len(fx.Written)) {
				t.Errorf("%s %+v: summary %+v, want %d elements, none lossy", name, o, sum, len(fx.Written))
			}
			if err := job.Verify(ctx); err != nil {
				t.Errorf("%s %+v: verify: %v", name, o, err)
			}
			a, got := readArray(t, dst)
			sameValues(t, name+" "+a.DataType().String(), toNanoseconds(t, a.DataType(), got), fx.Written)
		}
		for i, w := range fx.Written {
			switch x := fx.Xarray[i]; {
			case coarsestNs(x) <= coarsestNs(w) && x != w:
				t.Errorf("%s element %d: xarray decodes %d, not float noise, and dt64 %d", name, i, x, w)
			case x != w:
				noise++
			}
		}
	}
	t.Logf("%d fixtures; %d elements where xarray keeps float noise", len(fixtures), noise)
}
