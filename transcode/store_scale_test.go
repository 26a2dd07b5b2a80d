package transcode_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// TestStoreScale measures the target: a hierarchy of 10 arrays
// with 100 000 chunks in all transcodes within one array's memory bound,
// and planning plus the resume listing take under 5 % of the run. It
// writes 100 000 files, so it runs only with DT64_STORE_SCALE=1:
//
//	DT64_STORE_SCALE=1 go test -run TestStoreScale -v ./transcode/
func TestStoreScale(t *testing.T) {
	if os.Getenv("DT64_STORE_SCALE") == "" {
		t.Skip("set DT64_STORE_SCALE=1 to run (writes 100 000 chunk files)")
	}
	const arrays, chunksPer, chunk = 10, 10_000, 512
	dir := t.TempDir()
	srcDir := filepath.Join(dir, "src.zarr")
	if d := os.Getenv("DT64_STORE_SCALE_SRC"); d != "" {
		srcDir = d // kept between runs: writing it takes minutes
	}
	src := storage.NewDir(srcDir)
	src.NoSync = true
	if _, err := os.Stat(filepath.Join(srcDir, ".zgroup")); err == nil {
		t.Logf("reusing %s", srcDir)
	} else if err := src.Set(ctx, ".zgroup", []byte(`{"zarr_format": 2}`)); err != nil {
		t.Fatal(err)
	}
	for i := range arrays {
		if _, err := os.Stat(filepath.Join(srcDir, fmt.Sprintf("a%d", i), ".zarray")); err == nil {
			continue
		}
		m := zarr.Metadata{Format: 2, Shape: []int64{chunksPer * chunk}, ChunkShape: []int64{chunk},
			Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}, zarr.ZstdCodec{Level: 1}}}
		if i < 2 {
			m.DataType = ns
		} else {
			m.Numeric = zarr.NumericType{Kind: zarr.Float, Size: 8}
		}
		a, err := zarr.Create(ctx, mustSub(t, src, fmt.Sprintf("a%d", i)), m)
		if err != nil {
			t.Fatal(err)
		}
		raw := make([]byte, 8*chunk)
		for c := range int64(chunksPer) {
			for j := range chunk {
				binary.LittleEndian.PutUint64(raw[8*j:], uint64(c*chunk+int64(j))*1_000_003)
			}
			if _, err := a.WriteChunkRaw(ctx, []int64{c}, raw); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.WriteMetadata(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// The peak heap of a run of one of the arrays alone, then of all ten:
	// the whole store must stay within one array's memory (plus what
	// the plan keeps of every chunk key), not grow with the store.
	one, _ := scaleRun(t, src, filepath.Join(dir, "one.zarr"), []string{"a2"})
	all, msg := scaleRun(t, src, filepath.Join(dir, "dst.zarr"), nil)
	t.Logf("%s; one array alone: peak heap %.1f MiB", msg, float64(one)/(1<<20))
	if limit := one*3/2 + 8<<20; all > limit {
		t.Errorf("peak heap of the store %.1f MiB, of one array %.1f MiB: more than 1.5 × + 8 MiB", float64(all)/(1<<20), float64(one)/(1<<20))
	}
}

// scaleRun transcodes src (only include, if any) into a new dst, then
// resumes the complete result, and returns the peak heap in use during the
// first run and a line of figures.
func scaleRun(t *testing.T, src storage.Store, dstDir string, include []string) (uint64, string) {
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		var ms runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
			}
		}
	}()
	dst := storage.NewDir(dstDir)
	dst.NoSync = true
	o := transcode.StoreOptions{Options: transcode.Options{Format: 3, Unit: 0, Workers: 2}, Include: include}
	start := time.Now()
	j, err := transcode.NewStore(ctx, src, dst, o)
	if err != nil {
		t.Fatal(err)
	}
	planning := time.Since(start)
	sum, err := j.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	total := time.Since(start)
	close(stop)
	<-stopped
	o.Resume = true
	start = time.Now()
	j2, err := transcode.NewStore(ctx, src, dst, o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j2.Run(ctx); err != nil {
		t.Fatal(err)
	}
	resume := time.Since(start)
	bound := j.Plan().MemoryBound
	return peak.Load(), fmt.Sprintf("%d arrays, %d chunks: run %s, planning %s (%.1f %%), resume of the complete store %s (%.1f %%); peak heap %.1f MiB, plan's buffer bound %.1f MiB",
		len(j.Plan().Arrays), sum.Chunks, total.Round(time.Millisecond), planning.Round(time.Millisecond), 100*planning.Seconds()/total.Seconds(),
		resume.Round(time.Millisecond), 100*resume.Seconds()/total.Seconds(), float64(peak.Load())/(1<<20), float64(bound)/(1<<20))
}
