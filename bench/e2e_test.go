package bench

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// The end-to-end benchmark: a whole-array transcode against the codec
// floor: the same source chunks only decompressed with the source codec,
// and the destination's chunks (converted beforehand, outside the timer)
// only compressed with the destination codec, through the same zarr code
// paths and stores on the same number of goroutines. The floor encodes
// the destination's bytes, not the source's: zstd's speed depends on the
// data (it encodes big-endian nanoseconds about twice as fast as
// little-endian microseconds of the same instants). The ratio of the two
// is the engine's overhead (the kernel pass, buffer handling, scheduling):
//
//	go test -run '^$' -bench E2E -count 5 ./bench/
const (
	e2eElements = 8 << 20 // 64 MiB decoded
	e2eChunk    = 1 << 20 // 8 MiB chunks
)

type e2eCase struct {
	name   string
	src    []zarr.Codec // after the bytes codec
	order  binary.ByteOrder
	dst    transcode.Compression
	dstRaw zarr.Codec
}

var e2eCases = []e2eCase{
	// Legacy gzip big-endian ns -> zstd little-endian us: the demo's job.
	{"gzip1-zstd3", []zarr.Codec{zarr.GzipCodec{Level: 1}}, binary.BigEndian, transcode.Compression{Name: "zstd", Level: 3}, zarr.ZstdCodec{Level: 3}},
	// zstd -> zstd: cheaper codecs, so the engine's share shows more.
	{"zstd1-zstd1", []zarr.Codec{zarr.ZstdCodec{Level: 1}}, binary.LittleEndian, transcode.Compression{Name: "zstd", Level: 1}, zarr.ZstdCodec{Level: 1}},
}

func e2eSource(b *testing.B, c e2eCase) string {
	dir := filepath.Join(b.TempDir(), c.name)
	ctx := context.Background()
	a, err := zarr.Create(ctx, zarr.Dir(dir), zarr.Metadata{
		Format: 2, DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1},
		Shape: []int64{e2eElements}, ChunkShape: []int64{e2eChunk}, FillValue: dtype.NaT,
		Codecs: append([]zarr.Codec{zarr.BytesCodec{Endian: c.order}}, c.src...),
	})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([]int64, e2eChunk)
	for _, co := range a.ChunkCoords() {
		for i := range vals {
			vals[i] = 1_704_067_200_000_000_000 + (co[0]*e2eChunk+int64(i))*1_000_000_000 + rng.Int64N(1_000_001) - 500_000
			if rng.IntN(200) == 0 {
				vals[i] = dtype.NaT
			}
		}
		if err := a.WriteChunk(ctx, co, vals); err != nil {
			b.Fatal(err)
		}
	}
	if err := a.WriteMetadata(ctx); err != nil {
		b.Fatal(err)
	}
	return dir
}

// convertedChunks returns the destination chunks of a transcode of src,
// decoded: what the codec floor encodes.
func convertedChunks(b *testing.B, src string, c e2eCase) [][]byte {
	ctx := context.Background()
	dir := filepath.Join(b.TempDir(), "converted")
	us := dtype.Microsecond
	comp := c.dst
	t, err := transcode.New(ctx, zarr.Dir(src), zarr.Dir(dir), transcode.Options{Unit: &us, Endian: binary.LittleEndian, Compression: &comp, Format: 3})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := t.Run(ctx); err != nil {
		b.Fatal(err)
	}
	a, err := zarr.Open(ctx, zarr.Dir(dir))
	if err != nil {
		b.Fatal(err)
	}
	out := make([][]byte, a.NumChunks())
	for i := range out {
		out[i] = make([]byte, 8*a.ChunkLen())
		if _, _, err := a.ReadChunkRaw(ctx, a.ChunkCoordsAt(int64(i)), out[i]); err != nil {
			b.Fatal(err)
		}
	}
	return out
}

// codecFloor decodes every source chunk with the source codec and encodes
// the converted chunk into dst with the destination codec, on workers
// goroutines.
func codecFloor(b *testing.B, src, dst string, converted [][]byte, c e2eCase, workers int) {
	ctx := context.Background()
	in, err := zarr.Open(ctx, zarr.Dir(src))
	if err != nil {
		b.Fatal(err)
	}
	m := in.Metadata()
	m.Format, m.KeyEncoding = 3, zarr.KeyEncoding{}
	m.Codecs = []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}, c.dstRaw}
	out, err := zarr.Create(ctx, zarr.Dir(dst), m)
	if err != nil {
		b.Fatal(err)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			buf := make([]byte, 8*in.ChunkLen())
			for {
				i := next.Add(1) - 1
				if i >= in.NumChunks() {
					return
				}
				co := in.ChunkCoordsAt(i)
				if _, _, err := in.ReadChunkRaw(ctx, co, buf); err != nil {
					b.Error(err)
					return
				}
				if err := out.WriteChunkRaw(ctx, co, converted[i], binary.LittleEndian); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// runTranscode transcodes src into a new directory with workers workers.
func runTranscode(b *testing.B, src, dst string, c e2eCase, workers int) {
	us := dtype.Microsecond
	comp := c.dst
	t, err := transcode.New(context.Background(), zarr.Dir(src), zarr.Dir(dst), transcode.Options{
		Unit: &us, Endian: binary.LittleEndian, Compression: &comp, Format: 3, Workers: workers,
	})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := t.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
}

func timed(fn func()) time.Duration {
	t0 := time.Now()
	fn()
	return time.Since(t0)
}

func medianOf(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

// BenchmarkE2ERatio runs, in every round, the codec floor and the
// transcode back to back on 1 and on 2 workers, and reports the medians
// over rounds of transcode/floor time (overhead-x, target <= 1.10) and of
// the 2-worker transcode's speed-up over 1 worker (speedup-x, target >=
// 1.8). Ratios within a round cancel most of a shared machine's noise.
//
//	go test -run '^$' -bench E2ERatio -benchtime 7x ./bench/
func BenchmarkE2ERatio(b *testing.B) {
	for _, c := range e2eCases {
		src := e2eSource(b, c)
		converted := convertedChunks(b, src, c)
		b.Run("case="+c.name, func(b *testing.B) {
			var over1, over2, speedup, mbps []float64
			for i := 0; b.Loop(); i++ {
				dir := b.TempDir()
				d := func(s string) string { return filepath.Join(dir, fmt.Sprint(s, i)) }
				f1 := timed(func() { codecFloor(b, src, d("f1"), converted, c, 1) })
				t1 := timed(func() { runTranscode(b, src, d("t1"), c, 1) })
				f2 := timed(func() { codecFloor(b, src, d("f2"), converted, c, 2) })
				t2 := timed(func() { runTranscode(b, src, d("t2"), c, 2) })
				over1 = append(over1, t1.Seconds()/f1.Seconds())
				over2 = append(over2, t2.Seconds()/f2.Seconds())
				speedup = append(speedup, t1.Seconds()/t2.Seconds())
				mbps = append(mbps, 8*e2eElements/t2.Seconds()/1e6)
				b.StopTimer()
				os.RemoveAll(dir)
				b.StartTimer()
			}
			b.ReportMetric(medianOf(over1), "overhead-x-w1")
			b.ReportMetric(medianOf(over2), "overhead-x-w2")
			b.ReportMetric(medianOf(speedup), "speedup-x")
			b.ReportMetric(medianOf(mbps), "MB/s-w2")
		})
	}
}

func BenchmarkE2E(b *testing.B) {
	us := dtype.Microsecond
	for _, c := range e2eCases {
		src := e2eSource(b, c)
		converted := convertedChunks(b, src, c)
		for _, op := range []string{"floor", "transcode"} {
			for _, workers := range []int{1, 2} {
				b.Run(fmt.Sprintf("case=%s/op=%s/workers=%d", c.name, op, workers), func(b *testing.B) {
					b.SetBytes(8 * e2eElements)
					// CPU time as well as wall time: on a shared machine
					// the wall time of a run depends on the neighbours.
					cpu0 := cpuTime()
					n := 0
					for i := 0; b.Loop(); i++ {
						n++
						b.StopTimer()
						dst := filepath.Join(b.TempDir(), fmt.Sprint(i))
						b.StartTimer()
						if op == "floor" {
							codecFloor(b, src, dst, converted, c, workers)
							continue
						}
						comp := c.dst
						t, err := transcode.New(context.Background(), zarr.Dir(src), zarr.Dir(dst), transcode.Options{
							Unit: &us, Endian: binary.LittleEndian, Compression: &comp, Format: 3, Workers: workers,
						})
						if err != nil {
							b.Fatal(err)
						}
						if _, err := t.Run(context.Background()); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(n), "cpu-ms/op")
				})
			}
		}
	}
}

// cpuTime is the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
