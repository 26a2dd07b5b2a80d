package zarr

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/zarr-dt64/dt64/storage"
)

type fixtureValue struct {
	Kind  string  `json:"kind"`
	Index []int64 `json:"index"`
	Int   int64   `json:"int"`
	NaT   bool    `json:"nat"`
}

// readValuesJSONL returns the flat (C order) values zarr-python read back.
func readValuesJSONL(t *testing.T, path string) []int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vals []int64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v fixtureValue
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if v.Kind != "value" {
			continue
		}
		if len(v.Index) != 1 || v.Index[0] != int64(len(vals)) {
			t.Fatalf("%s: unexpected index %v", path, v.Index)
		}
		vals = append(vals, v.Int)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return vals
}

// readAll reads a 1-D array into a flat slice via ReadChunk.
func readAll(t *testing.T, a *Array) []int64 {
	t.Helper()
	ctx := context.Background()
	shape := a.Shape()
	if len(shape) != 1 {
		t.Fatalf("readAll wants 1-D, got %v", shape)
	}
	out := make([]int64, 0, shape[0])
	buf := make([]int64, a.ChunkLen())
	for _, c := range a.ChunkCoords() {
		if err := a.ReadChunk(ctx, c, buf); err != nil {
			t.Fatal(err)
		}
		n := min(int64(len(buf)), shape[0]-c[0]*int64(len(buf)))
		out = append(out, buf[:n]...)
	}
	return out
}

func TestFixturesV3(t *testing.T) {
	dirs, err := filepath.Glob("../testdata/zarr/v3/*.zarr")
	if err != nil || len(dirs) < 9 {
		t.Fatalf("fixtures missing: %v %v", dirs, err)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			a, err := Open(context.Background(), storage.NewDir(dir))
			if err != nil {
				t.Fatal(err)
			}
			want := readValuesJSONL(t, dir+".values.jsonl")
			got := readAll(t, a)
			if len(got) != len(want) {
				t.Fatalf("%d values, want %d", len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("[%d] = %d, want %d", i, got[i], want[i])
				}
			}
		})
	}
}

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }
